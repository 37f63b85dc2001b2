// The `tfrt_dht` dialect: dense host tensors and the buffers under them,
// with TFRT's op names and syntax. Ops that work on elements carry the
// element type in their name (`.i32`; i1 is also spelled `.bool`, as TFRT
// spells it), and create_uninitialized_tensor carries the rank as well.
// See docs/tensors.md.

#ifndef SLUICE_DIALECTS_TFRT_DHT_TFRT_DHT_OPS_TD_
#define SLUICE_DIALECTS_TFRT_DHT_TFRT_DHT_OPS_TD_

include "dialects/ht/ht_base.td"
include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "dialects/ts/ts_base.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TfrtDht_Dialect : Dialect {
  let name = "tfrt_dht";
  let summary = "dense host tensors and host buffers";
  let cppNamespace = "::sluice::tfrt_dht";
  // Same reason as for `tfrt`: the emitter walks one attribute dictionary
  // per op, and the generic form should print the attributes TFRT's would.
  let usePropertiesForAttributes = 0;
  // The ops' operand and result types may be parsed before anything else
  // has loaded their dialects.
  let dependentDialects = [
    "::sluice::tfrt::TfrtDialect", "::sluice::t::TDialect",
    "::sluice::ts::TsDialect", "::sluice::ht::HtDialect"
  ];
}

// Ops with two results leave them unnamed, so they print as `%0:2` like
// TFRT's rather than by name.
class TfrtDht_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtDht_Dialect, mnemonic, traits>;

// A scalar attribute of `type`. Unlike OpBase's I32Attr and the like it has
// no built-in type, so the custom syntax writes the type as TFRT's does
// (`0 : i32`, `1.0 : f32`) and a value of another type fails to verify.
class TfrtDht_ScalarAttr<Type type, string storage>
    : Attr<And<[CPred<"::llvm::isa<" # storage # ">($_self)">,
                SubstLeaves<"$_self",
                            "::llvm::cast<" # storage # ">($_self).getType()",
                            type.predicate>]>,
           type.summary # " attribute"> {
  let storageType = storage;
  let returnType = storage;
  let convertFromStorage = "$_self";
}

// An element type: its spelling in op names, its C++ spelling in class
// names, its MLIR type and its attribute.
class TfrtDht_DType<string spelling, string cpp_name, Type element_type,
                    string storage> {
  string name = spelling;
  string cpp = cpp_name;
  Type type = element_type;
  Attr attr = TfrtDht_ScalarAttr<element_type, storage>;
}

defvar TfrtDht_DTypes = [
  TfrtDht_DType<"i1", "I1", I1, "::mlir::IntegerAttr">,
  TfrtDht_DType<"bool", "Bool", I1, "::mlir::IntegerAttr">,
  TfrtDht_DType<"i32", "I32", I32, "::mlir::IntegerAttr">,
  TfrtDht_DType<"i64", "I64", I64, "::mlir::IntegerAttr">,
  TfrtDht_DType<"f32", "F32", F32, "::mlir::FloatAttr">,
  TfrtDht_DType<"f64", "F64", F64, "::mlir::FloatAttr">,
];

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

class TfrtDht_CreateUninitializedTensorOp<TfrtDht_DType dtype, int rank>
    : TfrtDht_Op<"create_uninitialized_tensor." # dtype.name # "." # rank> {
  let summary = "a new tensor of rank " # rank # " from the host allocator";
  let description = [{
    `tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]`. TFRT
    leaves the elements unspecified; Sluice sets them to zero.
  }];
  let arguments = (ins I64ArrayAttr:$shape);
  let results = (outs T_TensorType:$result);
  let assemblyFormat = "$shape attr-dict";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return VerifyShapeOfRank(*this, getShape(), }] # rank # [{);
    }
  }];
}

class TfrtDht_FillTensorWithConstantOp<TfrtDht_DType dtype>
    : TfrtDht_Op<"fill_tensor_with_constant." # dtype.name> {
  let summary = "sets every element of the tensor to `value`";
  let arguments = (ins T_TensorType:$tensor, Tfrt_ChainType:$in_chain,
                   dtype.attr:$value);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "operands $value attr-dict";
}

class TfrtDht_SetTensorWithConstantValuesOp<TfrtDht_DType dtype>
    : TfrtDht_Op<"set_tensor_with_constant_values." # dtype.name> {
  let summary = "sets the tensor's elements, row-major, to `values`";
  let arguments = (ins T_TensorType:$tensor, Tfrt_ChainType:$in_chain,
                   TypedArrayAttrBase<dtype.attr,
                                      "array of " # dtype.name # " attributes">:$values);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "operands $values attr-dict";
}

// TFRT writes this one in generic form only.
class TfrtDht_SetTensorWithValuesOp<TfrtDht_DType dtype>
    : TfrtDht_Op<"set_tensor_with_values." # dtype.name> {
  let summary = "sets the tensor's elements, row-major, to the operands";
  let arguments = (ins T_TensorType:$tensor, Tfrt_ChainType:$in_chain,
                   Variadic<dtype.type>:$values);
  let results = (outs Tfrt_ChainType:$out_chain);
}

class TfrtDht_MakeTensorOp<TfrtDht_DType dtype>
    : TfrtDht_Op<"make_tensor." # dtype.name> {
  let summary = "a tensor over the bytes of `buffer`, shared with it";
  let arguments = (ins Ht_HostBufferType:$buffer, Ts_ShapeType:$shape,
                   Tfrt_ChainType:$in_chain);
  let results = (outs T_TensorType, Tfrt_ChainType);
  let assemblyFormat = "operands attr-dict";
}

class TfrtDht_TensorEqualOp<TfrtDht_DType dtype>
    : TfrtDht_Op<"tensor_equal." # dtype.name> {
  let summary = "whether two tensors have the same shape and elements";
  let arguments = (ins T_TensorType:$lhs, T_TensorType:$rhs,
                   Tfrt_ChainType:$in_chain);
  let results = (outs I1, Tfrt_ChainType);
  let assemblyFormat = "operands attr-dict";
}

foreach dtype = TfrtDht_DTypes in {
  foreach rank = [0, 1, 2, 3, 4] in {
    def TfrtDht_CreateUninitializedTensor # dtype.cpp # Rank # rank # Op
        : TfrtDht_CreateUninitializedTensorOp<dtype, rank>;
  }
  def TfrtDht_FillTensorWithConstant # dtype.cpp # Op
      : TfrtDht_FillTensorWithConstantOp<dtype>;
  def TfrtDht_SetTensorWithConstantValues # dtype.cpp # Op
      : TfrtDht_SetTensorWithConstantValuesOp<dtype>;
  def TfrtDht_SetTensorWithValues # dtype.cpp # Op
      : TfrtDht_SetTensorWithValuesOp<dtype>;
  def TfrtDht_MakeTensor # dtype.cpp # Op : TfrtDht_MakeTensorOp<dtype>;
  def TfrtDht_TensorEqual # dtype.cpp # Op : TfrtDht_TensorEqualOp<dtype>;
}

def TfrtDht_PrintTensorOp : TfrtDht_Op<"print_tensor"> {
  let summary = "prints the tensor: `DenseHostTensor dtype = ..., shape = "
                "[...], values = [...]`";
  let arguments = (ins T_TensorType:$tensor, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "operands attr-dict";
}

def TfrtDht_GetTensorShapeOp
    : TfrtDht_Op<"get_tensor_shape", [Pure]> {
  let summary = "the tensor's shape";
  let arguments = (ins T_TensorType:$tensor);
  let results = (outs Ts_ShapeType:$shape);
  let assemblyFormat = "operands attr-dict";
}

// TFRT writes this one in generic form only.
def TfrtDht_PrintTensorShapeOp : TfrtDht_Op<"print_tensor_shape"> {
  let summary = "prints the tensor's shape: `[d0, d1, ...]`";
  let arguments = (ins T_TensorType:$tensor, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def TfrtDht_GetBufferOp : TfrtDht_Op<"get_buffer"> {
  let summary = "the buffer under the tensor, shared with it";
  let arguments = (ins T_TensorType:$tensor, Tfrt_ChainType:$in_chain);
  let results = (outs Ht_HostBufferType, Tfrt_ChainType);
  let assemblyFormat = "operands attr-dict";
}

def TfrtDht_PrintBufferOp : TfrtDht_Op<"print_buffer"> {
  let summary = "prints `HostBuffer<pointer=0x..., size=N>`";
  let arguments = (ins Ht_HostBufferType:$buffer, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "operands attr-dict";
}

def TfrtDht_AllocateBufferOp : TfrtDht_Op<"allocate_buffer"> {
  let summary = "`size` bytes from the host allocator, aligned on `alignment`";
  let description = [{
    Sluice sets the bytes to zero. `alignment` must be a power of two.
  }];
  let arguments = (ins I64:$size, I64:$alignment);
  let results = (outs Ht_HostBufferType:$buffer);
  let assemblyFormat = "operands attr-dict";
}

def TfrtDht_GetBufferSliceOp : TfrtDht_Op<"get_buffer_slice", [Pure]> {
  let summary = "bytes [offset, offset + size) of the buffer, shared with it";
  let arguments = (ins Ht_HostBufferType:$buffer, I64:$offset, I64:$size);
  let results = (outs Ht_HostBufferType:$slice);
  let assemblyFormat = "operands attr-dict";
}

#endif  // SLUICE_DIALECTS_TFRT_DHT_TFRT_DHT_OPS_TD_

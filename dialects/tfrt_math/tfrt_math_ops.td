// The `tfrt_math` dialect: the tensor math a small model needs, on dense
// host tensors (!t.tensor). Ops have value semantics: each returns new
// tensors and leaves its operands alone, so none returns a chain. Every op
// that reads tensors takes an optional trailing !tfrt.chain, to run after
// the writes that chain stands for (tfrt_dht.set_tensor_with_constant_values,
// say), since a tensor written in place is the same value before and after
// the write.
//
// Ops that depend on the element type carry it in their name (`.f32`), and
// their kernels check it against the operands. See docs/tensor_math.md.

#ifndef SLUICE_DIALECTS_TFRT_MATH_TFRT_MATH_OPS_TD_
#define SLUICE_DIALECTS_TFRT_MATH_TFRT_MATH_OPS_TD_

include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TfrtMath_Dialect : Dialect {
  let name = "tfrt_math";
  let summary = "tensor math on dense host tensors";
  let cppNamespace = "::sluice::tfrt_math";
  // Same reason as for `tfrt`: the emitter walks one attribute dictionary
  // per op.
  let usePropertiesForAttributes = 0;
  // Operand and result types may be parsed before anything else has loaded
  // their dialects.
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect"];
}

class TfrtMath_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtMath_Dialect, mnemonic, traits>;

// An element type: its spelling in op names, its C++ spelling in class
// names, and the attribute of a scalar of it.
class TfrtMath_DType<string spelling, string cpp_name, Attr scalar_attr> {
  string name = spelling;
  string cpp = cpp_name;
  Attr attr = scalar_attr;
}

def TfrtMath_I32 : TfrtMath_DType<"i32", "I32", I32Attr>;
def TfrtMath_I64 : TfrtMath_DType<"i64", "I64", I64Attr>;
def TfrtMath_F32 : TfrtMath_DType<"f32", "F32", F32Attr>;
def TfrtMath_F64 : TfrtMath_DType<"f64", "F64", F64Attr>;

defvar TfrtMath_FloatDTypes = [TfrtMath_F32, TfrtMath_F64];
defvar TfrtMath_NumericDTypes = [TfrtMath_I32, TfrtMath_I64, TfrtMath_F32,
                                 TfrtMath_F64];

// `tfrt_math.<name>.<dtype> %operands..., %chain? {attributes}`: one tensor
// result, the operands by position, attributes in the dictionary.
class TfrtMath_TensorOp<string name, TfrtMath_DType dtype, dag operands,
                        string summary_text>
    : TfrtMath_Op<name # "." # dtype.name> {
  let summary = summary_text;
  let arguments = !con(operands,
                       (ins Optional<Tfrt_ChainType>:$in_chain));
  let results = (outs T_TensorType:$result);
}

class TfrtMath_UnaryOp<string name, TfrtMath_DType dtype, string summary>
    : TfrtMath_TensorOp<name, dtype, (ins T_TensorType:$x), summary> {
  let assemblyFormat = "$x (`,` $in_chain^)? attr-dict";
}

class TfrtMath_BinaryOp<string name, TfrtMath_DType dtype, string summary>
    : TfrtMath_TensorOp<name, dtype, (ins T_TensorType:$a, T_TensorType:$b),
                        summary> {
  let assemblyFormat = "$a `,` $b (`,` $in_chain^)? attr-dict";
}

// The gradient of an activation: upstream gradient `dy` and one tensor of
// the forward pass.
class TfrtMath_GradientOp<string name, TfrtMath_DType dtype, string forward,
                          string summary>
    : TfrtMath_TensorOp<name, dtype,
                        !con((ins T_TensorType:$dy),
                             !dag(ins, [T_TensorType], [forward])),
                        summary> {
  let assemblyFormat = "$dy `,` $" # forward # " (`,` $in_chain^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Matrix product
//===----------------------------------------------------------------------===//

foreach dtype = TfrtMath_FloatDTypes in {
  def TfrtMath_MatMul # dtype.cpp # Op
      : TfrtMath_TensorOp<"matmul", dtype,
                          (ins T_TensorType:$a, T_TensorType:$b,
                               OptionalAttr<BoolAttr>:$transpose_a,
                               OptionalAttr<BoolAttr>:$transpose_b),
                          "op(a) x op(b), op transposing where the flag says"> {
    let assemblyFormat = "$a `,` $b (`,` $in_chain^)? attr-dict";
  }
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

foreach dtype = TfrtMath_NumericDTypes in {
  def TfrtMath_Add # dtype.cpp # Op
      : TfrtMath_BinaryOp<"add", dtype, "a + b; b may be a scalar or a row">;
  def TfrtMath_Sub # dtype.cpp # Op
      : TfrtMath_BinaryOp<"sub", dtype, "a - b; b may be a scalar or a row">;
  def TfrtMath_Mul # dtype.cpp # Op
      : TfrtMath_BinaryOp<"mul", dtype, "a * b; b may be a scalar or a row">;
  def TfrtMath_Div # dtype.cpp # Op
      : TfrtMath_BinaryOp<"div", dtype, "a / b; b may be a scalar or a row">;
}

foreach dtype = TfrtMath_FloatDTypes in {
  def TfrtMath_Scale # dtype.cpp # Op
      : TfrtMath_TensorOp<"scale", dtype,
                          (ins T_TensorType:$x, dtype.attr:$factor),
                          "x * factor"> {
    let assemblyFormat = "$x (`,` $in_chain^)? attr-dict";
  }
}

//===----------------------------------------------------------------------===//
// Activations and their gradients
//===----------------------------------------------------------------------===//

foreach dtype = TfrtMath_NumericDTypes in {
  def TfrtMath_Relu # dtype.cpp # Op
      : TfrtMath_UnaryOp<"relu", dtype, "max(x, 0)">;
  def TfrtMath_ReluGrad # dtype.cpp # Op
      : TfrtMath_GradientOp<"relu_grad", dtype, "x",
                            "dy where the forward input x > 0, else 0">;
}

foreach dtype = TfrtMath_FloatDTypes in {
  def TfrtMath_Sigmoid # dtype.cpp # Op
      : TfrtMath_UnaryOp<"sigmoid", dtype, "1 / (1 + exp(-x))">;
  def TfrtMath_Tanh # dtype.cpp # Op
      : TfrtMath_UnaryOp<"tanh", dtype, "tanh(x)">;
  def TfrtMath_SigmoidGrad # dtype.cpp # Op
      : TfrtMath_GradientOp<"sigmoid_grad", dtype, "y",
                            "dy * y * (1 - y), y the forward output">;
  def TfrtMath_TanhGrad # dtype.cpp # Op
      : TfrtMath_GradientOp<"tanh_grad", dtype, "y",
                            "dy * (1 - y * y), y the forward output">;
}

//===----------------------------------------------------------------------===//
// Loss and metrics
//===----------------------------------------------------------------------===//

foreach dtype = TfrtMath_FloatDTypes in {
  def TfrtMath_SoftmaxCrossEntropy # dtype.cpp # Op
      : TfrtMath_Op<"softmax_cross_entropy." # dtype.name> {
    let summary = "mean softmax cross-entropy of logits against labels, and "
                  "its gradient wrt the logits";
    let arguments = (ins T_TensorType:$logits, T_TensorType:$labels,
                         Optional<Tfrt_ChainType>:$in_chain);
    let results = (outs T_TensorType:$loss, T_TensorType:$gradient);
    let assemblyFormat = "$logits `,` $labels (`,` $in_chain^)? attr-dict";
  }
  def TfrtMath_Accuracy # dtype.cpp # Op
      : TfrtMath_TensorOp<"accuracy", dtype,
                          (ins T_TensorType:$predictions,
                               T_TensorType:$labels),
                          "the fraction of rows whose argmax is the label"> {
    let assemblyFormat =
        "$predictions `,` $labels (`,` $in_chain^)? attr-dict";
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Over `axis`, or over every element when the op has none.
class TfrtMath_ReductionOp<string name, TfrtMath_DType dtype, string summary>
    : TfrtMath_TensorOp<name, dtype,
                        (ins T_TensorType:$x, OptionalAttr<I64Attr>:$axis),
                        summary> {
  let assemblyFormat = "$x (`,` $in_chain^)? attr-dict";
}

foreach dtype = TfrtMath_NumericDTypes in {
  def TfrtMath_Sum # dtype.cpp # Op
      : TfrtMath_ReductionOp<"sum", dtype, "the sum over `axis` or of all">;
  def TfrtMath_Max # dtype.cpp # Op
      : TfrtMath_ReductionOp<"max", dtype, "the maximum over `axis` or of all">;
  def TfrtMath_ArgMax # dtype.cpp # Op
      : TfrtMath_TensorOp<"argmax", dtype,
                          (ins T_TensorType:$x, I64Attr:$axis),
                          "the index of the maximum along `axis`, as i64"> {
    let assemblyFormat = "$x (`,` $in_chain^)? attr-dict";
  }
}

foreach dtype = TfrtMath_FloatDTypes in {
  def TfrtMath_Mean # dtype.cpp # Op
      : TfrtMath_ReductionOp<"mean", dtype, "the mean over `axis` or of all">;
}

//===----------------------------------------------------------------------===//
// Random tensors
//===----------------------------------------------------------------------===//

// `tfrt_math.random_uniform.f32 [2, 3] {low = ..., high = ..., seed = ...}`.
// The parameters the kernel would refuse fail to verify instead, naming the
// op: `verify_parameters` is the C++ call that checks them.
// They read no tensor, so there is nothing for a chain to order.
class TfrtMath_RandomOp<string name, TfrtMath_DType dtype, dag parameters,
                        string summary_text, string verify_parameters>
    : TfrtMath_Op<name # "." # dtype.name> {
  let summary = summary_text;
  let arguments = !con((ins DenseI64ArrayAttr:$shape), parameters,
                       (ins I64Attr:$seed));
  let results = (outs T_TensorType:$result);
  let assemblyFormat = "$shape attr-dict";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      if (::mlir::failed(VerifyShape(*this, getShape()))) {
        return ::mlir::failure();
      }
      return }] # verify_parameters # [{;
    }
  }];
}

foreach dtype = TfrtMath_FloatDTypes in {
  def TfrtMath_RandomUniform # dtype.cpp # Op
      : TfrtMath_RandomOp<"random_uniform", dtype,
                          (ins dtype.attr:$low, dtype.attr:$high),
                          "uniform samples in [low, high) from `seed`",
                          "VerifyUniformRange(*this, getLowAttr(), "
                          "getHighAttr())">;
  def TfrtMath_RandomNormal # dtype.cpp # Op
      : TfrtMath_RandomOp<"random_normal", dtype,
                          (ins dtype.attr:$mean, dtype.attr:$stddev),
                          "normal samples with `mean` and `stddev` from `seed`",
                          "VerifyNormalParameters(*this, getMeanAttr(), "
                          "getStddevAttr())">;
}

//===----------------------------------------------------------------------===//
// Slicing
//===----------------------------------------------------------------------===//

// Any dtype: the op moves no elements, so it has no dtype in its name.
def TfrtMath_SliceRowsOp : TfrtMath_Op<"slice_rows"> {
  let summary = "rows [begin, begin + size) of the first dimension, sharing "
                "the tensor's bytes";
  let arguments = (ins T_TensorType:$x, I64:$begin, I64:$size,
                       Optional<Tfrt_ChainType>:$in_chain);
  let results = (outs T_TensorType:$result);
  let assemblyFormat = "$x `,` $begin `,` $size (`,` $in_chain^)? attr-dict";
}

#endif  // SLUICE_DIALECTS_TFRT_MATH_TFRT_MATH_OPS_TD_

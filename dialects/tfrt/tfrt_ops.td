// Ops of the `tfrt` dialect. Names and syntax follow TFRT so that its
// programs parse unchanged; ops the spec writes only in generic form
// (tfrt.div.f32, tfrt.minus.i32, tfrt.cast.*, ...) have no assembly format,
// so they print generically as written.

#ifndef SLUICE_DIALECTS_TFRT_TFRT_OPS_TD_
#define SLUICE_DIALECTS_TFRT_TFRT_OPS_TD_

include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Chains
//===----------------------------------------------------------------------===//

def Tfrt_NewChainOp : Tfrt_Op<"new.chain", [Pure]> {
  let summary = "an available chain";
  let results = (outs Tfrt_ChainType:$chain);
  let assemblyFormat = "attr-dict";
}

def Tfrt_MergeChainsOp : Tfrt_Op<"merge.chains", [Pure]> {
  let summary = "a chain available once every operand is";
  let description = [{
    Strict: an error operand makes the result that error. Canonicalization
    (`sluice_opt -canonicalize`) drops duplicate operands and operands that
    another operand already waits for through a `tfrt.merge.chains` or a
    `tfrt.print.*` (`%c = tfrt.print.i32 %x, %ch` waits for `%x` and `%ch`),
    and a merge left with a single chain becomes that chain.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs Tfrt_ChainType:$chain);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// OpBase.td has float attributes for f32 and f64 only.
def Tfrt_F16Attr : FloatAttrBase<F16, "16-bit float attribute">;
def Tfrt_BF16Attr : TypedAttrBase<BF16, "FloatAttr",
    And<[CPred<"::llvm::isa<::mlir::FloatAttr>($_self)">,
         CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getType().isBF16()">]>,
    "bfloat16 float attribute"> {
  let returnType = [{ ::llvm::APFloat }];
}

class Tfrt_ConstantOp<string suffix, Type type, Attr attr>
    : Tfrt_Op<"constant." # suffix, [Pure]> {
  let summary = "a constant of type " # suffix;
  let arguments = (ins attr:$value);
  let results = (outs type:$result);
  let assemblyFormat = "$value attr-dict";
}

def Tfrt_ConstantI1Op : Tfrt_ConstantOp<"i1", I1, I1Attr>;
def Tfrt_ConstantI32Op : Tfrt_ConstantOp<"i32", I32, I32Attr>;
def Tfrt_ConstantI64Op : Tfrt_ConstantOp<"i64", I64, I64Attr>;
def Tfrt_ConstantUI32Op : Tfrt_ConstantOp<"ui32", UI32, UI32Attr>;
def Tfrt_ConstantUI64Op : Tfrt_ConstantOp<"ui64", UI64, UI64Attr>;
def Tfrt_ConstantF16Op : Tfrt_ConstantOp<"f16", F16, Tfrt_F16Attr>;
def Tfrt_ConstantBF16Op : Tfrt_ConstantOp<"bf16", BF16, Tfrt_BF16Attr>;
def Tfrt_ConstantF32Op : Tfrt_ConstantOp<"f32", F32, F32Attr>;
def Tfrt_ConstantF64Op : Tfrt_ConstantOp<"f64", F64, F64Attr>;

class Tfrt_ConstantComplexOp<string suffix, Type element, Attr attr>
    : Tfrt_Op<"constant.complex" # suffix, [Pure]> {
  let summary = "a complex constant from its real and imaginary parts";
  let arguments = (ins attr:$real, attr:$imaginary);
  let results = (outs Complex<element>:$result);
  let assemblyFormat = "$real `,` $imaginary attr-dict";
}

def Tfrt_ConstantComplex64Op : Tfrt_ConstantComplexOp<"64", F32, F32Attr>;
def Tfrt_ConstantComplex128Op : Tfrt_ConstantComplexOp<"128", F64, F64Attr>;

//===----------------------------------------------------------------------===//
// Arithmetic and printing
//===----------------------------------------------------------------------===//

class Tfrt_BinaryOp<string mnemonic, Type operand_type, Type result_type>
    : Tfrt_Op<mnemonic, [Pure]> {
  let arguments = (ins operand_type:$lhs, operand_type:$rhs);
  let results = (outs result_type:$result);
  let assemblyFormat = "operands attr-dict";
}

def Tfrt_AddI32Op : Tfrt_BinaryOp<"add.i32", I32, I32>;
def Tfrt_AddI64Op : Tfrt_BinaryOp<"add.i64", I64, I64>;
def Tfrt_AddF32Op : Tfrt_BinaryOp<"add.f32", F32, F32>;
def Tfrt_AddF64Op : Tfrt_BinaryOp<"add.f64", F64, F64>;
def Tfrt_MulI32Op : Tfrt_BinaryOp<"mul.i32", I32, I32>;
def Tfrt_MulI64Op : Tfrt_BinaryOp<"mul.i64", I64, I64>;
def Tfrt_EqualI32Op : Tfrt_BinaryOp<"equal.i32", I32, I1>;
def Tfrt_EqualI64Op : Tfrt_BinaryOp<"equal.i64", I64, I1>;
def Tfrt_AndI1Op : Tfrt_BinaryOp<"and.i1", I1, I1>;

// Not Pure: a zero divisor is a runtime error, which a program may observe.
class Tfrt_DivOp<string suffix, Type type> : Tfrt_Op<"div." # suffix> {
  let summary = "quotient and remainder";
  let arguments = (ins type:$lhs, type:$rhs);
  // Unnamed, so results print as `%0:2` like TFRT's rather than by name.
  let results = (outs type, type);
  let assemblyFormat = "operands attr-dict";
}

def Tfrt_DivI32Op : Tfrt_DivOp<"i32", I32>;
def Tfrt_DivI64Op : Tfrt_DivOp<"i64", I64>;

// Ops the spec writes only in generic form: no assembly format, so they parse
// and print as `"tfrt.div.f32"(%a, %b) : (f32, f32) -> f32`. Any kernel may be
// given one extra trailing chain, which only orders it; the optional $chain
// admits it (a single optional group needs no operandSegmentSizes).
class Tfrt_GenericBinaryOp<string mnemonic, Type operand_type,
                           Type result_type, list<Trait> traits = [Pure]>
    : Tfrt_Op<mnemonic, traits> {
  let arguments = (ins operand_type:$lhs, operand_type:$rhs,
                   Optional<Tfrt_ChainType>:$chain);
  let results = (outs result_type:$result);
}

// Not Pure: a zero divisor is a runtime error, which a program may observe.
def Tfrt_DivF32Op : Tfrt_GenericBinaryOp<"div.f32", F32, F32, []>;
def Tfrt_DivF64Op : Tfrt_GenericBinaryOp<"div.f64", F64, F64, []>;
def Tfrt_MultiplyF32Op : Tfrt_GenericBinaryOp<"multiply.f32", F32, F32>;
def Tfrt_MultiplyF64Op : Tfrt_GenericBinaryOp<"multiply.f64", F64, F64>;
def Tfrt_MinimumF32Op : Tfrt_GenericBinaryOp<"minimum.f32", F32, F32>;
def Tfrt_MinimumF64Op : Tfrt_GenericBinaryOp<"minimum.f64", F64, F64>;
def Tfrt_MinusI32Op : Tfrt_GenericBinaryOp<"minus.i32", I32, I32>;
def Tfrt_MinusI64Op : Tfrt_GenericBinaryOp<"minus.i64", I64, I64>;
def Tfrt_LessEqualI32Op : Tfrt_GenericBinaryOp<"lessequal.i32", I32, I1>;
def Tfrt_LessEqualI64Op : Tfrt_GenericBinaryOp<"lessequal.i64", I64, I1>;

// static_cast; float to integer truncates toward zero.
class Tfrt_CastOp<string suffix, Type from, Type to>
    : Tfrt_Op<"cast." # suffix, [Pure]> {
  let arguments = (ins from:$value, Optional<Tfrt_ChainType>:$chain);
  let results = (outs to:$result);
}

// Widens an i32 (a worker index) to the i64 that dataset ops take.
def Tfrt_CastI32ToI64Op : Tfrt_CastOp<"i32_to_i64", I32, I64>;
def Tfrt_CastI64ToF32Op : Tfrt_CastOp<"i64_to_f32", I64, F32>;
def Tfrt_CastF32ToI64Op : Tfrt_CastOp<"f32_to_i64", F32, I64>;
def Tfrt_CastI64ToF64Op : Tfrt_CastOp<"i64_to_f64", I64, F64>;
def Tfrt_CastF64ToI64Op : Tfrt_CastOp<"f64_to_i64", F64, I64>;

class Tfrt_PrintOp<string suffix, Type type> : Tfrt_Op<"print." # suffix> {
  let summary = "prints the value to stdout once the chain is available";
  let arguments = (ins type:$value, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "operands attr-dict";
}

def Tfrt_PrintI1Op : Tfrt_PrintOp<"i1", I1>;
def Tfrt_PrintI32Op : Tfrt_PrintOp<"i32", I32>;
def Tfrt_PrintI64Op : Tfrt_PrintOp<"i64", I64>;
def Tfrt_PrintF32Op : Tfrt_PrintOp<"f32", F32>;
def Tfrt_PrintF64Op : Tfrt_PrintOp<"f64", F64>;

//===----------------------------------------------------------------------===//
// Calls and function-based control flow
//===----------------------------------------------------------------------===//

// Signatures print as `(types) -> (types)` even with one result, as TFRT's
// do; ParenTypeList also accepts the empty `()` ODS type lists reject.

// Ops naming functions by symbol check them in verifySymbolUses, which the
// verifier runs with a cached symbol table once the whole module is built.
class Tfrt_SymbolUserOp<string mnemonic, list<Trait> traits = []>
    : Tfrt_Op<mnemonic,
              !listconcat(traits, [DeclareOpInterfaceMethods<
                                       SymbolUserOpInterface>])>;

def Tfrt_CallOp : Tfrt_SymbolUserOp<"call",
    [DeclareOpInterfaceMethods<CallOpInterface>]> {
  let summary = "calls a function";
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
}

def Tfrt_CondOp : Tfrt_SymbolUserOp<"cond"> {
  let summary = "calls one of two functions depending on an i1";
  // The a_/b_ prefixes keep the true function first in sorted attribute
  // order, which is the order the emitted kernels see them in.
  let arguments = (ins I1:$cond, FlatSymbolRefAttr:$a_true_fn,
                   FlatSymbolRefAttr:$b_false_fn,
                   Variadic<AnyType>:$fn_operands);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = [{
    $cond $a_true_fn $b_false_fn ` ` `(` $fn_operands `)` attr-dict `:`
    custom<ParenTypeList>(type($fn_operands)) `->`
    custom<ParenTypeList>(type($outputs))
  }];
}

def Tfrt_CaseOp : Tfrt_SymbolUserOp<"case"> {
  let summary = "calls the function an i32 index selects";
  let arguments = (ins I32:$branch_index, ArrayAttr:$branches,
                   Variadic<AnyType>:$branch_operands);
  let results = (outs Variadic<AnyType>:$branch_outputs);
  let assemblyFormat = [{
    $branch_index $branches ` ` `(` $branch_operands `)` attr-dict `:`
    custom<ParenTypeList>(type($branch_operands)) `->`
    custom<ParenTypeList>(type($branch_outputs))
  }];
}

def Tfrt_WhileOp : Tfrt_SymbolUserOp<"while"> {
  let summary = "calls a body function while its last result is true";
  let arguments = (ins I1:$cond, Variadic<AnyType>:$args,
                   FlatSymbolRefAttr:$body_fn, I64Attr:$parallel_iterations);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $cond $body_fn `(` $args `)` attr-dict
    `parallel_iterations` `(` $parallel_iterations `)` `:`
    custom<ParenTypeList>(type($args)) `->` custom<ParenTypeList>(type($results))
  }];
}

def Tfrt_OnceOp : Tfrt_SymbolUserOp<"once"> {
  let summary = "calls a function once per request and reuses its results";
  let arguments = (ins Variadic<AnyType>:$args,
                   FlatSymbolRefAttr:$function);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $function `(` $args `)` attr-dict `:`
    custom<ParenTypeList>(type($args)) `->` custom<ParenTypeList>(type($results))
  }];
}

def Tfrt_ParallelCallI32Op : Tfrt_SymbolUserOp<"parallel_call.i32"> {
  let summary = "calls a function on blocks of [start, end) in parallel";
  let arguments = (ins FlatSymbolRefAttr:$callee, I32:$start, I32:$end,
                   I32:$block_size, Variadic<AnyType>:$args);
  let results = (outs Tfrt_ChainType:$done);
  let assemblyFormat = [{
    $start `to` $end `fixed` $block_size $callee `(` $args `)` attr-dict
    (`:` type($args)^)?
  }];
}

//===----------------------------------------------------------------------===//
// Region-based control flow
//===----------------------------------------------------------------------===//

// Regions see only their block arguments, which the custom syntax names after
// the operands they bind.
class Tfrt_RegionOp<string mnemonic, list<Trait> traits = []>
    : Tfrt_Op<mnemonic, !listconcat(traits, [IsolatedFromAbove])> {
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tfrt_IfOp : Tfrt_RegionOp<"if"> {
  let summary = "runs one of two regions depending on an i1";
  let arguments = (ins I1:$cond, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$then_region,
                        SizedRegion<1>:$else_region);
}

def Tfrt_RepeatI32Op : Tfrt_RegionOp<"repeat.i32"> {
  let summary = "runs its body a number of times, threading loop values";
  let arguments = (ins I32:$trip_count, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$region);
}

def Tfrt_ParallelForI32Op : Tfrt_RegionOp<"parallel_for.i32"> {
  let summary = "runs its body on blocks of [start, end) in parallel";
  let arguments = (ins I32:$start, I32:$end, I32:$block_size,
                   Variadic<AnyType>:$args);
  let results = (outs Tfrt_ChainType:$done);
  let regions = (region SizedRegion<1>:$region);
}

def Tfrt_ReturnOp : Tfrt_Op<"return", [Pure, ReturnLike, Terminator]> {
  let summary = "names the results of a function or region";
  let arguments = (ins Variadic<AnyType>:$args);
  let assemblyFormat = "attr-dict ($args^ `:` type($args))?";
  let hasVerifier = 1;
}

#endif  // SLUICE_DIALECTS_TFRT_TFRT_OPS_TD_

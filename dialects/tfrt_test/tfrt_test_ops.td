// The `tfrt_test` dialect: test kernels that make the runtime observable.
// Only the ops with custom syntax are defined here; the others are written
// in generic form and accepted as unknown ops of the dialect.

#ifndef SLUICE_DIALECTS_TFRT_TEST_TFRT_TEST_OPS_TD_
#define SLUICE_DIALECTS_TFRT_TEST_TFRT_TEST_OPS_TD_

include "dialects/tfrt/tfrt_base.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TfrtTest_Dialect : Dialect {
  let name = "tfrt_test";
  let summary = "test kernels: failures, async helpers, benchmarks";
  let cppNamespace = "::sluice::tfrt_test";
  // Same reason as for `tfrt`: one attribute dictionary per op.
  let usePropertiesForAttributes = 0;
  // Parsing a benchmark creates !tfrt.chain before any tfrt op may have
  // loaded the tfrt dialect, and regions end in tfrt.return.
  let dependentDialects = ["::sluice::tfrt::TfrtDialect"];
}

class TfrtTest_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtTest_Dialect, mnemonic, traits>;

def TfrtTest_DoAsyncOp : TfrtTest_Op<"do.async", [IsolatedFromAbove]> {
  let summary = "runs its region as a task on the work queue";
  let arguments = (ins Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def TfrtTest_BenchmarkOp : TfrtTest_Op<"benchmark", [IsolatedFromAbove]> {
  let summary = "runs its region repeatedly and prints timing statistics";
  let arguments = (ins Variadic<AnyType>:$args, StrAttr:$name,
                   I32Attr:$duration_secs, I32Attr:$max_count,
                   DefaultValuedOptionalAttr<I32Attr, "1">:$num_warmup_runs);
  let results = (outs Tfrt_ChainType:$done);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

class TfrtTest_Count3Op<string suffix, Type type>
    : TfrtTest_Op<"count3." # suffix, [Pure]> {
  let summary = "x+1, x+2 and x+3";
  let arguments = (ins type:$x);
  // Unnamed, so results print as `%0:3` like TFRT's rather than by name.
  let results = (outs type, type, type);
  let assemblyFormat = "operands attr-dict";
}

def TfrtTest_Count3I32Op : TfrtTest_Count3Op<"i32", I32>;
def TfrtTest_Count3I64Op : TfrtTest_Count3Op<"i64", I64>;

// `_tfrt_cost` is a compiler hint any op may carry, so it stays a
// discardable attribute rather than part of this op's signature.
def TfrtTest_TestCostOp : TfrtTest_Op<"test_cost"> {
  let summary = "prints its id and returns 0";
  let description = [{
    Prints `id: N` and returns 0 once its operands are available. Its cost
    hint `_tfrt_cost`, like any op's, must be a positive i64; the verifier
    checks it here (`op cost value must be larger than 0`), so that
    `sluice_opt` refuses it too, not only the compiler.
  }];
  let arguments = (ins Variadic<AnyType>:$args, I64Attr:$id);
  let results = (outs I32:$result);
  let assemblyFormat = "$args attr-dict `:` type($args)";
  let hasVerifier = 1;
}

#endif  // SLUICE_DIALECTS_TFRT_TEST_TFRT_TEST_OPS_TD_

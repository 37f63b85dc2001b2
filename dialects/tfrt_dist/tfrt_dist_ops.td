// The `tfrt_dist` dialect: running functions of a program on other tasks of
// a cluster (sluice_worker processes). See docs/tfrt_dist.md.

#ifndef SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_OPS_TD_
#define SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_OPS_TD_

include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"

def TfrtDist_Dialect : Dialect {
  let name = "tfrt_dist";
  let summary = "remote execution on the tasks of a cluster";
  let cppNamespace = "::sluice::tfrt_dist";
  // Same reason as for `tfrt`: the emitter walks one attribute dictionary
  // per op, and the generic form should print the attributes TFRT's would.
  let usePropertiesForAttributes = 0;
  let useDefaultTypePrinterParser = 1;
  // Calls take and return !tfrt.chain and !tfrt.string, which may be parsed
  // before any tfrt op has loaded the tfrt dialect.
  let dependentDialects = ["::sluice::tfrt::TfrtDialect"];
}

class TfrtDist_Type<string name, string type_mnemonic>
    : TypeDef<TfrtDist_Dialect, name> {
  let mnemonic = type_mnemonic;
}

def TfrtDist_TaskHandleType : TfrtDist_Type<"TaskHandle", "task_handle"> {
  let summary = "a task of the cluster that answered the status RPC";
}

def TfrtDist_RemoteFunctionType
    : TfrtDist_Type<"RemoteFunction", "remote_function"> {
  let summary = "a function registered on a task, ready to be called";
}

class TfrtDist_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtDist_Dialect, mnemonic, traits>;

def TfrtDist_GetTaskHandleOp : TfrtDist_Op<"get_task_handle"> {
  let summary = "waits for a task of the cluster to serve";
  let description = [{
    Starts a session with the task (the status RPC, which waits for the task
    to come up under the default fail-fast policy) and returns a handle to it
    once it serves.
  }];
  let arguments = (ins StrAttr:$task_name);
  let results = (outs TfrtDist_TaskHandleType:$task);
  let assemblyFormat = "$task_name attr-dict";
  let hasVerifier = 1;
}

def TfrtDist_RegisterFunctionOp : TfrtDist_Op<"register_function",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "sends the program to a task and names one of its functions";
  let arguments = (ins TfrtDist_TaskHandleType:$task,
                   FlatSymbolRefAttr:$callee);
  let results = (outs TfrtDist_RemoteFunctionType:$function);
  let assemblyFormat = "$task $callee attr-dict";
  let hasVerifier = 1;
}

def TfrtDist_CallOp : TfrtDist_Op<"call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "calls a remote function and returns its results";
  let description = [{
    The results resolve when the task answers; a task that is down, dies or
    does not answer before the deadline makes them error values naming the
    task and the function. `deadline_ms` overrides the runner's RPC deadline
    for this call.
  }];
  let arguments = (ins TfrtDist_RemoteFunctionType:$function,
                   Variadic<AnyType>:$args,
                   OptionalAttr<I64Attr>:$deadline_ms);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $function `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

#endif  // SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_OPS_TD_

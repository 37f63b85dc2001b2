// The `tfrt_dist` dialect: running functions of a program on other tasks of
// a cluster (sluice_worker processes). See docs/tfrt_dist.md.

#ifndef SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_OPS_TD_
#define SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_OPS_TD_

include "dialects/t/t_base.td"
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
  let useDefaultAttributePrinterParser = 1;
  // Calls take and return !tfrt.chain, !tfrt.string and !t.tensor, which
  // may be parsed before any op of their dialects has loaded them.
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect"];
  let extraClassDeclaration = [{
    // Adds the failure-policy attributes (failure_policy_attrs.cc).
    void registerAttributes();
  }];
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

def TfrtDist_VariableType : TfrtDist_Type<"Variable", "variable"> {
  let summary = "a variable held by a parameter-server task";
}

def TfrtDist_PerWorkerType : TfrtDist_Type<"PerWorker", "per_worker"> {
  let summary = "a value every worker of the coordinator holds its own of";
}

//===----------------------------------------------------------------------===//
// Failure policies: what an op whose values come from another process does
// when they fail (`on_failure`). docs/tfrt_dist.md, "Failure policies".
//===----------------------------------------------------------------------===//

class TfrtDist_Attr<string name, string attr_mnemonic>
    : AttrDef<TfrtDist_Dialect, name> {
  let mnemonic = attr_mnemonic;
  // Keys may come in any order and most may be left out; the printer
  // writes them in one order, leaving out what has its default.
  let hasCustomAssemblyFormat = 1;
}

def TfrtDist_RetryAttr : TfrtDist_Attr<"Retry", "retry"> {
  let summary = "makes a failed remote call again, then optionally falls back";
  let description = [{
    ```
    retry    ::= `#tfrt_dist.retry<` key `=` value (`,` key `=` value)* `>`
    key      ::= `max` | `classes` | `backoff_ms` | `fallback`
    classes  ::= `[` (class (`,` class)*)? `]`
    class    ::= `retryable` | `fatal` | `stale`
    ```

    `max` (required, 1 to 100) is the number of attempts in all. A failure
    whose class (`Classify`) is one of `classes` (default `[retryable]`) is
    followed by another attempt, `backoff_ms` (0 to 60000, default 0)
    later, while attempts are left and the request is not cancelled. When
    they run out, the results are the last error, with its code and class,
    its message prefixed with `gave up after N attempts: `. A failure of a
    class not listed fails the op at once. `cancelled` cannot be listed: a
    cancelled request wants no more attempts.

    `fallback = @fn` names a local function taking the op's operands and
    returning its results: it gives the results instead of any failure that
    is not a cancellation, once the attempts are spent or at once for a
    class not retried.

    Example: `{on_failure = #tfrt_dist.retry<max = 3, classes = [retryable],
    backoff_ms = 50>}`.
  }];
  // A null `classes` means the default; a null `fallback` means none.
  let parameters = (ins "int64_t":$max, "mlir::ArrayAttr":$classes,
                    "int64_t":$backoff_ms,
                    "mlir::FlatSymbolRefAttr":$fallback);
}

def TfrtDist_FallbackAttr : TfrtDist_Attr<"Fallback", "fallback"> {
  let summary = "gives a failed op's results from a local function";
  let description = [{
    ```
    fallback ::= `#tfrt_dist.fallback<` symbol-ref (`,` `classes` `=` classes)? `>`
    ```

    On a failure whose class is one of `classes` (default `[retryable,
    fatal, stale]`; `cancelled` cannot be listed), the results come from
    calling the local function with the op's own operands: the function
    takes the op's operand types and returns its result types. Other
    failures stay the op's results.

    Example: `{on_failure = #tfrt_dist.fallback<@add_locally>}`.
  }];
  // A null `classes` means the default.
  let parameters = (ins "mlir::FlatSymbolRefAttr":$function,
                    "mlir::ArrayAttr":$classes);
}

def TfrtDist_FailurePolicyAttr
    : AnyAttrOf<[TfrtDist_RetryAttr, TfrtDist_FallbackAttr]>;

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
    for this call (each attempt's). `on_failure`, a `#tfrt_dist.retry` or
    `#tfrt_dist.fallback`, says what to do when the call fails: see those
    attributes. Without it a failed call is not made again.
  }];
  let arguments = (ins TfrtDist_RemoteFunctionType:$function,
                   Variadic<AnyType>:$args,
                   OptionalAttr<I64Attr>:$deadline_ms,
                   OptionalAttr<TfrtDist_FailurePolicyAttr>:$on_failure);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $function `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Variables on parameter servers (docs/variables.md). Each op starts one RPC
// and returns at once; its results resolve when the task answers.
//===----------------------------------------------------------------------===//

def TfrtDist_CreateVariableOp : TfrtDist_Op<"create_variable"> {
  let summary = "creates a variable on a parameter-server task";
  let description = [{
    Creates the variable `name`, holding a copy of the initial value as it
    is once `in_chain` is ready, on a task of the cluster's `ps` job picked
    by the placement policy (round robin), and returns its handle. A
    variable of that name with the same dtype and shape is kept as it is.
  }];
  let arguments = (ins T_TensorType:$initial_value, Tfrt_ChainType:$in_chain,
                   StrAttr:$name);
  let results = (outs TfrtDist_VariableType:$variable);
  let assemblyFormat = "$initial_value `,` $in_chain attr-dict";
  let hasVerifier = 1;
}

def TfrtDist_ReadVariableOp : TfrtDist_Op<"read_variable"> {
  let summary = "reads a variable's value";
  let description = [{
    A copy of the variable's value, read once `in_chain` is ready: it sees
    every update ordered before it, and none half done.
  }];
  let arguments = (ins TfrtDist_VariableType:$variable,
                   Tfrt_ChainType:$in_chain);
  let results = (outs T_TensorType:$value);
  let assemblyFormat = "$variable `,` $in_chain attr-dict";
  let hasVerifier = 1;
}

class TfrtDist_UpdateOp<string mnemonic, string operand_summary>
    : TfrtDist_Op<mnemonic> {
  let arguments = (ins TfrtDist_VariableType:$variable,
                   T_TensorType:$operand, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let description = "The update is applied atomically once `in_chain` is "
      "ready; `out_chain` is ready once the task has applied it. The "
      # operand_summary # " must have the variable's dtype and shape.";
  let hasVerifier = 1;
}

def TfrtDist_AssignVariableOp
    : TfrtDist_UpdateOp<"assign_variable", "value"> {
  let summary = "replaces a variable's value";
  let assemblyFormat = "$variable `,` $operand `,` $in_chain attr-dict";
}

def TfrtDist_AssignAddVariableOp
    : TfrtDist_UpdateOp<"assign_add_variable", "delta"> {
  let summary = "adds to a variable's value";
  let assemblyFormat = "$variable `,` $operand `,` $in_chain attr-dict";
}

def TfrtDist_ApplySgdOp : TfrtDist_UpdateOp<"apply_sgd", "gradient"> {
  let summary = "one SGD step: var -= learning_rate * gradient";
  let arguments = (ins TfrtDist_VariableType:$variable,
                   T_TensorType:$operand, Tfrt_ChainType:$in_chain,
                   F64Attr:$learning_rate);
  let assemblyFormat = "$variable `,` $operand `,` $in_chain attr-dict";
}

def TfrtDist_ApplyAdamOp : TfrtDist_UpdateOp<"apply_adam", "gradient"> {
  let summary = "one Adam step, with the moments the task keeps";
  let arguments = (ins TfrtDist_VariableType:$variable,
                   T_TensorType:$operand, Tfrt_ChainType:$in_chain,
                   F64Attr:$learning_rate,
                   OptionalAttr<F64Attr>:$beta1,
                   OptionalAttr<F64Attr>:$beta2,
                   OptionalAttr<F64Attr>:$epsilon);
  let assemblyFormat = "$variable `,` $operand `,` $in_chain attr-dict";
}

//===----------------------------------------------------------------------===//
// The coordinator (docs/tfrt_dist.md, "The coordinator from .mlir"): closures
// of the program's own functions run on any worker of the cluster's
// `worker` job, and values each worker keeps its own of.
//===----------------------------------------------------------------------===//

def TfrtDist_ScheduleOp : TfrtDist_Op<"schedule",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "queues a closure of a function and returns its results";
  let description = [{
    The results are returned at once and resolve when a worker has run the
    closure. An operand may be a pending value (a result of an earlier
    schedule): the closure waits for it. A `!tfrt_dist.per_worker` operand
    stands for the value the worker that runs the closure holds: the
    callee's argument there has the resource's type. `on_failure`, a
    `#tfrt_dist.retry` or `#tfrt_dist.fallback`, says what to do when the
    closure fails by itself (a worker that fails is retried on another
    anyway): schedule it again, or call a local function with the op's
    operands. A failure the policy handles is not reported by
    `tfrt_dist.join`; one it gives up on is.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args,
                   OptionalAttr<TfrtDist_FailurePolicyAttr>:$on_failure);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

class TfrtDist_CreatePerWorkerOp<string mnemonic>
    : TfrtDist_Op<mnemonic,
                  [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args);
  let results = (outs Variadic<TfrtDist_PerWorkerType>:$resources);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, $resources)
  }];
  let hasVerifier = 1;
}

def TfrtDist_CreatePerWorkerResourceOp
    : TfrtDist_CreatePerWorkerOp<"create_per_worker_resource"> {
  let summary = "runs a function on every worker and keeps its results there";
  let description = [{
    Each result stands for the callee's result of the same position, as
    every worker holds it. The function runs on each worker before that
    worker's next closure, and again on a worker that comes back as a new
    process. Its operands must be known when the op runs; the value of
    `tfrt_dist.worker_index` passes each worker its own index.
  }];
}

def TfrtDist_CreatePerWorkerDatasetOp
    : TfrtDist_CreatePerWorkerOp<"create_per_worker_dataset"> {
  let summary = "a per-worker resource whose function returns an iterator";
  let description = [{
    As create_per_worker_resource, for a callee that returns one
    `!tfrt_data.iterator`: each worker's own iterator over its own dataset.
  }];
}

def TfrtDist_WorkerIndexOp : TfrtDist_Op<"worker_index"> {
  let summary = "the index of the worker that runs a closure, as an operand";
  let description = [{
    Given to schedule or create_per_worker_*, it passes each worker its
    index in the worker job, as an i32.
  }];
  let results = (outs TfrtDist_PerWorkerType:$index);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def TfrtDist_JoinOp : TfrtDist_Op<"join"> {
  let summary = "waits for every scheduled closure";
  let description = [{
    Once `in_chain` is ready, waits (off the host's work queue) until every
    closure scheduled so far has finished; `out_chain` is then ready, or the
    first error a closure failed with since the last report. The `after`
    operands only order the op: it runs once they exist, so the schedules
    that made them have run.
  }];
  let arguments = (ins Tfrt_ChainType:$in_chain, Variadic<AnyType>:$after);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = [{
    $in_chain (`after` `(` $after^ `:` type($after) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def TfrtDist_FitOp : TfrtDist_Op<"fit",
    [AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "trains a model on the coordinator's workers (Keras's fit)";
  let description = [{
    Once its operands are ready, runs the coordinator's Fit off the host's
    work queue: each worker builds its own iterator with `dataset` called on
    `dataset_args` (values and `tfrt_dist.worker_index`), and each of the
    `epochs` epochs schedules `step` `steps_per_epoch` times on the
    iterator and the variables. The step's results are the metrics named by
    `metric_names`; at each epoch's end (and every `callback_every_steps`
    steps of one, when given) their means are printed to stdout.
    Checkpoints go to `checkpoint_directory`, when given, at each epoch's
    end and every `checkpoint_every_steps` steps; Fit resumes from the
    newest one there. `out_chain` is ready once the last epoch has ended,
    or is the error Fit stopped with.
  }];
  let arguments = (ins Tfrt_ChainType:$in_chain,
                   FlatSymbolRefAttr:$dataset,
                   Variadic<AnyType>:$dataset_args,
                   FlatSymbolRefAttr:$step,
                   Variadic<TfrtDist_VariableType>:$variables,
                   I64Attr:$epochs,
                   I64Attr:$steps_per_epoch,
                   StrArrayAttr:$metric_names,
                   OptionalAttr<I64Attr>:$callback_every_steps,
                   OptionalAttr<StrAttr>:$checkpoint_directory,
                   OptionalAttr<I64Attr>:$checkpoint_every_steps);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = [{
    $in_chain `,` $dataset `(` ($dataset_args^ `:` type($dataset_args))? `)`
    `,` $step `(` $variables `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif  // SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_OPS_TD_

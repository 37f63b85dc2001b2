// The `tfrt_ft` dialect: fault tolerance. Its ops save and restore
// checkpoints of dense host tensors (docs/checkpoints.md), send step
// signals to the step monitor (docs/monitor.md) and join quorums under a
// lighthouse (docs/lighthouse.md).

#ifndef SLUICE_DIALECTS_TFRT_FT_TFRT_FT_OPS_TD_
#define SLUICE_DIALECTS_TFRT_FT_TFRT_FT_OPS_TD_

include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def TfrtFt_Dialect : Dialect {
  let name = "tfrt_ft";
  let summary = "fault tolerance: checkpoints, step signals and quorums";
  let cppNamespace = "::sluice::tfrt_ft";
  // The emitter walks one attribute dictionary per op.
  let usePropertiesForAttributes = 0;
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect",
                           "::sluice::tfrt_ccl::TfrtCclDialect"];
}

// The collective group of `tfrt_ccl` (dialects/tfrt_ccl), named by its C++
// class so that this file does not pull in that dialect's ops.
def TfrtFt_CclGroupType
    : Type<CPred<"::llvm::isa<::sluice::tfrt_ccl::GroupType>($_self)">,
           "!tfrt_ccl.group", "::sluice::tfrt_ccl::GroupType">,
      BuildableType<"::sluice::tfrt_ccl::GroupType::get($_builder.getContext())">;

class TfrtFt_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtFt_Dialect, mnemonic, traits>;

def TfrtFt_SaveCheckpointOp : TfrtFt_Op<"save_checkpoint"> {
  let summary = "saves tensors as the checkpoint of a step";
  let description = [{
    `tfrt_ft.save_checkpoint %chain, %step, %epoch, %w, %b
    {directory = "/ckpt/run1", names = ["w", "b"], keep_last = 3 : i32}`
    writes the tensors, the i-th under the i-th name, as the checkpoint of
    `%step`, and deletes older checkpoints past the `keep_last` newest. The
    write runs on the blocking pool; the chain it returns is available once
    the checkpoint is durable, or an error.
  }];
  let arguments = (ins Tfrt_ChainType:$in_chain, I64:$step, I64:$epoch,
                   Variadic<T_TensorType>:$tensors, StrAttr:$directory,
                   StrArrayAttr:$names, I32Attr:$keep_last);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = [{
    $in_chain `,` $step `,` $epoch (`,` $tensors^)? attr-dict
  }];
  let hasVerifier = 1;
}

def TfrtFt_RestoreCheckpointOp : TfrtFt_Op<"restore_checkpoint"> {
  let summary = "reads the newest intact checkpoint";
  let description = [{
    `%chain, %step, %epoch, %w, %b = tfrt_ft.restore_checkpoint %in
    {directory = "/ckpt/run1", names = ["w", "b"]} : !t.tensor, !t.tensor`
    returns the step, the epoch and the named tensors of the newest
    checkpoint in the directory that reads back intact, skipping damaged
    ones with a warning. Every result is an error when there is none
    (NOT_FOUND) or when it lacks one of the names.
  }];
  let arguments = (ins Tfrt_ChainType:$in_chain, StrAttr:$directory,
                   StrArrayAttr:$names);
  let results = (outs Tfrt_ChainType:$out_chain, I64:$step, I64:$epoch,
                 Variadic<T_TensorType>:$tensors);
  let assemblyFormat = [{
    $in_chain attr-dict (`:` type($tensors)^)?
  }];
  let hasVerifier = 1;
}

// The step signals. Each records its signal for the process's step reporter
// (SLUICE_MONITOR, SLUICE_RANK) without waiting on the monitor, and returns
// a chain; without a monitor configured it only returns the chain.
def TfrtFt_StepBeginOp : TfrtFt_Op<"step_begin"> {
  let summary = "a training step begins";
  let description = [{
    `%ch1 = tfrt_ft.step_begin %step, %ch0 {kind = "checkpoint"}` tells the
    monitor that step `%step` began. A step of a kind the monitor was given
    a limit for ("first", "checkpoint") may take that long; without `kind`
    it takes the monitor's normal stuck limit.
  }];
  let arguments = (ins I64:$step, Tfrt_ChainType:$in_chain,
                   DefaultValuedStrAttr<StrAttr, "">:$kind);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "$step `,` $in_chain attr-dict";
}

def TfrtFt_StepEndOp : TfrtFt_Op<"step_end"> {
  let summary = "a training step ends";
  let description = [{
    `%ch1 = tfrt_ft.step_end %step, %ch0` tells the monitor that step
    `%step` ended.
  }];
  let arguments = (ins I64:$step, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "$step `,` $in_chain attr-dict";
}

def TfrtFt_EpochEndOp : TfrtFt_Op<"epoch_end"> {
  let summary = "an epoch ends";
  let description = [{
    `%ch1 = tfrt_ft.epoch_end %epoch, %ch0` tells the monitor that epoch
    `%epoch` (counted from 0) finished: a restarted job resumes from the
    minimum number of epochs all ranks finished.
  }];
  let arguments = (ins I64:$epoch, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "$epoch `,` $in_chain attr-dict";
}

def TfrtFt_TrainEndOp : TfrtFt_Op<"train_end"> {
  let summary = "training is over";
  let description = [{
    `%ch1 = tfrt_ft.train_end %ch0` tells the monitor that this rank
    finished. Its chain is available once the monitor has the signal, or
    after a short bounded wait when it cannot be reached.
  }];
  let arguments = (ins Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "$in_chain attr-dict";
}

// The quorum ops: the process's manager (SLUICE_LIGHTHOUSE,
// SLUICE_REPLICA_ID), docs/lighthouse.md. Both return at once; the manager's
// own thread does the waiting.
def TfrtFt_StartQuorumOp : TfrtFt_Op<"start_quorum",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "joins the next quorum, healing when behind";
  let description = [{
    `%group, %generation, %step1, %w1, %b1 = tfrt_ft.start_quorum %step,
    %w, %b : !t.tensor, !t.tensor` joins the next quorum of the lighthouse
    with `%step`, the last committed step, and the tensors that are the
    replica's state (served to peers that heal from it). It returns the
    quorum's collective group, its generation (the quorum id), the step the
    replica is at now, and the tensors: as given, or those of an
    up-to-date peer when this replica was behind and healed (the step is
    then the quorum's highest). Every result is a retryable error when no
    quorum forms in time or no peer could heal it.
  }];
  let arguments = (ins I64:$step, Variadic<T_TensorType>:$tensors);
  let results = (outs TfrtFt_CclGroupType:$group, I64:$generation,
                 I64:$step_out, Variadic<T_TensorType>:$tensors_out);
  let assemblyFormat = [{
    $step (`,` $tensors^)? attr-dict (`:` type($tensors)^)?
  }];
}

def TfrtFt_ShouldCommitOp : TfrtFt_Op<"should_commit"> {
  let summary = "votes on committing the step";
  let description = [{
    `%commit = tfrt_ft.should_commit %step, %sum, %chain : !t.tensor,
    !tfrt.chain` waits for its other operands (the step's collective
    results, chains), then votes on step `%step` of the current quorum:
    against when one of them is an error (the op runs on errors), for
    otherwise. `%commit` (i1) is true when every participant voted for it
    and there were at least the lighthouse's min_replicas; false means the
    step's work is dropped and the step tried again.
  }];
  let arguments = (ins I64:$step, Variadic<AnyType>:$deps);
  let results = (outs I1:$commit);
  let assemblyFormat = [{
    $step (`,` $deps^)? attr-dict (`:` type($deps)^)?
  }];
}

#endif  // SLUICE_DIALECTS_TFRT_FT_TFRT_FT_OPS_TD_

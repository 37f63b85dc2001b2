// The `tfrt_ft` dialect: fault tolerance. Its ops save and restore
// checkpoints of dense host tensors (docs/checkpoints.md) and send step
// signals to the step monitor (docs/monitor.md).

#ifndef SLUICE_DIALECTS_TFRT_FT_TFRT_FT_OPS_TD_
#define SLUICE_DIALECTS_TFRT_FT_TFRT_FT_OPS_TD_

include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/CommonAttrConstraints.td"

def TfrtFt_Dialect : Dialect {
  let name = "tfrt_ft";
  let summary = "fault tolerance: checkpoints and step signals";
  let cppNamespace = "::sluice::tfrt_ft";
  // The emitter walks one attribute dictionary per op.
  let usePropertiesForAttributes = 0;
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect"];
}

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

#endif  // SLUICE_DIALECTS_TFRT_FT_TFRT_FT_OPS_TD_

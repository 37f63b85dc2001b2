// The `tfrt_ccl` dialect: collectives among the ranks of a group (Gloo over
// TCP), whose failures are error values. See docs/collectives.md.

#ifndef SLUICE_DIALECTS_TFRT_CCL_TFRT_CCL_OPS_TD_
#define SLUICE_DIALECTS_TFRT_CCL_TFRT_CCL_OPS_TD_

include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"

def TfrtCcl_Dialect : Dialect {
  let name = "tfrt_ccl";
  let summary = "collectives that fail as values";
  let cppNamespace = "::sluice::tfrt_ccl";
  // The emitter walks one attribute dictionary per op.
  let usePropertiesForAttributes = 0;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect",
                           "::sluice::tfrt_dist::TfrtDistDialect",
                           "::sluice::tfrt_gpu::TfrtGpuDialect"];
}

// `!tfrt_gpu.tensor`, the tfrt_gpu dialect's device tensor.
def TfrtCcl_DeviceTensorType : Type<
    CPred<"::llvm::isa<::sluice::tfrt_gpu::TensorType>($_self)">,
    "!tfrt_gpu.tensor", "::sluice::tfrt_gpu::TensorType">,
  BuildableType<"::sluice::tfrt_gpu::TensorType::get($_builder.getContext())">;

def TfrtCcl_GroupType : TypeDef<TfrtCcl_Dialect, "Group"> {
  let mnemonic = "group";
  let summary = "the ranks of one generation and the connections among them";
}

class TfrtCcl_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtCcl_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

def TfrtCcl_CreateGroupOp : TfrtCcl_Op<"create_group"> {
  let summary = "connects the ranks of a generation through a store";
  let description = [{
    `%ch1, %group = tfrt_ccl.create_group %ch0, %rank, %size, %generation
    {store = "127.0.0.1:29510", connect_timeout_ms = 30000 : i64,
    timeout_ms = 30000 : i64}` meets the other ranks of `%generation`
    through the rendezvous store at `store` and connects to them. Both
    results are an error (retryable) when they do not all come within
    `connect_timeout_ms`; `timeout_ms` is the group's default for
    collectives that give none.
  }];
  let arguments = (ins Tfrt_ChainType:$in_chain, I64:$rank, I64:$size,
                   I64:$generation, StrAttr:$store,
                   OptionalAttr<I64Attr>:$connect_timeout_ms,
                   OptionalAttr<I64Attr>:$timeout_ms);
  let results = (outs Tfrt_ChainType:$out_chain, TfrtCcl_GroupType:$group);
  let assemblyFormat = [{
    $in_chain `,` $rank `,` $size `,` $generation attr-dict
  }];
}

// Every collective takes the group, its operands and a chain, and returns a
// chain once it is done: chains order the collectives, which every rank
// must issue in the same order. `timeout_ms` bounds it (the group's default
// when absent).
//
// `on_failure = #tfrt_dist.fallback<@f>` (docs/tfrt_dist.md, "Failure
// policies") gives the results of the local function `@f`, called with the
// op's operands, when the collective fails. A broken group cannot run the
// collective again, so a `#tfrt_dist.retry` is refused.
class TfrtCcl_FallibleOp<string mnemonic>
    : TfrtCcl_Op<mnemonic, [DeclareOpInterfaceMethods<SymbolUserOpInterface>]>;

class TfrtCcl_ReduceOp<string mnemonic> : TfrtCcl_FallibleOp<mnemonic> {
  let arguments = (ins TfrtCcl_GroupType:$group, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain, StrAttr:$reduction,
                   OptionalAttr<I64Attr>:$timeout_ms,
                   OptionalAttr<AnyAttr>:$on_failure);
  let results = (outs Tfrt_ChainType:$out_chain, T_TensorType:$output);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

def TfrtCcl_AllReduceOp : TfrtCcl_ReduceOp<"allreduce"> {
  let summary = "the element-wise reduction of every rank's tensor";
  let description = [{
    `%ch1, %sum = tfrt_ccl.allreduce %group, %t, %ch0 {reduction = "avg",
    timeout_ms = 30000 : i64} : !t.tensor` reduces (`sum`, `avg`, `min`,
    `max`) the tensors of every rank, which have the same dtype (f32, f64,
    i32 or i64) and shape.
  }];
}

def TfrtCcl_ReduceScatterOp : TfrtCcl_ReduceOp<"reduce_scatter"> {
  let summary = "this rank's part of the reduction of every rank's tensor";
  let description = [{
    The reduction, split along dimension 0 into as many equal parts as the
    group has ranks: rank r gets part r.
  }];
}

def TfrtCcl_AllGatherOp : TfrtCcl_FallibleOp<"allgather"> {
  let summary = "every rank's tensor, stacked along a new dimension 0";
  let arguments = (ins TfrtCcl_GroupType:$group, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain,
                   OptionalAttr<I64Attr>:$timeout_ms,
                   OptionalAttr<AnyAttr>:$on_failure);
  let results = (outs Tfrt_ChainType:$out_chain, T_TensorType:$output);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

// Partial collectives (docs/collectives.md, "Partial collectives") survive
// the failure of some ranks: every rank still alive gets the result over
// the ranks that contributed, and who they are, as an i64 tensor of their
// ranks in ascending order, the same on every rank. A rank left out, or one
// whose view of the contributors differs from the others', gets an error on
// every result. `agreement_ms` (default 1000) is how long a rank that has
// finished its part waits to hear how the others' went; a rank not heard
// from within it is left out. Once a partial collective has left ranks out,
// the group's later partial collectives run among the contributors, and
// its other collectives fail.
class TfrtCcl_PartialOp<string mnemonic> : TfrtCcl_Op<mnemonic> {
  let results = (outs Tfrt_ChainType:$out_chain, T_TensorType:$output,
                 T_TensorType:$contributors);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

def TfrtCcl_AllReducePartialOp : TfrtCcl_PartialOp<"allreduce_partial"> {
  let summary = "the reduction over the ranks that contributed, and who they "
                "are";
  let description = [{
    `%ch1, %avg, %who = tfrt_ccl.allreduce_partial %group, %t, %ch0
    {reduction = "avg", timeout_ms = 30000 : i64, agreement_ms = 1000 : i64}
    : !t.tensor` reduces the tensors of the contributors; `avg` divides by
    their count.
  }];
  let arguments = (ins TfrtCcl_GroupType:$group, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain, StrAttr:$reduction,
                   OptionalAttr<I64Attr>:$timeout_ms,
                   OptionalAttr<I64Attr>:$agreement_ms);
}

def TfrtCcl_AllGatherPartialOp : TfrtCcl_PartialOp<"allgather_partial"> {
  let summary = "the contributors' tensors, stacked along a new dimension 0, "
                "and who they are";
  let description = [{
    Row i of the result is the tensor of the i-th contributor.
  }];
  let arguments = (ins TfrtCcl_GroupType:$group, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain,
                   OptionalAttr<I64Attr>:$timeout_ms,
                   OptionalAttr<I64Attr>:$agreement_ms);
}

def TfrtCcl_BroadcastOp : TfrtCcl_FallibleOp<"broadcast"> {
  let summary = "the root's tensor on every rank";
  let description = [{
    Ranks other than `root` pass a tensor of the root's dtype and shape.
  }];
  let arguments = (ins TfrtCcl_GroupType:$group, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain, I64Attr:$root,
                   OptionalAttr<I64Attr>:$timeout_ms,
                   OptionalAttr<AnyAttr>:$on_failure);
  let results = (outs Tfrt_ChainType:$out_chain, T_TensorType:$output);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

def TfrtCcl_BarrierOp : TfrtCcl_Op<"barrier"> {
  let summary = "returns once every rank has reached it";
  let arguments = (ins TfrtCcl_GroupType:$group, Tfrt_ChainType:$in_chain,
                   OptionalAttr<I64Attr>:$timeout_ms);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "$group `,` $in_chain attr-dict";
}

def TfrtCcl_SendOp : TfrtCcl_Op<"send"> {
  let summary = "sends a tensor to the rank `peer`";
  let description = [{
    Matched with the `tfrt_ccl.recv` of the same `tag` on `peer`; the chain
    is ready once the peer has the tensor.
  }];
  let arguments = (ins TfrtCcl_GroupType:$group, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain, I64Attr:$peer, I64Attr:$tag,
                   OptionalAttr<I64Attr>:$timeout_ms);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

def TfrtCcl_RecvOp : TfrtCcl_Op<"recv"> {
  let summary = "receives a tensor from the rank `peer`";
  let description = [{
    `%ch1, %t = tfrt_ccl.recv %group, %ch0 {peer = 0 : i64, tag = 7 : i64,
    dtype = "f32", shape = [2, 3]}`: the sender's tensor must have this
    dtype and shape, or the result is a fatal error.
  }];
  let arguments = (ins TfrtCcl_GroupType:$group, Tfrt_ChainType:$in_chain,
                   I64Attr:$peer, I64Attr:$tag, StrAttr:$dtype,
                   I64ArrayAttr:$shape, OptionalAttr<I64Attr>:$timeout_ms);
  let results = (outs Tfrt_ChainType:$out_chain, T_TensorType:$output);
  let assemblyFormat = "$group `,` $in_chain attr-dict";
}

// The same collectives on device tensors, for groups on the NCCL backend:
// each enqueues on the group's stream after the work on its input's stream
// and its results are available once it is done on the device (or an
// error). Every op takes the group, the tensor and a chain; `timeout_ms`
// bounds it as above.
class TfrtCcl_DeviceOp<string mnemonic> : TfrtCcl_Op<mnemonic> {
  let results = (outs Tfrt_ChainType:$out_chain,
                 TfrtCcl_DeviceTensorType:$output);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

def TfrtCcl_DeviceAllReduceOp : TfrtCcl_DeviceOp<"device_allreduce"> {
  let summary = "the element-wise reduction of every rank's device tensor";
  let description = [{
    `%ch1, %sum = tfrt_ccl.device_allreduce %group, %t, %ch0
    {reduction = "avg", timeout_ms = 30000 : i64} : !tfrt_gpu.tensor`
    reduces with `ncclAllReduce`.
  }];
  let arguments = (ins TfrtCcl_GroupType:$group,
                   TfrtCcl_DeviceTensorType:$input, Tfrt_ChainType:$in_chain,
                   StrAttr:$reduction, OptionalAttr<I64Attr>:$timeout_ms);
}

def TfrtCcl_DeviceReduceScatterOp : TfrtCcl_DeviceOp<"device_reduce_scatter"> {
  let summary = "this rank's part of the reduction of every rank's tensor";
  let arguments = (ins TfrtCcl_GroupType:$group,
                   TfrtCcl_DeviceTensorType:$input, Tfrt_ChainType:$in_chain,
                   StrAttr:$reduction, OptionalAttr<I64Attr>:$timeout_ms);
}

def TfrtCcl_DeviceAllGatherOp : TfrtCcl_DeviceOp<"device_allgather"> {
  let summary = "every rank's device tensor, stacked along a new dimension 0";
  let arguments = (ins TfrtCcl_GroupType:$group,
                   TfrtCcl_DeviceTensorType:$input, Tfrt_ChainType:$in_chain,
                   OptionalAttr<I64Attr>:$timeout_ms);
}

def TfrtCcl_DeviceBroadcastOp : TfrtCcl_DeviceOp<"device_broadcast"> {
  let summary = "the root's device tensor on every rank";
  let arguments = (ins TfrtCcl_GroupType:$group,
                   TfrtCcl_DeviceTensorType:$input, Tfrt_ChainType:$in_chain,
                   I64Attr:$root, OptionalAttr<I64Attr>:$timeout_ms);
}

def TfrtCcl_DeviceAllToAllOp : TfrtCcl_DeviceOp<"device_all_to_all"> {
  let summary = "part p of dimension 0 to rank p, part p of the result from it";
  let arguments = (ins TfrtCcl_GroupType:$group,
                   TfrtCcl_DeviceTensorType:$input, Tfrt_ChainType:$in_chain,
                   OptionalAttr<I64Attr>:$timeout_ms);
}

def TfrtCcl_DeviceSendOp : TfrtCcl_Op<"device_send"> {
  let summary = "sends a device tensor to the rank `peer`";
  let description = [{
    Matched, in order, with the next `tfrt_ccl.device_recv` from this rank
    on `peer` (NCCL has no tags).
  }];
  let arguments = (ins TfrtCcl_GroupType:$group,
                   TfrtCcl_DeviceTensorType:$input, Tfrt_ChainType:$in_chain,
                   I64Attr:$peer, OptionalAttr<I64Attr>:$timeout_ms);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = [{
    $group `,` $input `,` $in_chain attr-dict `:` type($input)
  }];
}

def TfrtCcl_DeviceRecvOp : TfrtCcl_Op<"device_recv"> {
  let summary = "receives a device tensor from the rank `peer`";
  let arguments = (ins TfrtCcl_GroupType:$group, Tfrt_ChainType:$in_chain,
                   I64Attr:$peer, StrAttr:$dtype, I64ArrayAttr:$shape,
                   OptionalAttr<I64Attr>:$timeout_ms);
  let results = (outs Tfrt_ChainType:$out_chain,
                 TfrtCcl_DeviceTensorType:$output);
  let assemblyFormat = "$group `,` $in_chain attr-dict";
}

#endif  // SLUICE_DIALECTS_TFRT_CCL_TFRT_CCL_OPS_TD_

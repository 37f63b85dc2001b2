// The `tfrt_gpu` dialect: CUDA devices and tensors in their memory, with
// copies between host and device whose completion is an AsyncValue. See
// docs/gpu.md.

#ifndef SLUICE_DIALECTS_TFRT_GPU_TFRT_GPU_OPS_TD_
#define SLUICE_DIALECTS_TFRT_GPU_TFRT_GPU_OPS_TD_

include "dialects/t/t_base.td"
include "dialects/tfrt/tfrt_base.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def TfrtGpu_Dialect : Dialect {
  let name = "tfrt_gpu";
  let summary = "CUDA devices, device tensors and copies";
  let cppNamespace = "::sluice::tfrt_gpu";
  // The emitter walks one attribute dictionary per op.
  let usePropertiesForAttributes = 0;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::sluice::tfrt::TfrtDialect",
                           "::sluice::t::TDialect"];
}

def TfrtGpu_DeviceType : TypeDef<TfrtGpu_Dialect, "Device"> {
  let mnemonic = "device";
  let summary = "a CUDA device and the stream its work is ordered on";
}

def TfrtGpu_TensorType : TypeDef<TfrtGpu_Dialect, "Tensor"> {
  let mnemonic = "tensor";
  let summary = "a dense tensor of any dtype and shape in device memory";
}

class TfrtGpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<TfrtGpu_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

def TfrtGpu_DeviceGetOp : TfrtGpu_Op<"device_get"> {
  let summary = "the process's CUDA device of an ordinal";
  let description = [{
    `%device = tfrt_gpu.device_get {ordinal = 0 : i64}` is device 0 with its
    stream, shared by every program of the process. On a machine without a
    CUDA device (or driver) it is an error value, "no CUDA device:
    cudaGetDeviceCount returned ...", and so is everything that uses it.
  }];
  let arguments = (ins I64Attr:$ordinal);
  let results = (outs TfrtGpu_DeviceType:$device);
  let assemblyFormat = "attr-dict";
}

def TfrtGpu_ToDeviceOp : TfrtGpu_Op<"to_device"> {
  let summary = "copies a host tensor into device memory";
  let description = [{
    `%ch1, %dt = tfrt_gpu.to_device %device, %t, %ch0` copies `%t` on the
    device's stream; both results become available when the copy has
    completed on the device.
  }];
  let arguments = (ins TfrtGpu_DeviceType:$device, T_TensorType:$input,
                   Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain,
                 TfrtGpu_TensorType:$output);
  let assemblyFormat = "$device `,` $input `,` $in_chain attr-dict";
}

def TfrtGpu_ToHostOp : TfrtGpu_Op<"to_host"> {
  let summary = "copies a device tensor back into host memory";
  let description = [{
    `%ch1, %t = tfrt_gpu.to_host %dt, %ch0`: both results become available
    when the copy has completed on the device.
  }];
  let arguments = (ins TfrtGpu_TensorType:$input, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain, T_TensorType:$output);
  let assemblyFormat = "$input `,` $in_chain attr-dict";
}

def TfrtGpu_SynchronizeOp : TfrtGpu_Op<"synchronize"> {
  let summary = "waits, without blocking a thread, for the device's stream";
  let description = [{
    `%ch1 = tfrt_gpu.synchronize %device, %ch0` is available once all work
    enqueued on the device's stream before it has completed, or an error
    when that work failed.
  }];
  let arguments = (ins TfrtGpu_DeviceType:$device, Tfrt_ChainType:$in_chain);
  let results = (outs Tfrt_ChainType:$out_chain);
  let assemblyFormat = "$device `,` $in_chain attr-dict";
}

#endif  // SLUICE_DIALECTS_TFRT_GPU_TFRT_GPU_OPS_TD_

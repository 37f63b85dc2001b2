// Built without CUDA (no toolkit at CUDA_PATH), the runtime is a stand-in
// whose every call fails: tfrt_gpu.device_get is the no-device error value
// of any machine without a GPU, and its CUDA error says why, naming the
// folder the build looked in.
// UNSUPPORTED: cuda-build
// RUN: not %sluice_run %s -print_error_code 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'device':
// CHECK-NEXT: 'device' returned <<error: no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (this build of Sluice has no CUDA: no CUDA toolkit with NCCL was found at {{.+}} when it was built), code: FAILED_PRECONDITION>>
func.func @device() -> !tfrt_gpu.device {
  // DIAG: no_cuda_build.mlir:[[# @LINE + 1]]:13: error: runtime error: no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (this build of Sluice has no CUDA
  %device = tfrt_gpu.device_get {ordinal = 0 : i64}
  tfrt.return %device : !tfrt_gpu.device
}
// DIAG-NOT: error

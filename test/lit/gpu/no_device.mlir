// Without a CUDA device (or driver), tfrt_gpu.device_get is an error value
// that says so and names the CUDA error; the copies and the synchronize
// that use the device pass it on without running. Reported once, at
// device_get. The runtime's error name depends on the machine
// (cudaErrorInsufficientDriver without a driver, cudaErrorNoDevice with a
// driver and no card).
// UNSUPPORTED: cuda-device
// RUN: not %sluice_run %s -print_error_code 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'round_trip':
// CHECK-NEXT: 'round_trip' returned <<error: no CUDA device: cudaGetDeviceCount returned cudaError{{[A-Za-z]+}} ({{[^)]+}}), code: FAILED_PRECONDITION>>,<<error: no CUDA device: cudaGetDeviceCount returned cudaError{{[A-Za-z]+}} ({{[^)]+}}), code: FAILED_PRECONDITION>>
func.func @round_trip() -> (!tfrt.chain, !t.tensor) {
  %ch0 = tfrt.new.chain
  %t = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %t, %ch0
    [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]
  // DIAG: no_device.mlir:[[# @LINE + 1]]:13: error: runtime error: no CUDA device: cudaGetDeviceCount returned cudaError
  %device = tfrt_gpu.device_get {ordinal = 0 : i64}
  %ch2, %dt = tfrt_gpu.to_device %device, %t, %ch1
  %ch3, %back = tfrt_gpu.to_host %dt, %ch2
  %ch4 = tfrt_gpu.synchronize %device, %ch3
  tfrt.return %ch4, %back : !tfrt.chain, !t.tensor
}
// DIAG-NOT: error

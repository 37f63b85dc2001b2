// A host tensor to device 0 and back, and a synchronize of the device's
// stream: needs a CUDA device (see docs/gpu.md for where these run).
// REQUIRES: cuda-device
// RUN: %sluice_run %s | FileCheck %s

// CHECK-LABEL: --- Running 'round_trip':
// CHECK-NEXT: 'round_trip' returned DenseHostTensor dtype = f32, shape = [2, 2], values = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]
func.func @round_trip() -> !t.tensor {
  %ch0 = tfrt.new.chain
  %t = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %t, %ch0
    [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]
  %device = tfrt_gpu.device_get {ordinal = 0 : i64}
  %ch2, %dt = tfrt_gpu.to_device %device, %t, %ch1
  %ch3, %back = tfrt_gpu.to_host %dt, %ch2
  tfrt.return %back : !t.tensor
}

// The chain of synchronize is ready once the stream has run everything
// before it; printing after it shows the order.
// CHECK-LABEL: --- Running 'synchronize':
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [7, 8, 9]
// CHECK-NEXT: 'synchronize' returned
func.func @synchronize() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %t = tfrt_dht.create_uninitialized_tensor.i32.1 [3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.i32 %t, %ch0
    [7 : i32, 8 : i32, 9 : i32]
  %device = tfrt_gpu.device_get {ordinal = 0 : i64}
  %ch2, %dt = tfrt_gpu.to_device %device, %t, %ch1
  %ch3 = tfrt_gpu.synchronize %device, %ch2
  %ch4, %back = tfrt_gpu.to_host %dt, %ch3
  %ch5 = tfrt_dht.print_tensor %back, %ch4
  tfrt.return %ch5 : !tfrt.chain
}

// The tfrt_dht ops as TFRT writes them (dtype and rank in the op name), and
// the host allocator's budget failing a program as an error value.
// RUN: %sluice_run %s | FileCheck %s
// RUN: not %sluice_run -host_allocator_type=test_fixed_size_1k -functions=too_large %s 2>/dev/null | FileCheck %s --check-prefix=BUDGET

// CHECK-LABEL: --- Running 'print':
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 1, 1, 1]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [1.500000e+00, 2.500000e+00, 3.500000e+00]
// CHECK-NEXT: 'print' returned !tfrt.chain value
func.func @print() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]
  %ch1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %ch0 1 : i32
  %ch2 = tfrt_dht.print_tensor %a, %ch1
  %b = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %ch3 = tfrt_dht.set_tensor_with_constant_values.f32 %b, %ch2 [1.5 : f32, 2.5 : f32, 3.5 : f32]
  %ch4 = tfrt_dht.print_tensor %b, %ch3
  tfrt.return %ch4 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'equal':
// CHECK-NEXT: 'equal' returned 1
func.func @equal() -> i1 {
  %ch0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i64.1 [4 : i64]
  %ch1 = tfrt_dht.fill_tensor_with_constant.i64 %a, %ch0 7 : i64
  %b = tfrt_dht.create_uninitialized_tensor.i64.1 [4 : i64]
  %ch2 = tfrt_dht.fill_tensor_with_constant.i64 %b, %ch1 7 : i64
  %eq, %ch3 = tfrt_dht.tensor_equal.i64 %a, %b, %ch2
  tfrt.return %eq : i1
}

// 8 KiB fit the default allocator, not the 1 KiB test budget.
// CHECK-LABEL: --- Running 'too_large':
// CHECK-NEXT: 'too_large' returned !tfrt.chain value
// BUDGET-LABEL: --- Running 'too_large':
// BUDGET-NEXT: 'too_large' returned <<error: tfrt_dht.create_uninitialized_tensor: cannot allocate an f64 tensor of shape [1024]: the host allocator refused 8192 bytes>>
func.func @too_large() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f64.1 [1024 : i64]
  %ch1 = tfrt_dht.fill_tensor_with_constant.f64 %a, %ch0 1.0 : f64
  tfrt.return %ch1 : !tfrt.chain
}

// A variable passed to a remote function is the same variable there: the
// worker's own variable ops reach the parameter server that holds it, and
// the handle comes back unchanged.
// RUN: %with_workers 1 --ps=1 -- %sluice_run %s | FileCheck %s

// Adds one to every element of `w`; returns `w`.
func.func @add_one(%w: !tfrt_dist.variable) -> (!tfrt_dist.variable, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %one = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %one, %c0 1.0 : f32
  %c2 = tfrt_dist.assign_add_variable %w, %one, %c1
  tfrt.return %w, %c2 : !tfrt_dist.variable, !tfrt.chain
}

// CHECK: --- Not running 'add_one' because it has arguments.
// CHECK-LABEL: --- Running 'main':
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [2.500000e+00, 0.000000e+00]
// CHECK-NEXT: 'main' returned !tfrt.chain value
func.func @main() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %init = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.f32 %init, %c0 [1.5 : f32, -1.0 : f32]
  %w = tfrt_dist.create_variable %init, %c1 {name = "w"}
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add_one = tfrt_dist.register_function %task @add_one
  %back, %done = tfrt_dist.call %add_one(%w) : (!tfrt_dist.variable) -> (!tfrt_dist.variable, !tfrt.chain)
  // Read through the handle that came back.
  %value = tfrt_dist.read_variable %back, %done
  %c2 = tfrt_dht.print_tensor %value, %done
  tfrt.return %c2 : !tfrt.chain
}

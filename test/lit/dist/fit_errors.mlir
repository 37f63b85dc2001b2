// What tfrt_dist.fit makes of training that fails: its chain is the error
// Fit stopped with, reported once at the op, and no epoch line is printed.
// A step that fails:
// RUN: %with_workers 2 --ps=1 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code -functions=failing_step %s 2> %t.step | FileCheck %s --check-prefix=STEP
// RUN: FileCheck %s --check-prefix=STEP-DIAG < %t.step
// A metric of more than one element:
// RUN: %with_workers 2 --ps=1 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code -functions=wide_metric %s 2> %t.metric | FileCheck %s --check-prefix=METRIC
// RUN: FileCheck %s --check-prefix=METRIC-DIAG < %t.metric

func.func @numbers(%worker: i32) -> !tfrt_data.iterator {
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 1000
  %step = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @broken(%it: !tfrt_data.iterator, %v: !tfrt_dist.variable) -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

// The variable's two numbers, where a metric is one.
func.func @pair(%it: !tfrt_data.iterator, %v: !tfrt_dist.variable)
    -> !t.tensor {
  %c0 = tfrt.new.chain
  %metric = tfrt_dist.read_variable %v, %c0
  tfrt.return %metric : !t.tensor
}

// STEP-NOT: epoch
// STEP-LABEL: --- Running 'failing_step':
// STEP-NOT: epoch
// STEP: 'failing_step' returned <<error: {{.*}}something bad happened{{.*}}>>
// STEP-NOT: epoch
func.func @failing_step() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %init = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %init, %c0 0.0 : f32
  %v = tfrt_dist.create_variable %init, %c1 {name = "v"}
  %index = tfrt_dist.worker_index
  // STEP-DIAG: fit_errors.mlir:[[# @LINE + 1]]:11: error: runtime error: {{.*}}something bad happened
  %done = tfrt_dist.fit %c0, @numbers(%index : !tfrt_dist.per_worker),
      @broken(%v) {epochs = 2 : i64, steps_per_epoch = 4 : i64,
                   metric_names = ["broken"]}
  tfrt.return %done : !tfrt.chain
}

// METRIC-LABEL: --- Running 'wide_metric':
// METRIC-NEXT: 'wide_metric' returned <<error: fit: metric 'pair' is a f32 tensor of shape [2]; a metric must hold one i32, i64, f32 or f64 element, code: INVALID_ARGUMENT>>
func.func @wide_metric() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %init = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %init, %c0 0.0 : f32
  %v = tfrt_dist.create_variable %init, %c1 {name = "pair"}
  %index = tfrt_dist.worker_index
  // METRIC-DIAG: fit_errors.mlir:[[# @LINE + 1]]:11: error: runtime error: fit: metric 'pair' is a f32 tensor of shape [2]
  %done = tfrt_dist.fit %c0, @numbers(%index : !tfrt_dist.per_worker),
      @pair(%v) {epochs = 1 : i64, steps_per_epoch = 3 : i64,
                 metric_names = ["pair"]}
  tfrt.return %done : !tfrt.chain
}

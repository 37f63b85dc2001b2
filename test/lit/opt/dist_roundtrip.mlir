// The tfrt_dist ops print back in their custom syntax, from the custom and
// the generic form and from a compiled program, and printing is a fixed
// point.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s | sluice_opt | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_opt %s > %t.once && sluice_opt %t.once > %t.twice && diff %t.once %t.twice
// RUN: sluice_opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf && sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @echo(%s: !tfrt.string, %ch: !tfrt.chain, %f: f64, %b: i1)
    -> (!tfrt.chain, !tfrt.string, f64, i1, i64) {
  %n = tfrt.constant.i64 7
  tfrt.return %ch, %s, %f, %b, %n : !tfrt.chain, !tfrt.string, f64, i1, i64
}

func.func @nothing() {
  tfrt.return
}

// CHECK-LABEL: func.func @main()
func.func @main() -> (i32, !tfrt.chain) {
  // CHECK-NEXT: %[[T0:.*]] = tfrt_dist.get_task_handle "/job:worker/task:0"
  // GENERIC: "tfrt_dist.get_task_handle"() {task_name = "/job:worker/task:0"} : () -> !tfrt_dist.task_handle
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  // CHECK-NEXT: %[[T1:.*]] = tfrt_dist.get_task_handle "/job:ps/replica:0/task:12"
  %t1 = tfrt_dist.get_task_handle "/job:ps/replica:0/task:12"
  // CHECK-NEXT: %[[ADD:.*]] = tfrt_dist.register_function %[[T0]] @add
  // GENERIC: "tfrt_dist.register_function"(%{{.*}}) {callee = @add} : (!tfrt_dist.task_handle) -> !tfrt_dist.remote_function
  %add = tfrt_dist.register_function %t0 @add
  // CHECK-NEXT: %[[ECHO:.*]] = tfrt_dist.register_function %[[T1]] @echo
  %echo = tfrt_dist.register_function %t1 @echo
  // CHECK-NEXT: %[[NOTHING:.*]] = tfrt_dist.register_function %[[T1]] @nothing
  %nothing = tfrt_dist.register_function %t1 @nothing
  %one = tfrt.constant.i32 1
  %ch = tfrt.new.chain
  %s = "tfrt_test.get_string"() {value = "bark"} : () -> !tfrt.string
  %f = tfrt.constant.f64 1.5
  %b = tfrt.constant.i1 true
  // CHECK: %[[SUM:.*]] = tfrt_dist.call %[[ADD]](%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  // GENERIC: "tfrt_dist.call"(%{{.*}}, %{{.*}}, %{{.*}}) : (!tfrt_dist.remote_function, i32, i32) -> i32
  %sum = tfrt_dist.call %add(%one, %one) : (i32, i32) -> i32
  // CHECK-NEXT: %{{.*}}:5 = tfrt_dist.call %[[ECHO]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {deadline_ms = 250 : i64} : (!tfrt.string, !tfrt.chain, f64, i1) -> (!tfrt.chain, !tfrt.string, f64, i1, i64)
  // GENERIC: "tfrt_dist.call"({{.*}}) {deadline_ms = 250 : i64} : (!tfrt_dist.remote_function, !tfrt.string, !tfrt.chain, f64, i1) -> (!tfrt.chain, !tfrt.string, f64, i1, i64)
  %r:5 = tfrt_dist.call %echo(%s, %ch, %f, %b) {deadline_ms = 250 : i64}
      : (!tfrt.string, !tfrt.chain, f64, i1) -> (!tfrt.chain, !tfrt.string, f64, i1, i64)
  // CHECK-NEXT: tfrt_dist.call %[[NOTHING]]() : () -> ()
  tfrt_dist.call %nothing() : () -> ()
  tfrt.return %sum, %r#0 : i32, !tfrt.chain
}

// A remote function that arrives as an argument can be called with any
// signature the wire carries; the task checks it.
// CHECK-LABEL: func.func @passed_in
// CHECK-SAME: (%[[FN:.*]]: !tfrt_dist.remote_function, %[[X:.*]]: i64)
func.func @passed_in(%fn: !tfrt_dist.remote_function, %x: i64) -> f32 {
  // CHECK-NEXT: tfrt_dist.call %[[FN]](%[[X]]) : (i64) -> f32
  %r = tfrt_dist.call %fn(%x) : (i64) -> f32
  tfrt.return %r : f32
}

// The types print in the dialect's own syntax.
// CHECK-LABEL: func.func @types
// CHECK-SAME: (%{{.*}}: !tfrt_dist.task_handle) -> !tfrt_dist.task_handle
func.func @types(%t: !tfrt_dist.task_handle) -> !tfrt_dist.task_handle {
  tfrt.return %t : !tfrt_dist.task_handle
}

// The variable ops, with Adam's optional hyperparameters left out or given.
// CHECK-LABEL: func.func @variables
func.func @variables(%x: !t.tensor, %ch: !tfrt.chain) -> (!t.tensor, !tfrt.chain) {
  // CHECK-NEXT: %[[V:.*]] = tfrt_dist.create_variable %{{.*}}, %{{.*}} {name = "w"}
  %v = tfrt_dist.create_variable %x, %ch {name = "w"}
  // CHECK-NEXT: tfrt_dist.assign_variable %[[V]], %{{.*}}, %{{.*}}
  %c1 = tfrt_dist.assign_variable %v, %x, %ch
  // CHECK-NEXT: tfrt_dist.assign_add_variable %[[V]]
  %c2 = tfrt_dist.assign_add_variable %v, %x, %c1
  // CHECK-NEXT: tfrt_dist.apply_sgd %[[V]], %{{.*}}, %{{.*}} {learning_rate = 1.000000e-01 : f64}
  %c3 = tfrt_dist.apply_sgd %v, %x, %c2 {learning_rate = 0.1 : f64}
  // CHECK-NEXT: tfrt_dist.apply_adam %[[V]], %{{.*}}, %{{.*}} {learning_rate = 1.000000e-03 : f64}
  %c4 = tfrt_dist.apply_adam %v, %x, %c3 {learning_rate = 0.001 : f64}
  // CHECK-NEXT: tfrt_dist.apply_adam %[[V]], %{{.*}}, %{{.*}} {beta1 = 8.000000e-01 : f64, epsilon = 9.9999999999999995E-7 : f64, learning_rate = 1.000000e-03 : f64}
  %c5 = tfrt_dist.apply_adam %v, %x, %c4 {learning_rate = 0.001 : f64, beta1 = 0.8 : f64, epsilon = 1.0e-6 : f64}
  // CHECK-NEXT: tfrt_dist.read_variable %[[V]], %{{.*}}
  %r = tfrt_dist.read_variable %v, %c5
  tfrt.return %r, %c5 : !t.tensor, !tfrt.chain
}

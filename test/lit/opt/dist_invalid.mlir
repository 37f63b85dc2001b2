// Verifier and parser errors of the tfrt_dist dialect.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @bad_task_name() {
  // expected-error @+1 {{'tfrt_dist.get_task_handle' op task name '/job:worker' is not of the form /job:<job>/task:<index>}}
  %t = tfrt_dist.get_task_handle "/job:worker"
  tfrt.return
}

// -----

func.func @bad_task_index() {
  // expected-error @+1 {{task name '/job:worker/task:x' is not of the form}}
  %t = tfrt_dist.get_task_handle "/job:worker/task:x"
  tfrt.return
}

// -----

func.func @other_replica() {
  // expected-error @+1 {{task name '/job:worker/replica:1/task:0' is not of the form}}
  %t = tfrt_dist.get_task_handle "/job:worker/replica:1/task:0"
  tfrt.return
}

// -----

func.func @task_name_not_a_string() {
  // expected-error @+1 {{expected attribute value}}
  %t = tfrt_dist.get_task_handle
  tfrt.return
}

// -----

func.func @extra_attribute() {
  // expected-error @+1 {{'tfrt_dist.get_task_handle' op has unknown attribute 'address'; it takes task_name}}
  %t = tfrt_dist.get_task_handle "/job:worker/task:0" {address = "127.0.0.1:1"}
  tfrt.return
}

// -----

func.func @missing_callee() {
  %t = tfrt_dist.get_task_handle "/job:worker/task:0"
  // expected-error @+1 {{'tfrt_dist.register_function' op callee 'missing' is not a function of this module: only the module's own functions can be sent to a task}}
  %fn = tfrt_dist.register_function %t @missing
  tfrt.return
}

// -----

module {
  func.func @callee_in_nested_module() {
    %t = tfrt_dist.get_task_handle "/job:worker/task:0"
    // expected-error @+1 {{callee 'nested' is not a function of this module}}
    %fn = tfrt_dist.register_function %t @nested
    tfrt.return
  }
  module @nested {}
}

// -----

func.func @takes_f16(%x: f16) {
  tfrt.return
}

func.func @untransferable_callee() {
  %t = tfrt_dist.get_task_handle "/job:worker/task:0"
  // expected-error @+1 {{callee argument #0 has type 'f16', which a remote call cannot carry (it carries i1, i32, i64, f32, f64, !tfrt.string, !tfrt.chain, !t.tensor and !tfrt_dist.variable)}}
  %fn = tfrt_dist.register_function %t @takes_f16
  tfrt.return
}

// -----

func.func @returns_handle() -> !tfrt_dist.task_handle {
  %t = tfrt_dist.get_task_handle "/job:worker/task:1"
  tfrt.return %t : !tfrt_dist.task_handle
}

func.func @untransferable_result() {
  %t = tfrt_dist.get_task_handle "/job:worker/task:0"
  // expected-error @+1 {{callee result #0 has type '!tfrt_dist.task_handle', which a remote call cannot carry}}
  %fn = tfrt_dist.register_function %t @returns_handle
  tfrt.return
}

// -----

func.func @f() {
  tfrt.return
}

// expected-note @+1 {{prior use here}}
func.func @register_on_non_handle(%x: i32) {
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: '!tfrt_dist.task_handle' vs 'i32'}}
  %fn = tfrt_dist.register_function %x @f
  tfrt.return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @call_non_function(%t: !tfrt_dist.task_handle) {
  // expected-error @+1 {{use of value '%t' expects different type than prior uses: '!tfrt_dist.remote_function' vs '!tfrt_dist.task_handle'}}
  tfrt_dist.call %t() : () -> ()
  tfrt.return
}

// -----

func.func @call_non_function_generic(%t: !tfrt_dist.task_handle) {
  // expected-error @+1 {{'tfrt_dist.call' op operand #0 must be a function registered on a task, ready to be called, but got '!tfrt_dist.task_handle'}}
  "tfrt_dist.call"(%t) : (!tfrt_dist.task_handle) -> ()
  tfrt.return
}

// -----

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @call_arg_mismatch(%x: i64) {
  %t = tfrt_dist.get_task_handle "/job:worker/task:0"
  %fn = tfrt_dist.register_function %t @add
  // expected-error @+1 {{'tfrt_dist.call' op passes (i64, i64) to 'add', which takes (i32, i32)}}
  %r = tfrt_dist.call %fn(%x, %x) : (i64, i64) -> i32
  tfrt.return
}

// -----

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @call_result_mismatch(%x: i32) {
  %t = tfrt_dist.get_task_handle "/job:worker/task:0"
  %fn = tfrt_dist.register_function %t @add
  // expected-error @+1 {{'tfrt_dist.call' op expects (i32, !tfrt.chain) from 'add', which returns (i32)}}
  %r:2 = tfrt_dist.call %fn(%x, %x) : (i32, i32) -> (i32, !tfrt.chain)
  tfrt.return
}

// -----

func.func @untransferable_argument(%fn: !tfrt_dist.remote_function, %y: i32,
                                   %x: f16) {
  // expected-error @+1 {{'tfrt_dist.call' op argument #1 has type 'f16', which a remote call cannot carry}}
  %r = tfrt_dist.call %fn(%y, %x) : (i32, f16) -> i32
  tfrt.return
}

// -----

func.func @untransferable_call_result(%fn: !tfrt_dist.remote_function) {
  // expected-error @+1 {{'tfrt_dist.call' op result #0 has type 'ui32', which a remote call cannot carry}}
  %r = tfrt_dist.call %fn() : () -> ui32
  tfrt.return
}

// -----

func.func @zero_deadline(%fn: !tfrt_dist.remote_function) {
  // expected-error @+1 {{'tfrt_dist.call' op deadline_ms must be positive, got 0}}
  tfrt_dist.call %fn() {deadline_ms = 0 : i64} : () -> ()
  tfrt.return
}

// -----

func.func @negative_deadline(%fn: !tfrt_dist.remote_function) {
  // expected-error @+1 {{deadline_ms must be positive, got -5}}
  tfrt_dist.call %fn() {deadline_ms = -5 : i64} : () -> ()
  tfrt.return
}

// -----

func.func @deadline_not_i64(%fn: !tfrt_dist.remote_function) {
  // expected-error @+1 {{'tfrt_dist.call' op attribute 'deadline_ms' failed to satisfy constraint: 64-bit signless integer attribute}}
  tfrt_dist.call %fn() {deadline_ms = 5 : i32} : () -> ()
  tfrt.return
}

// -----

func.func @call_extra_attribute(%fn: !tfrt_dist.remote_function) {
  // expected-error @+1 {{'tfrt_dist.call' op has unknown attribute 'timeout'; it takes deadline_ms}}
  tfrt_dist.call %fn() {timeout = 5 : i64} : () -> ()
  tfrt.return
}

// -----

func.func @hint_attributes_allowed(%fn: !tfrt_dist.remote_function) {
  tfrt_dist.call %fn() {_tfrt_cost = 5 : i64} : () -> ()
  tfrt.return
}

// -----

// expected-error @+1 {{type `handle` in dialect `tfrt_dist`}}
func.func @unknown_type(%t: !tfrt_dist.handle) {
  tfrt.return
}

// -----

func.func @variable_without_a_name(%x: !t.tensor, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.create_variable' op name must not be empty}}
  %v = tfrt_dist.create_variable %x, %ch {name = ""}
  tfrt.return
}

// -----

func.func @variable_of_a_scalar(%x: f32, %ch: !tfrt.chain) {
  // expected-error @+1 {{operand #0 must be a dense host tensor of any dtype and shape, but got 'f32'}}
  %v = "tfrt_dist.create_variable"(%x, %ch) {name = "w"} : (f32, !tfrt.chain) -> !tfrt_dist.variable
  tfrt.return
}

// -----

func.func @read_with_an_attribute(%v: !tfrt_dist.variable, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.read_variable' op has unknown attribute 'name'; it takes none}}
  %x = tfrt_dist.read_variable %v, %ch {name = "w"}
  tfrt.return
}

// -----

func.func @sgd_without_a_learning_rate(%v: !tfrt_dist.variable, %g: !t.tensor, %ch: !tfrt.chain) {
  // expected-error @+1 {{requires attribute 'learning_rate'}}
  %c = tfrt_dist.apply_sgd %v, %g, %ch
  tfrt.return
}

// -----

func.func @sgd_infinite_learning_rate(%v: !tfrt_dist.variable, %g: !t.tensor, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.apply_sgd' op learning_rate must be finite, got INF}}
  %c = tfrt_dist.apply_sgd %v, %g, %ch {learning_rate = 0x7FF0000000000000 : f64}
  tfrt.return
}

// -----

func.func @adam_beta_of_one(%v: !tfrt_dist.variable, %g: !t.tensor, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.apply_adam' op beta2 must be in [0, 1), got 1}}
  %c = tfrt_dist.apply_adam %v, %g, %ch {learning_rate = 0.1 : f64, beta2 = 1.0 : f64}
  tfrt.return
}

// -----

func.func @adam_zero_epsilon(%v: !tfrt_dist.variable, %g: !t.tensor, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.apply_adam' op epsilon must be positive, got 0}}
  %c = tfrt_dist.apply_adam %v, %g, %ch {learning_rate = 0.1 : f64, epsilon = 0.0 : f64}
  tfrt.return
}

// -----

func.func @adam_unknown_attribute(%v: !tfrt_dist.variable, %g: !t.tensor, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.apply_adam' op has unknown attribute 'momentum'; it takes learning_rate, beta1, beta2, epsilon}}
  %c = tfrt_dist.apply_adam %v, %g, %ch {learning_rate = 0.1 : f64, momentum = 0.9 : f64}
  tfrt.return
}

// Verifier errors of the coordinator ops of the tfrt_dist dialect.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @missing_callee() {
  // expected-error @+1 {{'tfrt_dist.schedule' op callee 'nowhere' is not a function of this module: only the module's own functions can run on workers}}
  tfrt_dist.schedule @nowhere() : () -> ()
  tfrt.return
}

// -----

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @too_few_operands() {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{'tfrt_dist.schedule' op passes 1 operand(s) to 'add', which takes 2}}
  %r = tfrt_dist.schedule @add(%one) : (i32) -> i32
  tfrt.return
}

// -----

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @wrong_operand_type() {
  %one = tfrt.constant.i32 1
  %wide = tfrt.constant.i64 1
  // expected-error @+1 {{'tfrt_dist.schedule' op operand #1 has type 'i64', but 'add' takes 'i32'}}
  %r = tfrt_dist.schedule @add(%one, %wide) : (i32, i64) -> i32
  tfrt.return
}

// -----

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @wrong_result_type() {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{'tfrt_dist.schedule' op expects ('i64') from 'add', which returns ('i32')}}
  %r = tfrt_dist.schedule @add(%one, %one) : (i32, i32) -> i64
  tfrt.return
}

// -----

func.func @keep(%x: !tfrt.chain) -> !tfrt_dist.task_handle {
  %t = tfrt_dist.get_task_handle "/job:worker/task:0"
  tfrt.return %t : !tfrt_dist.task_handle
}

func.func @result_not_transferable(%c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.schedule' op callee result #0 has type '!tfrt_dist.task_handle', which a remote call cannot carry}}
  %r = tfrt_dist.schedule @keep(%c) : (!tfrt.chain) -> !tfrt_dist.task_handle
  tfrt.return
}

// -----

func.func @hundred() -> i32 {
  %c = tfrt.constant.i32 100
  tfrt.return %c : i32
}

func.func @scale(%x: f32) -> f32 {
  tfrt.return %x : f32
}

func.func @resource_of_other_type() {
  %r = tfrt_dist.create_per_worker_resource @hundred()
      : () -> !tfrt_dist.per_worker
  // expected-error @+1 {{'tfrt_dist.schedule' op operand #0 is a per-worker value of type 'i32', but 'scale' takes 'f32'}}
  %s = tfrt_dist.schedule @scale(%r) : (!tfrt_dist.per_worker) -> f32
  tfrt.return
}

// -----

func.func @scale(%x: f32) -> f32 {
  tfrt.return %x : f32
}

func.func @worker_index_is_i32() {
  %i = tfrt_dist.worker_index
  // expected-error @+1 {{'tfrt_dist.schedule' op operand #0 is a per-worker value of type 'i32', but 'scale' takes 'f32'}}
  %s = tfrt_dist.schedule @scale(%i) : (!tfrt_dist.per_worker) -> f32
  tfrt.return
}

// -----

func.func @two() -> (i32, i32) {
  %c = tfrt.constant.i32 2
  tfrt.return %c, %c : i32, i32
}

func.func @one_per_result() {
  // expected-error @+1 {{'tfrt_dist.create_per_worker_resource' op has 1 result(s), but 'two' returns 2: one !tfrt_dist.per_worker per result}}
  %r = tfrt_dist.create_per_worker_resource @two()
      : () -> !tfrt_dist.per_worker
  tfrt.return
}

// -----

func.func @hundred() -> i32 {
  %c = tfrt.constant.i32 100
  tfrt.return %c : i32
}

func.func @identity(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @resource_of_resource() {
  %r = tfrt_dist.create_per_worker_resource @hundred()
      : () -> !tfrt_dist.per_worker
  // expected-error @+1 {{'tfrt_dist.create_per_worker_resource' op operand #0 is a per-worker resource; a resource's function takes values and the worker index only}}
  %s = tfrt_dist.create_per_worker_resource @identity(%r)
      : (!tfrt_dist.per_worker) -> !tfrt_dist.per_worker
  tfrt.return
}

// -----

func.func @hundred() -> i32 {
  %c = tfrt.constant.i32 100
  tfrt.return %c : i32
}

func.func @dataset_not_an_iterator() {
  // expected-error @+1 {{'tfrt_dist.create_per_worker_dataset' op dataset function 'hundred' must return one !tfrt_data.iterator, but returns ('i32')}}
  %r = tfrt_dist.create_per_worker_dataset @hundred()
      : () -> !tfrt_dist.per_worker
  tfrt.return
}

// -----

func.func @join_attribute(%c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.join' op has unknown attribute 'deadline_ms'; it takes none}}
  %d = tfrt_dist.join %c {deadline_ms = 5 : i64}
  tfrt.return
}

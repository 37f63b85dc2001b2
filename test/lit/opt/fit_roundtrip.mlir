// tfrt_dist.fit prints back in its custom syntax, from the custom and the
// generic form and from a compiled program.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf && sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s

func.func @dataset(%worker: i32, %n: i64) -> !tfrt_data.iterator {
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable,
                %b: !tfrt_dist.variable) -> (f32, i64) {
  %loss = tfrt.constant.f32 1.0
  %n = tfrt.constant.i64 1
  tfrt.return %loss, %n : f32, i64
}

func.func @no_arguments() -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @no_variables(%it: !tfrt_data.iterator) -> !t.tensor {
  %c0 = tfrt.new.chain
  %c1, %x = tfrt_data.iterator_get_next %it, %c0 : !t.tensor
  tfrt.return %x : !t.tensor
}

// CHECK-LABEL: func.func @train
func.func @train(%ch: !tfrt.chain, %w: !tfrt_dist.variable,
                 %b: !tfrt_dist.variable) -> !tfrt.chain {
  %index = tfrt_dist.worker_index
  %n = tfrt.constant.i64 2
  // CHECK: %[[DONE:.*]] = tfrt_dist.fit %{{.*}}, @dataset(%{{.*}}, %{{.*}} : !tfrt_dist.per_worker, i64), @step(%{{.*}}, %{{.*}}) {callback_every_steps = 5 : i64, checkpoint_directory = "/tmp/ckpt", checkpoint_every_steps = 10 : i64, epochs = 3 : i64, metric_names = ["loss", "count"], steps_per_epoch = 20 : i64}
  %done = tfrt_dist.fit %ch, @dataset(%index, %n : !tfrt_dist.per_worker, i64),
      @step(%w, %b) {epochs = 3 : i64, steps_per_epoch = 20 : i64,
                     metric_names = ["loss", "count"],
                     callback_every_steps = 5 : i64,
                     checkpoint_directory = "/tmp/ckpt",
                     checkpoint_every_steps = 10 : i64}
  // CHECK: tfrt_dist.fit %[[DONE]], @no_arguments(), @no_variables() {epochs = 1 : i64, metric_names = ["x"], steps_per_epoch = 1 : i64}
  %again = tfrt_dist.fit %done, @no_arguments(), @no_variables()
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["x"]}
  tfrt.return %again : !tfrt.chain
}

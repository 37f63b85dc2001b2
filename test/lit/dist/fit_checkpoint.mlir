// tfrt_dist.fit with a checkpoint_directory: the first run checkpoints each
// epoch; the second, on a fresh parameter server, restores the variable
// from the newest checkpoint, finds training finished, and runs no step.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's|CHECKPOINTS|%t/ckpt|' %s > %t/fit.mlir
// RUN: %with_workers 2 --ps=1 -- %sluice_run -work_queue_type=mstd -functions=main %t/fit.mlir | FileCheck %s --check-prefix=FIRST
// RUN: ls %t/ckpt | FileCheck %s --check-prefix=FILES
// RUN: %with_workers 2 --ps=1 -- %sluice_run -work_queue_type=mstd -functions=main %t/fit.mlir | FileCheck %s --check-prefix=AGAIN

func.func @numbers(%worker: i32) -> !tfrt_data.iterator {
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 1000
  %step = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

// Counts the steps in the variable; the metric is the count's increment,
// once added: a step ends when its update has, so that the checkpoint at a
// sync point holds every update of the steps before it.
func.func @count(%it: !tfrt_data.iterator, %v: !tfrt_dist.variable)
    -> !t.tensor {
  %c0 = tfrt.new.chain
  %one = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %one, %c0 1.0 : f32
  %c2 = tfrt_dist.assign_add_variable %v, %one, %c1
  %metric = tfrt_math.mean.f32 %one, %c2
  tfrt.return %metric : !t.tensor
}

// FIRST-LABEL: --- Running 'main':
// FIRST-NEXT: epoch 1/2: added 1.0000
// FIRST-NEXT: epoch 2/2: added 1.0000
// FIRST-NEXT: DenseHostTensor dtype = f32, shape = [1], values = [6.000000e+00]
// FILES: ckpt-00000000000000000003.manifest
// FILES: ckpt-00000000000000000006.manifest
// AGAIN-LABEL: --- Running 'main':
// AGAIN-NEXT: DenseHostTensor dtype = f32, shape = [1], values = [6.000000e+00]
func.func @main() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %init = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %init, %c0 0.0 : f32
  %v = tfrt_dist.create_variable %init, %c1 {name = "steps"}
  %index = tfrt_dist.worker_index
  %done = tfrt_dist.fit %c0, @numbers(%index : !tfrt_dist.per_worker),
      @count(%v) {epochs = 2 : i64, steps_per_epoch = 3 : i64,
                  metric_names = ["added"],
                  checkpoint_directory = "CHECKPOINTS"}
  %value = tfrt_dist.read_variable %v, %done
  %printed = tfrt_dht.print_tensor %value, %done
  tfrt.return %printed : !tfrt.chain
}

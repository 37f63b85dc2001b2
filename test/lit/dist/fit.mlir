// tfrt_dist.fit trains a linear classifier on two workers, its variables on
// a parameter server: one line per epoch as it ends, one per window of
// callback_every_steps steps, then the accuracy of the variables Fit
// trained on held-out examples. The clusters are far apart, so every interleaving
// of the asynchronous steps ends near perfect accuracy.
// RUN: %with_workers 2 --ps=1 -- %sluice_run -work_queue_type=mstd -functions=main %s | FileCheck %s

// 8 features, 3 classes. Worker `worker` of `num_workers` reads its shard
// of the training examples in batches of 16, forever.
func.func @train_dataset(%worker: i32, %num_workers: i64)
    -> !tfrt_data.iterator {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 4000 : i64,
      num_features = 8 : i64, num_classes = 3 : i64, seed = 11 : i64,
      stddev = 0.3 : f64}
  %index = "tfrt.cast.i32_to_i64"(%worker) : (i32) -> i64
  %shard = tfrt_data.shard_dataset %all, %num_workers, %index
  %batch_size = tfrt.constant.i64 16
  %batches = tfrt_data.batch_dataset %shard, %batch_size {drop_remainder = true}
  %forever = tfrt.constant.i64 -1
  %repeated = tfrt_data.repeat_dataset %batches, %forever
  %iterator = tfrt_data.make_iterator %repeated
  tfrt.return %iterator : !tfrt_data.iterator
}

// One SGD step on the next batch; the metrics wait for the updates.
func.func @train_step(%iterator: !tfrt_data.iterator,
                      %w: !tfrt_dist.variable, %b: !tfrt_dist.variable)
    -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor
  %w_value = tfrt_dist.read_variable %w, %ch0
  %b_value = tfrt_dist.read_variable %b, %ch0
  %xw = tfrt_math.matmul.f32 %x, %w_value
  %logits = tfrt_math.add.f32 %xw, %b_value
  %loss, %dlogits = tfrt_math.softmax_cross_entropy.f32 %logits, %labels
  %dw = tfrt_math.matmul.f32 %x, %dlogits {transpose_a = true}
  %db = tfrt_math.sum.f32 %dlogits {axis = 0 : i64}
  %u1 = tfrt_dist.apply_sgd %w, %dw, %ch0 {learning_rate = 0.5 : f64}
  %u2 = tfrt_dist.apply_sgd %b, %db, %ch0 {learning_rate = 0.5 : f64}
  %applied = tfrt.merge.chains %u1, %u2 : !tfrt.chain, !tfrt.chain
  %loss_out = tfrt_math.mean.f32 %loss, %applied
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels, %applied
  tfrt.return %loss_out, %accuracy : !t.tensor, !t.tensor
}

// CHECK-LABEL: --- Running 'main':
// CHECK-NEXT: epoch 1/3 step 10/20: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 1/3 step 20/20: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 1/3: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 2/3 step 10/20: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 2/3 step 20/20: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 2/3: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 3/3 step 10/20: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// CHECK-NEXT: epoch 3/3 step 20/20: loss {{[0-9]+\.[0-9][0-9][0-9][0-9]}} accuracy {{[01]\.[0-9][0-9][0-9][0-9]}}
// The last epoch's steps are nearly all right, and so is the held-out set.
// CHECK-NEXT: epoch 3/3: loss {{0\.[0-9][0-9][0-9][0-9]}} accuracy {{0\.9[0-9][0-9][0-9]|1\.0000}}
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [], values = [{{9\.[0-9]+e-01|1\.000000e\+00}}]
// CHECK-NEXT: 'main' returned !tfrt.chain value
func.func @main() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %w_init = tfrt_dht.create_uninitialized_tensor.f32.2 [8 : i64, 3 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %w_init, %c0 0.0 : f32
  %b_init = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %b_init, %c0 0.0 : f32
  %w = tfrt_dist.create_variable %w_init, %c1 {name = "fit_w"}
  %b = tfrt_dist.create_variable %b_init, %c2 {name = "fit_b"}
  %index = tfrt_dist.worker_index
  %num_workers = tfrt.constant.i64 2
  %trained = tfrt_dist.fit %c0,
      @train_dataset(%index, %num_workers : !tfrt_dist.per_worker, i64),
      @train_step(%w, %b)
      {epochs = 3 : i64, steps_per_epoch = 20 : i64,
       metric_names = ["loss", "accuracy"], callback_every_steps = 10 : i64}
  // The held-out accuracy, on the coordinator, of the variables as Fit
  // left them.
  %w_value = tfrt_dist.read_variable %w, %trained
  %b_value = tfrt_dist.read_variable %b, %trained
  %held_out = tfrt_data.gaussian_clusters_dataset {num_examples = 1000 : i64,
      first_example = 4000 : i64, num_features = 8 : i64,
      num_classes = 3 : i64, seed = 11 : i64, stddev = 0.3 : f64}
  %everything = tfrt.constant.i64 1000
  %batch = tfrt_data.batch_dataset %held_out, %everything
  %iterator = tfrt_data.make_iterator %batch
  %c3, %x, %labels = tfrt_data.iterator_get_next %iterator, %c0
      : !t.tensor, !t.tensor
  %xw = tfrt_math.matmul.f32 %x, %w_value
  %logits = tfrt_math.add.f32 %xw, %b_value
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels
  %done = tfrt_dht.print_tensor %accuracy, %trained
  tfrt.return %done : !tfrt.chain
}

// A multilayer perceptron on Gaussian clusters, trained by the coordinator
// of examples/ps_training (ps_train.cc). Its variables live on the
// parameter servers: w1 [16, 32], b1 [32], w2 [32, 8], b2 [8].
//
// The data: 8 Gaussian clusters in 16 dimensions (seed 7). Examples
// [0, 100000) train, sharded by worker; [100000, 120000) evaluate. The
// attributes here and the constants in ps_train.cc describe one model:
// change them together.

// Each worker's iterator: its shard of the training examples, in batches
// of 64, repeated forever (an epoch is steps_per_epoch steps).
func.func @train_dataset(%worker: i32, %num_workers: i64)
    -> !tfrt_data.iterator {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 100000 : i64,
      first_example = 0 : i64, num_features = 16 : i64, num_classes = 8 : i64,
      seed = 7 : i64, stddev = 1.2 : f64}
  %index = "tfrt.cast.i32_to_i64"(%worker) : (i32) -> i64
  %shard = tfrt_data.shard_dataset %all, %num_workers, %index
  %batch_size = tfrt.constant.i64 64
  %batches = tfrt_data.batch_dataset %shard, %batch_size {drop_remainder = true}
  %forever = tfrt.constant.i64 -1
  %repeated = tfrt_data.repeat_dataset %batches, %forever
  %iterator = tfrt_data.make_iterator %repeated
  tfrt.return %iterator : !tfrt_data.iterator
}

// One step of SGD on the next batch: returns the batch's loss and accuracy
// once the parameter servers have applied every update.
func.func @train_step(%iterator: !tfrt_data.iterator,
                      %w1: !tfrt_dist.variable, %b1: !tfrt_dist.variable,
                      %w2: !tfrt_dist.variable, %b2: !tfrt_dist.variable)
    -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor
  %w1_value = tfrt_dist.read_variable %w1, %ch0
  %b1_value = tfrt_dist.read_variable %b1, %ch0
  %w2_value = tfrt_dist.read_variable %w2, %ch0
  %b2_value = tfrt_dist.read_variable %b2, %ch0

  // Forward.
  %xw1 = tfrt_math.matmul.f32 %x, %w1_value
  %z1 = tfrt_math.add.f32 %xw1, %b1_value
  %h = tfrt_math.relu.f32 %z1
  %hw2 = tfrt_math.matmul.f32 %h, %w2_value
  %logits = tfrt_math.add.f32 %hw2, %b2_value
  %loss, %dlogits = tfrt_math.softmax_cross_entropy.f32 %logits, %labels

  // Backward.
  %dw2 = tfrt_math.matmul.f32 %h, %dlogits {transpose_a = true}
  %db2 = tfrt_math.sum.f32 %dlogits {axis = 0 : i64}
  %dh = tfrt_math.matmul.f32 %dlogits, %w2_value {transpose_b = true}
  %dz1 = tfrt_math.relu_grad.f32 %dh, %z1
  %dw1 = tfrt_math.matmul.f32 %x, %dz1 {transpose_a = true}
  %db1 = tfrt_math.sum.f32 %dz1 {axis = 0 : i64}

  %u1 = tfrt_dist.apply_sgd %w1, %dw1, %ch0 {learning_rate = 0.1 : f64}
  %u2 = tfrt_dist.apply_sgd %b1, %db1, %ch0 {learning_rate = 0.1 : f64}
  %u3 = tfrt_dist.apply_sgd %w2, %dw2, %ch0 {learning_rate = 0.1 : f64}
  %u4 = tfrt_dist.apply_sgd %b2, %db2, %ch0 {learning_rate = 0.1 : f64}
  %applied = tfrt.merge.chains %u1, %u2, %u3, %u4
      : !tfrt.chain, !tfrt.chain, !tfrt.chain, !tfrt.chain

  // The metrics wait for the updates: a step is done once they are.
  %loss_out = tfrt_math.mean.f32 %loss, %applied
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels, %applied
  tfrt.return %loss_out, %accuracy : !t.tensor, !t.tensor
}

// The accuracy on shard `shard` of `num_shards` of the evaluation
// examples, all in one batch.
func.func @evaluate(%shard: i64, %num_shards: i64,
                    %w1: !tfrt_dist.variable, %b1: !tfrt_dist.variable,
                    %w2: !tfrt_dist.variable, %b2: !tfrt_dist.variable)
    -> !t.tensor {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 20000 : i64,
      first_example = 100000 : i64, num_features = 16 : i64,
      num_classes = 8 : i64, seed = 7 : i64, stddev = 1.2 : f64}
  %part = tfrt_data.shard_dataset %all, %num_shards, %shard
  %everything = tfrt.constant.i64 20000
  %batch = tfrt_data.batch_dataset %part, %everything
  %iterator = tfrt_data.make_iterator %batch
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor
  %w1_value = tfrt_dist.read_variable %w1, %ch0
  %b1_value = tfrt_dist.read_variable %b1, %ch0
  %w2_value = tfrt_dist.read_variable %w2, %ch0
  %b2_value = tfrt_dist.read_variable %b2, %ch0
  %xw1 = tfrt_math.matmul.f32 %x, %w1_value
  %z1 = tfrt_math.add.f32 %xw1, %b1_value
  %h = tfrt_math.relu.f32 %z1
  %hw2 = tfrt_math.matmul.f32 %h, %w2_value
  %logits = tfrt_math.add.f32 %hw2, %b2_value
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels
  tfrt.return %accuracy : !t.tensor
}

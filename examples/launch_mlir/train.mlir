// One rank of a data-parallel job under sluice_launch, run by sluice_run:
// softmax regression on this rank's shard of 8 Gaussian clusters in 16
// dimensions, with a step signal per batch, a checkpoint and an epoch end
// signal per epoch, and the end of training, for the launcher's step
// monitor. run_rank.sh fills in RANK, NUM_RANKS, EPOCHS, STEPS and
// CKPT_DIR and runs @fresh, or @resume after a restart. The ranks do not
// average their gradients: each trains its own copy (see README.md).

// A new model: zero weights. Step 0, declared "first", covers the start.
func.func @fresh() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %s0 = tfrt.constant.i64 0
  %ch1 = tfrt_ft.step_begin %s0, %ch0 {kind = "first"}
  %w = tfrt_dht.create_uninitialized_tensor.f32.2 [16 : i64, 8 : i64]
  %ch2 = tfrt_dht.fill_tensor_with_constant.f32 %w, %ch1 0.0 : f32
  %b = tfrt_dht.create_uninitialized_tensor.f32.1 [8 : i64]
  %ch3 = tfrt_dht.fill_tensor_with_constant.f32 %b, %ch2 0.0 : f32
  %ch4 = tfrt_ft.step_end %s0, %ch3
  %epoch = tfrt.constant.i64 0
  %done = tfrt.call @train(%epoch, %w, %b, %ch4)
      : (i64, !t.tensor, !t.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

// The model of this rank's newest checkpoint, which run_rank.sh made the
// one of the epoch the launcher resumes from; training goes on from there.
func.func @resume() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %s0 = tfrt.constant.i64 0
  %ch1 = tfrt_ft.step_begin %s0, %ch0 {kind = "first"}
  %ch2, %step, %epoch, %w, %b = tfrt_ft.restore_checkpoint %ch1
      {directory = "CKPT_DIR", names = ["w", "b"]} : !t.tensor, !t.tensor
  %ch3 = tfrt.print.i64 %epoch, %ch2
  %ch4 = tfrt_ft.step_end %s0, %ch3
  %done = tfrt.call @train(%epoch, %w, %b, %ch4)
      : (i64, !t.tensor, !t.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

// Epochs `epoch` to EPOCHS - 1, then the held-out accuracy.
func.func @train(%epoch: i64, %w: !t.tensor, %b: !t.tensor,
                 %ch0: !tfrt.chain) -> !tfrt.chain {
  %one = tfrt.constant.i64 1
  %epochs = tfrt.constant.i64 EPOCHS
  %first = tfrt.add.i64 %epoch, %one
  %more = "tfrt.lessequal.i64"(%first, %epochs) : (i64, i64) -> i1
  %r:5 = tfrt.while %more @epoch(%epoch, %one, %w, %b, %ch0)
      parallel_iterations(1)
      : (i64, i64, !t.tensor, !t.tensor, !tfrt.chain)
      -> (i64, i64, !t.tensor, !t.tensor, !tfrt.chain)
  %accuracy = tfrt.call @evaluate(%r#2, %r#3)
      : (!t.tensor, !t.tensor) -> !t.tensor
  %ch1 = tfrt_dht.print_tensor %accuracy, %r#4
  %ch2 = tfrt_ft.train_end %ch1
  tfrt.return %ch2 : !tfrt.chain
}

// One epoch: STEPS batches of 64 of this rank's shard, each a monitored
// step; then the checkpoint of the epoch (its step is the number of
// epochs done) and the epoch's end. Returns the loop values and whether
// another epoch follows.
func.func @epoch(%epoch: i64, %step: i64, %w: !t.tensor, %b: !t.tensor,
                 %ch0: !tfrt.chain)
    -> (i64, i64, !t.tensor, !t.tensor, !tfrt.chain, i1) {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 40000 : i64,
      first_example = 0 : i64, num_features = 16 : i64, num_classes = 8 : i64,
      seed = 7 : i64, stddev = 1.2 : f64}
  %num_ranks = tfrt.constant.i64 NUM_RANKS
  %rank = tfrt.constant.i64 RANK
  %shard = tfrt_data.shard_dataset %all, %num_ranks, %rank
  %batch_size = tfrt.constant.i64 64
  %batches = tfrt_data.batch_dataset %shard, %batch_size
      {drop_remainder = true}
  %iterator = tfrt_data.make_iterator %batches
  %steps = tfrt.constant.i32 STEPS
  // The region sees only its loop values: the iterator is one of them.
  %r:5 = tfrt.repeat.i32 %steps, %step, %w, %b, %ch0, %iterator
      : i64, !t.tensor, !t.tensor, !tfrt.chain, !tfrt_data.iterator {
    %ch1 = tfrt_ft.step_begin %step, %ch0
    %ch2, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch1
        : !t.tensor, !t.tensor
    %xw = tfrt_math.matmul.f32 %x, %w
    %logits = tfrt_math.add.f32 %xw, %b
    %loss, %dlogits = tfrt_math.softmax_cross_entropy.f32 %logits, %labels
    %dw = tfrt_math.matmul.f32 %x, %dlogits {transpose_a = true}
    %db = tfrt_math.sum.f32 %dlogits {axis = 0 : i64}
    %dw_step = tfrt_math.scale.f32 %dw {factor = 0.1 : f32}
    %db_step = tfrt_math.scale.f32 %db {factor = 0.1 : f32}
    %w2 = tfrt_math.sub.f32 %w, %dw_step
    %b2 = tfrt_math.sub.f32 %b, %db_step
    // The step ends once the new weights exist: tensor_equal's chain is
    // the one op here that waits on a tensor.
    %same_w, %ch3 = tfrt_dht.tensor_equal.f32 %w2, %w2, %ch2
    %same_b, %ch4 = tfrt_dht.tensor_equal.f32 %b2, %b2, %ch3
    %ch5 = tfrt_ft.step_end %step, %ch4
    %one = tfrt.constant.i64 1
    %next = tfrt.add.i64 %step, %one
    tfrt.return %next, %w2, %b2, %ch5, %iterator
        : i64, !t.tensor, !t.tensor, !tfrt.chain, !tfrt_data.iterator
  }
  %one = tfrt.constant.i64 1
  %done = tfrt.add.i64 %epoch, %one
  %ch6 = tfrt_ft.save_checkpoint %r#3, %done, %done, %r#1, %r#2
      {directory = "CKPT_DIR", names = ["w", "b"], keep_last = 1000 : i32}
  %ch7 = tfrt_ft.epoch_end %epoch, %ch6
  %ch8 = tfrt.print.i64 %done, %ch7
  %epochs = tfrt.constant.i64 EPOCHS
  %after = tfrt.add.i64 %done, %one
  %more = "tfrt.lessequal.i64"(%after, %epochs) : (i64, i64) -> i1
  tfrt.return %done, %r#0, %r#1, %r#2, %ch8, %more
      : i64, i64, !t.tensor, !t.tensor, !tfrt.chain, i1
}

// The accuracy on 4000 held-out examples.
func.func @evaluate(%w: !t.tensor, %b: !t.tensor) -> !t.tensor {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 4000 : i64,
      first_example = 100000 : i64, num_features = 16 : i64,
      num_classes = 8 : i64, seed = 7 : i64, stddev = 1.2 : f64}
  %everything = tfrt.constant.i64 4000
  %batch = tfrt_data.batch_dataset %all, %everything
  %iterator = tfrt_data.make_iterator %batch
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor
  %xw = tfrt_math.matmul.f32 %x, %w
  %logits = tfrt_math.add.f32 %xw, %b
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels
  tfrt.return %accuracy : !t.tensor
}

// A multilayer perceptron on Gaussian clusters, trained data-parallel by
// examples/dp_training (dp_train.cc): every replica holds the whole model,
// w1 [16, 32], b1 [32], w2 [32, 8], b2 [8], computes gradients on its own
// batches, averages them with the other replicas of its quorum over a
// `!tfrt_ccl.group` and applies the same update. The model and the data are
// those of examples/ps_training/model.mlir.
//
// The data: 8 Gaussian clusters in 16 dimensions (seed 7). Examples
// [0, 100000) train, sharded by replica; [100000, 120000) evaluate.

// A replica's iterator: its shard of the training examples, in batches of
// 64, repeated forever.
func.func @train_dataset(%replica: i64, %num_replicas: i64)
    -> !tfrt_data.iterator {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 100000 : i64,
      first_example = 0 : i64, num_features = 16 : i64, num_classes = 8 : i64,
      seed = 7 : i64, stddev = 1.2 : f64}
  %shard = tfrt_data.shard_dataset %all, %num_replicas, %replica
  %batch_size = tfrt.constant.i64 64
  %batches = tfrt_data.batch_dataset %shard, %batch_size {drop_remainder = true}
  %forever = tfrt.constant.i64 -1
  %repeated = tfrt_data.repeat_dataset %batches, %forever
  %iterator = tfrt_data.make_iterator %repeated
  tfrt.return %iterator : !tfrt_data.iterator
}

// One step of SGD on the replica's next batch: the gradients averaged over
// the replicas that contribute (the same bits on every rank), the new
// parameters, the batch's loss and accuracy before the update, and the
// update itself (what a replica healing in the background keeps, to apply
// once its state arrives). `%contribution` is a scalar, 1 for a replica
// whose parameters are current and 0 for one healing; `%rate` is the
// learning rate over the number of contributors. A collective that fails
// makes the new parameters error values: the caller drops them.
func.func @train_step(%iterator: !tfrt_data.iterator, %group: !tfrt_ccl.group,
                      %w1: !t.tensor, %b1: !t.tensor,
                      %w2: !t.tensor, %b2: !t.tensor,
                      %contribution: !t.tensor, %rate: !t.tensor)
    -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor,
        !t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor

  // Forward.
  %xw1 = tfrt_math.matmul.f32 %x, %w1
  %z1 = tfrt_math.add.f32 %xw1, %b1
  %h = tfrt_math.relu.f32 %z1
  %hw2 = tfrt_math.matmul.f32 %h, %w2
  %logits = tfrt_math.add.f32 %hw2, %b2
  %loss, %dlogits = tfrt_math.softmax_cross_entropy.f32 %logits, %labels

  // Backward.
  %dw2 = tfrt_math.matmul.f32 %h, %dlogits {transpose_a = true}
  %db2 = tfrt_math.sum.f32 %dlogits {axis = 0 : i64}
  %dh = tfrt_math.matmul.f32 %dlogits, %w2 {transpose_b = true}
  %dz1 = tfrt_math.relu_grad.f32 %dh, %z1
  %dw1 = tfrt_math.matmul.f32 %x, %dz1 {transpose_a = true}
  %db1 = tfrt_math.sum.f32 %dz1 {axis = 0 : i64}

  // The sum over the replicas, in the same order on every rank: the chain
  // orders the collectives. A peer that stalls fails them after 30 s, if
  // the manager has not aborted the group before.
  %cw1 = tfrt_math.mul.f32 %dw1, %contribution
  %cb1 = tfrt_math.mul.f32 %db1, %contribution
  %cw2 = tfrt_math.mul.f32 %dw2, %contribution
  %cb2 = tfrt_math.mul.f32 %db2, %contribution
  %ch2, %gw1 = tfrt_ccl.allreduce %group, %cw1, %ch1
      {reduction = "sum", timeout_ms = 30000 : i64} : !t.tensor
  %ch3, %gb1 = tfrt_ccl.allreduce %group, %cb1, %ch2
      {reduction = "sum", timeout_ms = 30000 : i64} : !t.tensor
  %ch4, %gw2 = tfrt_ccl.allreduce %group, %cw2, %ch3
      {reduction = "sum", timeout_ms = 30000 : i64} : !t.tensor
  %ch5, %gb2 = tfrt_ccl.allreduce %group, %cb2, %ch4
      {reduction = "sum", timeout_ms = 30000 : i64} : !t.tensor

  // SGD: the sum times the learning rate over the contributors.
  %sw1 = tfrt_math.mul.f32 %gw1, %rate
  %sb1 = tfrt_math.mul.f32 %gb1, %rate
  %sw2 = tfrt_math.mul.f32 %gw2, %rate
  %sb2 = tfrt_math.mul.f32 %gb2, %rate
  %new_w1 = tfrt_math.sub.f32 %w1, %sw1
  %new_b1 = tfrt_math.sub.f32 %b1, %sb1
  %new_w2 = tfrt_math.sub.f32 %w2, %sw2
  %new_b2 = tfrt_math.sub.f32 %b2, %sb2

  %mean_loss = tfrt_math.mean.f32 %loss
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels
  tfrt.return %new_w1, %new_b1, %new_w2, %new_b2, %mean_loss, %accuracy,
      %sw1, %sb1, %sw2, %sb2
      : !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor,
        !t.tensor, !t.tensor, !t.tensor, !t.tensor
}

// With dp_train --partial_allreduce, a step is three calls, so that one
// partial allreduce carries all of it: @gradients, then dp_train packs the
// four gradients and `%contribution` into one vector, @sum_partial sums it
// over the replicas that contributed (a replica that dies mid-step is left
// out instead of failing the step; every survivor gets the same sum and
// the same contributors), and dp_train scales the sums by the learning rate
// over the summed contributions and calls @apply_update.

// The batch's gradients times `%contribution` (1, or 0 while healing), its
// loss and its accuracy before the update.
func.func @gradients(%iterator: !tfrt_data.iterator,
                     %w1: !t.tensor, %b1: !t.tensor,
                     %w2: !t.tensor, %b2: !t.tensor, %contribution: !t.tensor)
    -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor
  %xw1 = tfrt_math.matmul.f32 %x, %w1
  %z1 = tfrt_math.add.f32 %xw1, %b1
  %h = tfrt_math.relu.f32 %z1
  %hw2 = tfrt_math.matmul.f32 %h, %w2
  %logits = tfrt_math.add.f32 %hw2, %b2
  %loss, %dlogits = tfrt_math.softmax_cross_entropy.f32 %logits, %labels
  %dw2 = tfrt_math.matmul.f32 %h, %dlogits {transpose_a = true}
  %db2 = tfrt_math.sum.f32 %dlogits {axis = 0 : i64}
  %dh = tfrt_math.matmul.f32 %dlogits, %w2 {transpose_b = true}
  %dz1 = tfrt_math.relu_grad.f32 %dh, %z1
  %dw1 = tfrt_math.matmul.f32 %x, %dz1 {transpose_a = true}
  %db1 = tfrt_math.sum.f32 %dz1 {axis = 0 : i64}
  %cw1 = tfrt_math.mul.f32 %dw1, %contribution
  %cb1 = tfrt_math.mul.f32 %db1, %contribution
  %cw2 = tfrt_math.mul.f32 %dw2, %contribution
  %cb2 = tfrt_math.mul.f32 %db2, %contribution
  %mean_loss = tfrt_math.mean.f32 %loss
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels
  tfrt.return %cw1, %cb1, %cw2, %cb2, %mean_loss, %accuracy
      : !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor
}

// The sum of `%packed` over the replicas that contributed, and their ranks.
func.func @sum_partial(%group: !tfrt_ccl.group, %packed: !t.tensor)
    -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ch1, %sum, %contributors = tfrt_ccl.allreduce_partial %group, %packed,
      %ch0 {reduction = "sum", timeout_ms = 30000 : i64,
            agreement_ms = 1000 : i64} : !t.tensor
  tfrt.return %sum, %contributors : !t.tensor, !t.tensor
}

// Applies an update train_step returned: what a replica that healed in the
// background does with the updates of the steps it healed through.
func.func @apply_update(%w1: !t.tensor, %b1: !t.tensor,
                        %w2: !t.tensor, %b2: !t.tensor,
                        %sw1: !t.tensor, %sb1: !t.tensor,
                        %sw2: !t.tensor, %sb2: !t.tensor)
    -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %new_w1 = tfrt_math.sub.f32 %w1, %sw1
  %new_b1 = tfrt_math.sub.f32 %b1, %sb1
  %new_w2 = tfrt_math.sub.f32 %w2, %sw2
  %new_b2 = tfrt_math.sub.f32 %b2, %sb2
  tfrt.return %new_w1, %new_b1, %new_w2, %new_b2
      : !t.tensor, !t.tensor, !t.tensor, !t.tensor
}

// The accuracy on every evaluation example, in one batch.
func.func @evaluate(%w1: !t.tensor, %b1: !t.tensor,
                    %w2: !t.tensor, %b2: !t.tensor) -> !t.tensor {
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 20000 : i64,
      first_example = 100000 : i64, num_features = 16 : i64,
      num_classes = 8 : i64, seed = 7 : i64, stddev = 1.2 : f64}
  %everything = tfrt.constant.i64 20000
  %batch = tfrt_data.batch_dataset %all, %everything
  %iterator = tfrt_data.make_iterator %batch
  %ch0 = tfrt.new.chain
  %ch1, %x, %labels = tfrt_data.iterator_get_next %iterator, %ch0
      : !t.tensor, !t.tensor
  %xw1 = tfrt_math.matmul.f32 %x, %w1
  %z1 = tfrt_math.add.f32 %xw1, %b1
  %h = tfrt_math.relu.f32 %z1
  %hw2 = tfrt_math.matmul.f32 %h, %w2
  %logits = tfrt_math.add.f32 %hw2, %b2
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels
  tfrt.return %accuracy : !t.tensor
}

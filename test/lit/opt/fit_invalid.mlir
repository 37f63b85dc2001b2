// Verifier errors of tfrt_dist.fit.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable) -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @missing_dataset(%ch: !tfrt.chain, %w: !tfrt_dist.variable) {
  // expected-error @+1 {{'tfrt_dist.fit' op callee 'nowhere' is not a function of this module: only the module's own functions can run on workers}}
  %done = tfrt_dist.fit %ch, @nowhere(), @step(%w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["loss"]}
  tfrt.return
}

// -----

func.func @not_an_iterator() -> i64 {
  %n = tfrt.constant.i64 1
  tfrt.return %n : i64
}

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable) -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @dataset_returns_no_iterator(%ch: !tfrt.chain,
                                       %w: !tfrt_dist.variable) {
  // expected-error @+1 {{'tfrt_dist.fit' op dataset function 'not_an_iterator' must return one !tfrt_data.iterator, but returns ('i64')}}
  %done = tfrt_dist.fit %ch, @not_an_iterator(), @step(%w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["loss"]}
  tfrt.return
}

// -----

func.func @dataset(%worker: i32) -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable) -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @dataset_argument_type(%ch: !tfrt.chain, %w: !tfrt_dist.variable) {
  %n = tfrt.constant.i64 1
  // expected-error @+1 {{'tfrt_dist.fit' op operand #0 has type 'i64', but 'dataset' takes 'i32'}}
  %done = tfrt_dist.fit %ch, @dataset(%n : i64), @step(%w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["loss"]}
  tfrt.return
}

// -----

func.func @dataset() -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable) -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @missing_step(%ch: !tfrt.chain, %w: !tfrt_dist.variable) {
  // expected-error @+1 {{'tfrt_dist.fit' op callee 'nowhere' is not a function of this module}}
  %done = tfrt_dist.fit %ch, @dataset(), @nowhere(%w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["loss"]}
  tfrt.return
}

// -----

func.func @dataset() -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable) -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @too_many_variables(%ch: !tfrt.chain, %w: !tfrt_dist.variable) {
  // expected-error @+1 {{'tfrt_dist.fit' op step function 'step' must take one !tfrt_data.iterator and then 2 !tfrt_dist.variable (one per variable), but takes ('!tfrt_data.iterator', '!tfrt_dist.variable')}}
  %done = tfrt_dist.fit %ch, @dataset(), @step(%w, %w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["loss"]}
  tfrt.return
}

// -----

func.func @dataset() -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @step(%it: !tfrt_data.iterator, %w: !tfrt_dist.variable) -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @metric_names(%ch: !tfrt.chain, %w: !tfrt_dist.variable) {
  // expected-error @+1 {{'tfrt_dist.fit' op step function 'step' returns 1 result(s), but 2 metric name(s) are given: one per result}}
  %done = tfrt_dist.fit %ch, @dataset(), @step(%w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64,
       metric_names = ["loss", "accuracy"]}
  tfrt.return
}

// -----

func.func @dataset() -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @iterator_last(%w: !tfrt_dist.variable, %it: !tfrt_data.iterator)
    -> f32 {
  %loss = tfrt.constant.f32 1.0
  tfrt.return %loss : f32
}

func.func @step_order(%ch: !tfrt.chain, %w: !tfrt_dist.variable) {
  // expected-error @+1 {{'tfrt_dist.fit' op step function 'iterator_last' must take one !tfrt_data.iterator and then 1 !tfrt_dist.variable (one per variable), but takes ('!tfrt_dist.variable', '!tfrt_data.iterator')}}
  %done = tfrt_dist.fit %ch, @dataset(), @iterator_last(%w)
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["loss"]}
  tfrt.return
}

// -----

func.func @dataset() -> !tfrt_data.iterator {
  %n = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @chain_metric(%it: !tfrt_data.iterator) -> !tfrt.chain {
  %c = tfrt.new.chain
  tfrt.return %c : !tfrt.chain
}

func.func @metric_type(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op step function 'chain_metric' returns '!tfrt.chain' as metric 'done'; a metric is a !t.tensor of one element or an i32, i64, f32 or f64}}
  %done = tfrt_dist.fit %ch, @dataset(), @chain_metric()
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = ["done"]}
  tfrt.return
}

// -----

func.func @zero_epochs(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op epochs must be at least 1, got 0}}
  %done = tfrt_dist.fit %ch, @d(), @s()
      {epochs = 0 : i64, steps_per_epoch = 1 : i64, metric_names = []}
  tfrt.return
}

// -----

func.func @zero_steps(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op steps_per_epoch must be at least 1, got 0}}
  %done = tfrt_dist.fit %ch, @d(), @s()
      {epochs = 1 : i64, steps_per_epoch = 0 : i64, metric_names = []}
  tfrt.return
}

// -----

func.func @negative_callback(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op callback_every_steps must not be negative, got -1}}
  %done = tfrt_dist.fit %ch, @d(), @s()
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = [],
       callback_every_steps = -1 : i64}
  tfrt.return
}

// -----

func.func @empty_directory(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op checkpoint_directory must not be empty; leave it out for no checkpoints}}
  %done = tfrt_dist.fit %ch, @d(), @s()
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = [],
       checkpoint_directory = ""}
  tfrt.return
}

// -----

func.func @no_directory(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op checkpoint_every_steps needs a checkpoint_directory}}
  %done = tfrt_dist.fit %ch, @d(), @s()
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = [],
       checkpoint_every_steps = 5 : i64}
  tfrt.return
}

// -----

func.func @unknown_attribute(%ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dist.fit' op has unknown attribute 'epoch'}}
  %done = tfrt_dist.fit %ch, @d(), @s()
      {epochs = 1 : i64, steps_per_epoch = 1 : i64, metric_names = [],
       epoch = 2 : i64}
  tfrt.return
}

// Verifier errors of the tfrt_data dialect: what is known at compile time.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @i32_range(%n: i64) {
  // expected-error @+1 {{'tfrt_data.range_dataset' op element_type must be i64, got 'i32'}}
  %ds = tfrt_data.range_dataset %n, %n, %n {element_type = i32}
  tfrt.return
}

// -----

func.func @no_features() {
  // expected-error @+1 {{'tfrt_data.gaussian_clusters_dataset' op num_features must be positive, got 0}}
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 8 : i64, num_features = 0 : i64, num_classes = 2 : i64, seed = 1 : i64, stddev = 1.0 : f64}
  tfrt.return
}

// -----

func.func @negative_first_example() {
  // expected-error @+1 {{'tfrt_data.gaussian_clusters_dataset' op first_example must not be negative, got -1}}
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 8 : i64, first_example = -1 : i64, num_features = 2 : i64, num_classes = 2 : i64, seed = 1 : i64, stddev = 1.0 : f64}
  tfrt.return
}

// -----

func.func @negative_stddev() {
  // expected-error @+1 {{'tfrt_data.gaussian_clusters_dataset' op stddev must be finite and not negative, got -5.000000e-01}}
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 8 : i64, num_features = 2 : i64, num_classes = 2 : i64, seed = 1 : i64, stddev = -0.5 : f64}
  tfrt.return
}

// -----

func.func @no_components(%it: !tfrt_data.iterator, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_data.iterator_get_next' op must return at least one component}}
  %out = "tfrt_data.iterator_get_next"(%it, %ch) : (!tfrt_data.iterator, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// -----

func.func @get_next_of_a_dataset(%ds: !tfrt_data.dataset, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_data.iterator_get_next' op operand #0 must be}}
  %out, %x = "tfrt_data.iterator_get_next"(%ds, %ch) : (!tfrt_data.dataset, !tfrt.chain) -> (!tfrt.chain, !t.tensor)
  tfrt.return
}

// What the tfrt_ccl verifiers refuse at compile time: an unknown reduction,
// timeouts that are not positive, a negative root or peer, a tag past
// 32 bits, a dtype or shape recv cannot make, a misspelt attribute and an
// empty store address; an on_failure that retries, is not a failure policy,
// or falls back on a function of the wrong type.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @bad_reduction(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allreduce' op reduction 'prod' is not one of sum, avg, min, max}}
  %c1, %r = tfrt_ccl.allreduce %g, %t, %c {reduction = "prod"} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @zero_timeout(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.reduce_scatter' op timeout_ms must be positive, got 0}}
  %c1, %r = tfrt_ccl.reduce_scatter %g, %t, %c {reduction = "sum", timeout_ms = 0 : i64} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @misspelt_timeout(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allgather' op has unknown attribute 'timout_ms'; it takes timeout_ms}}
  %c1, %r = tfrt_ccl.allgather %g, %t, %c {timout_ms = 10 : i64} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @negative_root(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.broadcast' op root must not be negative, got -1}}
  %c1, %r = tfrt_ccl.broadcast %g, %t, %c {root = -1 : i64} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @negative_barrier_timeout(%g: !tfrt_ccl.group, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.barrier' op timeout_ms must be positive, got -5}}
  %c1 = tfrt_ccl.barrier %g, %c {timeout_ms = -5 : i64}
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @wide_tag(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.send' op tag must be in [0, 2^32), got 4294967296}}
  %c1 = tfrt_ccl.send %g, %t, %c {peer = 1 : i64, tag = 4294967296 : i64} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @negative_peer(%g: !tfrt_ccl.group, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.recv' op peer must not be negative, got -2}}
  %c1, %r = tfrt_ccl.recv %g, %c {peer = -2 : i64, tag = 0 : i64, dtype = "f32", shape = [2]}
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @bad_dtype(%g: !tfrt_ccl.group, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.recv' op dtype 'bf16' is not one of i1, i32, i64, f32, f64}}
  %c1, %r = tfrt_ccl.recv %g, %c {peer = 0 : i64, tag = 0 : i64, dtype = "bf16", shape = [2]}
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @negative_dim(%g: !tfrt_ccl.group, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.recv' op shape has a negative dimension -3}}
  %c1, %r = tfrt_ccl.recv %g, %c {peer = 0 : i64, tag = 0 : i64, dtype = "f32", shape = [2, -3]}
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @no_store(%c: !tfrt.chain, %n: i64) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.create_group' op store must be the host:port of a rendezvous store, got an empty string}}
  %c1, %g = tfrt_ccl.create_group %c, %n, %n, %n {store = ""}
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @zero_connect_timeout(%c: !tfrt.chain, %n: i64) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.create_group' op connect_timeout_ms must be positive, got 0}}
  %c1, %g = tfrt_ccl.create_group %c, %n, %n, %n {store = "127.0.0.1:1", connect_timeout_ms = 0 : i64}
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @tensor_types_only(%g: !tfrt_ccl.group, %x: i32, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{custom op 'tfrt_ccl.allreduce' invalid kind of type specified}}
  %c1, %r = tfrt_ccl.allreduce %g, %x, %c {reduction = "sum"} : i32
  tfrt.return %c1 : !tfrt.chain
}

// -----

// A failed collective breaks its group for good: it may fall back, never
// run again.
func.func @retried(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allreduce' op cannot retry (a collective group is broken for good by its first failure); its on_failure may only be a #tfrt_dist.fallback}}
  %c1, %r = tfrt_ccl.allreduce %g, %t, %c {reduction = "sum", on_failure = #tfrt_dist.retry<max = 2>} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @not_a_policy(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allgather' op on_failure must be a #tfrt_dist.fallback, got "keep"}}
  %c1, %r = tfrt_ccl.allgather %g, %t, %c {on_failure = "keep"} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @keep_tensor(%t: !t.tensor) -> !t.tensor {
  tfrt.return %t : !t.tensor
}

func.func @wrong_fallback(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.broadcast' op on_failure falls back on 'keep_tensor' of type (!t.tensor) -> (!t.tensor), but the op needs (!tfrt_ccl.group, !t.tensor, !tfrt.chain) -> (!tfrt.chain, !t.tensor)}}
  %c1, %r = tfrt_ccl.broadcast %g, %t, %c {root = 0 : i64, on_failure = #tfrt_dist.fallback<@keep_tensor>} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @partial_bad_reduction(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allreduce_partial' op reduction 'prod' is not one of sum, avg, min, max}}
  %c1, %r, %who = tfrt_ccl.allreduce_partial %g, %t, %c {reduction = "prod"} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @partial_zero_window(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allgather_partial' op agreement_ms must be positive, got 0}}
  %c1, %r, %who = tfrt_ccl.allgather_partial %g, %t, %c {agreement_ms = 0 : i64} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// -----

func.func @partial_on_failure(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ccl.allreduce_partial' op has unknown attribute 'on_failure'; it takes reduction, timeout_ms, agreement_ms}}
  %c1, %r, %who = tfrt_ccl.allreduce_partial %g, %t, %c {reduction = "sum", on_failure = "keep"} : !t.tensor
  tfrt.return %c1 : !tfrt.chain
}

// What the verifiers of the device-tensor collectives refuse.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @reduction(%g: !tfrt_ccl.group, %t: !tfrt_gpu.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_ccl.device_allreduce' op reduction 'prod' is not one of sum, avg, min, max}}
  %c1, %r = tfrt_ccl.device_allreduce %g, %t, %c {reduction = "prod"} : !tfrt_gpu.tensor
  tfrt.return
}

// -----

func.func @timeout(%g: !tfrt_ccl.group, %t: !tfrt_gpu.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_ccl.device_allgather' op timeout_ms must be positive, got 0}}
  %c1, %r = tfrt_ccl.device_allgather %g, %t, %c {timeout_ms = 0 : i64} : !tfrt_gpu.tensor
  tfrt.return
}

// -----

func.func @misspelt(%g: !tfrt_ccl.group, %t: !tfrt_gpu.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_ccl.device_all_to_all' op has unknown attribute 'timout_ms'; it takes timeout_ms}}
  %c1, %r = tfrt_ccl.device_all_to_all %g, %t, %c {timout_ms = 5 : i64} : !tfrt_gpu.tensor
  tfrt.return
}

// -----

func.func @root(%g: !tfrt_ccl.group, %t: !tfrt_gpu.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_ccl.device_broadcast' op root must not be negative, got -1}}
  %c1, %r = tfrt_ccl.device_broadcast %g, %t, %c {root = -1 : i64} : !tfrt_gpu.tensor
  tfrt.return
}

// -----

func.func @peer(%g: !tfrt_ccl.group, %t: !tfrt_gpu.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_ccl.device_send' op peer must not be negative, got -2}}
  %c1 = tfrt_ccl.device_send %g, %t, %c {peer = -2 : i64} : !tfrt_gpu.tensor
  tfrt.return
}

// -----

func.func @dtype(%g: !tfrt_ccl.group, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_ccl.device_recv' op dtype 'f16' is not one of i1, i32, i64, f32, f64}}
  %c1, %r = tfrt_ccl.device_recv %g, %c {peer = 0 : i64, dtype = "f16", shape = [2]}
  tfrt.return
}

// -----

func.func @host_tensor(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{invalid kind of type specified}}
  %c1, %r = tfrt_ccl.device_allreduce %g, %t, %c {reduction = "sum"} : !t.tensor
  tfrt.return
}

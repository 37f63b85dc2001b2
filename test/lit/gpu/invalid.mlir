// What the tfrt_gpu verifiers refuse at compile time: a negative or too
// large ordinal and a misspelt attribute.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @negative_ordinal() -> !tfrt_gpu.device {
  // expected-error @+1 {{'tfrt_gpu.device_get' op ordinal must be in [0, 2^31), got -1}}
  %d = tfrt_gpu.device_get {ordinal = -1 : i64}
  tfrt.return %d : !tfrt_gpu.device
}

// -----

func.func @huge_ordinal() -> !tfrt_gpu.device {
  // expected-error @+1 {{'tfrt_gpu.device_get' op ordinal must be in [0, 2^31), got 4294967296}}
  %d = tfrt_gpu.device_get {ordinal = 4294967296 : i64}
  tfrt.return %d : !tfrt_gpu.device
}

// -----

func.func @misspelt_ordinal() -> !tfrt_gpu.device {
  // expected-error @+1 {{'tfrt_gpu.device_get' op has unknown attribute 'ordnial'; it takes ordinal}}
  %d = tfrt_gpu.device_get {ordinal = 0 : i64, ordnial = 1 : i64}
  tfrt.return %d : !tfrt_gpu.device
}

// -----

func.func @attribute_on_copy(%d: !tfrt_gpu.device, %t: !t.tensor, %c: !tfrt.chain) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_gpu.to_device' op has unknown attribute 'stream'; it takes none}}
  %c1, %dt = tfrt_gpu.to_device %d, %t, %c {stream = 1 : i64}
  tfrt.return %c1 : !tfrt.chain
}

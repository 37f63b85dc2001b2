// What the tfrt_ft verifiers refuse at compile time: names that do not
// match the tensors, a name given twice, an empty directory, keep_last
// under 1.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @too_few_names(%c: !tfrt.chain, %s: i64, %t: !t.tensor) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ft.save_checkpoint' op has 1 names for 2 tensors}}
  %d = tfrt_ft.save_checkpoint %c, %s, %s, %t, %t
      {directory = "/ckpt", names = ["a"], keep_last = 1 : i32}
  tfrt.return %d : !tfrt.chain
}

// -----

func.func @duplicate_name(%c: !tfrt.chain, %s: i64, %t: !t.tensor) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ft.save_checkpoint' op names tensor 'a' twice}}
  %d = tfrt_ft.save_checkpoint %c, %s, %s, %t, %t
      {directory = "/ckpt", names = ["a", "a"], keep_last = 1 : i32}
  tfrt.return %d : !tfrt.chain
}

// -----

func.func @keep_none(%c: !tfrt.chain, %s: i64, %t: !t.tensor) -> !tfrt.chain {
  // expected-error @+1 {{'tfrt_ft.save_checkpoint' op keep_last must be at least 1, got 0}}
  %d = tfrt_ft.save_checkpoint %c, %s, %s, %t
      {directory = "/ckpt", names = ["a"], keep_last = 0 : i32}
  tfrt.return %d : !tfrt.chain
}

// -----

func.func @no_directory(%c: !tfrt.chain) -> i64 {
  // expected-error @+1 {{'tfrt_ft.restore_checkpoint' op has an empty directory}}
  %d, %step, %epoch, %t = tfrt_ft.restore_checkpoint %c
      {directory = "", names = ["a"]} : !t.tensor
  tfrt.return %step : i64
}

// -----

func.func @empty_name(%c: !tfrt.chain) -> i64 {
  // expected-error @+1 {{'tfrt_ft.restore_checkpoint' op has a tensor name of 0 bytes (1 to 1024 allowed)}}
  %d, %step, %epoch, %t = tfrt_ft.restore_checkpoint %c
      {directory = "/ckpt", names = [""]} : !t.tensor
  tfrt.return %step : i64
}

// -----

func.func @names_not_strings(%c: !tfrt.chain) -> i64 {
  // expected-error @+1 {{'tfrt_ft.restore_checkpoint' op attribute 'names' failed to satisfy constraint: string array attribute}}
  %d, %step, %epoch, %t = tfrt_ft.restore_checkpoint %c
      {directory = "/ckpt", names = [1 : i32]} : !t.tensor
  tfrt.return %step : i64
}

// Tensors saved by one run of sluice_run (tfrt_ft.save_checkpoint) and
// restored by later ones (tfrt_ft.restore_checkpoint), bit for bit; a
// damaged newest checkpoint makes the restore fall back to the one before.
// RUN: rm -rf %t && mkdir %t && sed 's|CKPT_DIR|%t/ckpt|' %s > %t/program.mlir
// RUN: %sluice_run --functions=save %t/program.mlir | FileCheck %s --check-prefix=SAVE
// RUN: %sluice_run --functions=restore %t/program.mlir 2>&1 | FileCheck %s --check-prefix=NEWEST
// RUN: truncate -s 10 %t/ckpt/ckpt-00000000000000000020.manifest
// RUN: %sluice_run --functions=restore %t/program.mlir 2>&1 | FileCheck %s --check-prefix=FALLBACK
// A FIFO in the manifest's place is damage too, found without waiting for
// a writer that never comes.
// RUN: rm %t/ckpt/ckpt-00000000000000000020.manifest && mkfifo %t/ckpt/ckpt-00000000000000000020.manifest
// RUN: timeout 60 %sluice_run --functions=restore %t/program.mlir 2>&1 | FileCheck %s --check-prefix=FIFO
// RUN: not %sluice_run --functions=missing_name,no_checkpoint --print_error_code %t/program.mlir 2>/dev/null | FileCheck %s --check-prefix=ERRORS

// Two checkpoints, of steps 10 and 20, with different values of `w`.
// SAVE-LABEL: --- Running 'save':
// SAVE-NEXT: 'save' returned !tfrt.chain value
func.func @save() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %w = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.f32 %w, %c0
      [1.5 : f32, -2.0 : f32, 0.25 : f32, 3.0 : f32]
  %flags = tfrt_dht.create_uninitialized_tensor.i1.1 [3 : i64]
  %c2 = tfrt_dht.set_tensor_with_constant_values.i1 %flags, %c1
      [true, false, true]
  %ten = tfrt.constant.i64 10
  %epoch = tfrt.constant.i64 1
  %c3 = tfrt_ft.save_checkpoint %c2, %ten, %epoch, %w, %flags
      {directory = "CKPT_DIR", names = ["w", "flags"], keep_last = 2 : i32}
  %c4 = tfrt_dht.fill_tensor_with_constant.f32 %w, %c3 7.0 : f32
  %twenty = tfrt.constant.i64 20
  %c5 = tfrt_ft.save_checkpoint %c4, %twenty, %epoch, %w, %flags
      {directory = "CKPT_DIR", names = ["w", "flags"], keep_last = 2 : i32}
  tfrt.return %c5 : !tfrt.chain
}

// NEWEST-LABEL: --- Running 'restore':
// NEWEST-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [7.000000e+00, 7.000000e+00, 7.000000e+00, 7.000000e+00]
// NEWEST-NEXT: DenseHostTensor dtype = i1, shape = [3], values = [1, 0, 1]
// NEWEST-NEXT: 'restore' returned !tfrt.chain value,20,1

// FALLBACK-LABEL: --- Running 'restore':
// FALLBACK-NEXT: W{{.*}}] skipping checkpoint of step 20, using an older one if any: manifest '{{.*}}/ckpt/ckpt-00000000000000000020.manifest': 10 bytes, shorter than any manifest (51)
// FALLBACK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [1.500000e+00, -2.000000e+00, 2.500000e-01, 3.000000e+00]
// FALLBACK-NEXT: DenseHostTensor dtype = i1, shape = [3], values = [1, 0, 1]
// FALLBACK-NEXT: 'restore' returned !tfrt.chain value,10,1
func.func @restore() -> (!tfrt.chain, i64, i64) {
  %c0 = tfrt.new.chain
  %c1, %step, %epoch, %w, %flags = tfrt_ft.restore_checkpoint %c0
      {directory = "CKPT_DIR", names = ["w", "flags"]} : !t.tensor, !t.tensor
  %c2 = tfrt_dht.print_tensor %w, %c1
  %c3 = tfrt_dht.print_tensor %flags, %c2
  tfrt.return %c3, %step, %epoch : !tfrt.chain, i64, i64
}

// FIFO-LABEL: --- Running 'restore':
// FIFO-NEXT: W{{.*}}] skipping checkpoint of step 20, using an older one if any: '{{.*}}/ckpt/ckpt-00000000000000000020.manifest' is a FIFO, not a regular file
// FIFO: 'restore' returned !tfrt.chain value,10,1

// ERRORS-LABEL: --- Running 'missing_name':
// ERRORS-NEXT: 'missing_name' returned <<error: checkpoint '{{.*}}/ckpt/ckpt-00000000000000000010.manifest' has no tensor 'bias', code: NOT_FOUND>>
func.func @missing_name() -> !t.tensor {
  %c0 = tfrt.new.chain
  %c1, %step, %epoch, %bias = tfrt_ft.restore_checkpoint %c0
      {directory = "CKPT_DIR", names = ["bias"]} : !t.tensor
  tfrt.return %bias : !t.tensor
}

// ERRORS-LABEL: --- Running 'no_checkpoint':
// ERRORS-NEXT: 'no_checkpoint' returned <<error: no checkpoint in '{{.*}}/nowhere': the directory does not exist, code: NOT_FOUND>>
func.func @no_checkpoint() -> i64 {
  %c0 = tfrt.new.chain
  %c1, %step, %epoch = tfrt_ft.restore_checkpoint %c0
      {directory = "CKPT_DIR/nowhere", names = []}
  tfrt.return %step : i64
}

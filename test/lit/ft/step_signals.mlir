// Step signals (tfrt_ft.step_begin, step_end, epoch_end, train_end): without
// a monitor they only pass their chains; with one, the monitor sees the
// steps, the epochs and the end of training.
// RUN: env -u SLUICE_MONITOR %sluice_run %s | FileCheck %s --check-prefix=ALONE
// RUN: python3 %S/with_monitor.py --step_kind=first:120 -- %sluice_run %s | FileCheck %s --check-prefix=WATCHED

// ALONE-LABEL: --- Running 'train':
// ALONE-NEXT: 'train' returned !tfrt.chain value
// WATCHED-LABEL: --- Running 'train':
// WATCHED-NEXT: 'train' returned !tfrt.chain value
// WATCHED: verdict: rank 0 finished
// WATCHED-NEXT: rank 0: last step begun 1, last step ended 1, 2 epochs finished, finished
func.func @train() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %s0 = tfrt.constant.i64 0
  %ch1 = tfrt_ft.step_begin %s0, %ch0 {kind = "first"}
  %ch2 = tfrt_ft.step_end %s0, %ch1
  %e0 = tfrt.constant.i64 0
  %ch3 = tfrt_ft.epoch_end %e0, %ch2
  %s1 = tfrt.constant.i64 1
  %ch4 = tfrt_ft.step_begin %s1, %ch3
  %ch5 = tfrt_ft.step_end %s1, %ch4
  %e1 = tfrt.constant.i64 1
  %ch6 = tfrt_ft.epoch_end %e1, %ch5
  %ch7 = tfrt_ft.train_end %ch6
  tfrt.return %ch7 : !tfrt.chain
}

// Kernels of one's own in the standard tools: --kernel_plugin loads the
// example plugin of docs/kernels.md (examples/kernel_plugin), built as the
// guide builds it, and my_run is the guide's runner with the kernels built
// in.
// RUN: %sluice_run --kernel_plugin=%tools_dir/my_kernels_plugin.so %s --args=fib:20 | FileCheck %s
// RUN: my_run -work_queue_type=mstd:2 %s --args=fib:20 | FileCheck %s
// CHECK: --- Running 'fib':
// CHECK-NEXT: 'fib' returned 6765
// CHECK-NEXT: --- Running 'clamped':
// CHECK-NEXT: 'clamped' returned 10

// A plugin kernel's error is an error value at the op's location, as for
// any kernel.
// RUN: not %sluice_run --kernel_plugin=%tools_dir/my_kernels_plugin.so %s --args=fib:93 -functions=fib > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=KERNEL-ERROR < %t.out
// RUN: FileCheck %s --check-prefix=KERNEL-DIAGNOSTIC < %t.err
// KERNEL-ERROR: 'fib' returned <<error: fib of 93: n must be in [0, 92]>>
// KERNEL-DIAGNOSTIC: plugin.mlir:{{[0-9]+}}:8: error: runtime error: fib of 93: n must be in [0, 92]

// Without the plugin the program does not load.
// RUN: not %sluice_run %s 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN
// NO-PLUGIN: plugin.mlir:{{[0-9]+}}:8: error: unknown kernel name 'my.fib.i64'

// --list_kernels shows the plugin's kernels among the standard ones, on
// the runner, the worker and a runner of one's own.
// RUN: %sluice_run --kernel_plugin=%tools_dir/my_kernels_plugin.so --list_kernels | FileCheck %s --check-prefix=LIST
// RUN: sluice_worker --kernel_plugin=%tools_dir/my_kernels_plugin.so --list_kernels | FileCheck %s --check-prefix=LIST
// RUN: my_run --list_kernels | FileCheck %s --check-prefix=LIST
func.func @fib(%n: i64) -> i64 {
  %f = "my.fib.i64"(%n) : (i64) -> i64
  tfrt.return %f : i64
}
// LIST: my.clamp.i32: 1 operand -> 1 result {low: i32, high: i32}
// LIST-NEXT: my.fib.i64: 1 operand -> 1 result
// LIST: tfrt.add.i32: 2 operands -> 1 result

func.func @clamped() -> i32 {
  %x = tfrt.constant.i32 42
  %y = "my.clamp.i32"(%x) {low = 0 : i32, high = 10 : i32} : (i32) -> i32
  tfrt.return %y : i32
}

// Errors name the plugin and stop the tool before anything runs.
// RUN: not %sluice_run --kernel_plugin=%t.missing.so %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not sluice_worker --kernel_plugin=%t.missing.so --list_kernels 2>&1 | FileCheck %s --check-prefix=MISSING-WORKER
// MISSING: sluice_run: couldn't load kernel plugin '{{.*}}missing.so': {{.*}}missing.so: cannot open shared object file: No such file or directory
// MISSING-WORKER: sluice_worker: couldn't load kernel plugin '{{.*}}missing.so'
// RUN: not %sluice_run --kernel_plugin=%s %s 2>&1 | FileCheck %s --check-prefix=NOT-ELF
// NOT-ELF: sluice_run: couldn't load kernel plugin '{{.*}}plugin.mlir': {{.*}}plugin.mlir: {{.*}}ELF header
// RUN: not %sluice_run --kernel_plugin=%tools_dir/not_a_plugin.so %s 2>&1 | FileCheck %s --check-prefix=NO-SYMBOL
// NO-SYMBOL: sluice_run: kernel plugin '{{.*}}not_a_plugin.so' has no function SluiceRegisterKernels (define it with SLUICE_KERNEL_PLUGIN, see docs/kernels.md)
// NO-SYMBOL-NOT: Running
// A registration that fails: the same kernels twice.
// RUN: not %sluice_run --kernel_plugin=%tools_dir/my_kernels_plugin.so --kernel_plugin=%tools_dir/my_kernels_plugin.so %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not my_run --kernel_plugin=%tools_dir/my_kernels_plugin.so %s 2>&1 | FileCheck %s --check-prefix=TWICE-OWN
// TWICE: sluice_run: kernel plugin '{{.*}}my_kernels_plugin.so' failed to register its kernels: kernel 'my.fib.i64' is already registered; kernel 'my.clamp.i32' is already registered
// TWICE-NOT: Running
// TWICE-OWN: my_run: kernel plugin '{{.*}}my_kernels_plugin.so' failed to register its kernels: kernel 'my.fib.i64' is already registered

// Under `bazel run`, paths are the caller's: the tool enters
// BUILD_WORKING_DIRECTORY before it reads them.
// RUN: rm -rf %t.elsewhere && mkdir -p %t.elsewhere && cd %t.elsewhere && env BUILD_WORKING_DIRECTORY=%S/../../.. sluice_run examples/programs/hello.mlir -functions=fib20 | FileCheck %s --check-prefix=CALLERS-DIRECTORY
// CALLERS-DIRECTORY: 'fib20' returned 6765

// A plugin's kernels run on a worker that loaded the plugin, called from a
// runner that loaded it too (the runner checks every op of the program
// against its own kernels when it loads it).
// RUN: env KERNEL_PLUGIN=%tools_dir/my_kernels_plugin.so %with_workers 1 --worker=%S/Inputs/worker_with_plugin.sh --expect-exit=1 -- %sluice_run --kernel_plugin=%tools_dir/my_kernels_plugin.so %s | FileCheck %s
// CHECK: --- Running 'fib_remotely':
// CHECK-NEXT: 'fib_remotely' returned 6765,<<error: fib of 93: n must be in [0, 92]>>

// A worker without the plugin refuses the program, naming the kernel.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run --kernel_plugin=%tools_dir/my_kernels_plugin.so %s 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN
// NO-PLUGIN: unknown kernel name 'my.fib.i64'

func.func @fib(%n: i64) -> i64 {
  %f = "my.fib.i64"(%n) : (i64) -> i64
  tfrt.return %f : i64
}

func.func @fib_remotely() -> (i64, i64) {
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %fib = tfrt_dist.register_function %task @fib
  %twenty = tfrt.constant.i64 20
  %too_many = tfrt.constant.i64 93
  %a = tfrt_dist.call %fib(%twenty) : (i64) -> i64
  %b = tfrt_dist.call %fib(%too_many) : (i64) -> i64
  tfrt.return %a, %b : i64, i64
}

// Where sluice_run finds the cluster: --cluster (JSON, or @file), else
// SLUICE_CLUSTER, read by the first tfrt_dist op. Without either, only the
// tfrt_dist ops fail.
//
// --cluster=@file, with SLUICE_CLUSTER unset.
// RUN: %with_workers 1 --cluster-file=%t.cluster.json -- %sluice_run --cluster=@%t.cluster.json -functions=remote_add,local %s | FileCheck %s
// CHECK-LABEL: --- Running 'remote_add':
// CHECK-NEXT: 'remote_add' returned 3
//
// No cluster anywhere: the op reports it, and the rest of the program runs.
// RUN: not %sluice_run -print_error_code -functions=remote_add,local %s 2> %t.none | FileCheck %s --check-prefix=NONE
// RUN: FileCheck %s --check-prefix=NONE-DIAG < %t.none
// NONE-LABEL: --- Running 'remote_add':
// NONE-NEXT: 'remote_add' returned <<error: no cluster configured: pass --cluster or set SLUICE_CLUSTER, code: FAILED_PRECONDITION>>
// NONE-LABEL: --- Running 'local':
// NONE-NEXT: 'local' returned 1
//
// Programs without tfrt_dist ops need no cluster, whatever SLUICE_CLUSTER
// holds.
// RUN: env SLUICE_CLUSTER=garbage %sluice_run %S/Inputs/local_only.mlir | FileCheck %s --check-prefix=LOCAL
// LOCAL: 'local' returned 1
//
// A malformed SLUICE_CLUSTER fails the tfrt_dist ops, saying why.
// RUN: env SLUICE_CLUSTER='{"worker": "127.0.0.1:1"}' not %sluice_run -print_error_code -functions=remote_add %s 2>/dev/null | FileCheck %s --check-prefix=BAD-ENV
// BAD-ENV: 'remote_add' returned <<error: SLUICE_CLUSTER: invalid cluster spec: job 'worker' must map to a list of addresses, code: INVALID_ARGUMENT>>
//
// A malformed --cluster, or one naming a file that is not there, stops the
// runner before it runs anything.
// RUN: not %sluice_run '--cluster={"worker": 7}' %S/Inputs/local_only.mlir 2>&1 | FileCheck %s --check-prefix=BAD-FLAG
// BAD-FLAG: sluice_run: --cluster: invalid cluster spec: job 'worker' must map to a list of addresses
// BAD-FLAG-NOT: Running
// RUN: not %sluice_run --cluster=@%t.does_not_exist.json %S/Inputs/local_only.mlir 2>&1 | FileCheck %s --check-prefix=NO-FILE
// NO-FILE: sluice_run: cluster spec: cannot open '{{.*}}does_not_exist.json': No such file or directory
// A FIFO in the file's place is refused at once, never waited on.
// RUN: rm -f %t.fifo && mkfifo %t.fifo
// RUN: not %sluice_run --cluster=@%t.fifo %S/Inputs/local_only.mlir 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: sluice_run: cluster spec: '{{.*}}.fifo' is a FIFO, not a regular file
// RUN: env SLUICE_RPC_FAIL_FAST=sometimes not %sluice_run '--cluster={"worker": ["127.0.0.1:1"]}' %S/Inputs/local_only.mlir 2>&1 | FileCheck %s --check-prefix=BAD-POLICY
// BAD-POLICY: sluice_run: SLUICE_RPC_FAIL_FAST: bad fail-fast policy 'sometimes': expected true, false or use_caller
// RUN: not %sluice_run --rpc_deadline_ms=0 %S/Inputs/local_only.mlir 2>&1 | FileCheck %s --check-prefix=BAD-DEADLINE
// BAD-DEADLINE: sluice_run: --rpc_deadline_ms=0 is out of range: expected 1 to 604800000
//
// A task the cluster does not have.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code -functions=unknown_task %s 2>/dev/null | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: 'unknown_task' returned <<error: task '/job:worker/task:3' is not in the cluster; its tasks are /job:worker/task:0, code: NOT_FOUND>>
//
// --help lists the flags.
// RUN: sluice_run --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: {{^ *}}--cluster=<string> {{.*}}- the tasks tfrt_dist ops talk to: JSON ({"worker": ["host:port", ...]}) or @file (default: $SLUICE_CLUSTER)
// HELP-DAG: {{^ *}}--rpc_deadline_ms=<int> {{.*}}- deadline of each RPC of tfrt_dist ops, in milliseconds

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @remote_add() -> i32 {
  // NONE-DIAG: cluster_config.mlir:[[# @LINE + 1]]:9: error: runtime error: no cluster configured: pass --cluster or set SLUICE_CLUSTER
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %r = tfrt_dist.call %add(%one, %two) : (i32, i32) -> i32
  tfrt.return %r : i32
}

func.func @local() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
// NONE-DIAG-NOT: runtime error

func.func @unknown_task() -> i32 {
  %t3 = tfrt_dist.get_task_handle "/job:worker/task:3"
  %add = tfrt_dist.register_function %t3 @add
  %one = tfrt.constant.i32 1
  %r = tfrt_dist.call %add(%one, %one) : (i32, i32) -> i32
  tfrt.return %r : i32
}

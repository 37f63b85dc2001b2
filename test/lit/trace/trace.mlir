// -trace=FILE writes a Chrome trace-event timeline (docs/tracing.md): valid
// JSON, one span per kernel with its name, `.mlir` location, function and
// thread, and one per function call.
// RUN: %sluice_run %s -trace=%t.json | FileCheck %s
// RUN: python3 -c "import json, sys; json.load(open(sys.argv[1]))" %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// A file that cannot be written stops the run before anything runs.
// RUN: not %sluice_run %s -trace=%t.missing/trace.json 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: 'main' returned 3
// BAD: sluice_run: couldn't write the trace to '{{.*}}.missing/trace.json': No such file or directory
// BAD-NOT: Running

// JSON: {"traceEvents":[
// JSON: {"ph":"M","name":"process_name","pid":[[PID:[0-9]+]],"tid":0,"args":{"name":"sluice_run"}}
// JSON-DAG: {"ph":"M","name":"thread_name","pid":[[PID]],"tid":{{[0-9]+}},"args":{"name":
// JSON-DAG: {"ph":"X","pid":[[PID]],"tid":{{[0-9]+}},"ts":{{[0-9]+\.[0-9][0-9][0-9]}},"name":"tfrt.add.i32","cat":"kernel","dur":{{[0-9]+\.[0-9][0-9][0-9]}},"args":{"location":"{{.*}}trace.mlir:[[# @LINE + 4]]:8","function":"add"}}
// JSON-DAG: {"ph":"X",{{.*}}"name":"add","cat":"function",
// JSON-DAG: {"ph":"X",{{.*}}"name":"main","cat":"function",
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// JSON-DAG: {"ph":"X",{{.*}}"name":"tfrt.constant.i32","cat":"kernel",{{.*}}"args":{"location":"{{.*}}trace.mlir:[[# @LINE + 4]]:10","function":"main"}}
// JSON-DAG: {"ph":"X",{{.*}}"name":"tfrt.call","cat":"kernel",{{.*}}"args":{"location":"{{.*}}trace.mlir:[[# @LINE + 4]]:10","function":"main"}}
// JSON-DAG: {"ph":"X",{{.*}}"name":"tfrt_test.async_add.i32","cat":"kernel",{{.*}}"args":{"location":"{{.*}}trace.mlir:[[# @LINE + 4]]:12","function":"main"}}
func.func @main() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.call @add(%one, %one) : (i32, i32) -> i32
  %three = "tfrt_test.async_add.i32"(%two, %one) : (i32, i32) -> i32
  tfrt.return %three : i32
}
// JSON: ]}

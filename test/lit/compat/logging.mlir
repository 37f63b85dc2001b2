// tfrt_test.logging logs six lines through the project's logging, in
// order, each ending in `: <the string>`.
// RUN: %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG --match-full-lines < %t.stderr

// LOG: I{{.*}}] from TFRT_LOG(INFO): hello logs
// LOG-NEXT: W{{.*}}] from TFRT_LOG(WARNING): hello logs
// LOG-NEXT: E{{.*}}] from TFRT_LOG(ERROR): hello logs
// LOG-NEXT: I{{.*}}] from TFRT_LOG_IF(INFO, true): hello logs
// LOG-NEXT: W{{.*}}] from TFRT_LOG_IF(WARNING, true): hello logs
// LOG-NEXT: E{{.*}}] from TFRT_LOG_IF(ERROR, true): hello logs
// LOG-NOT: from TFRT_LOG
// CHECK-LABEL: --- Running 'logs':
// CHECK-NEXT: 'logs' returned !tfrt.chain value
func.func @logs() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %s = "tfrt_test.get_string"() {value = "hello logs"} : () -> !tfrt.string
  %done = "tfrt_test.logging"(%s, %ch) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

// Strings: tfrt_test.get_string, tfrt_test.append_string and
// tfrt_test.print_string on !tfrt.string values.
// RUN: %sluice_run %s | FileCheck %s

// CHECK-LABEL: --- Running 'print_strings':
// CHECK-NEXT: string = bark
// CHECK-NEXT: string = hello, world
// CHECK-NEXT: {{^string = $}}
// CHECK-NEXT: string = with "quotes" and spaces
// CHECK-NEXT: 'print_strings' returned !tfrt.chain value
func.func @print_strings() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %bark = "tfrt_test.get_string"() {value = "bark"} : () -> !tfrt.string
  %ch1 = "tfrt_test.print_string"(%bark, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %hello = "tfrt_test.get_string"() {value = "hello, "} : () -> !tfrt.string
  %world = "tfrt_test.get_string"() {value = "world"} : () -> !tfrt.string
  %both = "tfrt_test.append_string"(%hello, %world) : (!tfrt.string, !tfrt.string) -> !tfrt.string
  %ch2 = "tfrt_test.print_string"(%both, %ch1) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %empty = "tfrt_test.get_string"() {value = ""} : () -> !tfrt.string
  %ch3 = "tfrt_test.print_string"(%empty, %ch2) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %quoted = "tfrt_test.get_string"() {value = "with \"quotes\" and spaces"} : () -> !tfrt.string
  %ch4 = "tfrt_test.print_string"(%quoted, %ch3) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch4 : !tfrt.chain
}

// A string built up in a loop: each iteration appends to the loop value.
// CHECK-LABEL: --- Running 'append_in_loop':
// CHECK-NEXT: string = abbbb
// CHECK-NEXT: 'append_in_loop' returned !tfrt.string value
func.func @append_in_loop() -> !tfrt.string {
  %ch0 = tfrt.new.chain
  %a = "tfrt_test.get_string"() {value = "a"} : () -> !tfrt.string
  %b = "tfrt_test.get_string"() {value = "b"} : () -> !tfrt.string
  %four = tfrt.constant.i32 4
  %s, %t = tfrt.repeat.i32 %four, %a, %b : !tfrt.string, !tfrt.string {
    %next = "tfrt_test.append_string"(%a, %b) : (!tfrt.string, !tfrt.string) -> !tfrt.string
    tfrt.return %next, %b : !tfrt.string, !tfrt.string
  }
  %ch1 = "tfrt_test.print_string"(%s, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %s : !tfrt.string
}

// Strings cross function boundaries and asynchronous regions unchanged.
// CHECK: --- Not running 'shout' because it has arguments.
func.func @shout(%s: !tfrt.string) -> !tfrt.string {
  %bang = "tfrt_test.get_string"() {value = "!"} : () -> !tfrt.string
  %r = "tfrt_test.append_string"(%s, %bang) : (!tfrt.string, !tfrt.string) -> !tfrt.string
  tfrt.return %r : !tfrt.string
}

// CHECK-LABEL: --- Running 'strings_across_calls':
// CHECK-NEXT: string = woof!!
func.func @strings_across_calls() {
  %ch0 = tfrt.new.chain
  %woof = "tfrt_test.get_string"() {value = "woof"} : () -> !tfrt.string
  %once = tfrt.call @shout(%woof) : (!tfrt.string) -> !tfrt.string
  %twice = tfrt_test.do.async %once : (!tfrt.string) -> (!tfrt.string) {
    %r = tfrt.call @shout(%once) : (!tfrt.string) -> !tfrt.string
    tfrt.return %r : !tfrt.string
  }
  "tfrt_test.print_string"(%twice, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// A first Sluice program: run it with
//   bazel run //tools/sluice_run -- examples/programs/hello.mlir
// and with @fib too:
//   bazel run //tools/sluice_run -- examples/programs/hello.mlir --args=fib:25
// Each function without arguments runs in file order; what it returns is
// printed after it.

// Prints through a chain of side effects and returns a sum.
func.func @hello() -> i32 {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %x = tfrt.constant.i32 40
  %y = tfrt.constant.i32 2
  %sum = tfrt.add.i32 %x, %y
  %ch2 = tfrt.print.i32 %sum, %ch1
  tfrt.return %sum : i32
}

// fib(n) with a call and a conditional: calls run like any other kernel.
func.func @fib(%n: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %small = "tfrt.lessequal.i32"(%n, %one) : (i32, i32) -> i1
  %r = tfrt.if %small, %n : (i32) -> (i32) {
    tfrt.return %n : i32
  } else {
    %c1 = tfrt.constant.i32 1
    %c2 = tfrt.constant.i32 2
    %n1 = "tfrt.minus.i32"(%n, %c1) : (i32, i32) -> i32
    %n2 = "tfrt.minus.i32"(%n, %c2) : (i32, i32) -> i32
    %f1 = tfrt.call @fib(%n1) : (i32) -> i32
    %f2 = tfrt.call @fib(%n2) : (i32) -> i32
    %s = tfrt.add.i32 %f1, %f2
    tfrt.return %s : i32
  }
  tfrt.return %r : i32
}

func.func @fib20() -> i32 {
  %n = tfrt.constant.i32 20
  %r = tfrt.call @fib(%n) : (i32) -> i32
  tfrt.return %r : i32
}

// Errors as values: run it with
//   bazel run //tools/sluice_run -- "$PWD/examples/programs/errors.mlir"
// The runner prints the diagnostic at the failing op and exits 1, because a
// function returned an error.

// Errors are values: the division fails, the add that needs its quotient is
// skipped, and the error comes back as the result. The other result is
// unaffected.
func.func @divide_by_zero() -> (i32, i32) {
  %one = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %q, %r = tfrt.div.i32 %one, %zero
  %s = tfrt.add.i32 %q, %one
  tfrt.return %s, %one : i32, i32
}

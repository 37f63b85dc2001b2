// A program without tfrt_dist ops: it runs whatever cluster is configured,
// or none.
func.func @local() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

// The program examples/embed runs, compiled ahead of time to an .sbf file.
// [START program]
// 3x, 3x + y and y + y: only the first two depend on x.
func.func @triple_plus(%x: i32, %y: i32) -> (i32, i32, i32) {
  %tripled = "embed.scale.i32"(%x) {factor = 3 : i32} : (i32) -> i32
  %sum = tfrt.add.i32 %tripled, %y
  %doubled = tfrt.add.i32 %y, %y
  tfrt.return %tripled, %sum, %doubled : i32, i32, i32
}
// [END program]

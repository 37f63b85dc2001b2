// tfrt_test.flat flattens a nested array attribute; tfrt_test.unique_loc
// checks that every op has a location record of its own.
// RUN: %sluice_run %s | FileCheck %s

// Nested arrays are flattened, depth first, into the results.
// CHECK-LABEL: --- Running 'flat':
// CHECK-NEXT: string = string
// CHECK-NEXT: 'flat' returned !tfrt.string value,1,0,1.000000e+00
func.func @flat() -> (!tfrt.string, i32, i32, f32) {
  %ch0 = tfrt.new.chain
  %s, %a, %b, %f = "tfrt_test.flat"() {value = [["string", [1 : i32, 0 : i32]], [1.0 : f32]]} : () -> (!tfrt.string, i32, i32, f32)
  "tfrt_test.print_string"(%s, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %s, %a, %b, %f : !tfrt.string, i32, i32, f32
}

// Ops with locations of their own succeed.
// CHECK-LABEL: --- Running 'unique_locations':
// CHECK-NEXT: 'unique_locations' returned !tfrt.chain value,!tfrt.chain value
func.func @unique_locations() -> (!tfrt.chain, !tfrt.chain) {
  %a = "tfrt_test.unique_loc"() {name = "a"} : () -> !tfrt.chain
  %b = "tfrt_test.unique_loc"() {name = "b"} : () -> !tfrt.chain
  tfrt.return %a, %b : !tfrt.chain, !tfrt.chain
}

// The compiler gives every op a location record of its own, also when two
// ops have the same MLIR location, so these do not collide either.
// CHECK-LABEL: --- Running 'shared_location':
// CHECK-NEXT: 'shared_location' returned !tfrt.chain value,!tfrt.chain value
func.func @shared_location() -> (!tfrt.chain, !tfrt.chain) {
  %a = "tfrt_test.unique_loc"() {name = "c"} : () -> !tfrt.chain loc("shared")
  %b = "tfrt_test.unique_loc"() {name = "d"} : () -> !tfrt.chain loc("shared")
  tfrt.return %a, %b : !tfrt.chain, !tfrt.chain
}

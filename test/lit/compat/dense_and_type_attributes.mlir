// Dense elements attributes (tensors of scalars or complex numbers, i1
// included, alone or in arrays) and type attributes holding a tensor
// element type compile, and decompile to the text they were written in. A
// type attribute of any other type is refused in TFRT's words.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir %t.sbf > %t.first.mlir
// RUN: FileCheck %s --match-full-lines --strict-whitespace < %t.first.mlir
// RUN: sluice_translate --mlir-to-sbf %t.first.mlir | sluice_translate --sbf-to-mlir > %t.second.mlir
// RUN: diff %t.first.mlir %t.second.mlir
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %S/Inputs/unencodable_attributes.mlir -o /dev/null
// RUN: not sluice_translate --mlir-to-sbf %S/Inputs/unencodable_attributes.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// ERROR: error: BEF files cannot encode the 'type' attribute

// CHECK-LABEL:  func.func @dense_elements() {
// CHECK-NEXT:    "my.arrays"() {value = [dense<0> : tensor<4xi64>, dense<1> : tensor<4xi64>]} : () -> ()
// CHECK-NEXT:    "my.i1"() {value = dense<true> : tensor<1xi1>} : () -> ()
// CHECK-NEXT:    "my.i1s"() {value = dense<{{\[\[}}true, false], [false, true]]> : tensor<2x2xi1>} : () -> ()
// CHECK-NEXT:    "my.i32"() {value = dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : () -> ()
// CHECK-NEXT:    "my.ui8"() {value = dense<[255, 0]> : tensor<2xui8>} : () -> ()
// CHECK-NEXT:    "my.rank0"() {value = dense<1.500000e+00> : tensor<f32>} : () -> ()
// CHECK-NEXT:    "my.empty"() {value = dense<> : tensor<0x3xi64>} : () -> ()
// CHECK-NEXT:    "my.floats"() {value = dense<[-0.000000e+00, 0x7FC00001]> : tensor<2xf32>} : () -> ()
// CHECK-NEXT:    "my.halves"() {a = dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf16>, b = dense<-2.000000e+00> : tensor<3xbf16>} : () -> ()
// CHECK-NEXT:    "my.f64"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>} : () -> ()
// CHECK-NEXT:    "my.complex"() {value = dense<[(1.000000e+00,-2.000000e+00), (0.000000e+00,5.000000e-01)]> : tensor<2xcomplex<f32>>} : () -> ()
// CHECK-NEXT:    tfrt.return
// CHECK-NEXT:  }
func.func @dense_elements() {
  "my.arrays"() {value = [dense<0> : tensor<4xi64>, dense<1> : tensor<4xi64>]} : () -> ()
  "my.i1"() {value = dense<true> : tensor<1xi1>} : () -> ()
  "my.i1s"() {value = dense<[[true, false], [false, true]]> : tensor<2x2xi1>} : () -> ()
  "my.i32"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : () -> ()
  "my.ui8"() {value = dense<[255, 0]> : tensor<2xui8>} : () -> ()
  "my.rank0"() {value = dense<1.5> : tensor<f32>} : () -> ()
  "my.empty"() {value = dense<> : tensor<0x3xi64>} : () -> ()
  "my.floats"() {value = dense<[-0.0, 0x7FC00001]> : tensor<2xf32>} : () -> ()
  "my.halves"() {a = dense<[1.5, 2.5]> : tensor<2xf16>, b = dense<-2.0> : tensor<3xbf16>} : () -> ()
  "my.f64"() {value = dense<[1.0, 2.0]> : tensor<2xf64>} : () -> ()
  "my.complex"() {value = dense<[(1.0, -2.0), (0.0, 0.5)]> : tensor<2xcomplex<f32>>} : () -> ()
  tfrt.return
}

// CHECK-LABEL:  func.func @type_attributes() {
// CHECK-NEXT:    "my.op"() {type = i1} : () -> ()
// CHECK-NEXT:    "my.op"() {type = i8} : () -> ()
// CHECK-NEXT:    "my.op"() {type = i16} : () -> ()
// CHECK-NEXT:    "my.op"() {type = i32} : () -> ()
// CHECK-NEXT:    "my.op"() {type = i64} : () -> ()
// CHECK-NEXT:    "my.op"() {type = ui8} : () -> ()
// CHECK-NEXT:    "my.op"() {type = ui16} : () -> ()
// CHECK-NEXT:    "my.op"() {type = ui32} : () -> ()
// CHECK-NEXT:    "my.op"() {type = ui64} : () -> ()
// CHECK-NEXT:    "my.op"() {type = bf16} : () -> ()
// CHECK-NEXT:    "my.op"() {type = f16} : () -> ()
// CHECK-NEXT:    "my.op"() {type = f32} : () -> ()
// CHECK-NEXT:    "my.op"() {type = f64} : () -> ()
// CHECK-NEXT:    "my.op"() {type = complex<f32>} : () -> ()
// CHECK-NEXT:    "my.op"() {type = complex<f64>} : () -> ()
// CHECK-NEXT:    "my.op"() {types = [i1, f64]} : () -> ()
// CHECK-NEXT:    tfrt.return
// CHECK-NEXT:  }
func.func @type_attributes() {
  "my.op"() {type = i1} : () -> ()
  "my.op"() {type = i8} : () -> ()
  "my.op"() {type = i16} : () -> ()
  "my.op"() {type = i32} : () -> ()
  "my.op"() {type = i64} : () -> ()
  "my.op"() {type = ui8} : () -> ()
  "my.op"() {type = ui16} : () -> ()
  "my.op"() {type = ui32} : () -> ()
  "my.op"() {type = ui64} : () -> ()
  "my.op"() {type = bf16} : () -> ()
  "my.op"() {type = f16} : () -> ()
  "my.op"() {type = f32} : () -> ()
  "my.op"() {type = f64} : () -> ()
  "my.op"() {type = complex<f32>} : () -> ()
  "my.op"() {type = complex<f64>} : () -> ()
  "my.op"() {types = [i1, f64]} : () -> ()
  tfrt.return
}

// The example program of docs/gpu.md, taken from the guide itself, so that
// the guide shows a program that compiles (running it needs a device:
// round_trip.mlir does that where there is one).
// RUN: awk '/^<!-- tested by test\/lit\/gpu\/doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/gpu.md > %t.mlir
// RUN: sluice_opt %t.mlir | FileCheck %s
// RUN: sluice_translate -mlir-to-sbf %t.mlir -o %t.sbf

// CHECK: %[[DEVICE:.*]] = tfrt_gpu.device_get {ordinal = 0 : i64}
// CHECK: tfrt_gpu.to_device %[[DEVICE]], %{{.*}}, %{{.*}}
// CHECK: tfrt_gpu.to_host

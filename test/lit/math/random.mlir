// tfrt_math.random_uniform and random_normal: the same seed gives the same
// tensor, another seed another one, and seed 0's first values are those the
// documented algorithm derives from Philox4x32-10's published output for
// counter 0 and key 0 (0x6627e8d5 0xe169c58d 0xbc57ac4c 0x9b00dbd8): word w
// gives (w >> 8) / 2^24.
// RUN: %sluice_run %s | FileCheck %s
// The values do not depend on the work queue or the run.
// RUN: %sluice_run %s -functions=known_values > %t.first
// RUN: sluice_run -work_queue_type=mstd:2 %s -functions=known_values > %t.second
// RUN: diff %t.first %t.second

// CHECK-LABEL: --- Running 'known_values':
// CHECK-NEXT: 'known_values' returned DenseHostTensor dtype = f32, shape = [2, 2], values = [3.990464e-01, 8.805202e-01, 7.357128e-01, 6.054818e-01]
func.func @known_values() -> !t.tensor {
  %u = tfrt_math.random_uniform.f32 [2, 2] {low = 0.0 : f32, high = 1.0 : f32, seed = 0 : i64}
  tfrt.return %u : !t.tensor
}

// tensor_equal returns (equal, chain): 1 for the same seed, 0 for another.
// CHECK-LABEL: --- Running 'seeds':
// CHECK-NEXT: 'seeds' returned 1,0,1,0
func.func @seeds() -> (i1, i1, i1, i1) {
  %ch0 = tfrt.new.chain
  %a = tfrt_math.random_uniform.f64 [16, 8] {low = -2.0 : f64, high = 2.0 : f64, seed = 42 : i64}
  %b = tfrt_math.random_uniform.f64 [16, 8] {low = -2.0 : f64, high = 2.0 : f64, seed = 42 : i64}
  %c = tfrt_math.random_uniform.f64 [16, 8] {low = -2.0 : f64, high = 2.0 : f64, seed = 43 : i64}
  %same_uniform, %ch1 = tfrt_dht.tensor_equal.f64 %a, %b, %ch0
  %other_uniform, %ch2 = tfrt_dht.tensor_equal.f64 %a, %c, %ch0
  %n = tfrt_math.random_normal.f32 [33] {mean = 1.0 : f32, stddev = 0.5 : f32, seed = -7 : i64}
  %m = tfrt_math.random_normal.f32 [33] {mean = 1.0 : f32, stddev = 0.5 : f32, seed = -7 : i64}
  %o = tfrt_math.random_normal.f32 [33] {mean = 1.0 : f32, stddev = 0.5 : f32, seed = 7 : i64}
  %same_normal, %ch3 = tfrt_dht.tensor_equal.f32 %n, %m, %ch0
  %other_normal, %ch4 = tfrt_dht.tensor_equal.f32 %n, %o, %ch0
  tfrt.return %same_uniform, %other_uniform, %same_normal, %other_normal : i1, i1, i1, i1
}

// Samples stay in [-1, 1): the largest of 10,000 and the largest of their
// negations (the smallest, negated) are both just below 1.
// CHECK-LABEL: --- Running 'range':
// CHECK-NEXT: 'range' returned DenseHostTensor dtype = f32, shape = [], values = [{{9\.99[0-9]+e-01}}],DenseHostTensor dtype = f32, shape = [], values = [{{9\.99[0-9]+e-01}}]
func.func @range() -> (!t.tensor, !t.tensor) {
  %u = tfrt_math.random_uniform.f32 [10000] {low = -1.0 : f32, high = 1.0 : f32, seed = 3 : i64}
  %negated = tfrt_math.scale.f32 %u {factor = -1.0 : f32}
  %highest = tfrt_math.max.f32 %u
  %lowest_negated = tfrt_math.max.f32 %negated
  tfrt.return %highest, %lowest_negated : !t.tensor, !t.tensor
}

// Host buffers: allocated from the host allocator, sliced and viewed as
// tensors without copying. Every view shares the bytes of the buffer it was
// made from, so a write through one is seen through the others.
// RUN: %sluice_run %s | FileCheck %s

// CHECK-LABEL: --- Running 'slices_share_bytes':
func.func @slices_share_bytes() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 64
  %alignment = tfrt.constant.i64 16
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  // CHECK-NEXT: HostBuffer<pointer=0x[[#%x,BASE:]], size=64>
  %c1 = tfrt_dht.print_buffer %buffer, %c0

  // Bytes [16, 32) of the buffer: four f32 elements.
  %offset = tfrt.constant.i64 16
  %length = tfrt.constant.i64 16
  %slice = tfrt_dht.get_buffer_slice %buffer, %offset, %length
  // CHECK-NEXT: HostBuffer<pointer=0x[[#%x,BASE+16]], size=16>
  %c2 = tfrt_dht.print_buffer %slice, %c1

  %shape = ts.build_shape [2 : i64, 2 : i64]
  %t, %c3 = tfrt_dht.make_tensor.f32 %slice, %shape, %c2
  %c4 = tfrt_dht.fill_tensor_with_constant.f32 %t, %c3 2.0 : f32
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00]
  %c5 = tfrt_dht.print_tensor %t, %c4

  // The whole buffer as 16 f32 elements: the slice's four are the only
  // ones written; the rest are still the zeros allocate_buffer gave.
  %all_shape = ts.build_shape [16 : i64]
  %all, %c6 = tfrt_dht.make_tensor.f32 %buffer, %all_shape, %c5
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [16], values = [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
  %c7 = tfrt_dht.print_tensor %all, %c6

  // Writing through the whole-buffer view shows in the slice's view.
  %c8 = tfrt_dht.fill_tensor_with_constant.f32 %all, %c7 -1.0 : f32
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00]
  %c9 = tfrt_dht.print_tensor %t, %c8

  // The same bytes as another dtype: four i32 elements, bit patterns of
  // -1.0f.
  %i32, %c10 = tfrt_dht.make_tensor.i32 %slice, %shape, %c9
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2, 2], values = [-1082130432, -1082130432, -1082130432, -1082130432]
  %c11 = tfrt_dht.print_tensor %i32, %c10
  tfrt.return %c11 : !tfrt.chain
}

// get_buffer returns the tensor's own bytes, not a copy.
// CHECK-LABEL: --- Running 'tensor_buffer':
func.func @tensor_buffer() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  %buffer, %c1 = tfrt_dht.get_buffer %a, %c0
  // CHECK-NEXT: HostBuffer<pointer=0x{{[0-9a-f]+}}, size=24>
  %c2 = tfrt_dht.print_buffer %buffer, %c1
  %shape = ts.build_shape [6 : i64]
  %flat, %c3 = tfrt_dht.make_tensor.i32 %buffer, %shape, %c2
  %c4 = tfrt_dht.set_tensor_with_constant_values.i32 %flat, %c3 [1 : i32, 2 : i32, 3 : i32, 4 : i32, 5 : i32, 6 : i32]
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3, 2], values = [1, 2, 3, 4, 5, 6]
  %c5 = tfrt_dht.print_tensor %a, %c4
  tfrt.return %c5 : !tfrt.chain
}

// A slice of a slice is a slice of the original buffer; an empty slice at
// the end is allowed.
// CHECK-LABEL: --- Running 'nested_slices':
func.func @nested_slices() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 32
  %alignment = tfrt.constant.i64 8
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  // CHECK-NEXT: HostBuffer<pointer=0x[[#%x,BASE:]], size=32>
  %c1 = tfrt_dht.print_buffer %buffer, %c0
  %eight = tfrt.constant.i64 8
  %sixteen = tfrt.constant.i64 16
  %zero = tfrt.constant.i64 0
  %outer = tfrt_dht.get_buffer_slice %buffer, %eight, %sixteen
  %inner = tfrt_dht.get_buffer_slice %outer, %eight, %eight
  // CHECK-NEXT: HostBuffer<pointer=0x[[#%x,BASE+16]], size=8>
  %c2 = tfrt_dht.print_buffer %inner, %c1
  %empty = tfrt_dht.get_buffer_slice %outer, %sixteen, %zero
  // CHECK-NEXT: HostBuffer<pointer=0x[[#%x,BASE+24]], size=0>
  %c3 = tfrt_dht.print_buffer %empty, %c2
  tfrt.return %c3 : !tfrt.chain
}

// A buffer outlives the values it was reached through: the tensor is gone
// when the function returns, its buffer is not.
// CHECK-LABEL: --- Running 'buffer_outlives_tensor':
// CHECK-NEXT: 'buffer_outlives_tensor' returned HostBuffer<pointer=0x{{[0-9a-f]+}}, size=16>
func.func @buffer_outlives_tensor() -> !ht.host_buffer {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %buffer, %c1 = tfrt_dht.get_buffer %a, %c0
  tfrt.return %buffer : !ht.host_buffer
}

// make_tensor.i1 refuses bytes other than 0 and 1 (errors.mlir), but an i1
// view made first sees what another view writes afterwards. It reads those
// bytes as 0 or 1 (any nonzero byte is true): printing and comparing never
// load a bool that is neither. Sending it to a peer is refused.
// CHECK-LABEL: --- Running 'bytes_as_i1':
// CHECK-NEXT: DenseHostTensor dtype = i1, shape = [4], values = [1, 1, 0, 0]
// CHECK-NEXT: int1 = 1
func.func @bytes_as_i1() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %four = tfrt.constant.i64 4
  %buffer = tfrt_dht.allocate_buffer %four, %four
  %shape = ts.build_shape [4 : i64]
  %bools, %c1 = tfrt_dht.make_tensor.i1 %buffer, %shape, %c0
  %one = ts.build_shape [1 : i64]
  %i32, %c2 = tfrt_dht.make_tensor.i32 %buffer, %one, %c1
  // Little-endian bytes 7, 2, 0, 0.
  %c3 = tfrt_dht.fill_tensor_with_constant.i32 %i32, %c2 519 : i32
  %c4 = tfrt_dht.print_tensor %bools, %c3
  %expected = tfrt_dht.create_uninitialized_tensor.i1.1 [4 : i64]
  %c5 = tfrt_dht.set_tensor_with_constant_values.i1 %expected, %c4 [true, true, false, false]
  %eq, %c6 = tfrt_dht.tensor_equal.i1 %bools, %expected, %c5
  %c7 = tfrt.print.i1 %eq, %c6
  tfrt.return %c7 : !tfrt.chain
}

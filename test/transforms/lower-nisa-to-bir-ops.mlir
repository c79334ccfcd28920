// The nisa ops beyond the MX matmul path, lowered to bir and run at both levels (the
// same bytes): register_load driving a data-dependent loop, DMAs and compute on
// loop-dependent views (run-time keys), an indirect DMA whose indexed and direct sides
// move with the loop (oob_mode skip), iota, tensor_copy_predicated (tile and immediate
// sources), scalar_tensor_tensor and dma_compute.

// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s
// CHECK:      bir.iota #bir.ap<sbuf, p0 = 0, np = 8, [[1, 1]], off = {{[0-9]+}}, dtype = 17>, [[1, 1]] channel_multiplier 1
// CHECK:      %trips = bir.register_load #bir.ap<hbm, [[1, 1]], off = 0, dtype = 17> of %n : memref<1xi32, #nisa.mem<hbm>> : index
// CHECK:      scf.for %i = %c0 to %trips step %c1 {
// CHECK:        bir.dma #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16> offset %{{.+}}, #bir.ap<hbm, [[1, 128]], off = 0, dtype = 16> of %x : memref<4x8x16xf32, #nisa.mem<hbm>> offset %{{.+}}
// CHECK:        bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, multiply 2.000000e+00 : f32 runtime ["dst", "src"](%[[B:.+]], %[[B]])
// CHECK:        bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = {{[0-9]+}}, dtype = 16>, #bir.ap<hbm, [[16, 8], [1, 16]], off = 0, dtype = 16> of %table : memref<10x16xf32, #nisa.mem<hbm>> index #bir.ap<sbuf, p0 = 0, np = 8, [[1, 1]], off = {{[0-9]+}}, dtype = 17> dim 0 bound 7 oob_mode skip runtime ["dst", "src"](%{{.+}}, %{{.+}})
// CHECK:      bir.iota #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = {{[0-9]+}}, dtype = 17>, [[1, 64]] channel_multiplier 1
// CHECK:      bir.tensor_scalar {{.*}} bitwise_and 1 : i32
// CHECK:      bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = {{[0-9]+}}, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = {{[0-9]+}}, dtype = 16> where #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = {{[0-9]+}}, dtype = 17>
// CHECK:      bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = {{[0-9]+}}, dtype = 16>, -1.000000e+00 : f32 where not #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = {{[0-9]+}}, dtype = 17>
// CHECK:      bir.scalar_tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = {{[0-9]+}}, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = {{[0-9]+}}, dtype = 16>, multiply 5.000000e-01 : f32, add #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = 0, dtype = 16>
// CHECK:      bir.dma_compute #bir.ap<hbm, [[1, 512]], off = 2048, dtype = 16> of %out : memref<2x8x64xf32, #nisa.mem<hbm>>, [#bir.ap<hbm, [[1, 512]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 512]], off = 0, dtype = 16>] of %out, %x : memref<2x8x64xf32, #nisa.mem<hbm>>, memref<4x8x16xf32, #nisa.mem<hbm>>
// CHECK-NOT:  nisa.

// Inputs: n = 3 trips (of 4 possible), x and the table small integers times 0.25.
// RUN: python -c "import numpy as np; r = np.random.default_rng(1); np.savez('%t.in.npz', arg0=(r.integers(-8, 9, (4, 8, 16)) / 4).astype(np.float32), arg1=(r.integers(-8, 9, (10, 16)) / 4).astype(np.float32), arg2=np.array([3], np.int32), arg3=np.zeros((2, 8, 64), np.float32))"
// RUN: mx-run %s --inputs %t.in.npz -o %t.nisa.npz > /dev/null
// RUN: mx-run %s --inputs %t.in.npz -p lower-nisa-to-bir -o %t.bir.npz > /dev/null
// RUN: python %S/Inputs/check_bir_ops.py %t.in.npz %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME
// SAME: identical ['arg0', 'arg1', 'arg2', 'arg3']
// SAME-NEXT: numpy agrees

func.func @main(%x: memref<4x8x16xf32, #nisa.mem<hbm>>, %table: memref<10x16xf32, #nisa.mem<hbm>>,
                %n: memref<1xi32, #nisa.mem<hbm>>, %out: memref<2x8x64xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %minus_one = arith.constant -1.0 : f32
  %one = arith.constant 1 : i32
  %t = memref.alloc() : memref<8x64xf32, #nisa.mem<sbuf>>
  %idx = memref.alloc() : memref<8x1xi32, #nisa.mem<sbuf>>
  %g = memref.alloc() : memref<8x4x16xf32, #nisa.mem<sbuf>>
  %pred = memref.alloc() : memref<8x64xi32, #nisa.mem<sbuf>>
  %r = memref.alloc() : memref<8x64xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 0.0 : memref<8x64xf32, #nisa.mem<sbuf>>
  nisa.memset %g, 0.0 : memref<8x4x16xf32, #nisa.mem<sbuf>>
  nisa.iota %idx, [[1, 1]] channel_multiplier 1 : memref<8x1xi32, #nisa.mem<sbuf>>
  %trips = nisa.register_load %n : memref<1xi32, #nisa.mem<hbm>> -> index
  scf.for %i = %c0 to %trips step %c1 {
    %off = arith.muli %i, %c16 : index
    %xi = memref.subview %x[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32, #nisa.mem<hbm>> to memref<8x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
    %ti = memref.subview %t[0, %off] [8, 16] [1, 1] : memref<8x64xf32, #nisa.mem<sbuf>> to memref<8x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>
    nisa.dma_copy %ti, %xi : memref<8x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>, memref<8x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.tensor_scalar %ti, %ti, multiply %two : memref<8x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>, memref<8x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>, f32
    // rows i .. i + 6 of the table, gathered by partition index: row 7 is out of bounds
    %tab = memref.subview %table[%i, 0] [7, 16] [1, 1] : memref<10x16xf32, #nisa.mem<hbm>> to memref<7x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
    %gi = memref.subview %g[0, %i, 0] [8, 1, 16] [1, 1, 1] : memref<8x4x16xf32, #nisa.mem<sbuf>> to memref<8x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>
    nisa.dma_copy %gi, %tab[%idx : memref<8x1xi32, #nisa.mem<sbuf>>] oob_mode skip : memref<8x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>, memref<7x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
  }
  // pred[p, j] = (p + j) & 1
  nisa.iota %pred, [[1, 64]] channel_multiplier 1 : memref<8x64xi32, #nisa.mem<sbuf>>
  nisa.tensor_scalar %pred, %pred, bitwise_and %one : memref<8x64xi32, #nisa.mem<sbuf>>, memref<8x64xi32, #nisa.mem<sbuf>>, i32
  %gflat = memref.collapse_shape %g [[0], [1, 2]] : memref<8x4x16xf32, #nisa.mem<sbuf>> into memref<8x64xf32, #nisa.mem<sbuf>>
  nisa.tensor_copy %r, %t : memref<8x64xf32, #nisa.mem<sbuf>>, memref<8x64xf32, #nisa.mem<sbuf>>
  nisa.tensor_copy_predicated %r, %gflat where %pred : memref<8x64xf32, #nisa.mem<sbuf>>, memref<8x64xf32, #nisa.mem<sbuf>>, memref<8x64xi32, #nisa.mem<sbuf>>
  %r3 = memref.subview %r[0, 48] [8, 16] [1, 1] : memref<8x64xf32, #nisa.mem<sbuf>> to memref<8x16xf32, strided<[64, 1], offset: 48>, #nisa.mem<sbuf>>
  %p3 = memref.subview %pred[0, 48] [8, 16] [1, 1] : memref<8x64xi32, #nisa.mem<sbuf>> to memref<8x16xi32, strided<[64, 1], offset: 48>, #nisa.mem<sbuf>>
  nisa.tensor_copy_predicated %r3, %minus_one where not %p3 : memref<8x16xf32, strided<[64, 1], offset: 48>, #nisa.mem<sbuf>>, f32, memref<8x16xi32, strided<[64, 1], offset: 48>, #nisa.mem<sbuf>>
  // r = r * 0.5 + t
  nisa.scalar_tensor_tensor %r, %r, multiply %half, add %t : memref<8x64xf32, #nisa.mem<sbuf>>, memref<8x64xf32, #nisa.mem<sbuf>>, f32, memref<8x64xf32, #nisa.mem<sbuf>>
  %o0 = memref.subview %out[0, 0, 0] [1, 8, 64] [1, 1, 1] : memref<2x8x64xf32, #nisa.mem<hbm>> to memref<8x64xf32, strided<[64, 1]>, #nisa.mem<hbm>>
  %o1 = memref.subview %out[1, 0, 0] [1, 8, 64] [1, 1, 1] : memref<2x8x64xf32, #nisa.mem<hbm>> to memref<8x64xf32, strided<[64, 1], offset: 512>, #nisa.mem<hbm>>
  nisa.dma_copy %o0, %r : memref<8x64xf32, strided<[64, 1]>, #nisa.mem<hbm>>, memref<8x64xf32, #nisa.mem<sbuf>>
  // out[1] = out[0] + x (as 512 elements each, summed in f32 by a DMA engine)
  nisa.dma_compute %o1, (%o0, %x) : memref<8x64xf32, strided<[64, 1], offset: 512>, #nisa.mem<hbm>>, (memref<8x64xf32, strided<[64, 1]>, #nisa.mem<hbm>>, memref<4x8x16xf32, #nisa.mem<hbm>>)
  func.return
}

// lower-nisa-to-bir selects nisa.tensor_reduce as bir.tensor_reduce: nisa's reduced
// trailing dims become the innermost pairs of the src pattern. A contiguous buffer is one
// pair, split where the kept and the reduced elements meet ([[1, 32]] -> [[8, 4], [1, 8]]
// for axes [2]); reducing every free dim keeps it whole; a strided view keeps its pairs.
// Both interpreters fold the reduced elements in the same row-major order
// (mxdsl/numerics/reduce.py), so mx-run gives the same bytes before and after.

// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s
// RUN: mx-opt %s -p lower-nisa-to-bir | mx-opt | filecheck %s
// RUN: mx-run %s --random-inputs 7 -o %t.nisa.npz > /dev/null
// RUN: mx-run %s --random-inputs 7 -p lower-nisa-to-bir -o %t.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('identical' if a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files) else 'DIFFERENT', a.files)" %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME

// CHECK-LABEL: func.func @main(
// CHECK-NOT:     nisa.tensor_reduce
// CHECK:         bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 16, [[1, 4]], off = {{[0-9]+}}, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 16, [[8, 4], [1, 8]], off = 0, dtype = 16> inner 1
// CHECK:         bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 16, [[1, 1]], off = {{[0-9]+}}, dtype = 16>, subtract #bir.ap<sbuf, p0 = 0, np = 16, [[1, 32]], off = 0, dtype = 16> inner 1 negate
// CHECK:         bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 16, [[1, 4]], off = {{[0-9]+}}, dtype = 16>, multiply #bir.ap<sbuf, p0 = 0, np = 16, [[8, 4], [1, 6]], off = 4, dtype = 16> inner 1
// CHECK:         bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 16, [[1, 8]], off = {{[0-9]+}}, dtype = 16>, maximum #bir.ap<sbuf, p0 = 0, np = 16, [[1, 8], [1, 1]], off = {{[0-9]+}}, dtype = 16> inner 1
// CHECK-NOT:     nisa.tensor_reduce
// SAME: identical ['arg0', 'arg1', 'arg2', 'arg3', 'arg4']

func.func @main(%x: memref<16x4x8xf32, #nisa.mem<hbm>>, %rows: memref<16x4xf32, #nisa.mem<hbm>>, %all: memref<16x1xf32, #nisa.mem<hbm>>, %part: memref<16x4xf32, #nisa.mem<hbm>>, %ones: memref<16x8xf32, #nisa.mem<hbm>>) {
  %t = memref.alloc() : memref<16x4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %t, %x : memref<16x4x8xf32, #nisa.mem<sbuf>>, memref<16x4x8xf32, #nisa.mem<hbm>>
  %r = memref.alloc() : memref<16x4xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %r, add %t axes [2] : memref<16x4xf32, #nisa.mem<sbuf>>, memref<16x4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %rows, %r : memref<16x4xf32, #nisa.mem<hbm>>, memref<16x4xf32, #nisa.mem<sbuf>>
  %a = memref.alloc() : memref<16x1xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %a, subtract %t axes [1, 2] negate : memref<16x1xf32, #nisa.mem<sbuf>>, memref<16x4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %all, %a : memref<16x1xf32, #nisa.mem<hbm>>, memref<16x1xf32, #nisa.mem<sbuf>>
  %v = memref.subview %t[0, 0, 1] [16, 4, 6] [1, 1, 1] : memref<16x4x8xf32, #nisa.mem<sbuf>> to memref<16x4x6xf32, strided<[32, 8, 1], offset: 1>, #nisa.mem<sbuf>>
  %p = memref.alloc() : memref<16x4xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %p, multiply %v axes [2] : memref<16x4xf32, #nisa.mem<sbuf>>, memref<16x4x6xf32, strided<[32, 8, 1], offset: 1>, #nisa.mem<sbuf>>
  nisa.dma_copy %part, %p : memref<16x4xf32, #nisa.mem<hbm>>, memref<16x4xf32, #nisa.mem<sbuf>>
  %w = memref.alloc() : memref<16x8x1xf32, #nisa.mem<sbuf>>
  %wf = memref.collapse_shape %w [[0], [1, 2]] : memref<16x8x1xf32, #nisa.mem<sbuf>> into memref<16x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %wf, %ones : memref<16x8xf32, #nisa.mem<sbuf>>, memref<16x8xf32, #nisa.mem<hbm>>
  %m = memref.alloc() : memref<16x8xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %m, maximum %w axes [2] : memref<16x8xf32, #nisa.mem<sbuf>>, memref<16x8x1xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %ones, %m : memref<16x8xf32, #nisa.mem<hbm>>, memref<16x8xf32, #nisa.mem<sbuf>>
  func.return
}

// The FP8 x4 packing at nisa and bir: nisa.view_cast of FP8 lanes [.., 4n] as x4 words
// [.., n] (NKI's view(dtype)) reads byte q of word j from element 4 j + q, which numpy's
// own little-endian view of the FP8 bytes as uint32 gives independently; lower-nisa-to-bir
// folds the cast into x4 patterns over the FP8 argument (offsets and steps in words).
// The words pass through SBUF to a ui32 result, at nisa and at bir.

// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s
// RUN: python -c "import numpy as np, ml_dtypes; r = np.random.default_rng(1); np.savez('%t.in.npz', arg0=r.standard_normal((2, 6, 16)).astype(ml_dtypes.float8_e4m3fn))"
// RUN: mx-run %s --inputs %t.in.npz -o %t.nisa.npz > /dev/null
// RUN: mx-run %s --inputs %t.in.npz -p lower-nisa-to-bir -o %t.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; x = np.load(sys.argv[1])['arg0']; want = x.view(np.uint8).reshape(2, 6, 16).view('<u4')[1, 2:6]; print(*('same' if np.array_equal(np.load(f)['result0'], want) else 'DIFFERENT' for f in sys.argv[2:]))" %t.in.npz %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME

// CHECK-NOT:   nisa.view_cast
// CHECK:       bir.dma #bir.ap<sbuf, p0 = 0, np = 4, [[1, 4]], off = 0, dtype = 8>, #bir.ap<hbm, [[1, 16]], off = 128, dtype = 8> of %x : memref<2x6x16xf8E4M3FN, #nisa.mem<hbm>>
// CHECK-NOT:   nisa.view_cast
// SAME: same same

func.func @main(%x: memref<2x6x16xf8E4M3FN, #nisa.mem<hbm>>) -> memref<4x4xui32, #nisa.mem<hbm>> {
  %w = nisa.view_cast %x : memref<2x6x16xf8E4M3FN, #nisa.mem<hbm>> to memref<2x6x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %rows = memref.subview %w[1, 2, 0] [1, 4, 4] [1, 1, 1] : memref<2x6x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>> to memref<4x4x!nisa.float8_e4m3fn_x4, strided<[4, 1], offset: 32>, #nisa.mem<hbm>>
  %t = memref.alloc() : memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  nisa.dma_copy %t, %rows : memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<4x4x!nisa.float8_e4m3fn_x4, strided<[4, 1], offset: 32>, #nisa.mem<hbm>>
  %out = memref.alloc() : memref<4x4xui32, #nisa.mem<hbm>>
  %ox = nisa.view_cast %out : memref<4x4xui32, #nisa.mem<hbm>> to memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  nisa.dma_copy %ox, %t : memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>, memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return %out : memref<4x4xui32, #nisa.mem<hbm>>
}

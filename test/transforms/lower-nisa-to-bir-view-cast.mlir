// lower-nisa-to-bir folds nisa.view_cast into the patterns that read or write through
// it, like memref.cast: the HBM tensors stay the ui32 / i32 arguments, the patterns carry
// the x4 dtype code (8, float8_e4m3fn_x4), no view_cast is left. mx-run gives the same
// bytes before and after, and the round trip copies the words unchanged.

// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s
// RUN: mx-run %s --random-inputs 3 -o %t.nisa.npz > /dev/null
// RUN: mx-run %s --random-inputs 3 -p lower-nisa-to-bir -o %t.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); same = a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files); print('identical' if same else 'DIFFERENT', 'copied' if a['arg1'].tobytes() == a['arg0'].tobytes() else 'CHANGED')" %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME

// CHECK-NOT:   nisa.view_cast
// CHECK:       bir.dma #bir.ap<sbuf, p0 = 0, np = 16, [[1, 8]], off = 0, dtype = 8>, #bir.ap<hbm, [[1, 128]], off = 0, dtype = 8> of %w : memref<16x8xui32, #nisa.mem<hbm>>
// CHECK-NEXT:  bir.dma #bir.ap<hbm, [[1, 128]], off = 0, dtype = 8> of %out : memref<16x8xi32, #nisa.mem<hbm>>, #bir.ap<sbuf, p0 = 0, np = 16, [[1, 8]], off = 0, dtype = 8>
// CHECK-NOT:   nisa.view_cast
// SAME: identical copied

func.func @main(%w: memref<16x8xui32, #nisa.mem<hbm>>, %out: memref<16x8xi32, #nisa.mem<hbm>>) {
  %wx = nisa.view_cast %w : memref<16x8xui32, #nisa.mem<hbm>> to memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %t = memref.alloc() : memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  nisa.dma_copy %t, %wx : memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %ox = nisa.view_cast %out : memref<16x8xi32, #nisa.mem<hbm>> to memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  nisa.dma_copy %ox, %t : memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>, memref<16x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return
}

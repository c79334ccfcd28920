// nisa.permute: an HBM buffer seen with its dims reordered (result dim i is source dim
// permutation[i], with its stride). A DMA from it moves a transposed tile in one
// instruction; lower-nisa-to-bir folds the view into the DMA's HBM pattern (steps in the
// permuted order). mx-run gives the same bytes at nisa and bir, the transpose of the
// argument.

// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s --check-prefix=BIR
// RUN: mx-run %s --random-inputs 3 -o %t.nisa.npz > /dev/null
// RUN: mx-run %s --random-inputs 3 -p lower-nisa-to-bir -o %t.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); same = all(a[k].tobytes() == b[k].tobytes() for k in a.files); print('identical' if same else 'DIFFERENT', 'transposed' if a['arg1'].tobytes() == np.ascontiguousarray(a['arg0'][:, 8:24].T).tobytes() else 'WRONG')" %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME

// CHECK:      %t = nisa.permute %s [1, 0] : memref<64x16xf32, strided<[32, 1], offset: 8>, #nisa.mem<hbm>> to memref<16x64xf32, strided<[1, 32], offset: 8>, #nisa.mem<hbm>>
// BIR-NOT:    nisa.permute
// BIR:        bir.dma #bir.ap<sbuf, p0 = 0, np = 16, [[1, 64]], off = 0, dtype = {{[0-9]+}}>, #bir.ap<hbm, {{\[\[}}1, 16], [32, 64]], off = 32, dtype = {{[0-9]+}}> of %x
// SAME: identical transposed

func.func @main(%x: memref<64x32xf32, #nisa.mem<hbm>>, %out: memref<16x64xf32, #nisa.mem<hbm>>) {
  %s = memref.subview %x[0, 8] [64, 16] [1, 1] : memref<64x32xf32, #nisa.mem<hbm>> to memref<64x16xf32, strided<[32, 1], offset: 8>, #nisa.mem<hbm>>
  %t = nisa.permute %s [1, 0] : memref<64x16xf32, strided<[32, 1], offset: 8>, #nisa.mem<hbm>> to memref<16x64xf32, strided<[1, 32], offset: 8>, #nisa.mem<hbm>>
  %tile = memref.alloc() : memref<16x64xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %tile, %t : memref<16x64xf32, #nisa.mem<sbuf>>, memref<16x64xf32, strided<[1, 32], offset: 8>, #nisa.mem<hbm>>
  nisa.dma_copy %out, %tile : memref<16x64xf32, #nisa.mem<hbm>>, memref<16x64xf32, #nisa.mem<sbuf>>
  func.return
}

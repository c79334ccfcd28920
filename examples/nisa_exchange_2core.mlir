// A 2-core exchange (run with --cores 2): core r loads its half x[r], swaps it with the
// peer core (sendrecv to/from 1 - r on pipe 0) and writes out[r] = x[r] + x[1 - r].
//   mx-run examples/nisa_exchange_2core.mlir --cores 2 --inputs IN.npz --print-values
func.func @main(%x: memref<2x4x8xf32, #nisa.mem<hbm>>, %out: memref<2x4x8xf32, #nisa.mem<hbm>>) {
  %c1 = arith.constant 1 : index
  %r = nisa.program_id
  %peer = arith.subi %c1, %r : index
  %mine = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %theirs = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %sum = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %xr = memref.subview %x[%r, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32, #nisa.mem<hbm>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  %outr = memref.subview %out[%r, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32, #nisa.mem<hbm>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %mine, %xr : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.sendrecv %theirs, %mine to %peer from %peer pipe 0 : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.tensor_tensor %sum, add %mine, %theirs
      : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %outr, %sum : memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  func.return
}

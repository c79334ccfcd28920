// SPMD at bir (docs/bir.md "SPMD"): each core has its own SBUF / PSUM, the HBM tensors are
// shared; bir.core_barrier and bir.sendrecv use the nisa interpreter's scheduler, so the
// order of a run and the deadlock report are the same as at the nisa level.

// Core r writes x[r] to out[r], waits, reads the peer's half, waits again and writes
// out[r] = x[r] + x[1 - r]: the same bytes at nisa and bir on 2 cores.
// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s
// CHECK-COUNT-2: bir.core_barrier %out : memref<2x4x8xf32, #nisa.mem<hbm>>{{$}}
// RUN: mx-run %s --cores 2 --random-inputs 7 -o %t.nisa.npz > /dev/null
// RUN: mx-run %s --cores 2 --random-inputs 7 -p lower-nisa-to-bir -o %t.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); x = a['arg0']; print(a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files), bool((b['arg1'] == x + x[::-1]).all()))" %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SUM
// SUM: True True

// A deadlock names each core's bir instruction at its nisa location, never a hang.
// RUN: not mx-run %s --symbol deadlock --cores 2 --random-inputs 0 -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=DEAD
// DEAD: deadlock: no core of 2 can make progress
// DEAD-NEXT: core 0: blocked in bir.core_barrier at {{.*}}lower-nisa-to-bir-spmd.mlir:45:5, waiting at a barrier for cores [0, 1]
// DEAD-NEXT: core 1: blocked in bir.sendrecv at {{.*}}lower-nisa-to-bir-spmd.mlir:47:5, waiting for a message from core 0 and core 0 to take its message on pipe 0

func.func @main(%x: memref<2x4x8xf32, #nisa.mem<hbm>>, %out: memref<2x4x8xf32, #nisa.mem<hbm>>) {
  %c1 = arith.constant 1 : index
  %r = nisa.program_id
  %peer = arith.subi %c1, %r : index
  %t = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %u = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %xr = memref.subview %x[%r, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32, #nisa.mem<hbm>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  %outr = memref.subview %out[%r, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32, #nisa.mem<hbm>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  %outp = memref.subview %out[%peer, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32, #nisa.mem<hbm>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %t, %xr : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %outr, %t : memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.core_barrier %out : memref<2x4x8xf32, #nisa.mem<hbm>>
  nisa.dma_copy %u, %outp : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.core_barrier %out : memref<2x4x8xf32, #nisa.mem<hbm>>
  nisa.tensor_tensor %t, add %t, %u : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %outr, %t : memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  func.return
}

func.func @deadlock(%h: memref<4x4xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %r = nisa.program_id
  %is0 = arith.cmpi eq, %r, %c0 : index
  %t = memref.alloc() : memref<2x2xf32, #nisa.mem<sbuf>>
  scf.if %is0 {
    nisa.core_barrier %h : memref<4x4xf32, #nisa.mem<hbm>>
  } else {
    nisa.sendrecv %t, %t to %c0 from %c0 pipe 0 : memref<2x2xf32, #nisa.mem<sbuf>>, memref<2x2xf32, #nisa.mem<sbuf>>
  }
  func.return
}

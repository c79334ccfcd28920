// A deadlock ends in an error naming each core's op and location, never a hang:
// core 0 waits at a barrier, core 1 in a sendrecv whose partner never comes.
// RUN: python -c "import numpy as np; np.savez('%t.npz', arg0=np.zeros((4, 4), np.float32))"
// RUN: not mx-run %s --cores 2 --inputs %t.npz 2>&1 | filecheck %s
// RUN: not mx-run %s --cores 2 --inputs %t.npz --schedule in-turn 2>&1 | filecheck %s
// RUN: not mx-run %s --cores 2 --inputs %t.npz --schedule parallel -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=BIR
// BIR: deadlock: no core of 2 can make progress
// BIR-NEXT: core 0: blocked in bir.core_barrier
// BIR-NEXT: core 1: blocked in bir.sendrecv
// CHECK: deadlock: no core of 2 can make progress
// CHECK-NEXT: core 0: blocked in nisa.core_barrier at {{.*}}nisa_deadlock.mlir:24:5, waiting at a barrier for cores [0, 1]
// CHECK-NEXT: core 1: blocked in nisa.sendrecv at {{.*}}nisa_deadlock.mlir:26:5, waiting for a message from core 0 and core 0 to take its message on pipe 0
// Mismatched exchange shapes are an error naming both ops.
// RUN: not mx-run %s --symbol mismatch --cores 2 --inputs %t.npz 2>&1 | filecheck %s --check-prefix=SHAPE
// RUN: not mx-run %s --symbol mismatch --cores 2 --inputs %t.npz --schedule in-turn 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: sendrecv mismatch on pipe 3: core 1 (nisa.sendrecv at {{.*}}nisa_deadlock.mlir:40:5) sends float32 [4, 2], core 0 (nisa.sendrecv at {{.*}}nisa_deadlock.mlir:38:5) receives into float32 [2, 4]
func.func @main(%h: memref<4x4xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
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
func.func @mismatch(%h: memref<4x4xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = nisa.program_id
  %is0 = arith.cmpi eq, %r, %c0 : index
  %a = memref.alloc() : memref<2x4xf32, #nisa.mem<sbuf>>
  %b = memref.alloc() : memref<4x2xf32, #nisa.mem<sbuf>>
  scf.if %is0 {
    nisa.sendrecv %a, %a to %c1 from %c1 pipe 3 : memref<2x4xf32, #nisa.mem<sbuf>>, memref<2x4xf32, #nisa.mem<sbuf>>
  } else {
    nisa.sendrecv %b, %b to %c0 from %c0 pipe 3 : memref<4x2xf32, #nisa.mem<sbuf>>, memref<4x2xf32, #nisa.mem<sbuf>>
  }
  func.return
}

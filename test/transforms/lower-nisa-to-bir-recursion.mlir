// A call cycle through a kernel with on-chip buffers is refused at the call: on-chip
// memory has no call stack, so the frames of a recursion would share their buffers.

// RUN: not mx-opt %s -p lower-nisa-to-bir 2>&1 | filecheck %s
// CHECK: lower-nisa-to-bir-recursion.mlir:11:3: error: 'func.call' op lower-nisa-to-bir: a recursive call of @again, which has on-chip buffers or nisa ops: on-chip memory has no call stack; unroll the recursion
// CHECK-NOT: Traceback

func.func @again(%a: memref<8x4xf32, #nisa.mem<hbm>>) {
  %s = memref.alloc() : memref<8x4xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %s, %a : memref<8x4xf32, #nisa.mem<sbuf>>, memref<8x4xf32, #nisa.mem<hbm>>
  func.call @again(%a) : (memref<8x4xf32, #nisa.mem<hbm>>) -> ()
  func.return
}

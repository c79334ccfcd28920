// Static subview bounds are verified by both tools (xDSL's verifier does not), so
// lower-nisa-to-bir never meets an impossible view.
// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: not mx-opt %s -p lower-nisa-to-bir 2>&1 | filecheck %s
// RUN: not mx-run %s --random-inputs 0 2>&1 | filecheck %s
// CHECK: subview-bounds.mlir:[[# @LINE + 5]]:3: error: 'memref.subview' op dim 0: 999999999999 elements at stride 1 reach index 999999999998, outside the source's 2 (memref memref<2x4x8xf32, #nisa.mem<hbm>>)
// CHECK-NOT: Traceback
func.func @main(%x: memref<2x4x8xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %v = memref.subview %x[%c0, 0, 0] [999999999999, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32, #nisa.mem<hbm>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %t, %v : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  func.return
}

// A memref.subview that reaches past its source (offset 4 + 6 elements in 8), as
// upstream xDSL's stencil lowering makes them: xDSL's verifier accepts it, and so does
// mx-opt, whose extra static bounds check is for views of #nisa.mem buffers only
// (test/tools/subview-bounds.mlir). An upstream-style sample case.

// RUN: mx-opt %s -p canonicalize > %t.mx
// RUN: xdsl-opt %s -p canonicalize > %t.x
// RUN: diff %t.mx %t.x
// RUN: filecheck %s --input-file %t.mx

func.func @halo(%field: memref<8xf64>) -> memref<6xf64, strided<[1], offset: 4>> {
  %v = memref.subview %field[4] [6] [1] : memref<8xf64> to memref<6xf64, strided<[1], offset: 4>>
  func.return %v : memref<6xf64, strided<[1], offset: 4>>
}
// CHECK: %v = memref.subview %field[4] [6] [1] : memref<8xf64> to memref<6xf64, strided<[1], offset: 4>>

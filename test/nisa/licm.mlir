// LICM reads the nisa ops' declared effects: a pure op whose operands the loop does not
// define (program_id) leaves the loop; ops that write an operand (dma_copy, activation)
// stay, and so does a read of memory (register_load), which upstream LICM never hoists.
// RUN: mx-opt %s --allow-unregistered-dialect -p licm | filecheck %s

func.func @loop(%in: memref<128x512xbf16, #nisa.mem<hbm>>, %reg: memref<1x1xi32, #nisa.mem<sbuf>>, %out: memref<4x128x512xbf16, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %id = nisa.program_id
    %n = nisa.register_load %reg : memref<1x1xi32, #nisa.mem<sbuf>> -> index
    nisa.dma_copy %x, %in : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
    nisa.activation %x, exp %x : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
    %v = memref.subview %out[%i, 0, 0] [1, 128, 512] [1, 1, 1] : memref<4x128x512xbf16, #nisa.mem<hbm>> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %v, %x : memref<128x512xbf16, strided<[512, 1], offset: ?>, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<sbuf>>
    "test.use"(%id, %n) : (index, index) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @loop
// CHECK:       %x = memref.alloc()
// CHECK-NEXT:  %id = nisa.program_id
// CHECK-NEXT:  scf.for %i
// CHECK-NEXT:    %n = nisa.register_load %reg
// CHECK-NEXT:    nisa.dma_copy %x, %in
// CHECK-NEXT:    nisa.activation %x, exp %x
// CHECK-NEXT:    %v = memref.subview %out[%i, 0, 0]
// CHECK-NEXT:    nisa.dma_copy %v, %x

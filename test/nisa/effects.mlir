// nisa ops write their dst (and sendrecv / core_barrier synchronise), so dead-code
// elimination and canonicalization keep them even when nothing reads the buffer later;
// program_id and num_programs are pure and register_load only reads, so those go when
// their result is unused.
// RUN: mx-opt %s -p dce,canonicalize,cse | filecheck %s

func.func @kept(%in: memref<128x512xbf16, #nisa.mem<hbm>>, %ones: memref<1x1xi32, #nisa.mem<sbuf>>) {
  %unused_id = nisa.program_id
  %unused_n = nisa.num_programs
  %unused_reg = nisa.register_load %ones : memref<1x1xi32, #nisa.mem<sbuf>> -> index
  %x = memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.dma_copy %x, %in : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
  nisa.memset %x, 1.0 : memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.activation %x, exp %x : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.dma_copy %in, %x : memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.core_barrier %in : memref<128x512xbf16, #nisa.mem<hbm>>
  func.return
}

// CHECK-LABEL: func.func @kept
// CHECK-NOT:  nisa.program_id
// CHECK-NOT:  nisa.num_programs
// CHECK-NOT:  nisa.register_load
// CHECK:      %x = memref.alloc()
// CHECK-NEXT: nisa.dma_copy %x, %in
// CHECK-NEXT: nisa.memset %x, 1.000000e+00
// CHECK-NEXT: nisa.activation %x, exp %x
// CHECK-NEXT: nisa.dma_copy %in, %x
// CHECK-NEXT: nisa.core_barrier %in
// CHECK-NEXT: func.return

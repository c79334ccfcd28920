// A called function's on-chip buffers sit above every buffer of its callers (on-chip
// memory has no call stack), so a helper never overwrites its caller's live tiles; a
// function that calls nothing and is called by nothing starts at 0.

// RUN: mx-opt %s -p 'lower-nisa-to-bir{print-usage=true}' 2>&1 >/dev/null | filecheck %s
// CHECK: lower-nisa-to-bir: @main on trn3: sbuf 4096 of {{[0-9]+}} bytes per partition (2 buffers), psum 0 of 16384 bytes per partition (0 buffers)
// CHECK: lower-nisa-to-bir: @helper on trn3: sbuf 6144 of {{[0-9]+}} bytes per partition (1 buffer), psum 0 of 16384 bytes per partition (0 buffers)

// The caller's tile keeps its value across the call, at nisa and at bir.
// RUN: mx-run %s --random-inputs 1 --print-values --quiet | filecheck %s --check-prefix=VALUES
// RUN: mx-run %s --random-inputs 1 --print-values --quiet -p lower-nisa-to-bir | filecheck %s --check-prefix=VALUES
// VALUES: arg1 = {{\[\[}}1.0, 1.0


func.func @helper(%a: memref<8x512xf32, #nisa.mem<hbm>>) {
  %s = memref.alloc() : memref<8x512xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %s, %a : memref<8x512xf32, #nisa.mem<sbuf>>, memref<8x512xf32, #nisa.mem<hbm>>
  nisa.dma_copy %a, %s : memref<8x512xf32, #nisa.mem<hbm>>, memref<8x512xf32, #nisa.mem<sbuf>>
  func.return
}
func.func @main(%a: memref<8x512xf32, #nisa.mem<hbm>>, %out: memref<8x512xf32, #nisa.mem<hbm>>) {
  %keep = memref.alloc() : memref<8x512xf32, #nisa.mem<sbuf>>
  %other = memref.alloc() : memref<8x512xf32, #nisa.mem<sbuf>>
  nisa.memset %keep, 1.000000e+00 : memref<8x512xf32, #nisa.mem<sbuf>>
  nisa.memset %other, 2.000000e+00 : memref<8x512xf32, #nisa.mem<sbuf>>
  func.call @helper(%a) : (memref<8x512xf32, #nisa.mem<hbm>>) -> ()
  nisa.dma_copy %out, %keep : memref<8x512xf32, #nisa.mem<hbm>>, memref<8x512xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %a, %other : memref<8x512xf32, #nisa.mem<hbm>>, memref<8x512xf32, #nisa.mem<sbuf>>
  func.return
}


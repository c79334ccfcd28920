// Every refusal of lower-nisa-to-bir is a located diagnostic: a buffer that does not fit
// names itself and the bytes requested, available and the capacity (SBUF 192 KiB and
// PSUM 16 KiB per partition on trn3, mxdsl.targets); a view or operand with no access-pattern
// form says so. mx-opt exits 1 without a traceback (checked once below), and with
// --verify-diagnostics each chunk reports its error.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p lower-nisa-to-bir | filecheck %s
// RUN: not mx-opt %s -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=EXIT
// EXIT: lower-nisa-to-bir-errors.mlir:22:3: error: 'memref.alloc' op lower-nisa-to-bir: sbuf buffer %c
// EXIT-NOT: Traceback
// The target's capacities and the usage report (options of the pass).
// RUN: mx-opt %examples/nisa_matmul_tiled.mlir -p 'lower-nisa-to-bir{target=trn2 print-usage=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=USAGE
// USAGE: lower-nisa-to-bir: @main on trn2: sbuf 128 of 229376 bytes per partition (3 buffers), psum 64 of 16384 bytes per partition (1 buffer)
// RUN: not mx-opt %s -p 'lower-nisa-to-bir{target=trn9}' 2>&1 | filecheck %s --check-prefix=TARGET
// TARGET: mx-opt: error: invalid options for pass 'lower-nisa-to-bir': unknown target 'trn9'; the modelled targets are trn3, trn2

// Two 64 KiB tiles are live when the third is allocated: on trn3 (256 KiB per partition)
// 128 KiB are left, 64 bytes too few.
func.func @sbuf_full(%x: memref<128x16384xf32, #nisa.mem<hbm>>) {
  %a = memref.alloc() : memref<128x16384xf32, #nisa.mem<sbuf>>
  %b = memref.alloc() : memref<128x16384xf32, #nisa.mem<sbuf>>
  %c = memref.alloc() : memref<128x32784xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %a, %x : memref<128x16384xf32, #nisa.mem<sbuf>>, memref<128x16384xf32, #nisa.mem<hbm>>
  nisa.dma_copy %b, %a : memref<128x16384xf32, #nisa.mem<sbuf>>, memref<128x16384xf32, #nisa.mem<sbuf>>
  nisa.memset %c, 0.0 : memref<128x32784xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %x, %b : memref<128x16384xf32, #nisa.mem<hbm>>, memref<128x16384xf32, #nisa.mem<sbuf>>
  func.return
}
// CHECK: lower-nisa-to-bir-errors.mlir:22:3: error: 'memref.alloc' op lower-nisa-to-bir: sbuf buffer %c (memref<128x32784xf32, #nisa.mem<sbuf>>) needs 131136 bytes per partition, but only 131072 contiguous bytes are available (131072 free; 131072 held by 2 live buffer(s)) of the 262144-byte sbuf partition of trn3; live: %a 65536 B at 0, %b 65536 B at 65536

// -----

// Nine 2 KiB accumulators live at once: PSUM has 8 banks.
func.func @psum_full() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = memref.alloc() : memref<128x4096xf32, #nisa.mem<psum>>
  scf.for %i = %c0 to %c4 step %c1 {
    %one = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
    nisa.memset %one, 0.0 : memref<128x512xf32, #nisa.mem<psum>>
    nisa.memset %acc, 0.0 : memref<128x4096xf32, #nisa.mem<psum>>
  }
  func.return
}
// CHECK: error: 'memref.alloc' op lower-nisa-to-bir: psum buffer %one (memref<128x512xf32, #nisa.mem<psum>>) needs 2048 bytes per partition, but only 0 contiguous bytes are available (0 free; 16384 held by 1 live buffer(s)) of the 16384-byte psum partition of trn3; live: %acc 16384 B at 0

// -----

// A run-time scalar operand (a register value): bir takes immediates or column patterns.
func.func @runtime_scalar(%h: memref<1xi32, #nisa.mem<hbm>>) {
  %t = memref.alloc() : memref<128x8xi32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.0 : memref<128x8xi32, #nisa.mem<sbuf>>
  %r = nisa.register_load %h : memref<1xi32, #nisa.mem<hbm>> -> i32
  nisa.tensor_scalar %t, %t, bitwise_and %r : memref<128x8xi32, #nisa.mem<sbuf>>, memref<128x8xi32, #nisa.mem<sbuf>>, i32
  func.return
}

// CHECK: error: 'nisa.tensor_scalar' op lower-nisa-to-bir: operand0 is a run-time scalar; bir takes immediates (arith.constant) or column tiles, not supported by lower-nisa-to-bir yet

// -----

// A loop-dependent view whose step is not whole partitions (rows of 32 elements over
// partitions of 24): no run-time partition or byte offset expresses it.
func.func @uneven() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<128x24xf32, #nisa.mem<sbuf>>
  %flat = memref.collapse_shape %t [[0, 1]] : memref<128x24xf32, #nisa.mem<sbuf>> into memref<3072xf32, #nisa.mem<sbuf>>
  %rows = memref.expand_shape %flat [[0, 1]] output_shape [96, 32] : memref<3072xf32, #nisa.mem<sbuf>> into memref<96x32xf32, #nisa.mem<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.subview %rows[%i, 0] [1, 24] [1, 1] : memref<96x32xf32, #nisa.mem<sbuf>> to memref<1x24xf32, strided<[32, 1], offset: ?>, #nisa.mem<sbuf>>
    nisa.memset %v, 1.0 : memref<1x24xf32, strided<[32, 1], offset: ?>, #nisa.mem<sbuf>>
  }
  func.return
}
// CHECK: error: 'nisa.memset' op lower-nisa-to-bir: dst's loop-dependent offset (x 32 elements) moves across partitions unevenly

// -----

// hlo left over: the pass lowers nisa kernels.
func.func @still_hlo(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = hlo.convert %x : (tensor<4xf32>) -> tensor<4xf32>
  %t = memref.alloc() : memref<4x4xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 0.0 : memref<4x4xf32, #nisa.mem<sbuf>>
  func.return %y : tensor<4xf32>
}
// CHECK: error: 'hlo.convert' op lower-nisa-to-bir: an hlo op is left; run lower-hlo-to-nisa first

// -----

// A function that is still all hlo is refused too, not silently passed through.
func.func @only_hlo(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %y = hlo.convert %x : (tensor<4xf32>) -> tensor<4xbf16>
  func.return %y : tensor<4xbf16>
}
// CHECK: error: 'hlo.convert' op lower-nisa-to-bir: an hlo op is left; run lower-hlo-to-nisa first

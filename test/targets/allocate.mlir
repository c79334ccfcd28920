// lower-nisa-to-bir allocates within the tool's --target unless its own target option is
// given (the option wins). Two SBUF tiles of 122880 bytes per partition, live together:
// each fits trn2 (229376 bytes), so the nisa verifier accepts them there, but together
// they need 245760 bytes: less than trn3's 262144, more than trn2's.
// RUN: mx-opt %s -p lower-nisa-to-bir | filecheck %s
// RUN: not mx-opt %s --target trn2 -p "lower-nisa-to-bir{target=trn3}" -t mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not mx-opt %s --target trn2 -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=TRN2
// RUN: not mx-opt %s -p "lower-nisa-to-bir{target=trn2}" 2>&1 | filecheck %s --check-prefix=TRN2
// RUN: mx-run %s --random-inputs 0 -p lower-nisa-to-bir | filecheck %s --check-prefix=OUT
// RUN: mx-run %s --random-inputs 0 | filecheck %s --check-prefix=OUT
// RUN: not mx-run %s --random-inputs 0 --target trn2 -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=TRN2

// CHECK: bir.memset #bir.ap<sbuf, p0 = 0, np = 128, [[1, 30720]], off = 0, dtype = 16>, 1.000000e+00
// CHECK: bir.memset #bir.ap<sbuf, p0 = 0, np = 128, [[1, 30720]], off = 122880, dtype = 16>, 2.000000e+00
// Lowered for trn3 under --target trn2, the bir kernel's second tile is outside trn2's
// partition, which the bir verifier after the pass reports.
// VERIFY: error: 'bir.memset' op dst touches bytes [122880, 245760), outside a 229376-byte sbuf partition of trn2
// TRN2: error: 'memref.alloc' op lower-nisa-to-bir: sbuf buffer %b (memref<128x30720xf32, #nisa.mem<sbuf>>) needs 122880 bytes per partition, but only 106496 contiguous bytes are available
// TRN2-SAME: of the 229376-byte sbuf partition of trn2
// Each row: 30720 x (1 + 2).
// OUT: arg0: memref<128x1xf32, #nisa.mem<hbm>> shape=(128, 1) dtype=float32 min=92160 max=92160 mean=92160 nan=0

func.func @main(%out: memref<128x1xf32, #nisa.mem<hbm>>) {
  %a = memref.alloc() : memref<128x30720xf32, #nisa.mem<sbuf>>
  %b = memref.alloc() : memref<128x30720xf32, #nisa.mem<sbuf>>
  %row = memref.alloc() : memref<128x1xf32, #nisa.mem<sbuf>>
  nisa.memset %a, 1.0 : memref<128x30720xf32, #nisa.mem<sbuf>>
  nisa.memset %b, 2.0 : memref<128x30720xf32, #nisa.mem<sbuf>>
  nisa.tensor_tensor %a, add %a, %b : memref<128x30720xf32, #nisa.mem<sbuf>>, memref<128x30720xf32, #nisa.mem<sbuf>>, memref<128x30720xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %row, add %a axes [1] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x30720xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %out, %row : memref<128x1xf32, #nisa.mem<hbm>>, memref<128x1xf32, #nisa.mem<sbuf>>
  func.return
}

// trn2 (NeuronCore-v3) has no MX instructions (design.md, "The modelled targets"): under
// --target trn2 the nisa and bir verifiers refuse quantize_mx and nc_matmul_mx /
// matmult_mx; under trn3 (the default) the same IR verifies and runs.
// RUN: mx-opt %s --split-input-file --target trn2 --verify-diagnostics
// RUN: mx-opt %s --split-input-file | filecheck %s
// RUN: mx-opt %s --split-input-file --target trn3 | filecheck %s
// RUN: mx-run %s --symbol quantize --random-inputs 1 | filecheck %s --check-prefix=OUT
// RUN: not mx-run %s --symbol quantize --random-inputs 1 --target trn2 2>&1 | filecheck %s --check-prefix=TRN2

// CHECK: nisa.quantize_mx
// CHECK: nisa.nc_matmul_mx
// CHECK: bir.quantize_mx
// CHECK: bir.matmult_mx
// OUT: arg1: memref<128x64xui8, #nisa.mem<hbm>> shape=(128, 64) dtype=uint8
// TRN2: mx-instructions.mlir:[[# @LINE + 8]]:3: error: 'nisa.quantize_mx' op nisa.quantize_mx is an MX instruction, which trn2 (NeuronCore-v3) does not have: select an MX target (--target trn3)

func.func @quantize(%a: memref<128x256xbf16, #nisa.mem<hbm>>, %scales: memref<128x64xui8, #nisa.mem<hbm>>) {
  %as = memref.alloc() : memref<128x256xbf16, #nisa.mem<sbuf>>
  %aq = memref.alloc() : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %ax = memref.alloc() : memref<128x64xui8, #nisa.mem<sbuf>>
  nisa.dma_copy %as, %a : memref<128x256xbf16, #nisa.mem<sbuf>>, memref<128x256xbf16, #nisa.mem<hbm>>
  // expected-error@+1 {{'nisa.quantize_mx' op nisa.quantize_mx is an MX instruction, which trn2 (NeuronCore-v3) does not have: select an MX target (--target trn3)}}
  nisa.quantize_mx %aq scale %ax, %as : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x256xbf16, #nisa.mem<sbuf>>
  nisa.dma_copy %scales, %ax : memref<128x64xui8, #nisa.mem<hbm>>, memref<128x64xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @matmul(%acc: memref<64x128xf32, #nisa.mem<psum>>, %aq: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ax: memref<128x64xui8, #nisa.mem<sbuf>>, %bq: memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %bx: memref<128x128xui8, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op nisa.nc_matmul_mx is an MX instruction, which trn2 (NeuronCore-v3) does not have: select an MX target (--target trn3)}}
  nisa.nc_matmul_mx %acc, %aq scale %ax, %bq scale %bx : memref<64x128xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @bir_quantize() {
  // expected-error@+1 {{'bir.quantize_mx' op bir.quantize_mx is an MX instruction, which trn2 (NeuronCore-v3) does not have: select an MX target (--target trn3)}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1792, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 10>
  func.return
}

// -----

func.func @bir_matmul() {
  // expected-error@+1 {{'bir.matmult_mx' op bir.matmult_mx is an MX instruction, which trn2 (NeuronCore-v3) does not have: select an MX target (--target trn3)}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1792, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 2560, dtype = 1>
  func.return
}

// mx-run runs a bir kernel (byte-addressed SBUF / PSUM, HBM arguments written in place) and
// it computes the same bits as the nisa kernel it models: quantize two bf16 tiles to MX
// FP8, multiply them with matmult_mx, copy the f32 result out.
// RUN: mx-run %s --symbol nisa_mx --random-inputs 3 -o %t.nisa.npz | filecheck %s --check-prefix=OUT
// RUN: mx-run %s --symbol bir_mx --random-inputs 3 -o %t.bir.npz | filecheck %s --check-prefix=OUT
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('identical' if a.files == b.files and all((a[k] == b[k]).all() for k in a.files) else 'DIFFERENT', a.files)" %t.nisa.npz %t.bir.npz | filecheck %s

// OUT: arg2: memref<64x128xf32, #nisa.mem<hbm>> shape=(64, 128) dtype=float32
// CHECK: identical ['arg0', 'arg1', 'arg2']

func.func @nisa_mx(%a: memref<128x256xbf16, #nisa.mem<hbm>>, %b: memref<128x512xbf16, #nisa.mem<hbm>>, %out: memref<64x128xf32, #nisa.mem<hbm>>) {
  %as = memref.alloc() : memref<128x256xbf16, #nisa.mem<sbuf>>
  %bs = memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
  %aq = memref.alloc() : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %ax = memref.alloc() : memref<128x64xui8, #nisa.mem<sbuf>>
  %bq = memref.alloc() : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %bx = memref.alloc() : memref<128x128xui8, #nisa.mem<sbuf>>
  %acc = memref.alloc() : memref<64x128xf32, #nisa.mem<psum>>
  %o = memref.alloc() : memref<64x128xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %as, %a : memref<128x256xbf16, #nisa.mem<sbuf>>, memref<128x256xbf16, #nisa.mem<hbm>>
  nisa.dma_copy %bs, %b : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
  nisa.quantize_mx %aq scale %ax, %as : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x256xbf16, #nisa.mem<sbuf>>
  nisa.quantize_mx %bq scale %bx, %bs : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xui8, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.nc_matmul_mx %acc, %aq scale %ax, %bq scale %bx : memref<64x128xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xui8, #nisa.mem<sbuf>>
  nisa.tensor_copy %o, %acc : memref<64x128xf32, #nisa.mem<sbuf>>, memref<64x128xf32, #nisa.mem<psum>>
  nisa.dma_copy %out, %o : memref<64x128xf32, #nisa.mem<hbm>>, memref<64x128xf32, #nisa.mem<sbuf>>
  func.return
}

// SBUF per partition: a 0..511, b 512..1535, aq 1536..1791, ax 1792..1855, bq 2048..2559,
// bx 2560..2687, o 4096..4607; PSUM: acc in bank 0.
func.func @bir_mx(%a: memref<128x256xbf16, #nisa.mem<hbm>>, %b: memref<128x512xbf16, #nisa.mem<hbm>>, %out: memref<64x128xf32, #nisa.mem<hbm>>) {
  bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 10>, #bir.ap<hbm, [[256, 128], [1, 256]], off = 0, dtype = 10> of %a : memref<128x256xbf16, #nisa.mem<hbm>>
  bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 512, dtype = 10>, #bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10> of %b : memref<128x512xbf16, #nisa.mem<hbm>>
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1792, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 10>
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 2560, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 512, dtype = 10>
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1792, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 2560, dtype = 1>
  bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 4096, dtype = 16>, #bir.ap<psum, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 16>
  bir.dma #bir.ap<hbm, [[128, 64], [1, 128]], off = 0, dtype = 16> of %out : memref<64x128xf32, #nisa.mem<hbm>>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 4096, dtype = 16>
  func.return
}

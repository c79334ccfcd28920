// The MX matmul: quantize_mx both bf16 operands to float8_e4m3fn_x4 on chip, then
// nc_matmul_mx: out[m, n] = sum over partitions p and lanes q of a[p, 4m+q] * b[p, 4n+q]
// (contraction K = 32 partitions x 4 lanes = 128). Scales for P = 32 use the [P/8, F] form.
//   mx-run examples/nisa_mx_matmul.mlir --inputs IN.npz --print-values
func.func @main(%a: memref<32x16xbf16, #nisa.mem<hbm>>, %b: memref<32x32xbf16, #nisa.mem<hbm>>,
                %out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %sa = memref.alloc() : memref<32x16xbf16, #nisa.mem<sbuf>>
  %sb = memref.alloc() : memref<32x32xbf16, #nisa.mem<sbuf>>
  %qa = memref.alloc() : memref<32x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %qb = memref.alloc() : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %sca = memref.alloc() : memref<4x4xf8E8M0FNU, #nisa.mem<sbuf>>
  %scb = memref.alloc() : memref<4x8xf8E8M0FNU, #nisa.mem<sbuf>>
  %acc = memref.alloc() : memref<4x8xf32, #nisa.mem<psum>>
  %res = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %sa, %a : memref<32x16xbf16, #nisa.mem<sbuf>>, memref<32x16xbf16, #nisa.mem<hbm>>
  nisa.dma_copy %sb, %b : memref<32x32xbf16, #nisa.mem<sbuf>>, memref<32x32xbf16, #nisa.mem<hbm>>
  nisa.quantize_mx %qa scale %sca, %sa
      : memref<32x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<4x4xf8E8M0FNU, #nisa.mem<sbuf>>, memref<32x16xbf16, #nisa.mem<sbuf>>
  nisa.quantize_mx %qb scale %scb, %sb
      : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<4x8xf8E8M0FNU, #nisa.mem<sbuf>>, memref<32x32xbf16, #nisa.mem<sbuf>>
  nisa.nc_matmul_mx %acc, %qa scale %sca, %qb scale %scb
      : memref<4x8xf32, #nisa.mem<psum>>, memref<32x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<4x4xf8E8M0FNU, #nisa.mem<sbuf>>,
        memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<4x8xf8E8M0FNU, #nisa.mem<sbuf>>
  nisa.tensor_copy %res, %acc : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<psum>>
  nisa.dma_copy %out, %res : memref<4x8xf32, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  func.return
}

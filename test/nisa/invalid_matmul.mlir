// Verifier errors of nc_matmul, nc_matmul_mx, quantize_mx and nc_transpose.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @stationary_free(%s: memref<128x256xbf16, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op stationary free size 256 exceeds 128}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x256xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @moving_free(%s: memref<128x128xbf16, #nisa.mem<sbuf>>, %m: memref<128x1024xbf16, #nisa.mem<sbuf>>, %d: memref<128x1024xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op moving free size 1024 exceeds 512}}
  nisa.nc_matmul %d, %s, %m : memref<128x1024xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x1024xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @contraction(%s: memref<128x128xbf16, #nisa.mem<sbuf>>, %m: memref<64x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op contraction mismatch: stationary has 128 partitions but moving has 64}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @matmul_dtype(%s: memref<128x128xi8, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op stationary dtype i8 is not supported (bf16, f16, f32, f8E4M3, f8E4M3FN, f8E5M2)}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xi8, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @f32_pairing(%s: memref<128x128xf32, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op an f32 operand pairs only with f32, got f32 and bf16}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xf32, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

// tf32 is an ISA input type, but its rounding on the PE is not public: refused, not guessed
func.func @tf32(%s: memref<128x128xtf32, #nisa.mem<sbuf>>, %m: memref<128x512xf32, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op stationary dtype tf32 is not modelled: how the PE reads an fp32 container as tf32 is not public, so no level runs it; give f32 operands}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xtf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @e4m3_mix(%s: memref<128x128xf8E4M3, #nisa.mem<sbuf>>, %m: memref<128x512xf8E4M3FN, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op f8E4M3 and f8E4M3FN cannot be mixed in one matmul}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xf8E4M3, #nisa.mem<sbuf>>, memref<128x512xf8E4M3FN, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @matmul_dst_space(%s: memref<128x128xbf16, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op dst must be in psum, got sbuf}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @matmul_input_space(%s: memref<128x128xbf16, #nisa.mem<psum>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op stationary must be in sbuf, got psum}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<psum>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @matmul_dst_dtype(%s: memref<128x128xbf16, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf16, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op dst must be f32 or bf16, got f16}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf16, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @matmul_dst_shape(%s: memref<128x64xbf16, #nisa.mem<sbuf>>, %m: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op dst shape [128, 512] must be [stationary free, moving free] = [64, 512]}}
  nisa.nc_matmul %d, %s, %m : memref<128x512xf32, #nisa.mem<psum>>, memref<128x64xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_not_x4(%s: memref<128x64xbf16, #nisa.mem<sbuf>>, %ss: memref<128x64xui8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x512xui8, #nisa.mem<sbuf>>, %d: memref<64x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op stationary must be x4-packed (!nisa.float8_e4m3fn_x4, !nisa.float8_e5m2_x4 or !nisa.float4_e2m1fn_x4), got bf16}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x512xf32, #nisa.mem<psum>>, memref<128x64xbf16, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_partitions(%s: memref<48x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<48x64xui8, #nisa.mem<sbuf>>, %m: memref<48x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<48x512xui8, #nisa.mem<sbuf>>, %d: memref<64x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op stationary has 48 partitions; MX data needs a multiple of 32}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x512xf32, #nisa.mem<psum>>, memref<48x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<48x64xui8, #nisa.mem<sbuf>>, memref<48x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<48x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_contraction(%s: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x64xui8, #nisa.mem<sbuf>>, %m: memref<64x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<64x512xui8, #nisa.mem<sbuf>>, %d: memref<64x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op contraction mismatch: stationary has 128 partitions but moving has 64}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x512xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<64x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<64x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_stationary_free(%s: memref<128x256x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x256xui8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x512xui8, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op stationary free size 256 exceeds 128}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<128x512xf32, #nisa.mem<psum>>, memref<128x256x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x256xui8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_stationary_odd(%s: memref<128x63x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x63xui8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x512xui8, #nisa.mem<sbuf>>, %d: memref<63x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op stationary free size 63 must be even}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<63x512xf32, #nisa.mem<psum>>, memref<128x63x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x63xui8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_moving_free(%s: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x64xui8, #nisa.mem<sbuf>>, %m: memref<128x1024x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x1024xui8, #nisa.mem<sbuf>>, %d: memref<64x1024xbf16, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op moving free size 1024 exceeds 512}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x1024xbf16, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x1024x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x1024xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_scale_dtype(%s: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x64xi8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x512xui8, #nisa.mem<sbuf>>, %d: memref<64x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op stationary_scale must be f8E8M0FNU or ui8, got i8}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x512xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xi8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_scale_quadrants(%s: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x64xui8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<16x512xf8E8M0FNU, #nisa.mem<sbuf>>, %d: memref<64x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op moving_scale has 16 partitions; the quadrant layout of 128 data partitions needs at least 100}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x512xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<16x512xf8E8M0FNU, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_scale_free(%s: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x16xui8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x512xui8, #nisa.mem<sbuf>>, %d: memref<64x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op stationary_scale free size 16 must equal the x4 free size 64 of stationary}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x512xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x16xui8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @mx_dst(%s: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ss: memref<128x64xui8, #nisa.mem<sbuf>>, %m: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %ms: memref<128x512xui8, #nisa.mem<sbuf>>, %d: memref<64x2048xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul_mx' op dst shape [64, 2048] must be [stationary free, moving free] = [64, 512]}}
  nisa.nc_matmul_mx %d, %s scale %ss, %m scale %ms : memref<64x2048xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @q_src_dtype(%x: memref<128x512xf32, #nisa.mem<sbuf>>, %q: memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %s: memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.quantize_mx' op src must be bf16 or f16, got f32}}
  nisa.quantize_mx %q scale %s, %x : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @q_partitions(%x: memref<40x512xbf16, #nisa.mem<sbuf>>, %q: memref<40x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %s: memref<40x128xf8E8M0FNU, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.quantize_mx' op src has 40 partitions; quantize_mx needs a multiple of 32}}
  nisa.quantize_mx %q scale %s, %x : memref<40x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<40x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<40x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @q_free(%x: memref<128x510xbf16, #nisa.mem<sbuf>>, %q: memref<128x127x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %s: memref<128x127xf8E8M0FNU, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.quantize_mx' op src free size 510 must be a multiple of 4}}
  nisa.quantize_mx %q scale %s, %x : memref<128x127x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x127xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x510xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @q_fp4(%x: memref<128x512xbf16, #nisa.mem<sbuf>>, %q: memref<128x128x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>, %s: memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.quantize_mx' op dst must be !nisa.float8_e4m3fn_x4 or !nisa.float8_e5m2_x4, got !nisa.float4_e2m1fn_x4}}
  nisa.quantize_mx %q scale %s, %x : memref<128x128x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @q_dst_shape(%x: memref<128x512xbf16, #nisa.mem<sbuf>>, %q: memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %s: memref<128x512xf8E8M0FNU, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.quantize_mx' op dst shape [128, 512] must be [P, F/4] = [128, 128]}}
  nisa.quantize_mx %q scale %s, %x : memref<128x512x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x512xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @q_scale_quadrants(%x: memref<64x512xbf16, #nisa.mem<sbuf>>, %q: memref<64x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %s: memref<8x128xf8E8M0FNU, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.quantize_mx' op dst_scale has 8 partitions; the quadrant layout of 64 data partitions needs at least 36}}
  nisa.quantize_mx %q scale %s, %x : memref<64x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<8x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @transpose_engine(%a: memref<32x32xbf16, #nisa.mem<sbuf>>, %b: memref<32x32xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op runs on the tensor or vector engine, got gpsimd}}
  nisa.nc_transpose %b, %a engine gpsimd : memref<32x32xbf16, #nisa.mem<sbuf>>, memref<32x32xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @transpose_dtype(%a: memref<128x128xbf16, #nisa.mem<sbuf>>, %b: memref<128x128xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op dst dtype f32 must equal data dtype bf16}}
  nisa.nc_transpose %b, %a : memref<128x128xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @transpose_pe_size(%a: memref<128x256xbf16, #nisa.mem<sbuf>>, %b: memref<256x128xbf16, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op dst has 256 partitions, exceeding the 128 partitions of psum}}
  nisa.nc_transpose %b, %a : memref<256x128xbf16, #nisa.mem<psum>>, memref<128x256xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @transpose_pe_free(%a: memref<64x256xbf16, #nisa.mem<sbuf>>, %b: memref<128x64xbf16, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op a tensor-engine transpose takes at most [128, 128], got [64, 256]}}
  nisa.nc_transpose %b, %a : memref<128x64xbf16, #nisa.mem<psum>>, memref<64x256xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @transpose_vector_size(%a: memref<64x32xbf16, #nisa.mem<sbuf>>, %b: memref<32x64xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op a vector-engine transpose takes at most [32, 32], got [64, 32]}}
  nisa.nc_transpose %b, %a : memref<32x64xbf16, #nisa.mem<sbuf>>, memref<64x32xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @transpose_pe_spaces(%a: memref<128x128xbf16, #nisa.mem<psum>>, %b: memref<128x128xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op data must be in sbuf, got psum}}
  nisa.nc_transpose %b, %a engine tensor : memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x128xbf16, #nisa.mem<psum>>
  func.return
}

// -----

func.func @transpose_shape(%a: memref<32x16xbf16, #nisa.mem<sbuf>>, %b: memref<32x16xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.nc_transpose' op dst shape [32, 16] must be the transpose [16, 32]}}
  nisa.nc_transpose %b, %a : memref<32x16xbf16, #nisa.mem<sbuf>>, memref<32x16xbf16, #nisa.mem<sbuf>>
  func.return
}

// The operand checks every nisa op shares: memory spaces, static shapes, the partition
// dim, on-chip capacity, x4 types, matching tile layouts, scalar-or-column operands.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @no_space(%a: memref<128x512xbf16>, %b: memref<128x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy' op src must be a memref in a nisa memory space (#nisa.mem<hbm|sbuf|psum>), got memref<128x512xbf16>}}
  nisa.tensor_copy %b, %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16>
  func.return
}

// -----

func.func @wrong_space(%a: memref<128x512xbf16, #nisa.mem<hbm>>, %b: memref<128x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy' op src must be in sbuf or psum, got hbm}}
  nisa.tensor_copy %b, %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @dynamic(%a: memref<?x512xbf16, #nisa.mem<sbuf>>, %b: memref<128x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy' op src has a dynamic shape memref<?x512xbf16, #nisa.mem<sbuf>>; nisa operands have static shapes}}
  nisa.tensor_copy %b, %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<?x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @rank0(%a: memref<f32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.memset' op dst is a rank-0 sbuf buffer; on-chip buffers have a partition dim}}
  nisa.memset %a, 0.0 : memref<f32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @partitions(%a: memref<256x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.memset' op dst has 256 partitions, exceeding the 128 partitions of sbuf}}
  nisa.memset %a, 0.0 : memref<256x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @psum_capacity(%a: memref<128x4097xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.memset' op dst uses 16388 bytes per partition, exceeding the 16384 bytes of one trn3 psum partition}}
  nisa.memset %a, 0.0 : memref<128x4097xf32, #nisa.mem<psum>>
  func.return
}

// -----

func.func @sbuf_capacity(%a: memref<128x2x65536xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.memset' op dst uses 524288 bytes per partition, exceeding the 262144 bytes of one trn3 sbuf partition}}
  nisa.memset %a, 0.0 : memref<128x2x65536xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @x4_compute(%a: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_tensor' op dst has the x4-packed type !nisa.float8_e4m3fn_x4; only dma_copy, tensor_copy, memset, quantize_mx and nc_matmul_mx take x4 types}}
  nisa.tensor_tensor %a, add %a, %a : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @partition_mismatch(%a: memref<64x512xbf16, #nisa.mem<sbuf>>, %b: memref<128x256xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy' op dst has 128 partitions but src has 64}}
  nisa.tensor_copy %b, %a : memref<128x256xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @free_mismatch(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %b: memref<128x4x64xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy' op dst has 256 elements per partition but src has 512}}
  nisa.tensor_copy %b, %a : memref<128x4x64xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @x4_convert(%a: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, %b: memref<128x64xui32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_copy' op cannot convert !nisa.float8_e4m3fn_x4 to ui32; x4-packed types copy only to the same type}}
  nisa.tensor_copy %b, %a : memref<128x64xui32, #nisa.mem<sbuf>>, memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @rank2(%w: memref<128x2x64xbf16, #nisa.mem<sbuf>>, %h: memref<128x512xbf16, #nisa.mem<sbuf>>, %d: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.nc_matmul' op stationary must be 2-D [partition, free], got shape [128, 2, 64]}}
  nisa.nc_matmul %d, %w, %h : memref<128x512xf32, #nisa.mem<psum>>, memref<128x2x64xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @column_shape(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %c: memref<128x2xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_scalar' op operand0 must be a scalar or a [128, 1] per-partition tile, got shape [128, 2]}}
  nisa.tensor_scalar %a, %a, multiply %c : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x2xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @column_partitions(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %c: memref<64x1xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.activation' op bias must be a scalar or a [128, 1] per-partition tile, got shape [64, 1]}}
  nisa.activation %a, exp %a bias(%c : memref<64x1xf32, #nisa.mem<sbuf>>) : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @arith_operand_f32(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %s: bf16) {
  // expected-error@+1 {{'nisa.tensor_scalar' op operand0 of an arithmetic op must be f32, got bf16}}
  nisa.tensor_scalar %a, %a, add %s : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, bf16
  func.return
}

// -----

func.func @bitwise_operand_int(%a: memref<128x16xi32, #nisa.mem<sbuf>>, %s: f32) {
  // expected-error@+1 {{'nisa.tensor_scalar' op operand0 of a bitwise op must be an integer, got f32}}
  nisa.tensor_scalar %a, %a, left_shift %s : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, f32
  func.return
}

// -----

func.func @bitwise_data_int(%a: memref<128x16xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.tensor_tensor' op bitwise op bitwise_or needs integer operands, data1 is f32}}
  nisa.tensor_tensor %a, bitwise_or %a, %a : memref<128x16xf32, #nisa.mem<sbuf>>, memref<128x16xf32, #nisa.mem<sbuf>>, memref<128x16xf32, #nisa.mem<sbuf>>
  func.return
}

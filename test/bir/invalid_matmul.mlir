// Verifier errors of matmult, matmult_mx and quantize_mx.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @dst_in_sbuf() {
  // expected-error@+1 {{'bir.matmult' op dst must be in psum, got sbuf}}
  bir.matmult #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @dst_dtype() {
  // expected-error@+1 {{'bir.matmult' op dst must have dtype 16 (float32) or 10 (bfloat16), got 11 (float16)}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 11>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @dst_shape() {
  // expected-error@+1 {{'bir.matmult' op dst is 64 partitions x 512 elements; it must be [stationary free, moving free] = 128 x 512}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 64, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @dst_bank() {
  // expected-error@+1 {{'bir.matmult' op dst touches bytes [1536, 2560) of each psum partition, crossing a 2048-byte bank boundary; a matmul writes inside one PSUM bank}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 256]], off = 1536, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @contraction() {
  // expected-error@+1 {{'bir.matmult' op contraction mismatch: stationary has 128 partitions but moving has 64}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @stationary_free() {
  // expected-error@+1 {{'bir.matmult' op stationary free size 256 exceeds 128}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 256]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @moving_free() {
  // expected-error@+1 {{'bir.matmult' op moving free size 1024 exceeds 512}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 1024]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 1024]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @input_dtype() {
  // expected-error@+1 {{'bir.matmult' op stationary dtype 17 (int32) is not a matmult input (4, 5, 7, 10, 11, 16)}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @f32_pairing() {
  // expected-error@+1 {{'bir.matmult' op an f32 operand pairs only with f32, got 16 (float32) and 10 (bfloat16)}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 10>
  func.return
}

// -----

func.func @e4m3_mix() {
  // expected-error@+1 {{'bir.matmult' op float8_e4m3 and float8_e4m3fn cannot be mixed in one matmult}}
  bir.matmult #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 4>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 1024, dtype = 5>
  func.return
}

// -----

func.func @mx_not_x4() {
  // expected-error@+1 {{'bir.matmult_mx' op stationary must have an x4 dtype (2, 8 or 9), got 5 (float8_e4m3fn)}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 5> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 1024, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 1>
  func.return
}

// -----

func.func @mx_partitions() {
  // expected-error@+1 {{'bir.matmult_mx' op stationary has 48 partitions; MX data needs a multiple of 32}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 48, [[1, 128]], off = 0, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 1024, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 48, [[1, 512]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 1>
  func.return
}

// -----

func.func @mx_odd_stationary() {
  // expected-error@+1 {{'bir.matmult_mx' op stationary free size 127 must be even}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 127, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 127]], off = 0, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 127]], off = 1024, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 1>
  func.return
}

// -----

func.func @mx_scale_dtype() {
  // expected-error@+1 {{'bir.matmult_mx' op stationary_scale must have dtype 1 (uint8) or 15 (float8_e8m0fnu), got 12 (int8)}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 1024, dtype = 12>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 1>
  func.return
}

// -----

func.func @mx_scale_partitions() {
  // expected-error@+1 {{'bir.matmult_mx' op moving_scale has 16 partitions; the scale rows of 128 data partitions sit at (i & 3) + 32 * (i >> 2) and need at least 100}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 1024, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 16, [[1, 512]], off = 4096, dtype = 1>
  func.return
}

// -----

func.func @mx_scale_free() {
  // expected-error@+1 {{'bir.matmult_mx' op stationary_scale has 64 elements per partition, expected 128 (one per 4 logical columns)}}
  bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 0, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 1024, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 2048, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 4096, dtype = 1>
  func.return
}

// -----

func.func @quantize_src_dtype() {
  // expected-error@+1 {{'bir.quantize_mx' op src must have dtype 10 (bfloat16), 11 (float16) or 16 (float32), got 5 (float8_e4m3fn)}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 5>
  func.return
}

// -----

func.func @quantize_src_partitions() {
  // expected-error@+1 {{'bir.quantize_mx' op src has 16 partitions; quantize_mx needs a multiple of 32}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 16, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 16, [[1, 512]], off = 0, dtype = 10>
  func.return
}

// -----

func.func @quantize_src_columns() {
  // expected-error@+1 {{'bir.quantize_mx' op src has 510 elements per partition; quantize_mx needs a multiple of 4}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 32, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 4, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 510]], off = 0, dtype = 10>
  func.return
}

// -----

func.func @quantize_dst_dtype() {
  // expected-error@+1 {{'bir.quantize_mx' op dst must have dtype 2, 5, 7, 8 or 9 (QuantizeMx's targets), got 4 (float8_e4m3)}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 32, [[1, 128]], off = 65536, dtype = 4> scale #bir.ap<sbuf, p0 = 0, np = 4, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 0, dtype = 10>
  func.return
}

// -----

func.func @quantize_dst_partitions() {
  // expected-error@+1 {{'bir.quantize_mx' op dst has 64 partitions but src has 32}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 65536, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 36, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 0, dtype = 10>
  func.return
}

// -----

func.func @quantize_dst_columns() {
  // expected-error@+1 {{'bir.quantize_mx' op dst holds 2048 logical elements per partition (512 x 4) but src has 512}}
  bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 65536, dtype = 9> scale #bir.ap<sbuf, p0 = 0, np = 4, [[1, 128]], off = 98304, dtype = 1>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 512]], off = 0, dtype = 10>
  func.return
}

// Verifier errors of tensor_tensor, tensor_scalar, activation, transpose and tensor_reduce.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @x4_operand() {
  // expected-error@+1 {{'bir.tensor_tensor' op in0 has the x4 dtype 8 (float8_e4m3fn_x4); only dma, tensor_copy, memset (to 0), cast, quantize_mx and matmult_mx take x4 dtypes}}
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 8>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 128, dtype = 16>
  func.return
}

// -----

func.func @both_psum() {
  // expected-error@+1 {{'bir.tensor_tensor' op in0 and in1 cannot both be in psum}}
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, add #bir.ap<psum, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @power_in_psum() {
  // expected-error@+1 {{'bir.tensor_tensor' op in0 must be in sbuf, got psum}}
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, power #bir.ap<psum, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @layout() {
  // expected-error@+1 {{'bir.tensor_tensor' op in0 has 8 elements per partition but in1 has 4}}
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 4]], off = 128, dtype = 16>
  func.return
}

// -----

func.func @bitwise_float() {
  // expected-error@+1 {{'bir.tensor_tensor' op bitwise op bitwise_and needs integer dtypes, in0 has 16 (float32)}}
  bir.tensor_tensor #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 17>, bitwise_and #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 128, dtype = 17>
  func.return
}

// -----

func.func @op1_without_operand1() {
  // expected-error@+1 {{'bir.tensor_scalar' op op1 and operand1 come together}}
  "bir.tensor_scalar"() <{dst = #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, src = #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>, op0 = #nisa<alu add>, operand0 = 1.0 : f32, op1 = #nisa<alu add>}> : () -> ()
  func.return
}

// -----

func.func @reverse1_without_op1() {
  // expected-error@+1 {{'bir.tensor_scalar' op reverse1 needs op1}}
  "bir.tensor_scalar"() <{dst = #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, src = #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>, op0 = #nisa<alu add>, operand0 = 1.0 : f32, reverse1}> : () -> ()
  func.return
}

// -----

func.func @mixed_ops() {
  // expected-error@+1 {{'bir.tensor_scalar' op op0 bitwise_and and op1 add must both be bitwise or both arithmetic}}
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 17>, bitwise_and 3 : i32, add 1.0 : f32
  func.return
}

// -----

func.func @column_shape() {
  // expected-error@+1 {{'bir.tensor_scalar' op operand0 must be an immediate or a column of 32 partitions x 1 element, got 32 x 2}}
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 32, [[1, 2]], off = 128, dtype = 16>
  func.return
}

// -----

func.func @column_bitwise() {
  // expected-error@+1 {{'bir.tensor_scalar' op operand0 of a bitwise op must be an integer, got dtype 16 (float32)}}
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 17>, left_shift #bir.ap<sbuf, p0 = 0, np = 32, [[1, 1]], off = 128, dtype = 16>
  func.return
}

// -----

func.func @column_arithmetic() {
  // expected-error@+1 {{'bir.tensor_scalar' op operand1 of an arithmetic op must be f32 (dtype 16), got 10 (bfloat16)}}
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>, add 1.0 : f32, multiply #bir.ap<sbuf, p0 = 0, np = 32, [[1, 1]], off = 128, dtype = 10>
  func.return
}

// -----

func.func @immediate_bitwise() {
  // expected-error@+1 {{'bir.tensor_scalar' op operand0 of a bitwise op must be an integer, got 1.000000e+00 : f32}}
  bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 17>, bitwise_or 1.0 : f32
  func.return
}

// -----

func.func @immediate_arithmetic() {
  // expected-error@+1 {{'bir.activation' op scale of an arithmetic op must be an f32 immediate, got 2 : i32}}
  bir.activation #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 16>, exp #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16> scale 2 : i32
  func.return
}

// -----

func.func @transpose_engine() {
  // expected-error@+1 {{'bir.transpose' op runs on the tensor or vector engine, got gpsimd}}
  bir.transpose #bir.ap<sbuf, p0 = 0, np = 8, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 8]], off = 256, dtype = 16> engine gpsimd
  func.return
}

// -----

func.func @transpose_dtype() {
  // expected-error@+1 {{'bir.transpose' op dst dtype 16 (float32) must equal src dtype 10 (bfloat16)}}
  bir.transpose #bir.ap<psum, p0 = 0, np = 8, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 8]], off = 256, dtype = 10>
  func.return
}

// -----

func.func @transpose_vector_limit() {
  // expected-error@+1 {{'bir.transpose' op a vector-engine transpose takes at most [32, 32], got [8, 64]}}
  bir.transpose #bir.ap<sbuf, p0 = 0, np = 64, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 64]], off = 256, dtype = 16>
  func.return
}

// -----

func.func @transpose_shape() {
  // expected-error@+1 {{'bir.transpose' op dst is 64 partitions x 64 elements; the transpose of 128 x 64 is 64 x 128}}
  bir.transpose #bir.ap<psum, p0 = 0, np = 64, [[1, 64]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 256, dtype = 16>
  func.return
}

// -----

func.func @reduce_op() {
  // expected-error@+1 {{'bir.tensor_reduce' op divide is not a reduction op}}
  bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 8, [[1, 1]], off = 0, dtype = 16>, divide #bir.ap<sbuf, p0 = 0, np = 8, [[1, 8]], off = 256, dtype = 16> inner 1
  func.return
}

// -----

func.func @reduce_inner() {
  // expected-error@+1 {{'bir.tensor_reduce' op inner must count 1 to 1 pairs of the src pattern, got 2}}
  bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 8, [[1, 1]], off = 0, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 8, [[1, 8]], off = 256, dtype = 16> inner 2
  func.return
}

// -----

func.func @reduce_partitions() {
  // expected-error@+1 {{'bir.tensor_reduce' op dst has 4 partitions but src has 8}}
  bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 0, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 8, [[1, 8]], off = 256, dtype = 16> inner 1
  func.return
}

// -----

func.func @reduce_kept() {
  // expected-error@+1 {{'bir.tensor_reduce' op dst has 2 elements per partition but reducing the inner 1 pair(s) of src leaves 3}}
  bir.tensor_reduce #bir.ap<sbuf, p0 = 0, np = 8, [[1, 2]], off = 0, dtype = 16>, add #bir.ap<sbuf, p0 = 0, np = 8, [[4, 3], [1, 4]], off = 256, dtype = 16> inner 1
  func.return
}

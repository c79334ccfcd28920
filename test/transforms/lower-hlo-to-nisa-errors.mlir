// Every refusal of lower-hlo-to-nisa is a located diagnostic on the op (or function) it
// cannot lower, naming the dim / type and why; mx-opt exits 1 without a traceback
// (checked once below), and with --verify-diagnostics each chunk reports its error.

// RUN: mx-opt %s --split-input-file --verify-diagnostics -p lower-hlo-to-nisa
// RUN: not mx-opt %s -p lower-hlo-to-nisa 2>&1 | filecheck %s --check-prefix=EXIT
// EXIT: lower-hlo-to-nisa-errors.mlir:12:1: error: 'func.func' op lower-hlo-to-nisa: result 0 of @tuple_result is a tuple
// EXIT-NOT: Traceback

// A tuple crosses the function boundary: kernels take and return HBM buffers.
// expected-error@+1 {{'func.func' op lower-hlo-to-nisa: result 0 of @tuple_result is a tuple tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>; a nisa kernel takes and returns HBM buffers, not tuples: pass or return the tuple's elements (get_tuple_element) one by one}}
func.func @tuple_result(%x: tensor<32x32xbf16>) -> tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<32x32xbf16>) -> tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>
  func.return %q : tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>
}

// -----

// expected-error@+1 {{'func.func' op lower-hlo-to-nisa: argument 0 of @tuple_argument is a tuple}}
func.func @tuple_argument(%t: tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32> {
  %a = hlo.get_tuple_element %t[0] : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}

// -----

// The frontend custom calls: the lowering takes the legalized targets.
func.func @not_legalized(%x: tensor<32x32xbf16>) -> tensor<32x8xui32> {
  // expected-error@+1 {{'hlo.custom_call' op lower-hlo-to-nisa: QuantizeMX is not legalized; run legalize-quantize-mx first}}
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<32x32xbf16>) -> tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>
  %d = hlo.get_tuple_element %q[0] : (tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>) -> tensor<32x8xui32>
  func.return %d : tensor<32x8xui32>
}

// -----

func.func @dot_not_legalized(%l: tensor<4x8xui32>, %r: tensor<8x16xui32>, %ls: tensor<4x1xf8E8M0FNU>, %rs: tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'hlo.custom_call' op lower-hlo-to-nisa: __op$block_scaled_dot is not legalized; run legalize-scaled-matmul first}}
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// Literal tensors other than the MX metadata have no HBM home.
func.func @constant() -> tensor<2x2xf32> {
  // expected-error@+1 {{'hlo.constant' op lower-hlo-to-nisa: only the metadata constants of QuantizeMX_* / ScaledMatmul_* are lowered (they disappear); pass other constants as function arguments}}
  %c = hlo.constant dense<1.0> : tensor<2x2xf32>
  func.return %c : tensor<2x2xf32>
}

// -----

func.func @vendor(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.custom_call' op lower-hlo-to-nisa: no lowering for custom call target 'VendorThing'}}
  %y = hlo.custom_call @VendorThing(%x) {backend_config = "", api_version = 1 : i32} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

func.func @other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'test.op' op lower-hlo-to-nisa: no lowering for test.op}}
  %y = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// dot_general: one contracting dim and one free dim per side map onto partitions and the
// stationary / moving free axis.
func.func @two_contracting(%a: tensor<4x8x16xbf16>, %b: tensor<8x16x4xbf16>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs contracting dims [1, 2]: exactly one contracting dim per side is lowered (it is mapped onto the partitions); reshape them into one}}
  %y = hlo.dot_general %a, %b, contracting_dims = [1, 2] x [0, 1] : (tensor<4x8x16xbf16>, tensor<8x16x4xbf16>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

func.func @two_free(%a: tensor<4x6x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<4x6x8xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs has 2 free dims [0, 1] (rank 3, batch dims [], contracting dim 2): the lowering maps exactly one free dim onto the stationary free axis; reshape the free dims into one}}
  %y = hlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<4x6x32xbf16>, tensor<32x8xbf16>) -> tensor<4x6x8xf32>
  func.return %y : tensor<4x6x8xf32>
}

// -----

func.func @no_free(%a: tensor<32xbf16>, %b: tensor<32x8xbf16>) -> tensor<8xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs has 0 free dims [] (rank 1, batch dims [], contracting dim 0)}}
  %y = hlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<32xbf16>, tensor<32x8xbf16>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

func.func @mixed(%a: tensor<4x32xf32>, %b: tensor<32x8xbf16>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs is f32 and rhs is bf16: nc_matmul pairs an f32 operand only with f32; convert one side first}}
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32xf32>, tensor<32x8xbf16>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

func.func @f64(%a: tensor<4x32xf64>, %b: tensor<32x8xf64>) -> tensor<4x8xf64> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs element type f64: nc_matmul lowering takes bf16, f16 or f32}}
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32xf64>, tensor<32x8xf64>) -> tensor<4x8xf64>
  func.return %y : tensor<4x8xf64>
}

// -----

func.func @int_result(%a: tensor<4x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<4x8xi32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: result element type i32: bf16, f16 or f32 only}}
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32xbf16>, tensor<32x8xbf16>) -> tensor<4x8xi32>
  func.return %y : tensor<4x8xi32>
}

// -----

func.func @convert(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.convert' op lower-hlo-to-nisa: convert tensor<4xf32> -> tensor<4xi32>: only bf16 / f16 / f32 conversions are lowered (a DMA converts through f32, exact for these)}}
  %y = hlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>
  func.return %y : tensor<4xi32>
}

// -----

// expected-error@+1 {{'func.func' op lower-hlo-to-nisa: @declaration has no body to lower}}
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// Every refusal of lower-hlo-to-nisa is a located diagnostic on the op (or function) it
// cannot lower, naming the dim / type and why; mx-opt exits 1 without a traceback
// (checked once below), and with --verify-diagnostics each chunk reports its error.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p lower-hlo-to-nisa | filecheck %s
// RUN: not mx-opt %s -p lower-hlo-to-nisa 2>&1 | filecheck %s --check-prefix=EXIT
// EXIT: lower-hlo-to-nisa-errors.mlir:12:3: error: 'hlo.constant' op lower-hlo-to-nisa: only dense tensor literals
// EXIT-NOT: Traceback

// A tuple literal has no HBM home (tuples are flattened only at the function boundary).
func.func @tuple_constant() -> tensor<2xi64> {
  %t = hlo.constant (dense<[1, 2]> : tensor<2xi64>, dense<1> : tensor<i64>)
  %a = hlo.get_tuple_element %t[0] : (tuple<tensor<2xi64>, tensor<i64>>) -> tensor<2xi64>
  func.return %a : tensor<2xi64>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:12:3: error: 'hlo.constant' op lower-hlo-to-nisa: only dense tensor literals and the metadata constants of QuantizeMX_* / ScaledMatmul_* are lowered; pass other constants as function arguments

// -----

// The frontend custom calls: the lowering takes the legalized targets.
func.func @not_legalized(%x: tensor<32x32xbf16>) -> tensor<32x8xui32> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<32x32xbf16>) -> tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>
  %d = hlo.get_tuple_element %q[0] : (tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>) -> tensor<32x8xui32>
  func.return %d : tensor<32x8xui32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:22:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: QuantizeMX is not legalized; run legalize-quantize-mx first

// -----

func.func @dot_not_legalized(%l: tensor<4x8xui32>, %r: tensor<8x16xui32>, %ls: tensor<4x1xf8E8M0FNU>, %rs: tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:31:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: __op$block_scaled_dot is not legalized; run legalize-scaled-matmul first

// -----

func.func @vendor(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = hlo.custom_call @VendorThing(%x) {backend_config = "", api_version = 1 : i32} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:39:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: no lowering for custom call target 'VendorThing'

// -----

func.func @other_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:47:3: error: 'test.op' op lower-hlo-to-nisa: no lowering for test.op

// -----

// dot_general: one contracting dim per side maps onto partitions, its adjacent free dims
// (none: a unit axis) onto the stationary / moving free axis.
func.func @two_contracting(%a: tensor<4x8x16xbf16>, %b: tensor<8x16x4xbf16>) -> tensor<4x4xf32> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1, 2] x [0, 1] : (tensor<4x8x16xbf16>, tensor<8x16x4xbf16>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:57:3: error: 'hlo.dot_general' op lower-hlo-to-nisa: lhs contracting dims [1, 2]: exactly one contracting dim per side is lowered (it is mapped onto the partitions); reshape them into one

// -----

func.func @free_apart(%a: tensor<4x32x6xbf16>, %b: tensor<32x8xbf16>) -> tensor<4x6x8xf32> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32x6xbf16>, tensor<32x8xbf16>) -> tensor<4x6x8xf32>
  func.return %y : tensor<4x6x8xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:65:3: error: 'hlo.dot_general' op lower-hlo-to-nisa: lhs free dims [0, 2] (rank 3, batch dims [], contracting dim 1) are not adjacent: the lowering merges adjacent free dims into the stationary free axis; transpose the free dims next to each other first

// -----

func.func @rhs_free_apart(%a: tensor<4x32xbf16>, %b: tensor<2x32x8xbf16>) -> tensor<4x2x8xf32> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<4x32xbf16>, tensor<2x32x8xbf16>) -> tensor<4x2x8xf32>
  func.return %y : tensor<4x2x8xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:73:3: error: 'hlo.dot_general' op lower-hlo-to-nisa: rhs free dims [0, 2] (rank 3, batch dims [], contracting dim 1) are not adjacent: the lowering merges adjacent free dims into the moving free axis

// -----

func.func @mixed(%a: tensor<4x32xf32>, %b: tensor<32x8xbf16>) -> tensor<4x8xf32> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32xf32>, tensor<32x8xbf16>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:81:3: error: 'hlo.dot_general' op lower-hlo-to-nisa: lhs is f32 and rhs is bf16: nc_matmul pairs an f32 operand only with f32; convert one side first

// -----

func.func @f64(%a: tensor<4x32xf64>, %b: tensor<32x8xf64>) -> tensor<4x8xf64> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32xf64>, tensor<32x8xf64>) -> tensor<4x8xf64>
  func.return %y : tensor<4x8xf64>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:89:3: error: 'hlo.dot_general' op lower-hlo-to-nisa: lhs element type f64: nc_matmul lowering takes bf16, f16 or f32

// -----

func.func @int_result(%a: tensor<4x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<4x8xi32> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x32xbf16>, tensor<32x8xbf16>) -> tensor<4x8xi32>
  func.return %y : tensor<4x8xi32>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:97:3: error: 'hlo.dot_general' op lower-hlo-to-nisa: result element type i32: bf16, f16 or f32 only

// -----

func.func @convert(%a: tensor<4xi32>) -> tensor<4xbf16> {
  %y = hlo.convert %a : (tensor<4xi32>) -> tensor<4xbf16>
  func.return %y : tensor<4xbf16>
}
// CHECK: lower-hlo-to-nisa-errors.mlir:105:3: error: 'hlo.convert' op lower-hlo-to-nisa: convert tensor<4xi32> -> tensor<4xbf16>: lowered where one DMA (through f32) gives convert's bits: from floats of at most 32 bits, i1 and integers of at most 16 bits to floats and integers, from 32-bit integers to f32 and integers (not to i1, not rounding twice)

// -----

func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
// CHECK: error: 'func.func' op lower-hlo-to-nisa: @declaration has no body to lower

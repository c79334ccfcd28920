// Every refusal of lower-hlo-to-nisa on the StableHLO ops import-stablehlo keeps is a
// located diagnostic naming the op, the type and why the ISA cannot give StableHLO's bits
// there; mx-opt exits 1, prints no traceback and writes no -o.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p import-stablehlo,lower-hlo-to-nisa
// RUN: not mx-opt %s -p import-stablehlo,lower-hlo-to-nisa -o %t.out.mlir 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: not test -e %t.out.mlir
// EXIT: stablehlo-lower-errors.mlir:{{[0-9]+}}:3: error: 'stablehlo.divide' op lower-hlo-to-nisa: stablehlo.divide on ui32
// EXIT-NOT: Traceback

// Integer division truncates in StableHLO; the ISA divides in f32.
func.func @int_divide(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  // expected-error@+1 {{'stablehlo.divide' op lower-hlo-to-nisa: stablehlo.divide on ui32: lowered on float element types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers), where the ISA's f32 or exact integer arithmetic gives StableHLO's bits}}
  %r = stablehlo.divide %a, %b : tensor<4xui32>
  func.return %r : tensor<4xui32>
}

// -----

func.func @shift_by_tensor(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  // expected-error@+1 {{'stablehlo.shift_left' op lower-hlo-to-nisa: stablehlo.shift_left: the shift amount must be a constant in [0, 64) (JAX shifts by constants); a shift by a tensor has no exact ISA form here}}
  %r = stablehlo.shift_left %a, %b : tensor<4xui32>
  func.return %r : tensor<4xui32>
}

// -----

func.func @logical_shift_signed(%a: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<3> : tensor<4xi32>
  // expected-error@+1 {{'stablehlo.shift_right_logical' op lower-hlo-to-nisa: stablehlo.shift_right_logical on i32: lowered on unsigned element types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers), where the ISA's f32 or exact integer arithmetic gives StableHLO's bits}}
  %r = stablehlo.shift_right_logical %a, %c : tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

func.func @totalorder(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{'stablehlo.compare' op lower-hlo-to-nisa: compare LT TOTALORDER on f32: lowered as FLOAT on floats of at most 32 bits, SIGNED / UNSIGNED on integers of their signedness (TOTALORDER has no ISA form here)}}
  %r = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

func.func @reduce_tensor_init(%a: tensor<4x8xf32>, %i: tensor<f32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.reduce' op lower-hlo-to-nisa: the init value of a reduce must be a constant}}
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @exp(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.exponential' op lower-hlo-to-nisa: no lowering for stablehlo.exponential: of StableHLO, lower-hlo-to-nisa lowers what JAX's MXFP8 scaled dots are made of (add subtract multiply divide maximum minimum and or xor shift_left shift_right_logical shift_right_arithmetic abs negate not compare select reduce convert bitcast_convert reshape transpose broadcast_in_dim constant; docs/stablehlo.md); compute it outside the kernel and pass the result as an argument}}
  %r = stablehlo.exponential %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @f64_add(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error@+1 {{'stablehlo.add' op lower-hlo-to-nisa: stablehlo.add on f64: lowered on float / signed / unsigned element types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers), where the ISA's f32 or exact integer arithmetic gives StableHLO's bits}}
  %r = stablehlo.add %a, %b : tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

func.func @bitcast_lanes_e8m0(%a: tensor<4x4xui8>) -> tensor<4xui32> {
  // expected-error@+1 {{'stablehlo.bitcast_convert' op lower-hlo-to-nisa: bitcast_convert tensor<4x4xui8> -> tensor<4xui32>: only same-width bitcasts and the x4 packing of FP8 lanes (f8E4M3FN / f8E5M2 [.., n, 4] -> 32-bit integer [.., n]) are lowered (nisa.view_cast)}}
  %r = stablehlo.bitcast_convert %a : (tensor<4x4xui8>) -> tensor<4xui32>
  func.return %r : tensor<4xui32>
}

// -----

func.func @broadcast_reorders(%a: tensor<2x3xf32>) -> tensor<3x2x4xf32> {
  // expected-error@+1 {{'stablehlo.broadcast_in_dim' op lower-hlo-to-nisa: broadcast_in_dim dims [1, 0] reorder the operand dims; transpose first}}
  %r = stablehlo.broadcast_in_dim %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2x4xf32>
  func.return %r : tensor<3x2x4xf32>
}

// -----

func.func @inf_tensor() -> tensor<4xf32> {
  %c = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  // expected-error@+1 {{'func.return' op lower-hlo-to-nisa: the constant inf has no nisa form here (memset takes finite floats whose literal reads back, iota 32-bit integers); pass it as an argument}}
  func.return %b : tensor<4xf32>
}

// -----

func.func @convert_wide_int_to_bf16(%a: tensor<4xi32>) -> tensor<4xbf16> {
  // expected-error@+1 {{'hlo.convert' op lower-hlo-to-nisa: convert tensor<4xi32> -> tensor<4xbf16>: lowered where one DMA (through f32) gives convert's bits: from floats of at most 32 bits, i1 and integers of at most 16 bits to floats and integers, from 32-bit integers to f32 and integers (not to i1, not rounding twice)}}
  %r = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xbf16>
  func.return %r : tensor<4xbf16>
}

// -----

func.func @scalar_select(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.select' op lower-hlo-to-nisa: a scalar predicate that is not a constant is not lowered}}
  %r = stablehlo.select %p, %a, %b : tensor<i1>, tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @reduce_max_i1(%a: tensor<4x8xi1>) -> tensor<4xi1> {
  %i = stablehlo.constant dense<false> : tensor<i1>
  // expected-error@+1 {{'stablehlo.reduce' op lower-hlo-to-nisa: reduce maximum on i1: lowered on float / signed / unsigned element types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers)}}
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xi1>, tensor<i1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

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

func.func @floor(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.floor' op lower-hlo-to-nisa: no lowering for stablehlo.floor: of StableHLO, lower-hlo-to-nisa lowers abs add and}}
  %r = stablehlo.floor %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @exp_f64(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error@+1 {{'stablehlo.exponential' op lower-hlo-to-nisa: stablehlo.exponential on f64: lowered on f32, bf16 and f16 (the Scalar engine reads them exactly as f32 and rounds its float64 function once to the result type)}}
  %r = stablehlo.exponential %a : tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

func.func @erfc_f64(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error@+1 {{'chlo.erfc' op lower-hlo-to-nisa: chlo.erfc on f64: lowered on f32, bf16 and f16}}
  %r = chlo.erfc %a : tensor<4xf64> -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

func.func @power_by_a_tensor(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.power' op lower-hlo-to-nisa: stablehlo.power: lowered for a constant integer exponent (a splat); a tensor or fractional exponent has no lowering here}}
  %r = stablehlo.power %a, %b : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @power_by_a_fraction(%a: tensor<4xf32>) -> tensor<4xf32> {
  %h = stablehlo.constant dense<0.5> : tensor<4xf32>
  // expected-error@+1 {{'stablehlo.power' op lower-hlo-to-nisa: stablehlo.power: lowered for a constant integer exponent}}
  %r = stablehlo.power %a, %h : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @power_bf16_by_3(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %n = stablehlo.constant dense<3.0> : tensor<4xbf16>
  // expected-error@+1 {{'stablehlo.power' op lower-hlo-to-nisa: stablehlo.power by 3 on bf16: lowered on f32 (and by 2 on any float); the ALU computes the power in f32, which a narrower result would round a second time: convert to f32 first}}
  %r = stablehlo.power %a, %n : tensor<4xbf16>
  func.return %r : tensor<4xbf16>
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

// -----

func.func @convert_to_fp4(%a: tensor<4x32xf32>) -> tensor<4x32xf4E2M1FN> {
  // expected-error@+1 {{'hlo.convert' op lower-hlo-to-nisa: convert tensor<4x32xf32> -> tensor<4x32xf4E2M1FN>: an unpacked fp4 (f4E2M1FN) tensor has no buffer below hlo (bir holds fp4 only as the x4 words of QuantizeMX's data); convert to or from fp4 outside the kernel, or quantize with QuantizeMX}}
  %r = stablehlo.convert %a : (tensor<4x32xf32>) -> tensor<4x32xf4E2M1FN>
  func.return %r : tensor<4x32xf4E2M1FN>
}

// -----

func.func @convert_from_fp4(%a: tensor<4x32xf4E2M1FN>) -> tensor<4x32xbf16> {
  // expected-error@+1 {{'hlo.convert' op lower-hlo-to-nisa: convert tensor<4x32xf4E2M1FN> -> tensor<4x32xbf16>: an unpacked fp4}}
  %r = stablehlo.convert %a : (tensor<4x32xf4E2M1FN>) -> tensor<4x32xbf16>
  func.return %r : tensor<4x32xbf16>
}

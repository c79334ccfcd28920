// A stablehlo.reduce lower-hlo-to-nisa does not lower is a located diagnostic naming
// the op and what would lower; mx-opt exits 1, prints no traceback and writes no -o.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p import-stablehlo,lower-hlo-to-nisa
// RUN: not mx-opt %s -p import-stablehlo,lower-hlo-to-nisa -o %t.out.mlir 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: not test -e %t.out.mlir
// RUN: mx-opt %S/Inputs/reduce-long-row.mlir -p import-stablehlo,lower-hlo-to-nisa | filecheck %s --check-prefix=TRN3
// RUN: not mx-opt %S/Inputs/reduce-long-row.mlir --target trn2 -p import-stablehlo,lower-hlo-to-nisa 2>&1 | filecheck %s --check-prefix=TRN2
// EXIT: reduce-lower-errors.mlir:{{[0-9]+}}:3: error: 'stablehlo.reduce' op lower-hlo-to-nisa: reduce applying stablehlo.multiply
// EXIT-NOT: Traceback
// TRN3: nisa.tensor_reduce {{.*}}, add
// TRN2: error: 'stablehlo.reduce' op lower-hlo-to-nisa: reduce over 16384 elements per result: at most 14336 are lowered on trn2
// TRN2-NOT: Traceback

func.func @reduce_multiply(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %i = stablehlo.constant dense<1.0> : tensor<f32>
  // expected-error@+1 {{'stablehlo.reduce' op lower-hlo-to-nisa: reduce applying stablehlo.multiply: only single-input add / max / min / and / or / xor reductions are lowered; write the reduction with one of these bodies}}
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.multiply across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Two dims that are not the trailing ones: one tensor_reduce cannot gather them.
func.func @reduce_two_leading(%a: tensor<4x8x2xf32>) -> tensor<8xf32> {
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error@+1 {{'stablehlo.reduce' op lower-hlo-to-nisa: reduce over dims [0, 2] of a rank-3 tensor: lowered over the trailing dims or over one dim; transpose the reduced dims last}}
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [0, 2] : (tensor<4x8x2xf32>, tensor<f32>) -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----

// An f32 row longer than a quarter of a partition's SBUF (trn3: 256 KiB).
func.func @reduce_too_long(%a: tensor<2x20000xf32>) -> tensor<2xf32> {
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error@+1 {{'stablehlo.reduce' op lower-hlo-to-nisa: reduce over 20000 elements per result: at most 16384 are lowered on trn3 (a row reduces in one tile of at most 1/4 of a partition's SBUF, 256 KiB); select a larger --target or reduce over fewer elements}}
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x20000xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// StableHLO's add of i1 is a logical or; the lowering does not map it.
func.func @reduce_add_i1(%a: tensor<4x8xi1>) -> tensor<4xi1> {
  %i = stablehlo.constant dense<false> : tensor<i1>
  // expected-error@+1 {{'stablehlo.reduce' op lower-hlo-to-nisa: reduce add on i1: lowered on float / signed / unsigned element types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers)}}
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<4x8xi1>, tensor<i1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

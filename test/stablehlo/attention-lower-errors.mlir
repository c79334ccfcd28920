// What lower-hlo-to-nisa does not lower of attention-like programs is refused with a
// located diagnostic naming the op (or function) and what would lower; mx-opt exits 1,
// prints no traceback and writes no -o.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p import-stablehlo,lower-hlo-to-nisa
// RUN: not mx-opt %s -p import-stablehlo,lower-hlo-to-nisa -o %t.out.mlir 2>&1 | filecheck %s --check-prefix=EXIT
// RUN: not test -e %t.out.mlir
// EXIT: attention-lower-errors.mlir:{{[0-9]+}}:1: error: 'func.func' op lower-hlo-to-nisa: arg0 of @dynamic has a dynamic shape
// EXIT-NOT: Traceback

// A dynamic sequence length: the kernel's buffers have static shapes.
// expected-error@+1 {{'func.func' op lower-hlo-to-nisa: arg0 of @dynamic has a dynamic shape tensor<?x32xf32>}}
func.func @dynamic(%q: tensor<?x32xf32>) -> tensor<?x32xf32> {
  func.return %q : tensor<?x32xf32>
}

// -----

// The contraction between the query positions and the heads: the free dims [0, 2] of
// the lhs are not adjacent, so they do not merge into one stationary free axis.
func.func @heads_inside(%q: tensor<16x32x4xf32>, %k: tensor<32x16xf32>) -> tensor<16x4x16xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs free dims [0, 2] (rank 3, batch dims [], contracting dim 1) are not adjacent: the lowering merges adjacent free dims into the stationary free axis; transpose the free dims next to each other first}}
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [0] : (tensor<16x32x4xf32>, tensor<32x16xf32>) -> tensor<16x4x16xf32>
  func.return %s : tensor<16x4x16xf32>
}

// -----

// Two contracting dims (heads x head_dim contracted at once).
func.func @two_contracting(%q: tensor<16x4x32xf32>, %k: tensor<4x32x16xf32>) -> tensor<16x16xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lower-hlo-to-nisa: lhs contracting dims [1, 2]: exactly one contracting dim per side is lowered (it is mapped onto the partitions); reshape them into one}}
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1, 2] x [0, 1] : (tensor<16x4x32xf32>, tensor<4x32x16xf32>) -> tensor<16x16xf32>
  func.return %s : tensor<16x16xf32>
}

// -----

// An iota of 64-bit integers: nisa.iota computes in int32.
func.func @iota_i64() -> tensor<16xi64> {
  // expected-error@+1 {{'stablehlo.iota' op lower-hlo-to-nisa: iota of i64: lowered for 8 / 16 / 32-bit integers and floats of at most 32 bits (nisa.iota computes in int32)}}
  %i = stablehlo.iota dim = 0 : tensor<16xi64>
  func.return %i : tensor<16xi64>
}

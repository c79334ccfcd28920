// lower-hlo-to-nisa's tile options (docs/lowering.md): out-of-range values are refused
// when the pipeline is built; values the MX matmul cannot use are refused at the op.
// Smaller tiles only change the loop trip counts (and, for K, the PSUM accumulation
// order, which is why bit-identity with the hlo interpreter needs the default K tile).

// RUN: not mx-opt %s -p 'legalize-scaled-matmul,lower-hlo-to-nisa{matmul-k-tile=256}' 2>&1 | filecheck %s --check-prefix=RANGE
// RANGE: mx-opt: error: invalid options for pass 'lower-hlo-to-nisa': matmul_k_tile must be in [1, 128], got 256
// RUN: not mx-opt %s -p 'legalize-scaled-matmul,lower-hlo-to-nisa{matmul-n-tile=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: mx-opt: error: invalid options for pass 'lower-hlo-to-nisa': matmul_n_tile must be in [1, 512], got 0

// RUN: not mx-opt %s -p 'legalize-scaled-matmul,lower-hlo-to-nisa{matmul-k-tile=48}' 2>&1 | filecheck %s --check-prefix=KTILE
// KTILE: lower-hlo-to-nisa-options.mlir:26:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: matmul_k_tile 48 is not a multiple of 32, the partition quantum of nc_matmul_mx
// RUN: not mx-opt %s -p 'legalize-scaled-matmul,lower-hlo-to-nisa{matmul-m-tile=5}' 2>&1 | filecheck %s --check-prefix=MTILE
// MTILE: lower-hlo-to-nisa-options.mlir:26:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: matmul_m_tile 5 is odd; nc_matmul_mx needs an even stationary free size

// Small tiles: 2 M tiles of 2 rows, N tiles of 8 and a partial one of 2, K in 2 tiles of
// 32 partitions (128 elements).
// RUN: mx-opt %s -p 'legalize-scaled-matmul,lower-hlo-to-nisa{matmul-k-tile=32 matmul-m-tile=2 matmul-n-tile=8}' | filecheck %s
// CHECK: scf.for %m = %c0 to %c4 step %c2 {
// CHECK:   scf.for %n = %c0 to %c8 step %c8 {
// CHECK:     nisa.nc_matmul_mx %acc, %stat scale %stat_scl, %mov scale %mov_scl : memref<2x8xf32, {{.*}}#nisa.mem<psum>>, memref<32x2x!nisa.float8_e4m3fn_x4
// CHECK:     scf.for %k = %c4 to %c8 step %c4 {
// CHECK:       nisa.nc_matmul_mx {{.*}} accumulate : memref<2x8xf32, {{.*}}#nisa.mem<psum>>, memref<32x2x!nisa.float8_e4m3fn_x4
// CHECK:   nisa.nc_matmul_mx {{.*}} accumulate : memref<2x2xf32, {{.*}}#nisa.mem<psum>>, memref<32x2x!nisa.float8_e4m3fn_x4
func.func @mx(%l: tensor<4x64xui32>, %r: tensor<64x10xui32>, %ls: tensor<4x8xf8E8M0FNU>, %rs: tensor<8x10xf8E8M0FNU>) -> tensor<4x10xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<4x64xui32>, tensor<64x10xui32>, tensor<4x8xf8E8M0FNU>, tensor<8x10xf8E8M0FNU>) -> tensor<4x10xf32>
  func.return %y : tensor<4x10xf32>
}

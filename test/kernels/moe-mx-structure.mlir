// The MX kernels' structure: integer weights viewed as x4 (no copy), scales as one
// [E*16, ...] row table gathered per block expert through the quadrant-hole index (4
// iota at entry, oob_mode skip), on-chip quantize_mx of hidden and intermediate,
// nc_matmul_mx, sendrecv only in the I-shard twins, the run-time loop bound from
// conditions; an emitted MX kernel runs under mx-run on 2 cores.
// RUN: mx-moe emit --implementation shard_on_i_mx | filecheck %s --check-prefix=IMX
// RUN: mx-moe emit --implementation shard_on_block_mx --mx-weights fp4_e2m1 | filecheck %s --check-prefix=BMX
// RUN: mx-moe emit --implementation shard_on_i_mx_hybrid | filecheck %s --check-prefix=HMX
// RUN: mx-moe emit --implementation shard_on_block_mx -o %t.mlir --write-inputs %t.npz
// RUN: mx-run %t.mlir --cores 2 --inputs %t.npz -o %t.out.npz | filecheck %s --check-prefix=OUT

// IMX: arg2 gate_up_proj_weight [4, 128, 2, 1, 1024] ui32 in
// IMX: arg3 down_proj_weight [4, 128, 2, 512] ui32 in
// IMX: arg6 gate_up_proj_scale [4, 16, 2, 1, 1024] ui8 in
// IMX: arg7 down_proj_scale [4, 16, 2, 512] ui8 in
// IMX: nisa.view_cast {{.*}} to memref<4x128x2x1x1024x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// IMX: memref.collapse_shape {{.*}} into memref<64x2x1x1024xui8, #nisa.mem<hbm>>
// IMX-COUNT-4: nisa.iota
// IMX: nisa.quantize_mx
// IMX: oob_mode skip
// IMX: nisa.nc_matmul_mx
// IMX: nisa.quantize_mx
// IMX: oob_mode skip
// IMX: nisa.nc_matmul_mx
// IMX: nisa.sendrecv

// BMX: arg2 gate_up_proj_weight [4, 128, 2, 1, 512] ui16 in
// BMX: arg6 conditions [6] i32 in
// BMX: arg9 output [2, 101, 512] bf16 out
// BMX: nisa.view_cast {{.*}} to memref<4x128x2x1x512x!nisa.float4_e2m1fn_x4, #nisa.mem<hbm>>
// BMX: nisa.nc_matmul_mx
// BMX-NOT: nisa.sendrecv
// BMX: nisa.tensor_reduce
// BMX: nisa.tensor_scalar {{.*}} minimum
// BMX: nisa.register_load
// BMX-NOT: nisa.sendrecv
// BMX: nisa.dma_compute

// HMX: arg6 conditions [5] i32 in
// HMX: nisa.sendrecv
// HMX: nisa.tensor_reduce
// HMX: nisa.register_load

// OUT: arg9: memref<2x101x512xbf16, #nisa.mem<hbm>> shape=(2, 101, 512) dtype=bfloat16 {{.*}} nan=0

// Round trip of every nisa op, attribute and type (custom and generic syntax).
// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: MX_ROUNDTRIP

func.func @data_movement(%hidden: memref<129x512xbf16, #nisa.mem<hbm>>, %out: memref<2x128x512xbf16, #nisa.mem<hbm>>, %tok: memref<128x1xi32, #nisa.mem<sbuf>>, %table: memref<128x512xf32, #nisa.mem<hbm>>) {
  %x = memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
  %f = memref.alloc() : memref<128x512xf32, #nisa.mem<sbuf>>
  %plane0 = memref.subview %out[0, 0, 0] [1, 128, 512] [1, 1, 1] : memref<2x128x512xbf16, #nisa.mem<hbm>> to memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>
  %plane1 = memref.subview %out[1, 0, 0] [1, 128, 512] [1, 1, 1] : memref<2x128x512xbf16, #nisa.mem<hbm>> to memref<128x512xbf16, strided<[512, 1], offset: 65536>, #nisa.mem<hbm>>
  nisa.dma_copy %x, %plane0 : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>
  nisa.dma_copy %f, %x : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.dma_copy %x, %hidden[%tok : memref<128x1xi32, #nisa.mem<sbuf>>] oob_mode skip : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x512xbf16, #nisa.mem<hbm>>
  nisa.dma_copy %hidden[%tok : memref<128x1xi32, #nisa.mem<sbuf>>], %x : memref<129x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  %cols = memref.alloc() : memref<128x4xf32, #nisa.mem<sbuf>>
  %col_idx = memref.alloc() : memref<4xi32, #nisa.mem<sbuf>>
  nisa.dma_copy %cols, %table[%col_idx : memref<4xi32, #nisa.mem<sbuf>>] dim 1 oob_mode error : memref<128x4xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<hbm>>
  nisa.dma_compute %plane0, (%plane0, %plane1) : memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>, (memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>, memref<128x512xbf16, strided<[512, 1], offset: 65536>, #nisa.mem<hbm>>)
  nisa.memset %x, 0.0 : memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.memset %tok, 128.0 : memref<128x1xi32, #nisa.mem<sbuf>>
  nisa.iota %tok, [[1, 1]] : memref<128x1xi32, #nisa.mem<sbuf>>
  nisa.iota %f, [[4, 128], [1, 4]] offset -3 channel_multiplier 512 : memref<128x512xf32, #nisa.mem<sbuf>>
  %p = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
  nisa.tensor_copy %x, %p : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
  func.return
}

// CHECK-LABEL: func.func @data_movement
// CHECK:      nisa.dma_copy %{{.*}}, %{{.*}} : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %{{.*}} : memref<128x512xf32, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.dma_copy %x, %hidden[%tok : memref<128x1xi32, #nisa.mem<sbuf>>] oob_mode skip : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x512xbf16, #nisa.mem<hbm>>
// CHECK-NEXT: nisa.dma_copy %hidden[%tok : memref<128x1xi32, #nisa.mem<sbuf>>], %x : memref<129x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK:      nisa.dma_copy %cols, %table[%col_idx : memref<4xi32, #nisa.mem<sbuf>>] dim 1 : memref<128x4xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<hbm>>
// CHECK-NEXT: nisa.dma_compute %plane0, (%plane0, %plane1) : memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>, (memref<128x512xbf16, strided<[512, 1]>, #nisa.mem<hbm>>, memref<128x512xbf16, strided<[512, 1], offset: 65536>, #nisa.mem<hbm>>)
// CHECK-NEXT: nisa.memset %x, 0.000000e+00 : memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.memset %tok, 1.280000e+02 : memref<128x1xi32, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.iota %tok, {{\[}}[1, 1]] : memref<128x1xi32, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.iota %f, {{\[}}[4, 128], [1, 4]] offset -3 channel_multiplier 512 : memref<128x512xf32, #nisa.mem<sbuf>>
// CHECK:      nisa.tensor_copy %x, %p : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>

func.func @matmul(%w: memref<128x128xbf16, #nisa.mem<sbuf>>, %h: memref<128x512xbf16, #nisa.mem<sbuf>>, %e4: memref<64x96xf8E4M3, #nisa.mem<sbuf>>, %e5: memref<64x512xf8E5M2, #nisa.mem<sbuf>>, %t32: memref<128x64xf32, #nisa.mem<sbuf>>, %f32: memref<128x100xf32, #nisa.mem<sbuf>>) {
  %acc = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
  nisa.nc_matmul %acc, %w, %h : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.nc_matmul %acc, %w, %h accumulate : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  %b = memref.alloc() : memref<96x512xbf16, #nisa.mem<psum>>
  nisa.nc_matmul %b, %e4, %e5 : memref<96x512xbf16, #nisa.mem<psum>>, memref<64x96xf8E4M3, #nisa.mem<sbuf>>, memref<64x512xf8E5M2, #nisa.mem<sbuf>>
  %c = memref.alloc() : memref<64x100xf32, #nisa.mem<psum>>
  nisa.nc_matmul %c, %t32, %f32 : memref<64x100xf32, #nisa.mem<psum>>, memref<128x64xf32, #nisa.mem<sbuf>>, memref<128x100xf32, #nisa.mem<sbuf>>
  %ht = memref.alloc() : memref<128x128xbf16, #nisa.mem<psum>>
  nisa.nc_transpose %ht, %w : memref<128x128xbf16, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>
  nisa.nc_transpose %ht, %w engine tensor : memref<128x128xbf16, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>
  %small = memref.alloc() : memref<32x16xbf16, #nisa.mem<sbuf>>
  %small_t = memref.alloc() : memref<16x32xbf16, #nisa.mem<psum>>
  nisa.nc_transpose %small_t, %small engine vector : memref<16x32xbf16, #nisa.mem<psum>>, memref<32x16xbf16, #nisa.mem<sbuf>>
  nisa.nc_transpose %small, %small_t : memref<32x16xbf16, #nisa.mem<sbuf>>, memref<16x32xbf16, #nisa.mem<psum>>
  func.return
}

// CHECK-LABEL: func.func @matmul
// CHECK:      nisa.nc_matmul %acc, %w, %h : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.nc_matmul %acc, %w, %h accumulate : memref<128x512xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK:      nisa.nc_matmul %b, %e4, %e5 : memref<96x512xbf16, #nisa.mem<psum>>, memref<64x96xf8E4M3, #nisa.mem<sbuf>>, memref<64x512xf8E5M2, #nisa.mem<sbuf>>
// CHECK:      nisa.nc_matmul %c, %t32, %f32 : memref<64x100xf32, #nisa.mem<psum>>, memref<128x64xf32, #nisa.mem<sbuf>>, memref<128x100xf32, #nisa.mem<sbuf>>
// CHECK:      nisa.nc_transpose %ht, %w : memref<128x128xbf16, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.nc_transpose %ht, %w engine tensor : memref<128x128xbf16, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>
// CHECK:      nisa.nc_transpose %small_t, %small engine vector : memref<16x32xbf16, #nisa.mem<psum>>, memref<32x16xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.nc_transpose %small, %small_t : memref<32x16xbf16, #nisa.mem<sbuf>>, memref<16x32xbf16, #nisa.mem<psum>>

func.func @mx(%x: memref<128x512xbf16, #nisa.mem<sbuf>>, %w4: memref<128x64x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>, %w4_scale: memref<128x64xui8, #nisa.mem<sbuf>>, %h16: memref<32x8xf16, #nisa.mem<sbuf>>) {
  %q = memref.alloc() : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %q_scale = memref.alloc() : memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>
  nisa.quantize_mx %q scale %q_scale, %x : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  %q5 = memref.alloc() : memref<32x2x!nisa.float8_e5m2_x4, #nisa.mem<sbuf>>
  %q5_scale = memref.alloc() : memref<4x2xui8, #nisa.mem<sbuf>>
  nisa.quantize_mx %q5 scale %q5_scale, %h16 : memref<32x2x!nisa.float8_e5m2_x4, #nisa.mem<sbuf>>, memref<4x2xui8, #nisa.mem<sbuf>>, memref<32x8xf16, #nisa.mem<sbuf>>
  %acc = memref.alloc() : memref<64x128xf32, #nisa.mem<psum>>
  nisa.nc_matmul_mx %acc, %w4 scale %w4_scale, %q scale %q_scale : memref<64x128xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>
  %acc16 = memref.alloc() : memref<64x128xbf16, #nisa.mem<psum>>
  nisa.nc_matmul_mx %acc16, %w4 scale %w4_scale, %q scale %q_scale accumulate : memref<64x128xbf16, #nisa.mem<psum>>, memref<128x64x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>
  nisa.memset %q, 0.0 : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return
}

// CHECK-LABEL: func.func @mx
// CHECK:      nisa.quantize_mx %q scale %q_scale, %x : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK:      nisa.quantize_mx %q5 scale %q5_scale, %h16 : memref<32x2x!nisa.float8_e5m2_x4, #nisa.mem<sbuf>>, memref<4x2xui8, #nisa.mem<sbuf>>, memref<32x8xf16, #nisa.mem<sbuf>>
// CHECK:      nisa.nc_matmul_mx %acc, %w4 scale %w4_scale, %q scale %q_scale : memref<64x128xf32, #nisa.mem<psum>>, memref<128x64x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>, memref<128x64xui8, #nisa.mem<sbuf>>, memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>
// CHECK:      nisa.nc_matmul_mx %acc16, %w4 scale %w4_scale, %q scale %q_scale accumulate : memref<64x128xbf16, #nisa.mem<psum>>,
// CHECK-NEXT: nisa.memset %q, 0.000000e+00 : memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>

func.func @elementwise(%a: memref<128x512xbf16, #nisa.mem<sbuf>>, %p: memref<128x512xf32, #nisa.mem<psum>>, %col: memref<128x1xf32, #nisa.mem<sbuf>>, %bits: memref<128x16xi32, #nisa.mem<sbuf>>, %mask: memref<128x512xui8, #nisa.mem<sbuf>>) {
  %two = arith.constant 2.0 : f32
  %seven = arith.constant 7 : i32
  nisa.tensor_tensor %a, add %a, %p : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
  nisa.tensor_tensor %bits, bitwise_and %bits, %bits : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>
  nisa.tensor_scalar %a, %p, multiply %col : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>, memref<128x1xf32, #nisa.mem<sbuf>>
  nisa.tensor_scalar %a, %a, reverse subtract %two, minimum %col : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, f32, memref<128x1xf32, #nisa.mem<sbuf>>
  nisa.tensor_scalar %a, %a, maximum %two, reverse divide %two : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, f32, f32
  nisa.tensor_scalar %bits, %bits, right_shift %seven, bitwise_xor %seven : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, i32, i32
  nisa.scalar_tensor_tensor %a, %p, multiply %col, add %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>, memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.scalar_tensor_tensor %a, %a, reverse subtract %two, reverse power %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, f32, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.tensor_reduce %col, add %p axes [1] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
  %a3 = memref.expand_shape %a [[0], [1, 2]] output_shape [128, 128, 4] : memref<128x512xbf16, #nisa.mem<sbuf>> into memref<128x128x4xbf16, #nisa.mem<sbuf>>
  %r = memref.alloc() : memref<128x128xf32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %r, maximum %a3 axes [2] negate : memref<128x128xf32, #nisa.mem<sbuf>>, memref<128x128x4xbf16, #nisa.mem<sbuf>>
  nisa.tensor_reduce %col, multiply %a3 axes [1, 2] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x128x4xbf16, #nisa.mem<sbuf>>
  nisa.activation %a, copy %p : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
  nisa.activation %a, gelu_apprx_sigmoid %a scale(%two : f32) : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.activation %a, silu %p scale(%col : memref<128x1xf32, #nisa.mem<sbuf>>) bias(%col : memref<128x1xf32, #nisa.mem<sbuf>>) : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
  nisa.activation %p, gelu_apprx_tanh %a bias(%two : f32) : memref<128x512xf32, #nisa.mem<psum>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  nisa.tensor_copy_predicated %a, %a where %mask : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
  nisa.tensor_copy_predicated %p, %two where not %mask : memref<128x512xf32, #nisa.mem<psum>>, f32, memref<128x512xui8, #nisa.mem<sbuf>>
  func.return
}

// CHECK-LABEL: func.func @elementwise
// CHECK:      nisa.tensor_tensor %a, add %a, %p : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
// CHECK-NEXT: nisa.tensor_tensor %bits, bitwise_and %bits, %bits : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_scalar %a, %p, multiply %col : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>, memref<128x1xf32, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_scalar %a, %a, reverse subtract %two, minimum %col : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, f32, memref<128x1xf32, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_scalar %a, %a, maximum %two, reverse divide %two : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, f32, f32
// CHECK-NEXT: nisa.tensor_scalar %bits, %bits, right_shift %seven, bitwise_xor %seven : memref<128x16xi32, #nisa.mem<sbuf>>, memref<128x16xi32, #nisa.mem<sbuf>>, i32, i32
// CHECK-NEXT: nisa.scalar_tensor_tensor %a, %p, multiply %col, add %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>, memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.scalar_tensor_tensor %a, %a, reverse subtract %two, reverse power %a : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, f32, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_reduce %col, add %p axes [1] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
// CHECK:      nisa.tensor_reduce %r, maximum %a3 axes [2] negate : memref<128x128xf32, #nisa.mem<sbuf>>, memref<128x128x4xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_reduce %col, multiply %a3 axes [1, 2] : memref<128x1xf32, #nisa.mem<sbuf>>, memref<128x128x4xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.activation %a, copy %p : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
// CHECK-NEXT: nisa.activation %a, gelu_apprx_sigmoid %a scale(%two : f32) : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.activation %a, silu %p scale(%col : memref<128x1xf32, #nisa.mem<sbuf>>) bias(%col : memref<128x1xf32, #nisa.mem<sbuf>>) : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<psum>>
// CHECK-NEXT: nisa.activation %p, gelu_apprx_tanh %a bias(%two : f32) : memref<128x512xf32, #nisa.mem<psum>>, memref<128x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_copy_predicated %a, %a where %mask : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xui8, #nisa.mem<sbuf>>
// CHECK-NEXT: nisa.tensor_copy_predicated %p, %two where not %mask : memref<128x512xf32, #nisa.mem<psum>>, f32, memref<128x512xui8, #nisa.mem<sbuf>>

// The hybrid loop of the MoE kernels: a static prefix, then a loop whose bound is read
// from device memory, with a cross-core exchange and barrier per iteration.
func.func @spmd(%out: memref<128x512xbf16, #nisa.mem<hbm>>, %conditions: memref<1x9xi32, #nisa.mem<sbuf>>, %mine: memref<64x512xbf16, #nisa.mem<sbuf>>) -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %shard = nisa.program_id
  %shards = nisa.num_programs
  %grid_y = nisa.program_id axis 1
  %peer = arith.subi %c1, %shard : index
  %count = memref.alloc() : memref<1x1xi32, #nisa.mem<sbuf>>
  nisa.tensor_reduce %count, add %conditions axes [1] : memref<1x1xi32, #nisa.mem<sbuf>>, memref<1x9xi32, #nisa.mem<sbuf>>
  %n_blocks = nisa.register_load %count : memref<1x1xi32, #nisa.mem<sbuf>> -> index
  %n_i32 = nisa.register_load %count : memref<1x1xi32, #nisa.mem<sbuf>> -> i32
  %theirs = memref.alloc() : memref<64x512xbf16, #nisa.mem<sbuf>>
  scf.for %b = %c2 to %n_blocks step %c1 {
    nisa.sendrecv %theirs, %mine to %peer from %peer pipe 0 : memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
    nisa.tensor_tensor %theirs, add %mine, %theirs : memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
    nisa.core_barrier %out : memref<128x512xbf16, #nisa.mem<hbm>>
  }
  nisa.core_barrier %out cores [0, 1, 2, 3] : memref<128x512xbf16, #nisa.mem<hbm>>
  %flag = memref.subview %conditions[0, 8] [1, 1] [1, 1] : memref<1x9xi32, #nisa.mem<sbuf>> to memref<1x1xi32, strided<[9, 1], offset: 8>, #nisa.mem<sbuf>>
  scf.while () : () -> () {
    %reg = nisa.register_load %flag : memref<1x1xi32, strided<[9, 1], offset: 8>, #nisa.mem<sbuf>> -> i32
    %c0_i32 = arith.constant 0 : i32
    %go = arith.cmpi ne, %reg, %c0_i32 : i32
    scf.condition(%go)
  } do {
    nisa.memset %flag, 0.0 : memref<1x1xi32, strided<[9, 1], offset: 8>, #nisa.mem<sbuf>>
    scf.yield
  }
  func.return %shards : index
}

// CHECK-LABEL: func.func @spmd
// CHECK:      %shard = nisa.program_id
// CHECK-NEXT: %shards = nisa.num_programs
// CHECK-NEXT: %grid_y = nisa.program_id axis 1
// CHECK:      %n_blocks = nisa.register_load %count : memref<1x1xi32, #nisa.mem<sbuf>> -> index
// CHECK-NEXT: %n_i32 = nisa.register_load %count : memref<1x1xi32, #nisa.mem<sbuf>> -> i32
// CHECK:      scf.for %b = %c2 to %n_blocks step %c1 {
// CHECK-NEXT:   nisa.sendrecv %theirs, %mine to %peer from %peer pipe 0 : memref<64x512xbf16, #nisa.mem<sbuf>>, memref<64x512xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:   nisa.tensor_tensor %theirs, add %mine, %theirs
// CHECK-NEXT:   nisa.core_barrier %out : memref<128x512xbf16, #nisa.mem<hbm>>
// CHECK-NEXT: }
// CHECK-NEXT: nisa.core_barrier %out cores [0, 1, 2, 3] : memref<128x512xbf16, #nisa.mem<hbm>>
// CHECK:      scf.while () : () -> () {
// CHECK-NEXT:   %reg = nisa.register_load %flag : memref<1x1xi32, strided<[9, 1], offset: 8>, #nisa.mem<sbuf>> -> i32
// CHECK:      } do {
// CHECK-NEXT:   nisa.memset %flag, 0.000000e+00 : memref<1x1xi32, strided<[9, 1], offset: 8>, #nisa.mem<sbuf>>

// Attributes and types on their own.
func.func @attributes() {
  "test.op"() {alu = #nisa<alu abs_max>, act = #nisa<act gelu>, oob = #nisa<oob_mode skip>, engine = #nisa<engine gpsimd>, pattern = #nisa.iota_pattern[[0, 2], [1, 8]], space = #nisa.mem<psum>, x4 = [!nisa.float8_e4m3fn_x4, !nisa.float8_e5m2_x4, !nisa.float4_e2m1fn_x4]} : () -> ()
  func.return
}

// CHECK-LABEL: func.func @attributes
// CHECK-NEXT: "test.op"() {alu = #nisa<alu abs_max>, act = #nisa<act gelu>, oob = #nisa<oob_mode skip>, engine = #nisa<engine gpsimd>, pattern = #nisa.iota_pattern[[0, 2], [1, 8]], space = #nisa.mem<psum>, x4 = [!nisa.float8_e4m3fn_x4, !nisa.float8_e5m2_x4, !nisa.float4_e2m1fn_x4]} : () -> ()

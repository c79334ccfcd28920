// nisa.view_cast verifier: one x4 side, an integer of the container width on the other,
// and the same shape, layout and memory space.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @fp8_from_16(%w: memref<4x4xui16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op !nisa.float8_e4m3fn_x4 views only an integer of its 32-bit container, got ui16}}
  %a = nisa.view_cast %w : memref<4x4xui16, #nisa.mem<hbm>> to memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @fp4_from_f16(%w: memref<4x4xf16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op !nisa.float4_e2m1fn_x4 views only an integer of its 16-bit container, got f16}}
  %a = nisa.view_cast %w : memref<4x4xf16, #nisa.mem<hbm>> to memref<4x4x!nisa.float4_e2m1fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @no_x4(%w: memref<4x4xui32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast needs exactly one x4-packed element type, got ui32 and i32}}
  %a = nisa.view_cast %w : memref<4x4xui32, #nisa.mem<hbm>> to memref<4x4xi32, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @shape(%w: memref<4x4xui32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast changes the shape [4, 4] to [16]; it only reinterprets the element type}}
  %a = nisa.view_cast %w : memref<4x4xui32, #nisa.mem<hbm>> to memref<16x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @space(%w: memref<4x4xui32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast must keep the source's memory space}}
  %a = nisa.view_cast %w : memref<4x4xui32, #nisa.mem<hbm>> to memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @layout(%w: memref<4x4xui32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast must keep the source's layout}}
  %a = nisa.view_cast %w : memref<4x4xui32, #nisa.mem<hbm>> to memref<4x4x!nisa.float8_e4m3fn_x4, strided<[4, 1], offset: 4>, #nisa.mem<hbm>>
  func.return
}

// nisa.view_cast verifier: one x4 side, an integer of the container width on the other,
// and the same shape, layout and memory space; or two non-x4 types of one width; or FP8
// lanes and x4 words of that format, the last dim scaled by 4, contiguous.
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
  // expected-error@+1 {{'nisa.view_cast' op view_cast between ui32 and bf16 changes the element width; without an x4 type it reinterprets elements of one width (f32 <-> ui32, ui8 <-> f8E8M0FNU)}}
  %a = nisa.view_cast %w : memref<4x4xui32, #nisa.mem<hbm>> to memref<4x4xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @two_x4(%w: memref<4x4x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast needs exactly one x4-packed element type, got !nisa.float8_e5m2_x4 and !nisa.float8_e4m3fn_x4}}
  %a = nisa.view_cast %w : memref<4x4x!nisa.float8_e5m2_x4, #nisa.mem<hbm>> to memref<4x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @lanes_shape(%w: memref<4x8xf8E4M3FN, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op a view_cast from f8E4M3FN to !nisa.float8_e4m3fn_x4 scales the last dim by 1/4: [4, 8] gives [4, 2], got [4, 8]}}
  %a = nisa.view_cast %w : memref<4x8xf8E4M3FN, #nisa.mem<hbm>> to memref<4x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @lanes_partial_word(%w: memref<4x6xf8E4M3FN, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op a view_cast from f8E4M3FN to !nisa.float8_e4m3fn_x4 scales the last dim by 1/4: [4, 6] gives no whole words, got [4, 1]}}
  %a = nisa.view_cast %w : memref<4x6xf8E4M3FN, #nisa.mem<hbm>> to memref<4x1x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @lanes_rank(%w: memref<4xf8E4M3FN, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op a view_cast between FP8 lanes and x4 words keeps the rank (at least 1), got [4] and [1, 1]}}
  %a = nisa.view_cast %w : memref<4xf8E4M3FN, #nisa.mem<hbm>> to memref<1x1x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @lanes_strided(%w: memref<4x8xf8E4M3FN, strided<[16, 1]>, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op a view_cast between FP8 lanes and x4 words needs contiguous buffers (identity layouts)}}
  %a = nisa.view_cast %w : memref<4x8xf8E4M3FN, strided<[16, 1]>, #nisa.mem<hbm>> to memref<4x2x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @lanes_other_format(%w: memref<4x8xf8E5M2, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast changes the shape [4, 8] to [4, 2]; it only reinterprets the element type}}
  %a = nisa.view_cast %w : memref<4x8xf8E5M2, #nisa.mem<hbm>> to memref<4x2x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @lanes_space(%w: memref<4x8xf8E4M3FN, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.view_cast' op view_cast must keep the source's memory space}}
  %a = nisa.view_cast %w : memref<4x8xf8E4M3FN, #nisa.mem<hbm>> to memref<4x2x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
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

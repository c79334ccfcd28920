// nisa.view_cast: MX weights arrive as integer alternates (uint32 / int32 for FP8 x4,
// uint16 / int16 for FP4 x4) and are viewed as x4 types without a copy; round trip in
// custom and generic syntax.
// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: MX_ROUNDTRIP

func.func @view_cast(%w: memref<2x128x2x4xui32, #nisa.mem<hbm>>, %d: memref<2x128x1x512xi16, #nisa.mem<hbm>>) {
  %a = nisa.view_cast %w : memref<2x128x2x4xui32, #nisa.mem<hbm>> to memref<2x128x2x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %b = nisa.view_cast %w : memref<2x128x2x4xui32, #nisa.mem<hbm>> to memref<2x128x2x4x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>
  %c = nisa.view_cast %d : memref<2x128x1x512xi16, #nisa.mem<hbm>> to memref<2x128x1x512x!nisa.float4_e2m1fn_x4, #nisa.mem<hbm>>
  %e = nisa.view_cast %a : memref<2x128x2x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>> to memref<2x128x2x4xsi32, #nisa.mem<hbm>>
  %s = memref.subview %w[1, 0, 0, 0] [1, 128, 2, 4] [1, 1, 1, 1] : memref<2x128x2x4xui32, #nisa.mem<hbm>> to memref<128x2x4xui32, strided<[8, 4, 1], offset: 1024>, #nisa.mem<hbm>>
  %f = nisa.view_cast %s : memref<128x2x4xui32, strided<[8, 4, 1], offset: 1024>, #nisa.mem<hbm>> to memref<128x2x4x!nisa.float8_e4m3fn_x4, strided<[8, 4, 1], offset: 1024>, #nisa.mem<hbm>>
  func.return
}
// CHECK-LABEL: func.func @view_cast
// CHECK:      %a = nisa.view_cast %w : memref<2x128x2x4xui32, #nisa.mem<hbm>> to memref<2x128x2x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT: %b = nisa.view_cast %w : memref<2x128x2x4xui32, #nisa.mem<hbm>> to memref<2x128x2x4x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>
// CHECK-NEXT: %c = nisa.view_cast %d : memref<2x128x1x512xi16, #nisa.mem<hbm>> to memref<2x128x1x512x!nisa.float4_e2m1fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT: %e = nisa.view_cast %a : memref<2x128x2x4x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>> to memref<2x128x2x4xsi32, #nisa.mem<hbm>>
// CHECK:      %f = nisa.view_cast %s : memref<128x2x4xui32, strided<[8, 4, 1], offset: 1024>, #nisa.mem<hbm>> to memref<128x2x4x!nisa.float8_e4m3fn_x4, strided<[8, 4, 1], offset: 1024>, #nisa.mem<hbm>>

// examples/mx_matmul_small.mlir: QuantizeMX (e4m3fn) on both sides, then the same
// block-scaled dot to f32 and to bf16; frontend and legalized form. By hand:
//
// x = 32 x 8.0 (dim -1): max 8 = 2^3, biased 130 -> E8M0 = 130 - 8 = 122, x * 2^5:
//     8 -> 256 = 2^8: e = 15 -> 0 1111 000 = 0x78; every word 0x78787878.
// w (dim -2, i.e. down each column of 32):
//   column 0 = 31 x 1.0, then 1.125: max 1.125, biased 127 -> E8M0 = 119, x * 2^8:
//     1.0 -> 256 -> 0x78; 1.125 -> 288 = 1.125 * 2^8: m = 001 -> 0x79
//     words (4 rows each): 7 x 0x78787878, then 0x79787878 (element 31 in the high byte)
//   column 1 = 16 x 1.0, 16 x -0.5: max 1.0 -> E8M0 = 119, x * 2^8:
//     -0.5 -> -128 = -2^7: e = 14 -> 1 1110 000 = 0xf0
//     words: 4 x 0x78787878, 4 x 0xf0f0f0f0
// Every element quantizes exactly, so the dot is exact in f32:
//   column 0: 31 * 8 * 1.0 + 8 * 1.125 = 248 + 9 = 257
//   column 1: 16 * 8 * 1.0 + 16 * 8 * -0.5 = 128 - 64 = 64
// and bf16 rounds 257 once: a tie between 256 (1.0000000 * 2^8) and 258 (mantissa
// 0000001), to even: 256.

// RUN: mx-run %examples/mx_matmul_small.mlir --print-values | filecheck %s
// RUN: mx-run %examples/mx_matmul_small.mlir --print-values -p legalize-quantize-mx,legalize-scaled-matmul | filecheck %s
// RUN: mx-run %examples/mx_matmul_small.mlir --print-values -p legalize-scaled-matmul | filecheck %s

// CHECK:      result0: tensor<1x2xf32> shape=(1, 2) dtype=float32 min=64 max=257 mean=160.5 nan=0
// CHECK-NEXT: result0 = {{\[\[}}257.0, 64.0]]
// CHECK-NEXT: result1: tensor<1x2xbf16> shape=(1, 2) dtype=bfloat16 min=64 max=256 mean=160 nan=0
// CHECK-NEXT: result1 = {{\[\[}}256.0, 64.0]]
// CHECK-NEXT: result2.0: tensor<1x8xui32>
// CHECK-NEXT: result2.0 = {{\[\[}}0x78787878, 0x78787878, 0x78787878, 0x78787878, 0x78787878, 0x78787878, 0x78787878, 0x78787878]]
// CHECK-NEXT: result2.1: tensor<1x1xf8E8M0FNU>
// CHECK-NEXT: result2.1 = e8m0 bytes {{\[\[}}122]]
// CHECK-NEXT: result3.0: tensor<8x2xui32>
// CHECK-NEXT: result3.0 = {{\[\[}}0x78787878, 0x78787878],
// CHECK-NEXT: [0x78787878, 0x78787878],
// CHECK-NEXT: [0x78787878, 0x78787878],
// CHECK-NEXT: [0x78787878, 0x78787878],
// CHECK-NEXT: [0x78787878, 0xf0f0f0f0],
// CHECK-NEXT: [0x78787878, 0xf0f0f0f0],
// CHECK-NEXT: [0x78787878, 0xf0f0f0f0],
// CHECK-NEXT: [0x79787878, 0xf0f0f0f0]]
// CHECK-NEXT: result3.1: tensor<1x2xf8E8M0FNU>
// CHECK-NEXT: result3.1 = e8m0 bytes {{\[\[}}119, 119]]

// QuantizeMX on examples/quantize_mx.mlir (constant bf16 input, 3 rows x one 32-element
// block, quantized along the last dim), frontend and legalized form. The expected
// values are worked out by hand from the MX rules (docs: spec mx-quantize-numerics):
//
//   E8M0     = max(1, max(0, maxBiasedExp(block) - EMAX)), EMAX = 8 (e4m3fn), 15 (e5m2)
//   element  = RNE-narrow(x * 2^(127 - E8M0)), saturating to the format's max finite
//   ui32 word = 4 consecutive elements, the first one in the low byte (byte 0)
//
// e4m3fn (bias 7; code = s eeee mmm):
//   row 0: max |x| = 3.0 = 1.5 * 2^1, biased exponent 128 -> E8M0 = 128 - 8 = 120, x * 2^7
//     1.0 -> 128 = 2^7          : e = 14        -> 0 1110 000 = 0x70
//    -0.5 -> -64 = -2^6         : e = 13        -> 1 1101 000 = 0xe8
//     3.0 -> 384 = 1.5 * 2^8    : e = 15, m = 4 -> 0 1111 100 = 0x7c
//     0.25 -> 32 = 2^5          : e = 12        -> 0 1100 000 = 0x60   word 0 = 0x607ce870
//     0.30078125 -> 38.5: grid step 4 in [32, 64): 36 | 40, nearer 40 = 1.25 * 2^5 -> 0x62
//     0.296875   -> 38  : a tie 36 (m = 001) | 40 (m = 010): to even, 40         -> 0x62
//                                                                  word 1 = 0x00006262
//   row 1: all zero: max biased exponent 0 - 8 < 0 -> 0 -> zero floor -> E8M0 = 1, words 0
//   row 2: max |x| = 480 = 1.875 * 2^8, biased 135 -> E8M0 = 127, x * 1
//     480 -> above 448 (the max finite, 0 1111 110): saturates       -> 0x7e
//     1.0 -> e = 7                                    -> 0 0111 000   = 0x38
//    -448                                             -> 1 1111 110   = 0xfe
//     2^-20 -> below half the smallest subnormal (2^-10): 0           -> 0x00
//                                                                  word 0 = 0x00fe387e
// e5m2 (bias 15; code = s eeeee mm):
//   row 0: E8M0 = 128 - 15 = 113, x * 2^14
//     1.0 -> 2^14: e = 29 -> 0x74;  -0.5 -> -2^13: e = 28 -> 0xf0
//     3.0 -> 1.5 * 2^15: e = 30, m = 10 -> 0x7a;  0.25 -> 2^12: e = 27 -> 0x6c
//                                                                  word 0 = 0x6c7af074
//     0.30078125 -> 4928 = 1.203125 * 2^12: 1.0 | 1.25, nearer 1.25: e = 27, m = 01 -> 0x6d
//     0.296875   -> 4864 = 1.1875 * 2^12: nearer 1.25                          -> 0x6d
//                                                                  word 1 = 0x00006d6d
//   row 1: E8M0 = 1, words 0
//   row 2: E8M0 = 135 - 15 = 120, x * 2^7
//     480 -> 61440 = 1.875 * 2^15: a tie 1.75 * 2^15 | 2^16, to even 2^16, above the max
//            finite 57344 = 1.75 * 2^15 (0 11110 11): saturates -> 0x7b
//     1.0 -> 2^7: e = 22 -> 0x58;  -448 -> -57344 -> 0xfb;  2^-20 -> 2^-13: e = 2 -> 0x08
//                                                                  word 0 = 0x08fb587b

// RUN: mx-run %examples/quantize_mx.mlir --print-values | filecheck %s
// RUN: mx-run %examples/quantize_mx.mlir --print-values -p legalize-quantize-mx | filecheck %s
// RUN: mx-opt %examples/quantize_mx.mlir -p legalize-quantize-mx | mx-run - --print-values | filecheck %s

// CHECK:      result0.0: tensor<3x8xui32> shape=(3, 8) dtype=uint32
// CHECK-NEXT: result0.0 = {{\[\[}}0x607ce870, 0x00006262, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000],
// CHECK-NEXT: [0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000],
// CHECK-NEXT: [0x00fe387e, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000]]
// CHECK-NEXT: result0.1: tensor<3x1xf8E8M0FNU> shape=(3, 1) dtype=float8_e8m0fnu
// CHECK-NEXT: result0.1 = e8m0 bytes {{\[\[}}120],
// CHECK-NEXT: [1],
// CHECK-NEXT: [127]]
// CHECK-NEXT: result1.0: {{.*}} shape=(3, 8) dtype=uint32
// CHECK-NEXT: result1.0 = {{\[\[}}0x6c7af074, 0x00006d6d, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000],
// CHECK-NEXT: [0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000],
// CHECK-NEXT: [0x08fb587b, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000]]
// CHECK-NEXT: result1.1: {{.*}} shape=(3, 1) dtype=float8_e8m0fnu
// CHECK-NEXT: result1.1 = e8m0 bytes {{\[\[}}113],
// CHECK-NEXT: [1],
// CHECK-NEXT: [120]]

// A hex float literal wider than its element type, or with a sign, is refused at the
// literal (a hex literal of a float is its bit pattern), in either syntax.

// RUN: not mx-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: sed -n '/^\/\/ -----/,$p' %s | not mx-opt 2>&1 | filecheck %s --check-prefix=SIGN

%0 = stablehlo.constant dense<[0x1FF80, 1.0]> : tensor<2xbf16>
// CHECK: hex-literals-errors.mlir:7:32: error: hex float literal 0x1FF80 does not fit in bf16 (16 bits)

// -----

%0 = "stablehlo.constant"() <{value = dense<[1.0, -0x3F80]> : tensor<2xbf16>}> : () -> tensor<2xbf16>
// SIGN: <stdin>:3:51: error: hex float literal -0x3F80 has a sign

// MLIR prints a non-finite float splat by its bit pattern (JAX's max-reduce init is
// dense<0xFF80> : tensor<bf16>, -inf). stablehlo.constant reads it as bits (xDSL 0.75's
// dense parser would read the hex digits as the value 65408), prints it back, and
// mx-run gives -inf; the generic form too (hex-literals.mlir: non-splat literals).

// RUN: mx-opt %s | filecheck %s
// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: mx-opt %s --print-op-generic | mx-opt | filecheck %s
// RUN: mx-run %s --print-values | filecheck %s --check-prefix=VAL
// RUN: mx-run %s --symbol reduce --print-values | filecheck %s --check-prefix=REDUCE

func.func @main() -> (tensor<bf16>, tensor<2xf32>, tensor<f8E4M3FN>) {
  %0 = stablehlo.constant dense<0xFF80> : tensor<bf16>
  %1 = stablehlo.constant dense<0x7F800000> : tensor<2xf32>
  %2 = stablehlo.constant dense<0x7F> : tensor<f8E4M3FN>
  func.return %0, %1, %2 : tensor<bf16>, tensor<2xf32>, tensor<f8E4M3FN>
}

func.func @reduce() -> tensor<bf16> {
  %x = stablehlo.constant dense<[-3.0, -2.0]> : tensor<2xbf16>
  %init = stablehlo.constant dense<0xFF80> : tensor<bf16>
  %m = stablehlo.reduce(%x init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<2xbf16>, tensor<bf16>) -> tensor<bf16>
  func.return %m : tensor<bf16>
}

// CHECK: %0 = stablehlo.constant dense<0xff80> : tensor<bf16>
// CHECK-NEXT: %1 = stablehlo.constant dense<0x7f800000> : tensor<2xf32>
// CHECK-NEXT: %2 = stablehlo.constant dense<0x7f> : tensor<f8E4M3FN>

// VAL: result0 = -inf
// VAL: result1 = [inf, inf]
// VAL: result2 = nan

// REDUCE: result0 = -2

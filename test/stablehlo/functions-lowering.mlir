// StableHLO's elementwise functions lower onto nisa.activation of the same function (the
// Scalar engine's, mxdsl.numerics.elementary's), power by 2 onto square and by another
// integer onto the ALU's power, and bir.activation after lower-nisa-to-bir; one seed
// gives the same bits at stablehlo, nisa and bir.

// RUN: mx-opt %s -p import-stablehlo,lower-hlo-to-nisa -o %t.nisa.mlir
// RUN: filecheck %s < %t.nisa.mlir
// RUN: mx-opt %t.nisa.mlir -p lower-nisa-to-bir | filecheck %s --check-prefix=BIR
// RUN: mx-opt %t.nisa.mlir -p lower-nisa-to-bir -o %t.bir.mlir
// RUN: mx-run %s --random-inputs 5 --quiet --print-values > %t.stablehlo
// RUN: mx-run %t.nisa.mlir --random-inputs 5 --quiet --print-values > %t.nisa
// RUN: mx-run %t.bir.mlir --random-inputs 5 --quiet --print-values > %t.bir
// RUN: diff %t.stablehlo %t.nisa
// RUN: diff %t.stablehlo %t.bir

func.func @main(%x: tensor<2x3x64xf32>, %y: tensor<256xbf16>) -> (tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<256xbf16>, tensor<256xbf16>, tensor<2x3x64xf32>) {
  %three = stablehlo.constant dense<3.0> : tensor<2x3x64xf32>
  %two = stablehlo.constant dense<2.0> : tensor<256xbf16>
  %0 = stablehlo.exponential %x : tensor<2x3x64xf32>
  %1 = stablehlo.exponential_minus_one %x : tensor<2x3x64xf32>
  %2 = stablehlo.log %0 : tensor<2x3x64xf32>
  %3 = stablehlo.log_plus_one %0 : tensor<2x3x64xf32>
  %4 = stablehlo.logistic %x : tensor<2x3x64xf32>
  %5 = stablehlo.tanh %x : tensor<2x3x64xf32>
  %6 = stablehlo.sqrt %0 : tensor<2x3x64xf32>
  %7 = stablehlo.rsqrt %0 : tensor<2x3x64xf32>
  %8 = chlo.erf %x : tensor<2x3x64xf32> -> tensor<2x3x64xf32>
  %9 = chlo.erfc %x : tensor<2x3x64xf32> -> tensor<2x3x64xf32>
  %10 = stablehlo.power %y, %two : tensor<256xbf16>
  %11 = chlo.square %y : tensor<256xbf16> -> tensor<256xbf16>
  %12 = stablehlo.power %x, %three : tensor<2x3x64xf32>
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<2x3x64xf32>, tensor<256xbf16>, tensor<256xbf16>, tensor<2x3x64xf32>
}

// [2, 3, 64] (6 rows of 64) runs as [128, 3], [256] as [128, 2]: all partitions busy
// CHECK: nisa.activation %{{.*}}, exp %{{.*}} : memref<128x3xf32, #nisa.mem<sbuf>>
// CHECK: nisa.activation %{{.*}}, expm1 %
// CHECK: nisa.activation %{{.*}}, log %
// CHECK: nisa.activation %{{.*}}, log1p %
// CHECK: nisa.activation %{{.*}}, sigmoid %
// CHECK: nisa.activation %{{.*}}, tanh %
// CHECK: nisa.activation %{{.*}}, sqrt %
// CHECK: nisa.activation %{{.*}}, rsqrt %
// CHECK: nisa.activation %{{.*}}, erf %
// CHECK: nisa.activation %{{.*}}, erfc %
// CHECK: nisa.activation %{{.*}}, square %{{.*}} : memref<128x2xbf16, #nisa.mem<sbuf>>
// CHECK: nisa.activation %{{.*}}, square %
// CHECK: nisa.tensor_tensor %{{.*}}, power %

// BIR-COUNT-12: bir.activation
// BIR: bir.tensor_tensor {{.*}}power

// One i1 convention at every level: the kernel records its i1 arguments (mx.i1_args,
// kept at bir), and mx-run --random-inputs draws them as truth values from the same
// draws as the i1 tensor, so one seed gives the same results at stablehlo, nisa and bir.

// RUN: mx-opt %s -p import-stablehlo,lower-hlo-to-nisa -o %t.nisa.mlir
// RUN: mx-opt %t.nisa.mlir -p lower-nisa-to-bir -o %t.bir.mlir
// RUN: filecheck %s < %t.nisa.mlir
// RUN: filecheck %s < %t.bir.mlir
// RUN: mx-run %s --random-inputs 3 --quiet --print-values > %t.stablehlo
// RUN: mx-run %t.nisa.mlir --random-inputs 3 --quiet --print-values > %t.nisa
// RUN: mx-run %t.bir.mlir --random-inputs 3 --quiet --print-values > %t.bir
// RUN: diff %t.stablehlo %t.nisa
// RUN: diff %t.stablehlo %t.bir

func.func @main(%p: tensor<4x8xi1>, %a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = stablehlo.select %p, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// CHECK: mx.i1_args = ["arg0"]

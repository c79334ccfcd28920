// stablehlo.reduce add lowers to one nisa.tensor_reduce add per 128 rows (the whole
// row in one tile: the exact sum rounded once, docs/numerics.md "Float sums"); short
// rows go several to a partition ([100, 2, 8]: each row reduced on its own); a nonzero
// init is one more column of the tile (a memset); a reduction over the partition dim
// gathers its elements onto the free axis, one strided DMA (a nisa.permute view) per
// tile. The three levels give the same bits.

// RUN: mx-opt %s -p import-stablehlo,lower-hlo-to-nisa -o %t.nisa.mlir
// RUN: filecheck %s < %t.nisa.mlir
// RUN: mx-opt %t.nisa.mlir -p lower-nisa-to-bir -o %t.bir.mlir
// RUN: filecheck %s --check-prefix=BIR < %t.bir.mlir
// RUN: mx-run %s --random-inputs 3 --quiet --print-values > %t.stablehlo
// RUN: mx-run %t.nisa.mlir --random-inputs 3 --quiet --print-values > %t.nisa
// RUN: mx-run %t.bir.mlir --random-inputs 3 --quiet --print-values > %t.bir
// RUN: diff %t.stablehlo %t.nisa
// RUN: diff %t.stablehlo %t.bir

func.func @main(%a: tensor<200x8xf32>) -> (tensor<200xf32>, tensor<8xf32>, tensor<200xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<200x8xf32>, tensor<f32>) -> tensor<200xf32>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<200x8xf32>, tensor<f32>) -> tensor<8xf32>
  %t = stablehlo.reduce(%a init: %h) applies stablehlo.add across dimensions = [1] : (tensor<200x8xf32>, tensor<f32>) -> tensor<200xf32>
  return %r, %s, %t : tensor<200xf32>, tensor<8xf32>, tensor<200xf32>
}

// The minor dim: 2 rows of 8 per partition.
// CHECK: scf.for
// CHECK: nisa.dma_copy
// CHECK: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [2] : memref<100x2xf32, #nisa.mem<sbuf>>, memref<100x2x8xf32
// The partition dim: 8 results on the partitions, 200 elements gathered per row.
// CHECK: scf.for
// CHECK: nisa.permute
// CHECK-NEXT: nisa.dma_copy
// CHECK: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1] : memref<8x1xf32, #nisa.mem<sbuf>>, memref<8x200xf32
// The init 0.5 in a ninth column.
// CHECK: nisa.memset {{.*}}5.000000e-01
// CHECK: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1] : memref<{{.*}}x1xf32, #nisa.mem<sbuf>>, memref<{{.*}}x9xf32

// BIR-COUNT-3: bir.tensor_reduce {{.*}}, add

// A lowered op whose value is completed by partial-tile writes: the transposes of this
// JAX export (lines 5 and 6) are lowered to one DMA per row. Each nisa or bir run of one
// source line ends with a `buffer` record of the whole HBM buffer its writes filled, so
// the StableHLO run and its nisa and bir lowerings agree op by op under source
// alignment (not 'shapes differ' against the last row). test_mx_diff.py injects a
// one-ulp fault into a middle row and checks that it is named at the transpose.

// RUN: mx-run %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir --random-inputs 0 --quiet --trace %t.stablehlo.npz
// RUN: mx-run %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir --random-inputs 0 --quiet --trace %t.nisa.npz -p import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa
// RUN: mx-run %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir --random-inputs 0 --quiet --trace %t.bir.npz -p import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir
// RUN: mx-diff %t.stablehlo.npz %t.nisa.npz | filecheck %s
// RUN: mx-diff %t.stablehlo.npz %t.bir.npz | filecheck %s

// CHECK: no difference in 107 aligned values

// Files lowered one pass at a time keep the source locations when written with
// --print-debuginfo --located-diagnostics, so the hlo and nisa traces of two separately
// lowered files align by source and mx-diff finds them equal (exit 0).
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_f32.mlir -p import-stablehlo --print-debuginfo --located-diagnostics -o %t.hlo.mlir
// RUN: mx-opt %t.hlo.mlir -p lower-hlo-to-nisa --print-debuginfo --located-diagnostics -o %t.nisa.mlir
// RUN: filecheck %s --check-prefix=LOC < %t.nisa.mlir
// RUN: mx-run %t.hlo.mlir --random-inputs 1 --trace %t.hlo.npz -o %t.a.npz
// RUN: mx-run %t.nisa.mlir --random-inputs 1 --trace %t.nisa.npz -o %t.b.npz
// RUN: mx-diff %t.hlo.npz %t.nisa.npz | filecheck %s

// LOC: nisa.nc_matmul {{.*}} loc("{{.*}}layer_ffn_relu_f32.mlir":3:5)
// LOC: nisa.nc_matmul {{.*}} loc("{{.*}}layer_ffn_relu_f32.mlir":5:5)
// CHECK: no difference in {{[0-9]+}} aligned values

// examples/mx_matmul.mlir with seeded random inputs: the frontend form, the legalized
// form (-p, and through mx-opt | mx-run -) print bit-identical results.

// RUN: mx-run %examples/mx_matmul.mlir --random-inputs 0 --print-values > %t.frontend
// RUN: mx-run %examples/mx_matmul.mlir --random-inputs 0 --print-values -p legalize-quantize-mx,legalize-scaled-matmul > %t.legalized
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul | mx-run - --random-inputs 0 --print-values > %t.piped
// RUN: diff %t.frontend %t.legalized
// RUN: diff %t.frontend %t.piped
// RUN: filecheck %s < %t.frontend

// CHECK: result0: tensor<128x64xf32> shape=(128, 64) dtype=float32 min={{-[0-9.]+}} max={{[0-9.]+}} mean={{[-0-9.e]+}} nan=0
// CHECK-NEXT: result0 = {{\[\[}}

// lower-nisa-to-bir is the pipeline of its two halves: nisa-allocate records each
// on-chip buffer's address on its memref.alloc (nisa.address, bytes per partition),
// nisa-select replaces every nisa op by bir instructions at those addresses. Run one
// after the other (in one mx-opt, or through a file in between) they give
// lower-nisa-to-bir's output byte for byte.

// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa -o %t.nisa.mlir
// RUN: mx-opt %t.nisa.mlir -p lower-nisa-to-bir -o %t.whole.mlir
// RUN: mx-opt %t.nisa.mlir -p nisa-allocate,nisa-select -o %t.halves.mlir
// RUN: mx-opt %t.nisa.mlir -p nisa-allocate -o %t.allocated.mlir
// RUN: mx-opt %t.allocated.mlir -p nisa-select -o %t.selected.mlir
// RUN: diff %t.whole.mlir %t.halves.mlir
// RUN: diff %t.whole.mlir %t.selected.mlir

// The allocation: every on-chip buffer has its address, nisa ops are untouched.
// RUN: filecheck %s --check-prefix=ALLOC < %t.allocated.mlir
// ALLOC:     %q_src = memref.alloc() {nisa.address = 0 : i64} : memref<128x32xbf16, #nisa.mem<sbuf>>
// ALLOC:     memref.alloc() {nisa.address = {{[0-9]+}} : i64} : memref<{{.*}}, #nisa.mem<psum>>
// ALLOC:     nisa.nc_matmul_mx
// ALLOC-NOT: bir.

// print-usage belongs to the allocation, as to the pipeline.
// RUN: mx-opt %t.nisa.mlir -p nisa-allocate{print-usage=true} -o /dev/null 2>&1 | filecheck %s --check-prefix=USAGE
// RUN: mx-opt %t.nisa.mlir -p lower-nisa-to-bir{print-usage=true} -o /dev/null 2>&1 | filecheck %s --check-prefix=USAGE
// USAGE: lower-nisa-to-bir: @main on trn3: sbuf {{[0-9]+}} of 262144 bytes per partition

// Selection without allocation is refused at the first buffer.
// RUN: not mx-opt %t.nisa.mlir -p nisa-select 2>&1 | filecheck %s --check-prefix=UNALLOCATED
// UNALLOCATED: error: 'memref.alloc' op lower-nisa-to-bir: the on-chip buffer %{{.*}} has no address; run nisa-allocate first

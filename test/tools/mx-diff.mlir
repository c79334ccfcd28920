// mx-run --trace records every op's value; mx-diff names the first op whose values differ
// between two versions of this nisa program that differ in one op (line 40: subtract in
// place of add), with the count of differing elements, ulps, and both bit patterns.
// Tracing changes no output bit. Bad input is one line, exit 2 (`not` accepts any
// non-zero status; test_mx_diff.py checks the codes themselves).

// RUN: python -c "import numpy as np; np.savez('%t.in.npz', arg0=np.arange(32, dtype=np.float32).reshape(4, 8), arg1=np.full((4, 8), 0.5, np.float32), arg2=np.zeros((4, 8), np.float32))"
// RUN: mx-run %s --inputs %t.in.npz -o %t.plain.npz --quiet
// RUN: mx-run %s --inputs %t.in.npz -o %t.traced.npz --quiet --trace %t.a.npz
// RUN: cmp %t.plain.npz %t.traced.npz
// RUN: sed 's/%%sum, add %%x/%%sum, subtract %%x/' %s > %t.b.mlir
// RUN: mx-run %t.b.mlir --inputs %t.in.npz --quiet --trace %t.b.npz
// RUN: mx-diff %t.a.npz %t.a.npz | filecheck %s --check-prefix=SAME
// RUN: not mx-diff %t.a.npz %t.b.npz | filecheck %s --check-prefix=DIFF
// RUN: mx-run %t.b.mlir --inputs %t.in.npz --quiet -o %t.b.out.npz
// RUN: not mx-diff %t.a.npz %t.b.out.npz | filecheck %s --check-prefix=OUT
// RUN: mx-run %s --inputs %t.in.npz --quiet --trace %t.f.npz --trace-filter nisa.tensor_tensor,38-40 --trace-filter 36-37
// RUN: mx-diff %t.f.npz %t.a.npz | filecheck %s --check-prefix=FILTER
// RUN: not mx-diff %t.a.npz %t.missing.npz 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not mx-run %s --inputs %t.in.npz --trace-filter 'a b' --trace %t.x.npz 2>&1 | filecheck %s --check-prefix=FILTERBAD
// RUN: not mx-run %s --inputs %t.in.npz --trace-filter nisa.* 2>&1 | filecheck %s --check-prefix=NOTRACE
// RUN: rm -f %t.y.npz
// RUN: not mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 0 --trace %t.y.npz --max-memory 12K 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: not ls %t.y.npz
// A JAX export run as it is: the same bytes with and without a trace.
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet -o %t.jax0.npz
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet -o %t.jax1.npz --trace %t.jax.trace.npz
// RUN: cmp %t.jax0.npz %t.jax1.npz

func.func @main(%a: memref<4x8xf32, #nisa.mem<hbm>>, %b: memref<4x8xf32, #nisa.mem<hbm>>,
                %out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %x = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %y = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %sum = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %prod = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %x, %a : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<hbm>>
  nisa.dma_copy %y, %b : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<hbm>>
  nisa.tensor_tensor %prod, multiply %x, %y
      : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.tensor_tensor %sum, add %x, %prod
      : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %out, %sum : memref<4x8xf32, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  func.return
}

// SAME: no difference in {{[0-9]+}} aligned values

// DIFF:      first difference: value 3 of {{.*}}.a.npz in program order
// DIFF-NEXT:   {{.*}}.a.npz: nisa.tensor_tensor dst at {{.*}}mx-diff.mlir:40:3 core 0
// DIFF-NEXT:   {{.*}}.b.npz: nisa.tensor_tensor dst at {{.*}}.b.mlir:40:3 core 0
// x = 0..31, prod = x / 2: add gives 1.5 x, subtract 0.5 x; they agree at x = 0 only,
// differ most at x = 31 (46.5 and 15.5), first at x = 1: 1.5 = 0x3fc00000, 0.5 = 0x3f000000
// DIFF-NEXT:   31 of 32 elements differ (float32); largest difference {{[0-9]+}} ulps, 31 absolute
// DIFF-NEXT:   first at index (0, 1): 1.5 (0x3fc00000) and 0.5 (0x3f000000)

// OUT:      first difference: value {{[0-9]+}} of {{.*}}.a.npz in program order
// OUT-NEXT:   {{.*}}.a.npz: output arg2
// OUT-NEXT:   {{.*}}.b.out.npz: output arg2

// FILTER: no difference in 5 aligned values

// MISSING: mx-diff: error: cannot open '{{.*}}missing.npz': no such file
// MISSING-NOT: Traceback

// FILTERBAD: mx-run: error: --trace-filter item 'a b' is neither an op name

// NOTRACE: mx-run: error: --trace-filter without --trace: give --trace FILE.npz

// BUDGET: nisa_matmul_tiled.mlir:4:1: error: 'func.func' op the trace needs at least {{.*}} GiB besides the run's {{.*}} GiB, more than {{.*}} GiB; narrow it with --trace-filter (op names, a line range) or raise --max-memory

// shard_on_i_hybrid: a static prefix of num_static_block blocks (default N - E), then
// the data-dependent loop: conditions summed on chip, the sum loaded into a register,
// and an scf.for from the prefix length to that register value.
// RUN: mx-moe emit --implementation shard_on_i_hybrid --tokens 600 | filecheck %s
// RUN: mx-moe emit --implementation shard_on_i --tokens 600 | filecheck %s --check-prefix=STATIC
// T = 600, TopK = 2, E = 4, B = 256: N = ceil(1197 / 256) + 3 = 8, static prefix N - E = 4.

// CHECK: // arg6 conditions [9] i32 in
// CHECK: func.func @main(
// CHECK-DAG: %[[ZERO:[0-9]+]] = arith.constant 0 : index
// CHECK-DAG: %[[NS:[0-9]+]] = arith.constant 4 : index
// CHECK: scf.for %{{[0-9]+}} = %[[ZERO]] to %[[NS]] step
// CHECK: nisa.sendrecv
// CHECK: nisa.dma_copy %[[CSB:[0-9]+]], %6 : memref<1x9xi32, #nisa.mem<sbuf>>, memref<9xi32, #nisa.mem<hbm>>
// CHECK-NEXT: nisa.tensor_reduce %[[COUNT:[0-9]+]], add %[[CSB]] axes [1]
// CHECK-NEXT: %[[LIVE:[0-9]+]] = nisa.register_load %[[COUNT]] : memref<1x1xi32, #nisa.mem<sbuf>> -> index
// CHECK-NEXT: scf.for %{{[0-9]+}} = %[[NS]] to %[[LIVE]] step
// CHECK: nisa.sendrecv
// CHECK: nisa.core_barrier

// STATIC-NOT: conditions
// STATIC-NOT: nisa.tensor_reduce
// STATIC: scf.for
// STATIC-NOT: nisa.register_load {{.*}} memref<1x1xi32, #nisa.mem<sbuf>>

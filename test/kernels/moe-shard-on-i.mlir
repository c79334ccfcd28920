// The I-shard kernels: each core takes half of I (i0 = core * I/2), exchanges the
// down-projection partials per block with sendrecv to/from the peer (1 - core), and
// synchronises every block with a core_barrier; one output plane.
// RUN: mx-moe emit --implementation shard_on_i | filecheck %s
// RUN: mx-moe emit --implementation shard_on_i_hybrid | filecheck %s
// RUN: mx-moe emit --implementation shard_on_i_dropping --blocks 4 | filecheck %s

// CHECK: // arg{{[0-9]+}} output [101, 512] bf16 out
// CHECK: func.func @main(
// CHECK-DAG: %[[ONE:[0-9]+]] = arith.constant 1 : index
// CHECK-DAG: %[[HALF_I:[0-9]+]] = arith.constant 128 : index
// CHECK: %[[CORE:[0-9]+]] = nisa.program_id
// CHECK-NEXT: %[[PEER:[0-9]+]] = arith.subi %[[ONE]], %[[CORE]] : index
// CHECK-NEXT: %[[I0:[0-9]+]] = arith.muli %[[CORE]], %[[HALF_I]] : index
// CHECK: nisa.core_barrier %[[OUT:[0-9]+]] : memref<101x512xbf16
// CHECK: scf.for
// Gate/up weights of my half of I: columns starting at i0.
// CHECK: arith.addi %[[I0]],
// CHECK: nisa.nc_matmul
// CHECK: nisa.sendrecv %{{[0-9]+}}, %{{[0-9]+}} to %[[PEER]] from %[[PEER]] pipe 0
// CHECK-NEXT: nisa.tensor_tensor %[[OWN:[0-9]+]], add %[[OWN]], %{{[0-9]+}}
// CHECK: nisa.core_barrier %[[OUT]]

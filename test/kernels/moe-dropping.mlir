// shard_on_i_dropping: N == E (block b is expert b; block_to_expert is never read, so
// no register_load), each 2048-row block in two 1024-row tiles, checkpoints written.
// RUN: mx-moe emit --implementation shard_on_i_dropping --experts 2 --tokens 700 --block-size 2048 --intermediate 64 -o %t.mlir
// RUN: filecheck %s --input-file %t.mlir
// RUN: not grep -q nisa.register_load %t.mlir
// RUN: not mx-moe emit --implementation shard_on_i_dropping --blocks 5 2>&1 | filecheck %s --check-prefix=ERR

// CHECK: // arg{{[0-9]+}} gate_up_activations_T [2, 2, 64, 2048] bf16 out
// CHECK: // arg{{[0-9]+}} down_activations [2, 2048, 512] bf16 out
// CHECK: func.func @main(
// CHECK-DAG: %[[TWO:[0-9]+]] = arith.constant 2 : index
// CHECK-DAG: %[[TILE:[0-9]+]] = arith.constant 1024 : index
// CHECK: memref<128x1x4x1024xbf16, #nisa.mem<sbuf>>
// CHECK: scf.for %[[B:[0-9]+]] = %{{[0-9]+}} to %[[TWO]] step
// CHECK-NEXT: scf.for %[[SUB:[0-9]+]] = %{{[0-9]+}} to %[[TWO]] step
// CHECK: arith.muli %[[SUB]], %[[TILE]] : index
// CHECK: nisa.sendrecv
// CHECK: nisa.tensor_scalar %[[EXPERT:[0-9]+]], %[[EXPERT]], add %{{[0-9]+}} : memref<128xf32

// ERR: mx-moe: error: shard_on_i_dropping needs the N == E layout (one block per expert): got N = 5 blocks for E = 4 experts

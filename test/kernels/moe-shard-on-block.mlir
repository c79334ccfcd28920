// The structure of the emitted shard_on_block kernel: the PING_PONG block -> core map
// (block = 2 * (3 * o + g) + core, BLOCK_PARALLEL_FACTOR = 3) with the tail guard
// block < N, the phase-1 loads and phase-2 compute of each 3-block group, no per-block
// exchange (no sendrecv anywhere), and the two-plane epilogue reduce.
// RUN: mx-moe emit --implementation shard_on_block --top-k 2 --tokens 1000 -o %t.mlir
// RUN: filecheck %s --input-file %t.mlir
// RUN: not grep -q nisa.sendrecv %t.mlir
// T = 1000, TopK = 2, E = 4, B = 128: N = ceil((2000 - 3) / 128) + 3 = 19 blocks.

// CHECK: // arg{{[0-9]+}} output [1001, 2, 512] bf16 out
// CHECK: func.func @main(
// CHECK-DAG: %[[TWO:[0-9]+]] = arith.constant 2 : index
// CHECK-DAG: %[[THREE:[0-9]+]] = arith.constant 3 : index
// CHECK-DAG: %[[N:[0-9]+]] = arith.constant 19 : index
// CHECK-DAG: %[[GROUPS:[0-9]+]] = arith.constant 4 : index
// CHECK: %[[CORE:[0-9]+]] = nisa.program_id
// CHECK: nisa.core_barrier %[[OUT:[0-9]+]] : memref<1001x2x512xbf16
// CHECK: scf.for %[[O:[0-9]+]] = %{{[0-9]+}} to %[[GROUPS]] step
// CHECK-NEXT: scf.for %[[G:[0-9]+]] = %{{[0-9]+}} to %[[THREE]] step
// CHECK-NEXT: %[[A:[0-9]+]] = arith.muli %[[O]], %[[THREE]] : index
// CHECK-NEXT: %[[B:[0-9]+]] = arith.addi %[[A]], %[[G]] : index
// CHECK-NEXT: %[[C:[0-9]+]] = arith.muli %[[B]], %[[TWO]] : index
// CHECK-NEXT: %[[BLK:[0-9]+]] = arith.addi %[[C]], %[[CORE]] : index
// CHECK-NEXT: %[[IN:[0-9]+]] = arith.cmpi ult, %[[BLK]], %[[N]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// Phase 1: token ids, the hidden gather and the PE transposes.
// CHECK: nisa.dma_copy %{{[0-9]+}}, %{{[0-9]+}}[%{{[0-9]+}} : memref<128x1xi32
// CHECK: nisa.nc_transpose
// Phase 2: the same map again, then the expert's weights and matmuls.
// CHECK: scf.for %[[G2:[0-9]+]] = %{{[0-9]+}} to %[[THREE]] step
// CHECK-NEXT: %[[A2:[0-9]+]] = arith.muli %[[O]], %[[THREE]] : index
// CHECK-NEXT: %[[B2:[0-9]+]] = arith.addi %[[A2]], %[[G2]] : index
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.muli %[[B2]], %[[TWO]] : index
// CHECK-NEXT: %[[BLK2:[0-9]+]] = arith.addi %[[C2]], %[[CORE]] : index
// CHECK-NEXT: %[[IN2:[0-9]+]] = arith.cmpi ult, %[[BLK2]], %[[N]] : index
// CHECK-NEXT: scf.if %[[IN2]] {
// CHECK: nisa.register_load
// CHECK: nisa.nc_matmul
// CHECK: nisa.nc_matmul {{.*}} accumulate
// The output plane of this core: output[:, core, :].
// CHECK: nisa.dma_copy %{{[0-9]+}}[%{{[0-9]+}} : memref<128x1xi32
// Epilogue: barrier, plane 0 := plane 0 + plane 1, plane 1 := 0 (one 512-column chunk
// at a time from the zeroed output-row tile).
// CHECK: nisa.core_barrier %[[OUT]]
// CHECK: nisa.dma_compute %[[P0:[0-9]+]], (%[[P0]], %[[P1:[0-9]+]])
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[Z:[0-9]+]] = memref.subview
// CHECK-NEXT: %[[H0:[0-9]+]] = arith.muli
// CHECK-NEXT: %[[P1H:[0-9]+]] = memref.subview %[[P1]][0, %[[H0]]] [128, 512]
// CHECK-NEXT: nisa.dma_copy %[[P1H]], %[[Z]]

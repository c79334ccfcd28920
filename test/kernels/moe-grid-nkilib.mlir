// mx-moe grid --nkilib: nkilib's LNC2 grid per variant, every size built with every
// option combination (here shard_on_i_mx: biases x 3 MX weight formats = 6 builds per
// size) and its footprint checked on the variant's target; one row per size.
// RUN: mx-moe grid --nkilib --implementations shard_on_i_mx | filecheck %s
// RUN: not mx-moe grid --nkilib --sample-tokens -1 2>&1 | filecheck %s --check-prefix=NEG

// CHECK: variant H B I target builds SBUF max PSUM max sets chunk rel err verdict
// CHECK-NEXT: shard_on_i_mx 3072 256 1024 trn3 6 {{[0-9.]+}}Ki {{[0-9.]+}}Ki - {{[0-9]+}} - ok
// CHECK-COUNT-10: shard_on_i_mx {{.*}} trn3 6 {{.*}} ok
// CHECK-NEXT: shard_on_i_mx 7168 512 2048 trn3 6 {{.*}} ok
// CHECK-NEXT: 12 sizes: 12 ok, 0 failed
// NEG: mx-moe: error: --sample-tokens must be >= 0, got -1

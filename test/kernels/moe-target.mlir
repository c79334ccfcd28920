// mx-moe --target: the header states the target and the kernel's peak on-chip bytes per
// partition against its capacity (mxdsl/targets.py: trn3 256 KiB SBUF, trn2 224 KiB,
// PSUM 16 KiB on both); the MX variants are refused on trn2, which has no MX instructions.
// RUN: mx-moe emit --implementation shard_on_i | filecheck %s --check-prefix=TRN3
// RUN: mx-moe emit --implementation shard_on_i --target trn2 | filecheck %s --check-prefix=TRN2
// RUN: mx-moe emit --implementation shard_on_i_mx | filecheck %s --check-prefix=MX3
// RUN: not mx-moe emit --implementation shard_on_i_mx --target trn2 -o %t.mlir 2>&1 | filecheck %s --check-prefix=MX2
// RUN: not test -e %t.mlir
// RUN: not mx-moe run --implementation shard_on_block_mx --target trn2 2>&1 | filecheck %s --check-prefix=MXB2
// RUN: not mx-moe emit --target trn4 2>&1 | filecheck %s --check-prefix=UNKNOWN

// TRN3: // mx-moe emit --implementation shard_on_i: H=512 I=256
// TRN3-NEXT: // target: trn3 (NeuronCore-v4): SBUF 32 MiB = 128 x 256 KiB, PSUM 2 MiB = 128 x 16 KiB in 8 banks of 2 KiB
// TRN3-NEXT: // footprint: peak bytes per partition on trn3: SBUF {{[1-9][0-9]*}} of 262144 ({{[0-9.]+}}%), PSUM {{[1-9][0-9]*}} of 16384 ({{[0-9.]+}}%)
// TRN2: // target: trn2 (NeuronCore-v3): SBUF 28 MiB = 128 x 224 KiB, PSUM 2 MiB = 128 x 16 KiB in 8 banks of 2 KiB, no MX instructions
// TRN2-NEXT: // footprint: peak bytes per partition on trn2: SBUF {{[1-9][0-9]*}} of 229376 ({{[0-9.]+}}%), PSUM {{[1-9][0-9]*}} of 16384
// MX3: // footprint: peak bytes per partition on trn3: SBUF {{[1-9][0-9]*}} of 262144
// MX3: nisa.nc_matmul_mx
// MX2: mx-moe: error: shard_on_i_mx uses MX instructions (nc_matmul_mx, quantize_mx), which trn2 (NeuronCore-v3) does not have: build it for trn3, or use the non-MX variant shard_on_i
// MXB2: mx-moe: error: shard_on_block_mx uses MX instructions {{.*}} the non-MX variant shard_on_block
// UNKNOWN: mx-moe emit: error: argument --target: invalid choice: 'trn4' (choose from 'trn3', 'trn2')

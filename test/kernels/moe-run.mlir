// The emitted kernel is an ordinary function mx-run runs on 2 cores; mx-moe run
// compares a variant with the golden; errors come before any work.
// RUN: mx-moe emit --implementation shard_on_block --bias -o %t.mlir --write-inputs %t.npz
// RUN: mx-run %t.mlir --cores 2 --inputs %t.npz -o %t.out.npz | filecheck %s --check-prefix=KERNEL
// RUN: mx-moe run --implementation shard_on_i --no-progress --activation gelu --scaling pre_scale --clamp-up -3,3 | filecheck %s --check-prefix=RESULT
// RUN: mx-moe run --implementation shard_on_i_hybrid --dtype f32 --fp8-weights --clamp-gate ,0.5 --bias 2>%t.err | filecheck %s --check-prefix=FP32
// RUN: filecheck %s --check-prefix=PROGRESS < %t.err
// RUN: not mx-moe run --implementation shard_on_i_mx --intermediate 512 2>&1 | filecheck %s --check-prefix=MX
// RUN: not mx-moe run --hidden 768 2>&1 | filecheck %s --check-prefix=HIDDEN
// RUN: not mx-moe emit --implementation shard_on_block --checkpoint 2>&1 | filecheck %s --check-prefix=CKPT
// RUN: mx-moe emit --implementation shard_on_block --hidden 3072 --intermediate 2048 --experts 8 --tokens 1024 --block-size 512 --top-k 4 --target trn2 --gate-up-chunk 256 | filecheck %s --check-prefix=SHRUNK
// RUN: not mx-moe emit --implementation shard_on_block --hidden 7168 --tokens 1024 --block-size 1024 --dtype f32 2>&1 | filecheck %s --check-prefix=SBUF
// RUN: not mx-moe emit --implementation shard_on_block --gate-up-chunk 100 2>&1 | filecheck %s --check-prefix=CHUNK

// KERNEL: arg8: memref<101x2x512xbf16, #nisa.mem<hbm>> shape=(101, 2, 512) dtype=bfloat16 {{.*}} nan=0

// RESULT: shard_on_i: H=512 I=256 E=4 T=100 B=256 TopK=2 N=4 dtype=bf16 activation=gelu scaling=pre_scale
// RESULT-NEXT: footprint: peak bytes per partition on trn3: SBUF {{[0-9]+}} of 262144 ({{.*}}%), PSUM {{[0-9]+}} of 16384 ({{.*}}%)
// RESULT-NEXT: relative error (Frobenius) vs the golden: {{.*}} (tolerance 0.01: ok)
// RESULT-NEXT: kernel time (interpreter, 2 cores): {{[0-9.]+}} s (CPU {{[0-9.]+}} s)
// RESULT-NEXT: golden time (numpy): {{[0-9.]+}} s (CPU {{[0-9.]+}} s)
// RESULT-NEXT: ratio kernel / golden: {{[0-9.]+}}
// RESULT-NEXT: run in all (inputs, kernel, goldens): {{[0-9.]+}} s wall, {{[0-9.]+}} s CPU; peak resident memory {{[0-9.]+}} GiB, {{[0-9.]+}} x the HBM arguments ({{[0-9.e-]+}} GiB)

// FP32: relative error (Frobenius) vs the golden: {{.*}}e-0{{[6-9]}} (tolerance 1e-05: ok)
// stderr is not a terminal here: no bar, one plain line at the end
// PROGRESS: blocks 4/4 (100%) after {{[0-9.]+}} s

// MX: mx-moe: error: intermediate size I = 512 is not allowed for shard_on_i_mx: it must be a multiple of 1024
// HIDDEN: mx-moe: error: hidden size H = 768 must be a positive multiple of 512
// CKPT: mx-moe: error: --checkpoint, --affinity-on-i and --num-static-block are ShardOnIConfig options; shard_on_block shards on blocks

// At the benchmark sizes the block shard's buffers fit one trn2 SBUF partition; with a
// two-I-tile gate/up weight chunk (256 columns per load) the two tiles share token
// tiles. Nothing H-wide is held but the transposed hidden states: the gathered rows, the
// down weights (one I tile x 512 columns), the down result and the output rows are all
// one 512-column H chunk. When nothing fits, the largest buffers are named.
// SHRUNK: gate_up_chunk=256
// SHRUNK: footprint: peak bytes per partition on trn2: SBUF {{[0-9]+}} of 229376
// SHRUNK: memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
// SHRUNK: memref.alloc() : memref<128x3x24x512xbf16, #nisa.mem<sbuf>>
// SHRUNK-NEXT: memref.alloc() : memref<128x24x2x256xbf16, #nisa.mem<sbuf>>
// SHRUNK-NEXT: %[[WD:[0-9]+]] = memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
// SHRUNK-NEXT: %[[PG:.*]] = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
// SHRUNK-NEXT: %[[PU:.*]] = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
// Up never leaves PSUM here (no scale, bias, clamp), so it gets no SBUF tile:
// SHRUNK-NEXT: memref.alloc() : memref<128x512xf32, #nisa.mem<sbuf>>
// SHRUNK-NEXT: memref.alloc() : memref<128x16x512xbf16, #nisa.mem<sbuf>>
// SHRUNK-NEXT: %[[P0:.*]] = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
// SHRUNK-NEXT: %[[P1:.*]] = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
// SHRUNK-NEXT: %[[P2:.*]] = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
// SHRUNK-NEXT: %[[P3:.*]] = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
// SHRUNK-NEXT: memref.alloc() : memref<128x4x512xf32, #nisa.mem<sbuf>>
// SHRUNK-NEXT: memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
// The chunk's two I tiles run their gate and up passes together, all four on the same
// token tile; the second tile's gate and up use the first two down-projection PSUM
// tiles (gate/up and down never overlap):
// SHRUNK: nisa.nc_matmul %[[PG]], %{{.*}}, %[[X:[0-9]+]] :
// SHRUNK-NEXT: memref.subview
// SHRUNK-NEXT: nisa.nc_matmul %[[PU]], %{{.*}}, %[[X]] :
// SHRUNK-NEXT: memref.subview
// SHRUNK-NEXT: nisa.nc_matmul %[[P0]], %{{.*}}, %[[X]] :
// SHRUNK-NEXT: memref.subview
// SHRUNK-NEXT: nisa.nc_matmul %[[P1]], %{{.*}}, %[[X]] :
// The down projection's 4 token tiles of a block, one PSUM tile each, share every Wd
// tile, DMA'd just before them:
// SHRUNK: nisa.dma_copy %[[WD]], %{{[0-9]+}} :
// SHRUNK-NEXT: memref.subview
// SHRUNK-NEXT: nisa.nc_matmul %[[P0]], %{{.*}}, %[[WD]] :
// SHRUNK: nisa.nc_matmul %[[P1]], %{{.*}}, %[[WD]] :
// SHRUNK: nisa.nc_matmul %[[P2]], %{{.*}}, %[[WD]] :
// SHRUNK: nisa.nc_matmul %[[P3]], %{{.*}}, %[[WD]] :
// SBUF: mx-moe: error: shard_on_block needs {{[0-9.]+}} KiB per SBUF partition for its buffers, more than the 256 KiB of one trn3 partition (largest: the transposed hidden states (memref<128x1x56x1024xf32, #nisa.mem<sbuf>>, 224 KiB);
// SBUF-SAME: or use an I-shard variant
// CHUNK: mx-moe: error: gate_up_chunk = 100 is not allowed for shard_on_block at I = 256: choose one of 256, 128

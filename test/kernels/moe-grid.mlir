// mx-moe grid: every combination of the listed values against its golden, one row per
// case, a summary and exit 1 if any disagrees; a refused case stops it before any run.
// RUN: mx-moe grid --implementations shard_on_block,shard_on_i_hybrid --activations gelu_tanh_approx,swish --scalings pre_scale --top-ks 1,3 --dtypes f32 --clamp-gate -4,4 | filecheck %s --check-prefix=GRID
// RUN: not mx-moe grid --implementations shard_on_i,shard_on_i_dropping --block-size 128 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: not mx-moe grid --scalings post_scale,pre_scaled 2>&1 | filecheck %s --check-prefix=NAME

// GRID: grid: H=512 E=4 T=100, 8 cases (2 x 2 x 1 x 2 x 1)
// GRID-NEXT: variant activation scaling TopK dtype I B N rel err tol verdict kernel s
// GRID-NEXT: shard_on_block gelu_tanh_approx pre_scale 1 f32 256 128 {{[0-9]+}} {{.*}}e-0{{[6-9]}} 1e-05 ok
// GRID-NEXT: shard_on_block gelu_tanh_approx pre_scale 3 f32 256 128
// GRID-NEXT: shard_on_block swish pre_scale 1 f32 256 128
// GRID-NEXT: shard_on_block swish pre_scale 3 f32 256 128
// GRID-NEXT: shard_on_i_hybrid gelu_tanh_approx pre_scale 1 f32 256 256
// GRID-NEXT: shard_on_i_hybrid gelu_tanh_approx pre_scale 3 f32 256 256
// GRID-NEXT: shard_on_i_hybrid swish pre_scale 1 f32 256 256
// GRID-NEXT: shard_on_i_hybrid swish pre_scale 3 f32 256 256 {{[0-9]+}} {{.*}}e-0{{[6-9]}} 1e-05 ok
// GRID-NEXT: 8 cases: 8 ok, 0 failed

// REFUSED-NOT: grid:
// REFUSED: mx-moe: error: case shard_on_i silu no_scale TopK=1 bf16: block size B = 128 is not allowed for shard_on_i
// NAME: mx-moe grid: error: argument --scalings: unknown 'pre_scaled'; choose from no_scale, post_scale, pre_scale

"""The four bf16/fp8 MoE-CTE kernels, run on 2 simulated cores, against the golden.

The CI grid: H = 512, I = 256, E = 4, T = 100, B = 128 (block shard) / 256 (I shard);
every variant x activation x scaling mode x TopK {1, 2} in bf16 (1e-2 relative
Frobenius), every variant x scaling x TopK in f32 (1e-5), and the options (bias, clamps,
fp8 weights, checkpoints, affinity on I, the hybrid's runtime trip count, the dropping
variant's 1024-row tiles). Larger grids: ``mx-moe grid`` at other sizes."""

from __future__ import annotations

import numpy as np
import pytest

from mxdsl.kernels.moe_cte import (
    ActFnType,
    ExpertAffinityScaleMode,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    ShardOnIConfig,
    build_moe_cte,
)
from mxdsl.kernels.moe_cte.reference import (
    golden_for,
    make_inputs,
    relative_error,
)
from mxdsl.kernels.moe_cte.reference.golden import activation

VARIANTS = [m for m in MoECTEImplementation if not m.is_mx]
SCALINGS = [
    ExpertAffinityScaleMode.NO_SCALE,
    ExpertAffinityScaleMode.POST_SCALE,
    ExpertAffinityScaleMode.PRE_SCALE,
]
TOL = {"bf16": 1e-2, "f32": 1e-5}


def sizes_for(impl: MoECTEImplementation, top_k: int, **kw) -> MoECTESizes:
    if impl == MoECTEImplementation.shard_on_block:
        return MoECTESizes(512, 256, 4, 100, 128, top_k, **kw)
    if impl == MoECTEImplementation.shard_on_i_dropping:
        kw.setdefault("n_blocks", 4)
    return MoECTESizes(512, 256, 4, 100, 256, top_k, **kw)


def check(spec, sizes, options, quant=None, seed=0, live=None):
    kernel = build_moe_cte(spec, sizes, options, quant)
    inputs = make_inputs(spec, sizes, options, quant, seed=seed, live_blocks=live)
    outputs = kernel.run(inputs.arrays)
    out = outputs["output"]
    if out.ndim == 3:  # block shard, TopK > 1: planes reduced into plane 0, plane 1 zeroed
        assert not out[:, 1].astype(np.float32).any()
        out = out[:, 0]
    golden = golden_for(spec, sizes, options, inputs)
    error = relative_error(out[: sizes.tokens].astype(np.float32), golden)
    assert error < TOL[options.dtype], f"relative error {error:.3e}"
    return kernel, inputs, outputs


@pytest.mark.parametrize("top_k", [1, 2])
@pytest.mark.parametrize("scaling", SCALINGS, ids=lambda s: s.name)
@pytest.mark.parametrize("act", list(ActFnType), ids=lambda a: a.name)
@pytest.mark.parametrize("impl", VARIANTS, ids=lambda m: m.name)
def test_bf16_grid(impl, act, scaling, top_k):
    options = MoECTEOptions(dtype="bf16", activation=act, scaling=scaling)
    check(MoECTESpec(impl), sizes_for(impl, top_k), options)


@pytest.mark.parametrize("top_k", [1, 2])
@pytest.mark.parametrize("scaling", SCALINGS, ids=lambda s: s.name)
@pytest.mark.parametrize("impl", VARIANTS, ids=lambda m: m.name)
def test_f32_grid(impl, scaling, top_k):
    act = list(ActFnType)[(SCALINGS.index(scaling) + top_k) % 4]
    options = MoECTEOptions(dtype="f32", activation=act, scaling=scaling)
    check(MoECTESpec(impl), sizes_for(impl, top_k), options)


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("impl", VARIANTS, ids=lambda m: m.name)
def test_bias_clamps_fp8(impl, dtype):
    options = MoECTEOptions(
        dtype=dtype,
        activation=ActFnType.Swish,
        scaling=ExpertAffinityScaleMode.POST_SCALE,
        bias=True,
        gate_clamp=(None, 0.7),
        up_clamp=(-0.7, 0.7),
    )
    check(MoECTESpec(impl), sizes_for(impl, 2), options, QuantizationConfig(True, True), seed=5)


def expected_checkpoints(a, options, sizes, dropping):
    """gate_up_activations_T [N, 2, I, B] and down_activations [N, B, H] per block."""
    f = np.float64
    T, E, B, N = sizes.tokens, sizes.experts, sizes.block_size, sizes.blocks
    aff = a["expert_affinities_masked"].astype(f).reshape(T + 1, E)
    ids = a["token_position_to_id"].reshape(N, B)
    gup, down = [], []
    for b in range(N):
        e = b if dropping else int(a["block_to_expert"][b])
        x = a["hidden_states"][ids[b]].astype(f)
        if options.scaling == ExpertAffinityScaleMode.PRE_SCALE:
            x = aff[ids[b], e][:, None] * x
        w = a["gate_up_proj_weight"][e].astype(f)
        g, u = x @ w[:, 0], x @ w[:, 1]
        if "gate_and_up_proj_bias" in a:
            g = g + a["gate_and_up_proj_bias"][e, 0].astype(f)
            u = u + a["gate_and_up_proj_bias"][e, 1].astype(f)
        gup.append(np.stack([g.T, u.T]))
        h = (activation(options.activation, g) * u) @ a["down_proj_weight"][e].astype(f)
        if "down_proj_bias" in a:
            h = h + a["down_proj_bias"][e].astype(f)
        down.append(h)
    return np.stack(gup), np.stack(down)


@pytest.mark.parametrize(
    "impl",
    [
        MoECTEImplementation.shard_on_i,
        MoECTEImplementation.shard_on_i_hybrid,
        MoECTEImplementation.shard_on_i_dropping,
    ],
    ids=lambda m: m.name,
)
def test_checkpoints(impl):
    spec = MoECTESpec(impl, shard_on_I=ShardOnIConfig(checkpoint_activation=True))
    options = MoECTEOptions(dtype="bf16", bias=True, scaling=ExpertAffinityScaleMode.PRE_SCALE)
    sizes = sizes_for(impl, 2)
    _, inputs, outputs = check(spec, sizes, options, seed=2)
    dropping = impl == MoECTEImplementation.shard_on_i_dropping
    gup, down = expected_checkpoints(inputs.arrays, options, sizes, dropping)
    got_gup = outputs["gate_up_activations_T"].astype(np.float32)
    got_down = outputs["down_activations"].astype(np.float32)
    assert relative_error(got_gup, gup) < 1e-2
    assert relative_error(got_down, down) < 1e-2


@pytest.mark.parametrize("bias", [False, True])
def test_affinity_on_intermediate(bias):
    impl = MoECTEImplementation.shard_on_i
    spec = MoECTESpec(impl, shard_on_I=ShardOnIConfig(expert_affinity_multiply_on_I=True))
    check(spec, sizes_for(impl, 2), MoECTEOptions(dtype="f32", bias=bias), seed=4)


def test_hybrid_loop_runs_to_the_runtime_count():
    """Only sum(conditions) blocks run: with fewer live blocks than real ones, the
    golden without the dropped blocks matches (and the full one would not)."""
    impl = MoECTEImplementation.shard_on_i_hybrid
    sizes = MoECTESizes(512, 256, 4, 300, 256, 2)  # N = 6, at least 4 of them real
    spec = MoECTESpec(impl, shard_on_I=ShardOnIConfig(num_static_block=1))
    options = MoECTEOptions(dtype="f32")
    _, inputs, outputs = check(spec, sizes, options, live=3)
    assert inputs.real_blocks > 3
    assert inputs.active_blocks == [b < 3 for b in range(sizes.blocks)]
    inputs.active_blocks = [True] * sizes.blocks
    full = golden_for(spec, sizes, options, inputs)
    error = relative_error(outputs["output"][: sizes.tokens].astype(np.float32), full)
    assert error > 1e-2


def test_dropping_in_1024_row_tiles():
    impl = MoECTEImplementation.shard_on_i_dropping
    sizes = MoECTESizes(512, 64, 2, 700, 2048, 2, n_blocks=2)  # each expert: 2 tiles of 1024
    spec = MoECTESpec(impl)
    kernel, _, _ = check(spec, sizes, MoECTEOptions(dtype="bf16", bias=True), seed=1)
    text = kernel.text()
    assert "memref<128x1x4x1024xbf16, #nisa.mem<sbuf>>" in text  # hidden^T of one tile
    assert "memref<128x8x512xf32, #nisa.mem<sbuf>>" in text  # 8 x 128 rows accumulated


def test_ir_size_does_not_grow_with_blocks_or_tokens():
    impl = MoECTEImplementation.shard_on_block
    small = build_moe_cte(MoECTESpec(impl), MoECTESizes(512, 256, 4, 1000, 128, 2))
    large = build_moe_cte(MoECTESpec(impl), MoECTESizes(512, 256, 4, 20000, 128, 2))
    assert large.sizes.blocks > 10 * small.sizes.blocks
    count = lambda k: sum(op.name != "arith.constant" for op in k.module.walk())  # noqa: E731
    assert count(large) == count(small)


def test_a_run_leaves_its_inputs_as_they_were():
    """Inputs are read through read-only views (not copied), outputs are fresh copies;
    the caller's arrays keep their values and stay writeable."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_i)
    sizes = sizes_for(MoECTEImplementation.shard_on_i, 2)
    options = MoECTEOptions(bias=True)
    kernel = build_moe_cte(spec, sizes, options)
    inputs = make_inputs(spec, sizes, options, seed=3)
    before = {name: array.copy() for name, array in inputs.arrays.items()}
    outputs = kernel.run(inputs.arrays)
    for name, array in inputs.arrays.items():
        assert np.array_equal(array.view(np.uint8), before[name].view(np.uint8)), name
        assert array.flags.writeable
    assert not np.shares_memory(outputs["output"], inputs.arrays.get("output", np.zeros(1)))

"""The dense golden against a per-token loop written from the definition, and the
routing of the random inputs (the block layout a router builds)."""

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
)
from mxdsl.kernels.moe_cte.reference import (
    golden_for,
    make_inputs,
    relative_error,
)
from mxdsl.kernels.moe_cte.reference.golden import activation

SIZES = MoECTESizes(hidden=512, intermediate=32, experts=4, tokens=20, block_size=128, top_k=2)


def per_token_reference(a: dict[str, np.ndarray], options: MoECTEOptions, T: int, E: int):
    """out[t] = sum over e with affinity[t, e] != 0 of the expert FFN, one token at a time."""
    f = np.float64
    aff = a["expert_affinities_masked"].astype(f).reshape(T + 1, E)
    wgu, wd = a["gate_up_proj_weight"].astype(f), a["down_proj_weight"].astype(f)
    inter = wgu.shape[-1]
    out = np.zeros((T, wd.shape[-1]))
    for t in range(T):
        for e in range(E):
            if aff[t, e] == 0:
                continue
            x = a["hidden_states"][t].astype(f)
            if options.scaling == ExpertAffinityScaleMode.PRE_SCALE:
                x = aff[t, e] * x
            g = x @ wgu[e, :, 0, :]
            u = x @ wgu[e, :, 1, :]
            if "gate_up_proj_scale" in a:
                s = a["gate_up_proj_scale"][e, 0].astype(f)
                g, u = g * s[:inter], u * s[inter:]
            if "gate_and_up_proj_bias" in a:
                g = g + a["gate_and_up_proj_bias"][e, 0].astype(f)
                u = u + a["gate_and_up_proj_bias"][e, 1].astype(f)
            lo, hi = options.gate_clamp
            g = np.clip(g, -np.inf if lo is None else lo, np.inf if hi is None else hi)
            lo, hi = options.up_clamp
            u = np.clip(u, -np.inf if lo is None else lo, np.inf if hi is None else hi)
            h = (activation(options.activation, g) * u) @ wd[e]
            if "down_proj_scale" in a:
                h = h * a["down_proj_scale"][e, 0].astype(f)
            if "down_proj_bias" in a:
                h = h + a["down_proj_bias"][e].astype(f)
            if options.scaling == ExpertAffinityScaleMode.POST_SCALE:
                h = h * aff[t, e]
            out[t] += h
    return out


@pytest.mark.parametrize("act", list(ActFnType))
@pytest.mark.parametrize(
    "scaling",
    [
        ExpertAffinityScaleMode.NO_SCALE,
        ExpertAffinityScaleMode.POST_SCALE,
        ExpertAffinityScaleMode.PRE_SCALE,
    ],
)
@pytest.mark.parametrize("extras", [False, True])
def test_golden_matches_per_token_definition(act, scaling, extras):
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    options = MoECTEOptions(
        dtype="f32",
        activation=act,
        scaling=scaling,
        bias=extras,
        gate_clamp=(None, 0.5) if extras else (None, None),
        up_clamp=(-0.5, 0.5) if extras else (None, None),
    )
    quant = QuantizationConfig(True, True) if extras else None
    inputs = make_inputs(spec, SIZES, options, quant, seed=3)
    golden = golden_for(spec, SIZES, options, inputs)
    reference = per_token_reference(inputs.arrays, options, SIZES.tokens, SIZES.experts)
    assert relative_error(golden, reference) < 1e-5


def test_activations_closed_forms():
    x = np.array([-2.0, 0.0, 1.0])
    np.testing.assert_allclose(activation(ActFnType.SiLU, x), x / (1 + np.exp(-x)))
    np.testing.assert_allclose(activation(ActFnType.Swish, x), x / (1 + np.exp(-1.702 * x)))
    np.testing.assert_allclose(activation(ActFnType.GELU, x), [-0.04550026, 0.0, 0.84134475])
    np.testing.assert_allclose(
        activation(ActFnType.GELU_Tanh_Approx, x), [-0.04540231, 0.0, 0.84119199], rtol=1e-6
    )


def test_routing_layout():
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(512, 32, 4, 100, 128, top_k=2)
    a = make_inputs(spec, sizes, MoECTEOptions(), seed=0).arrays
    N, B, T, E = sizes.blocks, 128, 100, 4
    ids = a["token_position_to_id"].reshape(N, B)
    b2e = a["block_to_expert"]
    assert list(b2e) == sorted(b2e)  # tokens sorted by expert
    assert b2e[-1] == E - 1  # padding blocks belong to the last expert
    aff = a["expert_affinities_masked"].astype(np.float32).reshape(T + 1, E)
    assert not aff[T].any()  # the padding row
    assert not a["hidden_states"][T].astype(np.float32).any()
    np.testing.assert_allclose(aff[:T].sum(axis=1), 1.0, rtol=1e-2)
    assert ((aff[:T] != 0).sum(axis=1) == 2).all()
    for b in range(N):
        real = ids[b][ids[b] < T]
        assert (aff[real, b2e[b]] != 0).all()
        assert (ids[b][real.size :] == T).all()  # padding slots at the end
    routed = sorted(int(t) for t in ids.reshape(-1) if t < T)
    assert routed == sorted(list(range(T)) * 2)


def test_padding_blocks_change_nothing():
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(512, 32, 4, 100, 128, top_k=2)
    options = MoECTEOptions(dtype="f32", bias=True)
    inputs = make_inputs(spec, sizes, options, seed=0)
    full = golden_for(spec, sizes, options, inputs)
    inputs.active_blocks = [b < inputs.real_blocks for b in range(sizes.blocks)]
    assert np.array_equal(full, golden_for(spec, sizes, options, inputs))


@pytest.mark.parametrize("variant", ["shard_on_i", "shard_on_i_mx"])
def test_block_values_add_up_to_the_golden(variant: str) -> None:
    """The golden's per-block values (what mx-moe run --trace compares with the kernel's
    probes): each block's ``rows`` scattered into its tokens' rows sum to the golden's
    output (the dense golden, or the MX-aware one for an MX variant), padding slots add
    nothing, and ``rows`` is ``down`` times the affinity (POST_SCALE)."""
    from mxdsl.kernels.moe_cte.reference import block_values_for
    from mxdsl.kernels.moe_cte.reference.mx import (
        make_mx_inputs,
        mx_block_values_for,
        mx_golden_for,
    )

    impl = MoECTEImplementation[variant]
    spec = MoECTESpec(impl)
    sizes = MoECTESizes(512, 1024 if impl.is_mx else 64, 2, 20, 256, 2)
    options = MoECTEOptions(bias=True)
    if impl.is_mx:
        inputs = make_mx_inputs(spec, sizes, options, seed=1)
        golden = mx_golden_for(spec, sizes, options, inputs)
        values = mx_block_values_for(spec, sizes, options, inputs)
    else:
        inputs = make_inputs(spec, sizes, options, seed=1)
        golden = golden_for(spec, sizes, options, inputs)
        values = block_values_for(spec, sizes, options, inputs)
    a = inputs.arrays
    T, E = sizes.tokens, sizes.experts
    ids = a["token_position_to_id"].reshape(sizes.blocks, -1)
    aff = a["expert_affinities_masked"].astype(np.float32).reshape(T + 1, E)
    total = np.zeros((T + 1, sizes.hidden), np.float64)
    for b in range(sizes.blocks):
        rows, down = values[f"block{b}.rows"], values[f"block{b}.down"]
        real = ids[b] < T
        assert not rows[~real].any()
        e = int(a["block_to_expert"][b])
        expected = down[real] * aff[ids[b][real], e][:, None]
        assert np.array_equal(rows[real], expected)
        np.add.at(total, ids[b], rows)
    assert not total[T].any()
    assert np.allclose(total[:T], golden, rtol=1e-5, atol=1e-5)

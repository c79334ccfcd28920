"""The MoE-CTE dispatch: the spec and its configs, defaults per family, every member
dispatching, clear refusals before any IR is built, and a quiet stdout."""

from __future__ import annotations

import pytest

from mxdsl.kernels.moe_cte import (
    BlockShardStrategy,
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    ShardOnBlockConfig,
    ShardOnIConfig,
    build_moe_cte,
    default_n_blocks,
    kernel_arguments,
)

SMALL = MoECTESizes(hidden=512, intermediate=256, experts=4, tokens=100, block_size=256, top_k=2)
NON_MX = [m for m in MoECTEImplementation if not m.is_mx]
MX = [m for m in MoECTEImplementation if m.is_mx]


def sizes_for(impl: MoECTEImplementation) -> MoECTESizes:
    if impl == MoECTEImplementation.shard_on_i_dropping:
        return MoECTESizes(512, 256, 4, 100, 256, 2, n_blocks=4)
    return SMALL


def test_seven_members_in_order():
    assert [m.name for m in MoECTEImplementation] == [
        "shard_on_block",
        "shard_on_i",
        "shard_on_i_hybrid",
        "shard_on_i_dropping",
        "shard_on_block_mx",
        "shard_on_i_mx",
        "shard_on_i_mx_hybrid",
    ]
    assert [m.value for m in MoECTEImplementation] == list(range(7))


@pytest.mark.parametrize("impl", list(MoECTEImplementation))
def test_defaults_filled_per_family(impl: MoECTEImplementation):
    spec = MoECTESpec(impl)
    if impl in (MoECTEImplementation.shard_on_block, MoECTEImplementation.shard_on_block_mx):
        assert spec.shard_on_block == ShardOnBlockConfig()
        assert spec.shard_on_I is None
    else:  # includes the two MX I members the original leaves unfilled
        assert spec.shard_on_I == ShardOnIConfig()
        assert spec.shard_on_block is None


def test_config_defaults():
    assert ShardOnBlockConfig() == ShardOnBlockConfig(1, BlockShardStrategy.PING_PONG, -1, 55)
    assert ShardOnIConfig() == ShardOnIConfig(False, False, None)
    assert not QuantizationConfig().enabled


def test_explicit_config_is_kept():
    cfg = ShardOnIConfig(checkpoint_activation=True)
    assert MoECTESpec(MoECTEImplementation.shard_on_i, shard_on_I=cfg).shard_on_I is cfg


@pytest.mark.parametrize("bad", [7, "shard_on_x", None, 1.5])
def test_unknown_implementation_raises(bad: object):
    with pytest.raises(MoECTEConfigError, match="unknown MoE-CTE implementation"):
        MoECTESpec(bad)  # pyright: ignore[reportArgumentType]


def test_name_is_accepted():
    assert MoECTESpec("shard_on_i").implementation == MoECTEImplementation.shard_on_i  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize("impl", NON_MX)
def test_every_non_mx_member_builds(impl: MoECTEImplementation, capsys: pytest.CaptureFixture[str]):
    kernel = build_moe_cte(MoECTESpec(impl), sizes_for(impl))
    assert kernel.module is not None
    assert [a.name for a in kernel.arguments][:6] == [
        "hidden_states",
        "expert_affinities_masked",
        "gate_up_proj_weight",
        "down_proj_weight",
        "token_position_to_id",
        "block_to_expert",
    ]
    assert capsys.readouterr().out == ""  # nothing prints (the original prints the spec)


@pytest.mark.parametrize("impl", MX)
def test_mx_members_build(impl: MoECTEImplementation):
    """Issue 7 built the MX members: every one dispatches to a kernel (the MX
    variants' own tests are test_moe_mx*.py)."""
    sizes = MoECTESizes(512, 1024, 4, 100, 256, 2)
    kernel = build_moe_cte(MoECTESpec(impl), sizes)
    assert kernel is not None
    assert kernel.arguments[2].dtype == "ui32"  # MX weights as integer alternates


def test_spec_type_checked():
    with pytest.raises(MoECTEConfigError, match="MoECTESpec"):
        build_moe_cte("shard_on_i", SMALL)  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize(
    ("impl", "sizes", "message"),
    [
        ("shard_on_block", MoECTESizes(500, 256, 4, 100, 128), "multiple of 512"),
        ("shard_on_block", MoECTESizes(512, 250, 4, 100, 128), "multiple of 16"),
        ("shard_on_block", MoECTESizes(512, 256, 4, 100, 192), "B = 192 is not allowed"),
        ("shard_on_i", MoECTESizes(512, 256, 4, 100, 128), "B = 128 is not allowed"),
        ("shard_on_i", MoECTESizes(512, 256, 4, 100, 256, top_k=5), "top-k = 5"),
        ("shard_on_i_dropping", MoECTESizes(512, 256, 4, 100, 256, n_blocks=5), "N == E"),
        ("shard_on_i_dropping", MoECTESizes(512, 256, 4, 100, 1280, n_blocks=4), "1024"),
        ("shard_on_i", MoECTESizes(16384, 4096, 4, 100, 1024), "per SBUF partition"),
    ],
)
def test_invalid_sizes_refused(impl: str, sizes: MoECTESizes, message: str):
    with pytest.raises(MoECTEConfigError, match=message):
        build_moe_cte(MoECTESpec(MoECTEImplementation[impl]), sizes)


def test_block_options_refused_clearly():
    hi_lo = ShardOnBlockConfig(block_sharding_strategy=BlockShardStrategy.HI_LO)
    with pytest.raises(MoECTEConfigError, match="only PING_PONG"):
        build_moe_cte(MoECTESpec(MoECTEImplementation.shard_on_block, hi_lo), SMALL)
    per_iter = ShardOnBlockConfig(n_block_per_iter=2)
    with pytest.raises(MoECTEConfigError, match="n_block_per_iter"):
        build_moe_cte(MoECTESpec(MoECTEImplementation.shard_on_block, per_iter), SMALL)


def test_hybrid_static_prefix_checked():
    spec = MoECTESpec(
        MoECTEImplementation.shard_on_i_hybrid, shard_on_I=ShardOnIConfig(num_static_block=99)
    )
    with pytest.raises(MoECTEConfigError, match="num_static_block = 99"):
        build_moe_cte(spec, SMALL)


def test_quantization_needs_both_scales():
    with pytest.raises(MoECTEConfigError, match="both"):
        build_moe_cte(
            MoECTESpec(MoECTEImplementation.shard_on_i),
            SMALL,
            quantization_config=QuantizationConfig(True, None),
        )


def test_clamp_order_checked():
    with pytest.raises(MoECTEConfigError, match="clamp"):
        build_moe_cte(
            MoECTESpec(MoECTEImplementation.shard_on_i), SMALL, MoECTEOptions(gate_clamp=(2.0, 1.0))
        )


def test_default_blocks_formula():
    assert default_n_blocks(1024, 4, 8, 512) == 15  # ceil((4096 - 7) / 512) + 7
    assert SMALL.blocks == default_n_blocks(100, 2, 4, 256) == 4


def test_signature_order_with_every_option():
    spec = MoECTESpec(
        MoECTEImplementation.shard_on_i_hybrid,
        shard_on_I=ShardOnIConfig(checkpoint_activation=True),
    )
    args = kernel_arguments(spec, SMALL, MoECTEOptions(bias=True), QuantizationConfig(True, True))
    assert [a.name for a in args] == [
        "hidden_states",
        "expert_affinities_masked",
        "gate_up_proj_weight",
        "down_proj_weight",
        "token_position_to_id",
        "block_to_expert",
        "conditions",
        "gate_and_up_proj_bias",
        "down_proj_bias",
        "gate_up_proj_scale",
        "down_proj_scale",
        "output",
        "gate_up_activations_T",
        "down_activations",
    ]
    assert args[2].dtype == "f8E4M3FN"
    assert args[9].shape == (4, 1, 512)


def test_block_shard_output_planes():
    block = MoECTESpec(MoECTEImplementation.shard_on_block)
    s = MoECTESizes(512, 256, 4, 100, 128, top_k=2)
    assert kernel_arguments(block, s, MoECTEOptions())[-1].shape == (101, 2, 512)
    s1 = MoECTESizes(512, 256, 4, 100, 128, top_k=1)
    assert kernel_arguments(block, s1, MoECTEOptions())[-1].shape == (101, 512)

"""Every MoE-CTE variant builds at every size of nkilib's grid (issue 16 item 1): H in
{3072, 4096, 7168} x B in {256, 512} (and 1024 for the four bf16/fp8 variants) x I in
{1024, 2048} (and 384, 3072 for the block shards: at 384 shard_on_block_mx has one
partial 512-row MX I tile), TopK 8, E 64; the bf16/fp8 variants within
trn2's SBUF, the MX ones within trn3's. Building is cheap (no run); the footprint is
re-read off the IR (every memref.alloc), not taken from the builder's own sum.

Every size is built with the options that add the most buffers (biases, and fp8
weights with their dequant scales; MX: biases, MXFP8 containers, which are twice the
FP4 ones); every option combination is built at each variant's largest size. A run at
H = 7168, B = 512 with one small block checks the chunked down projection against the
golden per variant."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from xdsl.dialects import memref

from mxdsl.dialects import nisa
from mxdsl.kernels.moe_cte import (
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    build_moe_cte,
)
from mxdsl.kernels.moe_cte.mx_formats import MX_WEIGHT_FORMATS
from mxdsl.kernels.moe_cte.reference import golden_for, make_inputs, relative_error
from mxdsl.kernels.moe_cte.reference.mx import make_mx_inputs, mx_golden_for
from mxdsl.targets import TRN2, TRN3

M = MoECTEImplementation
HIDDEN = (3072, 4096, 7168)


def grid(impl: MoECTEImplementation) -> list[MoECTESizes]:
    """nkilib's grid for ``impl`` (module docstring), TopK 8, E 64, T 10240."""
    blocks = (256, 512) if impl.is_mx else (256, 512, 1024)
    inter = [1024, 2048] + ([384, 3072] if impl.shards_on_block else [])
    n = 64 if impl == M.shard_on_i_dropping else None
    return [
        MoECTESizes(h, i, 64, 10240, b, 8, n_blocks=n)
        for h, b, i in itertools.product(HIDDEN, blocks, inter)
    ]


def option_sets(
    impl: MoECTEImplementation,
) -> list[tuple[MoECTEOptions, QuantizationConfig | None]]:
    if impl.is_mx:
        return [
            (MoECTEOptions(bias=bias, mx_weights=fmt), None)
            for bias in (False, True)
            for fmt in MX_WEIGHT_FORMATS
        ]
    fp8 = QuantizationConfig(True, True)
    return [(MoECTEOptions(bias=bias), q) for bias in (False, True) for q in (None, fp8)]


def heaviest(impl: MoECTEImplementation) -> tuple[MoECTEOptions, QuantizationConfig | None]:
    if impl.is_mx:
        return MoECTEOptions(bias=True, mx_weights="fp8_e4m3fn"), None
    return MoECTEOptions(bias=True), QuantizationConfig(True, True)


def on_chip_bytes(module, space: nisa.MemorySpace) -> int:  # noqa: ANN001
    total = 0
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and nisa.memory_space_of(op.memref.type) == space:
            t = op.memref.type
            total += math.prod(t.get_shape()[1:]) * t.element_type.size
    return total


def check_fits(impl, sizes, options, quantization) -> None:  # noqa: ANN001
    target = TRN3 if impl.is_mx else TRN2
    kernel = build_moe_cte(MoECTESpec(impl), sizes, options, quantization, target=target)
    sbuf = on_chip_bytes(kernel.module, nisa.MemorySpace.SBUF)
    psum = on_chip_bytes(kernel.module, nisa.MemorySpace.PSUM)
    assert sbuf <= target.sbuf_partition_bytes, (sizes, sbuf)
    assert psum <= target.psum_partition_bytes, (sizes, psum)
    assert kernel.footprint[nisa.MemorySpace.SBUF] == sbuf


@pytest.mark.parametrize("impl", list(M), ids=lambda m: m.name)
def test_every_grid_size_builds_within_its_target(impl: MoECTEImplementation) -> None:
    sizes = grid(impl)
    assert len(sizes) == {True: 12, False: 18}[impl.is_mx] + (
        {True: 12, False: 18}[impl.is_mx] if impl.shards_on_block else 0
    )
    options, quantization = heaviest(impl)
    for s in sizes:
        check_fits(impl, s, options, quantization)


@pytest.mark.parametrize("impl", list(M), ids=lambda m: m.name)
def test_every_option_combination_builds_at_the_largest_size(impl: MoECTEImplementation) -> None:
    largest = grid(impl)[-1]
    assert largest.hidden == 7168
    for options, quantization in option_sets(impl):
        check_fits(impl, largest, options, quantization)


def _plane0(out: np.ndarray, impl: MoECTEImplementation) -> np.ndarray:
    if out.ndim == 3:
        return out[0] if impl.is_mx else out[:, 0, :]
    return out


@pytest.mark.parametrize("impl", list(M), ids=lambda m: m.name)
def test_a_run_at_h7168_b512_matches_the_golden(impl: MoECTEImplementation) -> None:
    """One or two blocks of 512 rows (40 tokens): 14 H chunks of 512 columns each reach
    the output, with biases and POST_SCALE (the bf16 I shards at TopK 2 accumulate)."""
    inter = (512 if impl.shards_on_block else 1024) if impl.is_mx else 256
    top_k, experts = (2, 2) if impl in (M.shard_on_i, M.shard_on_i_hybrid) else (1, 1)
    n = experts if impl == M.shard_on_i_dropping else None
    sizes = MoECTESizes(7168, inter, experts, 40, 512, top_k, n_blocks=n)
    spec = MoECTESpec(impl)
    options = MoECTEOptions(bias=True)
    kernel = build_moe_cte(spec, sizes, options)
    if impl.is_mx:
        inputs = make_mx_inputs(spec, sizes, options, seed=7)
        golden = mx_golden_for(spec, sizes, options, inputs)
    else:
        inputs = make_inputs(spec, sizes, options, seed=7)
        golden = golden_for(spec, sizes, options, inputs)
    out = _plane0(kernel.run(inputs.arrays)["output"], impl)[: sizes.tokens]
    assert relative_error(out.astype(np.float32), golden) < 1e-2
    assert np.count_nonzero(out[:, -512:]) > 0  # the last H chunk was written


def test_the_grid_command_agrees_with_this_grid_and_runs_a_sample() -> None:
    """mx-moe grid --nkilib (mxdsl/tools/moe_grid.py) walks the same sizes and options,
    and its sample run (E 2, TopK 2, a few tokens) matches the golden."""
    from mxdsl.tools import moe_grid

    for impl in M:
        assert list(moe_grid.grid_sizes(impl)) == sorted(
            grid(impl), key=lambda s: (s.hidden, s.block_size, s.intermediate)
        )
        assert len(moe_grid.option_sets(impl)) == len(option_sets(impl))
    error = moe_grid.sample_run(M.shard_on_i, MoECTESizes(3072, 1024, 64, 10240, 256, 8), 16)
    assert 0 < error < 1e-2

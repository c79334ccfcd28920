"""The MoE-CTE kernels' on-chip footprint: all buffers together fit one SBUF / PSUM
partition (the gate/up weight chunk shrinks until they do), a kernel that cannot fit is
refused naming its largest buffers, and the chunk changes no result bit."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from xdsl.dialects import memref

from mxdsl.dialects import nisa
from mxdsl.kernels.moe_cte import (
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    build_moe_cte,
)
from mxdsl.kernels.moe_cte.reference import (
    make_inputs,
)
from mxdsl.targets import TRN2, TRN3

BENCHMARK = MoECTESizes(3072, 2048, 8, 1024, 512, 4)
SMALL = MoECTESizes(512, 256, 4, 100, 128, 2)


def _on_chip_bytes(module, space: nisa.MemorySpace) -> int:  # noqa: ANN001
    """Bytes per partition of every memref.alloc in ``space``, read off the IR."""
    total = 0
    for op in module.walk():
        if not isinstance(op, memref.AllocOp):
            continue
        t = op.memref.type
        if nisa.memory_space_of(t) == space:
            total += math.prod(t.get_shape()[1:]) * t.element_type.size
    return total


@pytest.mark.parametrize("bias", [False, True], ids=["", "bias"])
@pytest.mark.parametrize("impl", list(MoECTEImplementation), ids=lambda m: m.name)
def test_every_variant_fits_at_the_benchmark_sizes(impl: MoECTEImplementation, bias: bool) -> None:
    """The bf16/fp8 variants within trn2 (224 KiB), the MX ones within trn3 (256 KiB)."""
    sizes = BENCHMARK
    if impl == MoECTEImplementation.shard_on_i_dropping:
        sizes = MoECTESizes(3072, 2048, 8, 1024, 512, 4, n_blocks=8)
    target = TRN3 if impl.is_mx else TRN2
    kernel = build_moe_cte(MoECTESpec(impl), sizes, MoECTEOptions(bias=bias), target=target)
    assert _on_chip_bytes(kernel.module, nisa.MemorySpace.SBUF) <= target.sbuf_partition_bytes
    assert _on_chip_bytes(kernel.module, nisa.MemorySpace.PSUM) <= 16 * 1024
    # the largest chunk within 64 KiB per partition (bf16: 512 columns, MX: 1024)
    assert kernel.options.gate_up_chunk == (1024 if impl.is_mx else 512)


def test_the_layout_shrinks_until_the_kernel_fits() -> None:
    """H 7168, B 512 with biases: three block sets fit trn3 with a one-I-tile gate/up
    chunk; trn2 drops to two sets (then a 256-column chunk fits); a chunk and set count
    given explicitly are kept, and refused if they do not fit."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(7168, 2048, 64, 10240, 512, 8)
    options = MoECTEOptions(bias=True)
    on_trn3 = build_moe_cte(spec, sizes, options, target=TRN3)
    assert (on_trn3.options.block_sets, on_trn3.options.gate_up_chunk) == (3, 128)
    on_trn2 = build_moe_cte(spec, sizes, options, target=TRN2)
    assert (on_trn2.options.block_sets, on_trn2.options.gate_up_chunk) == (2, 256)
    with pytest.raises(MoECTEConfigError, match="more than the 256 KiB of one trn3"):
        build_moe_cte(spec, sizes, replace(options, gate_up_chunk=512, block_sets=3))


def test_block_sets_change_no_result_bit() -> None:
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(512, 256, 4, 300, 128, 2)  # N = 7 blocks: groups of 3, 2 or 1
    three = build_moe_cte(spec, sizes)
    one = build_moe_cte(spec, sizes, MoECTEOptions(block_sets=1))
    assert (three.options.block_sets, one.options.block_sets) == (3, 1)
    assert "128x3x4x128xbf16" in three.text()
    assert "128x1x4x128xbf16" in one.text()
    inputs = make_inputs(spec, sizes, MoECTEOptions(), seed=5)
    a = three.run(inputs.arrays)["output"]
    b = one.run(inputs.arrays)["output"]
    assert np.array_equal(a.view(np.uint16), b.view(np.uint16))


def test_block_sets_apply_to_the_block_shards_only() -> None:
    spec = MoECTESpec(MoECTEImplementation.shard_on_i)
    with pytest.raises(MoECTEConfigError, match="block_sets = 2 is not allowed for shard_on_i"):
        build_moe_cte(spec, MoECTESizes(512, 256, 4, 100, 256, 2), MoECTEOptions(block_sets=2))


def test_a_kernel_that_cannot_fit_is_refused_naming_its_buffers() -> None:
    """f32 IO at H 7168, B 1024: one set of transposed hidden states is 224 KiB."""
    sizes = MoECTESizes(7168, 2048, 8, 1024, 1024, 4)
    with pytest.raises(MoECTEConfigError) as info:
        build_moe_cte(
            MoECTESpec(MoECTEImplementation.shard_on_block), sizes, MoECTEOptions(dtype="f32")
        )
    message = str(info.value)
    assert "KiB per SBUF partition" in message
    assert "more than the 256 KiB of one trn3 partition" in message
    assert "the transposed hidden states (memref<128x1x56x1024xf32" in message
    assert "or use an I-shard variant" in message


def test_a_gate_up_chunk_must_be_whole_i_tiles() -> None:
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    with pytest.raises(MoECTEConfigError, match=r"choose one of 256, 128 \(whole I tiles"):
        build_moe_cte(spec, SMALL, MoECTEOptions(gate_up_chunk=100))


def _passes_per_moving_tile(module) -> int:  # noqa: ANN001
    """The most gate/up nc_matmul ops reading one moving value (a token tile, a view of
    the transposed hidden states; the down passes read the Wd tile buffer itself)."""
    readers = Counter(
        op.moving
        for op in module.walk()
        if isinstance(op, nisa.NcMatmulOp) and isinstance(op.moving.owner, memref.SubviewOp)
    )
    return max(readers.values())


def test_paired_i_tiles_change_no_result_bit() -> None:
    """With two I tiles per chunk (and two token tiles, so two spare PSUM tiles) the
    tiles' gate and up passes share each token tile; one tile per chunk runs them apart."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(512, 256, 4, 100, 256, 2)
    options = MoECTEOptions(bias=True, up_clamp=(-1.0, 1.0))
    paired = build_moe_cte(spec, sizes, options)
    single = build_moe_cte(spec, sizes, replace(options, gate_up_chunk=128))
    assert paired.options.gate_up_chunk == 256
    assert _passes_per_moving_tile(paired.module) == 4  # gate, up of two I tiles
    assert _passes_per_moving_tile(single.module) == 2  # gate, up
    inputs = make_inputs(spec, sizes, options, seed=4)
    a = paired.run(inputs.arrays)["output"]
    b = single.run(inputs.arrays)["output"]
    assert np.array_equal(a.view(np.uint16), b.view(np.uint16))


def test_the_gate_up_chunk_changes_no_result_bit() -> None:
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    whole = build_moe_cte(spec, SMALL)
    tiled = build_moe_cte(spec, SMALL, MoECTEOptions(gate_up_chunk=128))  # default: all 256
    assert "128x4x2x128xbf16" in tiled.text()
    assert "128x4x2x128xbf16" not in whole.text()
    inputs = make_inputs(spec, SMALL, MoECTEOptions(), seed=3)
    a = whole.run(inputs.arrays)["output"]
    b = tiled.run(inputs.arrays)["output"]
    assert np.array_equal(a.view(np.uint16), b.view(np.uint16))

"""The fast paths (bf16 quantize, FP8 dequantize) against the reference, bit for bit,
on random data with every kind of special value mixed in."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mxdsl.numerics import (
    MxFormat,
    dequantize_mx,
    dequantize_mx_reference,
    fast,
    quantize_mx,
    quantize_mx_reference,
)

GEOMETRIES = [
    ((64, 256), (1, 32)),
    ((256, 48), (32, 1)),
    ((64, 40), (8, 4)),
    ((3, 5, 64), (1, 1, 32)),
    ((2, 64, 3), (1, 32, 1)),
    ((4, 16, 8), (1, 8, 4)),
    ((32, 64), (4, 2)),  # multi-axis blocks: sliding windows of 2 along the last axis,
    ((16, 64), (2, 8)),  # of 8,
    ((8, 96), (2, 16)),  # of 16 (a strided pick),
    ((24, 24), (4, 6)),  # and numpy's reduce (6 is not a power of two)
]
BF16_SPECIALS = np.array(
    [0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x0000, 0x8000, 0x0001, 0x807F, 0x7F7F, 0xFF7F],
    np.uint16,
)


def mixed_bf16(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Normal data over a wide range of magnitudes, with every kind of special value
    sprinkled in, some all-zero / tiny / denormal blocks and raw random bit patterns."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = rng.standard_normal(n) * 2.0 ** rng.integers(-130, 128, n).astype(np.float64)
    with np.errstate(over="ignore"):
        bits = values.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    raw = rng.integers(0, 1 << 16, n).astype(np.uint16)
    bits = np.where(rng.random(n) < 0.2, raw, bits)
    special = rng.random(n) < 0.01
    bits[special] = rng.choice(BF16_SPECIALS, special.sum())
    bits[: min(n, 96)] = 0  # whole zero blocks (for every geometry's first blocks)
    tiny = slice(n // 2, n // 2 + 64)
    bits[tiny] = rng.integers(0, 0x0500, 64).astype(np.uint16)  # denormals and tiny normals
    return bits.reshape(shape).view(ml_dtypes.bfloat16)


@pytest.mark.parametrize("alternative", [False, True], ids=["emax", "emax-1"])
@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
@pytest.mark.parametrize(("shape", "block_shape"), GEOMETRIES)
def test_fast_quantize_equals_reference(shape, block_shape, fmt, alternative):
    x = mixed_bf16(shape, seed=hash((shape, fmt.name, alternative)) % 1000)
    fast_codes, fast_scale = quantize_mx(x, fmt, block_shape, alternative_emax=alternative)
    ref_codes, ref_scale = quantize_mx_reference(x, fmt, block_shape, alternative_emax=alternative)
    np.testing.assert_array_equal(fast_scale, ref_scale)
    np.testing.assert_array_equal(fast_codes, ref_codes)


@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
def test_fast_quantize_every_bf16_pattern(fmt):
    """All 65536 patterns, in blocks that mix them, and each pattern alone in a block of
    zeros (so every pattern is also its block's max)."""
    patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    mixed = np.random.default_rng(3).permutation(patterns).reshape(-1, 256)
    alone = np.zeros((1 << 16, 32), np.uint16)
    alone[:, 5] = patterns
    for bits in (mixed, alone):
        x = bits.view(ml_dtypes.bfloat16)
        fast_codes, fast_scale = quantize_mx(x, fmt, (1, 32))
        ref_codes, ref_scale = quantize_mx_reference(x, fmt, (1, 32))
        np.testing.assert_array_equal(fast_scale, ref_scale)
        np.testing.assert_array_equal(fast_codes, ref_codes)


@pytest.mark.parametrize(
    ("shape", "block_shape"), [((103, 96), (1, 32)), ((103, 96), (1, 96)), ((104, 96), (4, 8))]
)
def test_fast_quantize_across_chunks(monkeypatch, shape, block_shape):
    """Small chunks: many chunk boundaries, a short last chunk, fix-ups in several
    chunks; a 96-wide block takes the generic (non-halving) block max."""
    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 1024)
    x = mixed_bf16(shape, seed=11)
    got = quantize_mx(x, MxFormat.E4M3FN, block_shape)
    want = quantize_mx_reference(x, MxFormat.E4M3FN, block_shape)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0], want[0])


@settings(max_examples=60, deadline=None)
@given(
    bits=hnp.arrays(
        np.uint16, st.sampled_from([(2, 64), (8, 32), (16, 4)]), elements=st.integers(0, 0xFFFF)
    ),
    fmt=st.sampled_from(list(MxFormat)),
    alternative=st.booleans(),
)
def test_fast_quantize_equals_reference_on_arbitrary_patterns(bits, fmt, alternative):
    x = bits.view(ml_dtypes.bfloat16)
    block_shape = (1, 32) if bits.shape[1] % 32 == 0 else (8, 4)
    got = quantize_mx(x, fmt, block_shape, alternative_emax=alternative)
    want = quantize_mx_reference(x, fmt, block_shape, alternative_emax=alternative)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2], ids=lambda f: f.spec_name)
@pytest.mark.parametrize(("shape", "block_shape"), GEOMETRIES)
def test_fast_dequantize_equals_reference(shape, block_shape, fmt):
    """Every code (NaN and Inf codes included) under every E8M0 byte 0..255."""
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 256, shape).astype(np.uint8)
    grid = tuple(n // b for n, b in zip(shape, block_shape, strict=True))
    scale = rng.integers(0, 256, grid).astype(np.uint8)
    scale.reshape(-1)[:8] = [0, 1, 127, 134, 135, 143, 254, 255]
    got = dequantize_mx(codes, scale, fmt, block_shape)
    want = dequantize_mx_reference(codes, scale, fmt, block_shape)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2], ids=lambda f: f.spec_name)
def test_fast_dequantize_every_code_and_scale(fmt):
    codes = np.tile(np.arange(256, dtype=np.uint8), (256, 1)).reshape(256, 256)
    scale = np.repeat(np.arange(256, dtype=np.uint8), 8).reshape(256, 8)
    got = dequantize_mx(codes, scale, fmt, (1, 32))
    want = dequantize_mx_reference(codes, scale, fmt, (1, 32))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    # And against float64 ldexp rounded once to fp32 (independent of both paths).
    element = codes.view(fmt.dtype).astype(np.float64)
    exponent = np.repeat(scale.astype(np.int64) - 127, 32, axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        independent = np.ldexp(element, exponent).astype(np.float32)
    independent[np.repeat(scale == 255, 32, axis=1)] = np.nan
    np.testing.assert_array_equal(got, independent)


@pytest.mark.parametrize("alternative", [False, True], ids=["emax", "emax-1"])
@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
def test_fast_quantize_every_block_exponent(fmt, alternative):
    """Blocks of every max exponent byte 0 .. 255 (so every E8M0 the quantizer can
    produce, the tiny and huge blocks and their neighbours among them), the other
    elements at random exponents from 0 up to that max (zeros, denormals, every target
    exponent of the block), random mantissas and signs."""
    rng = np.random.default_rng(17)
    per_exponent = 24
    max_exponent = np.repeat(np.arange(256, dtype=np.uint16), per_exponent)
    exponent = (rng.random((max_exponent.size, 32)) * (max_exponent[:, None] + 1)).astype(np.uint16)
    exponent[:, 0] = max_exponent
    exponent = rng.permuted(exponent, axis=1)
    mantissa = rng.integers(0, 128, exponent.shape).astype(np.uint16)
    mantissa[rng.random(exponent.shape) < 0.2] = 0
    sign = rng.integers(0, 2, exponent.shape).astype(np.uint16) << np.uint16(15)
    x = (sign | exponent << np.uint16(7) | mantissa).view(ml_dtypes.bfloat16)
    got = quantize_mx(x, fmt, (1, 32), alternative_emax=alternative)
    want = quantize_mx_reference(x, fmt, (1, 32), alternative_emax=alternative)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
@pytest.mark.parametrize(("shape", "block_shape"), GEOMETRIES)
def test_fast_quantize_signed_zeros_in_tiny_blocks(shape, block_shape, fmt):
    """All-zero blocks of +0 and -0 (padding tokens) take the signs-only shortcut; tiny
    blocks mixing +-0 with denormals and tiny normals still go through the reference for
    their nonzero elements; a word may hold both."""
    rng = np.random.default_rng(29)
    n = int(np.prod(shape))
    bits = rng.choice(np.array([0x0000, 0x8000], np.uint16), n)
    tiny = rng.random(n) < 0.3
    bits[tiny] |= rng.integers(1, 0x0300, int(tiny.sum())).astype(np.uint16)
    bits[n // 2 :] = np.where(rng.random(n - n // 2) < 0.5, bits[n // 2 :], 0x8000)
    bits[-8:] = 0x3F80  # one normal element (1.0) near the end: a normal block
    x = bits.reshape(shape).view(ml_dtypes.bfloat16)
    got = quantize_mx(x, fmt, block_shape)
    want = quantize_mx_reference(x, fmt, block_shape)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0], want[0])
    negative_zero_code = 1 << (fmt.info.bits - 1)  # the sign bit alone
    assert (got[0].reshape(-1)[bits == 0x8000] == negative_zero_code).any()


@pytest.mark.parametrize("group", [8, 16, 64, 128, 256])
@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
def test_fast_quantize_last_axis_block_sizes(fmt, group):
    """Last-axis blocks of every power-of-two size the sliding-window block max handles:
    compaction views of 2, 4 and 8 bytes and the strided pick beyond."""
    x = mixed_bf16((24, 512), seed=group)
    got = quantize_mx(x, fmt, (1, group))
    want = quantize_mx_reference(x, fmt, (1, group))
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("chunk", [64, 1024, 1 << 19])
@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2], ids=lambda f: f.spec_name)
def test_fast_quantize_sign_of_the_last_element(monkeypatch, fmt, chunk):
    """FP8 reads the sign bytes through an unaligned view one byte in; the array's last
    element has no byte after it and takes its own path."""
    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", chunk)
    x = mixed_bf16((5, 96), seed=23)
    last_block = np.linspace(0.5, 3.0, 32, dtype=np.float32)
    last_block[-1] = -1.5
    x[-1, -32:] = last_block.astype(ml_dtypes.bfloat16)
    codes, _ = quantize_mx(x, fmt, (1, 32))
    want, _ = quantize_mx_reference(x, fmt, (1, 32))
    np.testing.assert_array_equal(codes, want)
    assert codes[-1, -1] & 0x80


@pytest.mark.parametrize("alternative", [False, True], ids=["emax", "emax-1"])
@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
def test_fast_quantize_every_subnormal_result(fmt, alternative):
    """Every sign and bf16 mantissa at every target exponent ``t`` in ``[-mbits, 0]``
    (the subnormal results), in blocks whose max is 1.0, neither tiny nor huge."""
    mbits, bias = fmt.info.mantissa_bits, fmt.info.bias
    e8m0 = 127 - (fmt.emax - 1 if alternative else fmt.emax)
    sign, t, m = np.meshgrid([0, 1], np.arange(-mbits, 1), np.arange(128), indexing="ij")
    exponent = t + e8m0 - bias
    elements = ((sign << 15) | (exponent << 7) | m).astype(np.uint16).reshape(-1)
    elements = np.concatenate([elements, np.zeros(-elements.size % 31, np.uint16)])
    blocks = np.full((elements.size // 31, 32), 0x3F80, np.uint16)  # 1.0 first
    blocks[:, 1:] = elements.reshape(-1, 31)
    x = blocks.view(ml_dtypes.bfloat16)
    got = quantize_mx(x, fmt, (1, 32), alternative_emax=alternative)
    want = quantize_mx_reference(x, fmt, (1, 32), alternative_emax=alternative)
    assert (want[1] == e8m0).all()
    np.testing.assert_array_equal(got[0], want[0])
    assert len(np.unique(want[0][:, 1:])) > 2 * mbits


def test_fast_quantize_geometry_and_format_changes():
    """The per-thread workspace is rebuilt or reused as shapes, block geometries, formats
    and chunk sizes change from call to call."""
    cases = [
        ((64, 256), (1, 32), MxFormat.E4M3FN),
        ((64, 40), (8, 4), MxFormat.E5M2),
        ((64, 256), (1, 32), MxFormat.E2M1),
        ((3, 64, 256), (1, 1, 32), MxFormat.E4M3FN),
        ((128, 128), (1, 32), MxFormat.E4M3FN),
        ((1024,), (32,), MxFormat.E5M2),
        ((992,), (32,), MxFormat.E5M2),
        ((64, 256), (1, 32), MxFormat.E4M3FN),
    ]
    for seed, (shape, block_shape, fmt) in enumerate(cases):
        x = mixed_bf16(shape, seed=seed)
        got = quantize_mx(x, fmt, block_shape)
        want = quantize_mx_reference(x, fmt, block_shape)
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[0], want[0])


def test_fast_quantize_rows_of_other_lengths_same_chunks(monkeypatch):
    """Blocks over two axes in arrays whose rows differ in length but whose chunks hold
    as many elements (one workspace serves both, its views built for the first): the
    per-window maxima are reduced over the rows of the array at hand."""
    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 1024)
    cases = [((16, 64), (8, 4)), ((16, 128), (8, 4)), ((16, 64), (8, 4)), ((32, 32), (4, 8))]
    cases += [((16, 64), (4, 8)), ((32, 32), (4, 8))]
    for seed, (shape, block_shape) in enumerate(cases):
        x = mixed_bf16(shape, seed=seed)
        got = quantize_mx(x, MxFormat.E4M3FN, block_shape)
        want = quantize_mx_reference(x, MxFormat.E4M3FN, block_shape)
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[0], want[0])


def test_fast_quantize_from_several_threads():
    """Each thread has its own workspace: concurrent calls (numpy releases the GIL inside
    every ufunc) give the reference bits."""
    cases = [
        (mixed_bf16((96, 4096), seed=seed), fmt)
        for seed, fmt in enumerate([MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1] * 2)
    ]
    wants = [quantize_mx_reference(x, fmt, (1, 32)) for x, fmt in cases]

    def work(case: int) -> bool:
        x, fmt = cases[case]
        for _ in range(3):
            codes, scale = quantize_mx(x, fmt, (1, 32))
            if not (
                np.array_equal(codes, wants[case][0]) and np.array_equal(scale, wants[case][1])
            ):
                return False
        return True

    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        assert all(pool.map(work, range(len(cases))))


@pytest.mark.parametrize(
    ("shape", "block_shape"),
    [((16, 8), (8, 4)), ((128, 512), (8, 4)), ((24, 12), (2, 3)), ((4, 2, 8), (2, 1, 4))],
)
def test_block_index_of_every_element(shape, block_shape):
    """``fast._block_index`` (the redo's and the dequantize's block of an element) of
    every flat index against the block worked out from each coordinate here (the 2-D
    arithmetic path and the general one)."""
    from mxdsl.numerics.fast import ChunkPlan, _block_index

    plan = ChunkPlan.of(shape, block_shape)
    coords = np.indices(plan.shape).reshape(len(plan.shape), -1)
    want = np.zeros(coords.shape[1], np.int64)
    for axis, (extent, block) in enumerate(zip(plan.grid, plan.block, strict=True)):
        want = want * extent + coords[axis] // block
    flat = np.arange(coords.shape[1])
    assert np.array_equal(_block_index(flat, plan), want)
    words = flat.reshape(-1, 8)  # the redo's [words, 8] indices
    assert np.array_equal(_block_index(words, plan), want.reshape(-1, 8))

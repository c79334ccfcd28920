"""The PE/PSUM accumulation order (mxdsl.numerics.matmul) against a plain restatement."""

import math

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import MxFormat, pack_fp4_x4, pack_fp8_x4
from mxdsl.numerics.blocks import PHYSICAL_BLOCK_SHAPE
from mxdsl.numerics.matmul import k_tiled_matmul, mx_matmul_operand, pe_pass, to_float64
from mxdsl.numerics.reference import dequantize_mx_reference

RNG = np.random.default_rng(7)


def test_pe_pass_is_a_float64_sum_rounded_once() -> None:
    lhs = RNG.standard_normal((5, 96)).astype(np.float32)
    rhs = RNG.standard_normal((96, 3)).astype(np.float32)
    exact = np.array(
        [
            [
                np.float32(math.fsum(float(a) * float(b) for a, b in zip(row, col, strict=True)))
                for col in rhs.T
            ]
            for row in lhs
        ]
    )
    # fsum is the correctly rounded float64 sum of the exact products; pe_pass's BLAS sum
    # is within a few float64 ulps of it, so both round to the same fp32 barring a
    # near-tie, which this data does not have.
    assert (pe_pass(lhs, rhs).view(np.uint32) == exact.view(np.uint32)).all()


@pytest.mark.parametrize(("k", "tile"), [(128, 128), (300, 128), (1024, 512), (40, 512)])
def test_k_tiled_matmul_adds_tiles_in_order_in_fp32(k: int, tile: int) -> None:
    lhs = RNG.standard_normal((2, 4, k)).astype(np.float32)
    rhs = RNG.standard_normal((2, k, 6)).astype(np.float32)
    expected = np.zeros((2, 4, 6), np.float32)
    for start in range(0, k, tile):
        part = lhs[..., start : start + tile].astype(np.float64) @ rhs[
            :, start : start + tile
        ].astype(np.float64)
        expected = (expected + part.astype(np.float32)).astype(np.float32)
    assert (k_tiled_matmul(lhs, rhs, tile).view(np.uint32) == expected.view(np.uint32)).all()


def test_tile_boundaries_change_rounding() -> None:
    # 1 + 2^-24 + 2^-24: one pass keeps both halves (float64), two passes of one element
    # each round 1 + 2^-24 back to 1 twice.
    lhs = np.array([[1.0, 2.0**-24, 2.0**-24]], np.float32)
    rhs = np.ones((3, 1), np.float32)
    assert k_tiled_matmul(lhs, rhs, 3)[0, 0] == np.float32(1 + 2.0**-23)
    assert k_tiled_matmul(lhs, rhs, 1)[0, 0] == np.float32(1.0)


def test_bad_tile_and_mismatched_k_are_refused() -> None:
    with pytest.raises(ValueError, match="k_tile"):
        k_tiled_matmul(np.ones((1, 2)), np.ones((2, 1)), 0)
    with pytest.raises(ValueError, match="contraction"):
        k_tiled_matmul(np.ones((1, 2)), np.ones((3, 1)), 2)


E2M1_GRID = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], np.float32)


@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1])
def test_mx_matmul_operand_reads_k_as_4p_plus_q(fmt: MxFormat) -> None:
    partitions, free = 16, 3
    codes = RNG.integers(0, 16 if fmt is MxFormat.E2M1 else 0x78, (partitions, 4 * free))
    codes = codes.astype(np.uint8)
    scales = RNG.integers(120, 135, (partitions // 8, free)).astype(np.uint8)
    if fmt is MxFormat.E2M1:
        containers = pack_fp4_x4(codes)
        values = E2M1_GRID[codes]
    else:
        containers = pack_fp8_x4(codes)
        values = codes.view(fmt.dtype).astype(np.float32)
    operand = mx_matmul_operand(containers, scales, fmt)
    for p in range(partitions):
        for f in range(free):
            scale = np.float32(2.0 ** (int(scales[p // 8, f]) - 127))
            for q in range(4):
                assert operand[f, 4 * p + q] == values[p, 4 * f + q] * scale


EDGE_SCALES = np.array([0, 1, 100, 126, 127, 128, 200, 253, 254, 255], np.uint8)


@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mx_matmul_operand_every_code_and_edge_scale(fmt: MxFormat, dtype: type) -> None:
    # every code in every lane, against E8M0 bytes from the denormal 2^-127 to 2^127
    # (overflow to inf) and 255 (NaN): each finite value is the exact product rounded
    # once to fp32 (ldexpf), worked out here in float64; NaN codes and scales give NaN
    partitions, free = 64, 64
    width = 16 if fmt is MxFormat.E2M1 else 256
    codes = np.tile((np.arange(4 * free) % width).astype(np.uint8), (partitions, 1))
    codes = np.roll(codes, np.arange(partitions) % 7, axis=1) if width == 256 else codes
    rows = np.arange(partitions // 8)[:, None] + np.arange(free)[None, :]
    scales = EDGE_SCALES[rows % EDGE_SCALES.size]
    if fmt is MxFormat.E2M1:
        containers = pack_fp4_x4(codes)
        values = E2M1_GRID[codes].astype(np.float64)
    else:
        containers = pack_fp8_x4(codes)
        values = codes.view(fmt.dtype).astype(np.float64)
    factor = np.exp2(scales.astype(np.float64) - 127)
    factor[scales == 255] = np.nan
    block_factor = np.repeat(np.repeat(factor, 8, axis=0), 4, axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = (values * block_factor).astype(np.float32)  # [P, 4F], exact then once
    operand = mx_matmul_operand(containers, scales, fmt, dtype=dtype)
    assert operand.dtype == dtype
    assert operand.shape == (free, 4 * partitions)
    by_k = expected.reshape(partitions, free, 4).transpose(1, 0, 2).reshape(free, -1)
    got = operand.astype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(by_k))
    finite = ~np.isnan(by_k)
    assert (got[finite].view(np.uint32) == by_k[finite].view(np.uint32)).all()
    assert np.isinf(by_k).any()
    assert (by_k[finite] != 0).any()
    if fmt is not MxFormat.E2M1:
        denormal = (np.abs(by_k) < np.finfo(np.float32).tiny) & (by_k != 0)
        assert denormal.any()


@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2])
def test_mx_matmul_operand_nan_bits_are_the_reference_dequantize(fmt: MxFormat) -> None:
    codes = np.arange(256, dtype=np.uint8).reshape(8, 32)  # [P = 8, 4F = 32]
    codes = np.concatenate([codes] * 4)  # 32 partitions, scale rows 0..3
    scales = np.array([[127] * 8, [255] * 8, [1] * 8, [254] * 8], np.uint8)
    reference = dequantize_mx_reference(codes, scales, fmt, PHYSICAL_BLOCK_SHAPE)
    by_k = reference.reshape(32, 8, 4).transpose(1, 0, 2).reshape(8, -1)
    operand = mx_matmul_operand(pack_fp8_x4(codes), scales, fmt)
    assert (operand.view(np.uint32) == by_k.view(np.uint32)).all()


def test_to_float64_of_every_bfloat16_word() -> None:
    """Every bf16 bit pattern widens to its value worked out from the fields (sign,
    8-bit exponent with bias 127, 7-bit fraction; subnormals 2^-126 * m / 128); NaNs keep
    sign and payload as ml_dtypes' own cast does. Also through a strided 2-D view."""
    words = np.arange(1 << 16, dtype=np.uint16)
    sign = np.where(words >> 15, -1.0, 1.0)
    exponent = ((words >> 7) & 0xFF).astype(np.int64)
    fraction = (words & 0x7F).astype(np.float64)
    expected = np.where(
        exponent == 0,
        np.ldexp(fraction / 128, -126),
        np.ldexp(1 + fraction / 128, exponent - 127),
    )
    expected = np.where(exponent == 255, np.where(fraction == 0, np.inf, np.nan), expected)
    expected *= sign
    got = to_float64(words.view(ml_dtypes.bfloat16))
    assert got.dtype == np.float64
    nan = np.isnan(expected)
    assert np.array_equal(got[~nan].view(np.uint64), expected[~nan].view(np.uint64))
    with np.errstate(invalid="ignore"):
        by_ml_dtypes = words.view(ml_dtypes.bfloat16).astype(np.float64)
    assert np.isnan(got[nan]).all()
    assert np.array_equal(got[nan].view(np.uint64), by_ml_dtypes[nan].view(np.uint64))

    tile = words.view(ml_dtypes.bfloat16).reshape(256, 256)[::3, 1::2]
    assert np.array_equal(
        to_float64(tile).view(np.uint64), got.reshape(256, 256)[::3, 1::2].view(np.uint64)
    )


def test_to_float64_of_other_dtypes_is_astype_and_a_copy() -> None:
    for dtype in (np.float32, np.float16, np.float64, ml_dtypes.float8_e4m3fn):
        x = np.arange(-6, 7, dtype=np.float64).astype(dtype).reshape(13, 1)
        got = to_float64(x)
        assert got.dtype == np.float64
        assert np.array_equal(got, np.arange(-6, 7, dtype=np.float64).reshape(13, 1))
        assert not np.shares_memory(got, x)

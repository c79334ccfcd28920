"""The PE/PSUM accumulation order (mxdsl.numerics.matmul) against a plain restatement."""

import math

import numpy as np
import pytest

from mxdsl.numerics import MxFormat, pack_fp4_x4, pack_fp8_x4
from mxdsl.numerics.matmul import k_tiled_matmul, mx_matmul_operand, pe_pass

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

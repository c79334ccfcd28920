"""pe_pass_f64 (the nisa interpreter's PE pass, skipping all-zero operand rows/columns)
and mx_matmul_operand(dtype=float64) agree bit for bit with pe_pass / the f32 operand."""

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import MxFormat, pack_fp8_x4
from mxdsl.numerics.matmul import mx_matmul_operand, pe_pass, pe_pass_f64

RNG = np.random.default_rng(11)


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint32)


@pytest.mark.parametrize("pattern", ["none", "prefix", "scattered", "all"])
@pytest.mark.parametrize("side", ["rows", "cols", "both"])
def test_zero_rows_and_columns_are_skipped_bit_for_bit(pattern: str, side: str) -> None:
    lhs = RNG.standard_normal((128, 128)).astype(ml_dtypes.bfloat16).astype(np.float64)
    rhs = RNG.standard_normal((128, 512)).astype(ml_dtypes.bfloat16).astype(np.float64)
    lhs[:, :5] = -np.abs(lhs[:, :5])  # products of -x and +0 are -0: the sum is still +0
    for array, axis in ((lhs, 0), (rhs, 1)):
        if side == "rows" and axis == 1 or side == "cols" and axis == 0:
            continue
        n = array.shape[axis]
        zero = {
            "none": np.zeros(n, bool),
            "prefix": np.arange(n) >= n // 3,
            "scattered": RNG.random(n) < 0.4,
            "all": np.ones(n, bool),
        }[pattern]
        if axis == 0:
            array[zero, :] = 0.0
        else:
            array[:, zero] = 0.0
    got = pe_pass_f64(lhs, rhs)
    want = pe_pass(lhs, rhs)
    assert got.dtype == np.float32
    assert (_bits(got) == _bits(want)).all()


def test_a_transposed_view_operand() -> None:
    stationary = RNG.standard_normal((128, 96))  # [K, M], read transposed as nc_matmul does
    stationary[:, 40:] = 0.0
    moving = RNG.standard_normal((128, 200))
    moving[:, ::3] = 0.0
    got = pe_pass_f64(stationary.T, moving)
    assert (_bits(got) == _bits(pe_pass(stationary.T, moving))).all()


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_operands_disable_the_skip(bad: float) -> None:
    lhs = RNG.standard_normal((16, 32))
    rhs = RNG.standard_normal((32, 24))
    rhs[:, 3] = 0.0  # a zero column times an inf/NaN row is NaN, not +0
    lhs[2, 7] = bad
    lhs[5, :] = 0.0  # a zero row times a finite rhs stays +0
    got = pe_pass_f64(lhs, rhs)
    want = pe_pass(lhs, rhs)
    assert np.isnan(got[2, 3])
    assert (_bits(got) == _bits(want)).all()
    rhs[4, 9] = bad  # now the zero rows of lhs meet an inf/NaN column too
    got = pe_pass_f64(lhs, rhs)
    assert np.array_equal(np.isnan(got), np.isnan(pe_pass(lhs, rhs)))
    assert np.isnan(got[5, 9])


def test_mx_operand_in_float64_is_the_f32_operand_widened() -> None:
    codes = RNG.integers(0, 256, size=(64, 40 * 4), dtype=np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0  # no NaN codes
    words = pack_fp8_x4(codes)
    scales = RNG.integers(120, 134, size=(8, 40), dtype=np.uint8)
    f32 = mx_matmul_operand(words, scales, MxFormat.E4M3FN)
    f64 = mx_matmul_operand(words, scales, MxFormat.E4M3FN, dtype=np.float64)
    assert f32.dtype == np.float32
    assert f64.dtype == np.float64
    assert f64.shape == f32.shape
    assert np.array_equal(f64.astype(np.float32).view(np.uint32), f32.view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.float16, np.float64])
def test_nisa_nonzero_columns_match_a_float_reduction(dtype: type) -> None:
    from mxdsl.interpreters.nisa import _nonzero_columns  # pyright: ignore[reportPrivateUsage]

    tile = RNG.standard_normal((16, 40)).astype(dtype)
    tile[:, 3] = 0.0
    tile[:, 5] = -0.0
    tile[:, 7] = 0.0
    tile[4, 7] = np.nan
    tile[:, 9] = 0.0
    tile[2, 9] = -np.inf
    view = tile[:, ::2]  # a strided view, as a subview gives
    for t in (tile, view):
        want = t.astype(np.float64).any(axis=0)
        assert np.array_equal(_nonzero_columns(t), want)

"""The moving operand's finiteness (``docs/numerics.md``, "The PE pass": skipping an
all-zero column is exact only while the other side is finite) read on its own when a
batch multiplies nothing, from the quick bounds otherwise: ``_finite_words`` against
``np.isfinite`` of the widened values (each dtype's largest finite value, infinities,
NaNs with payloads, subnormals, +-0, strided views), and the passes' outputs against the
exact reference."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from exact_reference import bits, exact_pass

from mxdsl.numerics import matmul
from mxdsl.numerics.matmul import PePass, pe_operand, pe_passes_into

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(20261204)
_DTYPES = [BF16, np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)]


def _with(dtype: np.dtype, special: str) -> np.ndarray:
    values = (RNG.standard_normal((16, 12)) * 3).astype(dtype)
    largest = ml_dtypes.finfo(dtype).max
    values[4, 5] = -largest  # the largest finite magnitude: all-ones exponent but one bit
    values[6, 1] = ml_dtypes.finfo(dtype).smallest_subnormal
    values[7, 2] = -0.0
    if special == "inf":
        values[9, 10] = -np.inf
    elif special == "nan":
        words = values.view(matmul._MAGNITUDE_BITS[dtype][0])
        words[2, 3] = matmul._EXPONENT_MASK[dtype] | 1  # a NaN with a payload
    return values


@pytest.mark.parametrize("special", ["none", "inf", "nan"])
@pytest.mark.parametrize("dtype", _DTYPES)
def test_finite_words_is_isfinite(dtype: np.dtype, special: str) -> None:
    values = _with(dtype, special)
    for tile in (values, values[:, 2:11], values[1::2, ::3], values[:0]):
        with np.errstate(invalid="ignore"):  # a signalling NaN quietened
            want = bool(np.isfinite(tile.astype(np.float64)).all())
        assert matmul._finite_words(tile) is want
        operand = pe_operand(tile)
        assert operand.finite is want
        assert "quick_bits" not in operand.__dict__  # one read of its own


def test_finite_comes_from_known_bounds(monkeypatch) -> None:
    tile = _with(BF16, "inf")
    operand = pe_operand(tile)
    operand.quick_bits  # noqa: B018  # the bounds read first
    monkeypatch.setattr(matmul, "_finite_words", lambda t: pytest.fail("read again"))
    assert operand.finite is False


@pytest.mark.parametrize("special", ["none", "inf"])
def test_a_batch_that_multiplies_nothing_reads_only_finiteness(special: str) -> None:
    """All-zero stationaries against a moving tile: +0 everywhere, or NaN where a product
    is 0 * inf; the moving operand's bounds are not read. With a nonzero stationary in the
    batch its bounds are read (the certificate needs them) and finiteness comes from
    them."""
    moving_values = _with(BF16, special)[:, :8]
    zero = np.zeros((16, 4), BF16)
    dst = np.full((8, 8), 7.0, np.float32)
    moving = pe_operand(moving_values)
    stationaries = [pe_operand(zero), pe_operand(zero.copy())]
    pe_passes_into(
        moving, [PePass(dst[:4], stationaries[0], False), PePass(dst[4:], stationaries[1], False)]
    )
    want = exact_pass(np.zeros((8, 16), BF16), moving_values)
    np.testing.assert_array_equal(bits(dst), bits(want))
    assert "quick_bits" not in moving.__dict__
    lhs = (RNG.standard_normal((4, 16)) * 2).astype(BF16)
    moving = pe_operand(moving_values)
    stationaries = [pe_operand(zero), pe_operand(np.ascontiguousarray(lhs.T))]
    pe_passes_into(
        moving, [PePass(dst[:4], stationaries[0], False), PePass(dst[4:], stationaries[1], False)]
    )
    want = exact_pass(np.concatenate([np.zeros((4, 16), BF16), lhs]), moving_values)
    np.testing.assert_array_equal(bits(dst), bits(want))
    assert "quick_bits" in moving.__dict__


@pytest.mark.parametrize("special", ["none", "inf", "nan"])
def test_a_batch_of_zero_tokens_reads_only_the_stationaries_finiteness(special: str) -> None:
    """An all-zero moving tile (a block of padding tokens) against nonzero stationaries:
    nothing to multiply, so the stationaries' bounds are not read, only their finiteness
    (+0 everywhere, or the canonical NaN in the rows of a stationary column holding an
    infinity or NaN: 0 * inf). Accumulating, the +0 is added (a -0 in PSUM becomes +0)."""
    values = _with(BF16, special)  # [K=16, 12]
    moving_values = np.zeros((16, 6), BF16)
    moving_values[3, 2] = -0.0
    dst = np.full((12, 6), 5.0, np.float32)
    dst[0, 0] = -0.0
    start = dst.copy()
    stationaries = [pe_operand(values[:, :5]), pe_operand(values[:, 5:])]
    moving = pe_operand(moving_values)
    pe_passes_into(
        moving, [PePass(dst[:5], stationaries[0], True), PePass(dst[5:], stationaries[1], True)]
    )
    for s in stationaries:
        assert "quick_bits" not in s.__dict__
    with np.errstate(invalid="ignore"):
        bad_rows = ~np.isfinite(values.astype(np.float64)).all(axis=0)  # column m: row m
    want = start + np.float32(0.0)  # every pass sum is +0 (-0 + +0 is +0)
    want[bad_rows] = np.nan
    want_bits = want.view(np.uint32).copy()
    want_bits[bad_rows] = 0x7FC0_0000  # the canonical NaN
    np.testing.assert_array_equal(bits(dst), want_bits)
    assert bits(dst)[0, 0] == 0
    assert bad_rows.any() == (special != "none")

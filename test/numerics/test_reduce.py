"""mxdsl.numerics.reduce: tensor_reduce's one order, a left-to-right fold in the
operand's dtype, checked against a scalar fold written out here, and independent of the
layout and of how the reduced elements are grouped into axes."""

from __future__ import annotations

import numpy as np
import pytest

from mxdsl.numerics.reduce import fold_trailing

RNG = np.random.default_rng(5)
F32 = np.float32


def scalar_fold(ufunc: np.ufunc, row: np.ndarray) -> np.generic:
    """The fold one element at a time, on numpy scalars of the row's dtype."""
    acc = row[0]
    for x in row[1:]:
        acc = ufunc(acc, x)
    return acc


def test_small_terms_are_added_one_at_a_time():
    """1 + 2^-24 rounds back to 1 in f32 (a tie, to even), sixteen times: the fold gives
    exactly 1. Summing the small terms first (as a pairwise sum does) would give
    1 + 2^-20."""
    row = np.array([1.0] + [2.0**-24] * 16, dtype=F32)
    result = fold_trailing(np.add, row[None, :], (1,))
    assert result.dtype == F32
    assert result.tolist() == [1.0]


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.maximum, np.minimum])
def test_fold_is_the_scalar_fold_in_row_major_order(ufunc: np.ufunc):
    x = (RNG.standard_normal((5, 3, 4, 7)) * 10.0 ** RNG.integers(-6, 6, (5, 3, 4, 7))).astype(F32)
    got = fold_trailing(ufunc, x, (2, 3))
    rows = x.reshape(5, 3, 28)
    expected = np.array([[scalar_fold(ufunc, rows[i, j]) for j in range(3)] for i in range(5)])
    assert got.shape == (5, 3)
    assert got.tobytes() == expected.astype(F32).tobytes()


def test_layout_and_axis_grouping_do_not_change_the_bits():
    base = (RNG.standard_normal((6, 40, 9)) * 1e3).astype(F32)
    strided = base[:, ::2, 1:]  # [6, 20, 8], not contiguous
    contiguous = np.ascontiguousarray(strided)
    split = contiguous.reshape(6, 20, 2, 4)
    one = fold_trailing(np.add, strided, (1, 2))
    assert one.tobytes() == fold_trailing(np.add, contiguous, (1, 2)).tobytes()
    assert one.tobytes() == fold_trailing(np.add, split, (1, 2, 3)).tobytes()
    assert one.tobytes() == fold_trailing(np.add, contiguous.reshape(6, 160), (1,)).tobytes()


def test_integers_are_exact_and_an_empty_reduction_is_the_identity():
    x = RNG.integers(-(2**20), 2**20, (4, 16), dtype=np.int64)
    assert (fold_trailing(np.add, x, (1,)) == x.sum(axis=1)).all()
    assert fold_trailing(np.add, np.zeros((3, 0), F32), (1,)).tolist() == [0.0, 0.0, 0.0]
    assert fold_trailing(np.multiply, np.zeros((2, 0), F32), (1,)).tolist() == [1.0, 1.0]


def test_only_trailing_axes_are_folded():
    with pytest.raises(ValueError, match="not the trailing axes"):
        fold_trailing(np.add, np.zeros((2, 3, 4), F32), (1,))

"""The certificate's shortcuts keep the PE pass exact (``docs/numerics.md``, "Between the
certificate and the exact path"): the pairing of wide rows with wide columns (dense and
sorted), the per-column bounds read in three passes, and the bounds a batch of
stationaries keeps for the next batch. Outputs are checked against exact rational sums
(``exact_reference``), the bounds against the elements' own exponents (``np.frexp``)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from batched_passes import batched_passes
from exact_reference import bits, exact_pass

from mxdsl.numerics import matmul
from mxdsl.numerics.exact import failing_pairs, quick_column_bits
from mxdsl.numerics.matmul import PePass, pe_operand, pe_pass, pe_passes_into

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(20261203)


@pytest.mark.parametrize(("rows", "columns"), [(30, 40), (200, 300), (1, 500), (700, 9)])
def test_failing_pairs_are_every_pair_over_the_limit(rows: int, columns: int):
    """Both routes (a dense block up to 4096 pairs, a width sort beyond) give exactly the
    pairs a plain outer sum marks, each once."""
    for limit in (10, 40, 55, 80):
        row_width = RNG.integers(-3, 45, rows)
        column_width = RNG.integers(-3, 45, columns)
        got = failing_pairs(
            row_width, column_width, limit, int(row_width.max()), int(column_width.max())
        )
        want = np.argwhere(row_width[:, None] + column_width[None, :] > limit)
        assert sorted(zip(*(g.tolist() for g in got), strict=True)) == [tuple(w) for w in want]


def _tiny_per_row_and_column(m: int, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """bf16 ``lhs [m, k]``, ``rhs [k, n]`` of ordinary values with one tiny element in
    every row of lhs and every column of rhs, so that every output fails the bit
    certificate."""
    lhs = (RNG.standard_normal((m, k)) * 4).astype(BF16)
    rhs = (RNG.standard_normal((k, n)) * 4).astype(BF16)
    lhs[np.arange(m), RNG.integers(0, k, m)] = BF16.type(2.0**-30)
    rhs[RNG.integers(0, k, n), np.arange(n)] = BF16.type(-(2.0**-27))
    return lhs, rhs


def test_a_pass_paired_through_the_width_sort():
    """72 x 72 uncertified outputs (5184 pairs: the sorted route), each the exact sum
    rounded once, through one pass and the batched path."""
    lhs, rhs = _tiny_per_row_and_column(72, 16, 72)
    expected = bits(exact_pass(lhs, rhs))
    np.testing.assert_array_equal(bits(pe_pass(lhs, rhs)), expected)
    np.testing.assert_array_equal(bits(batched_passes(lhs, rhs, 24)), expected)


def test_stationaries_reused_across_batches():
    """The same stationaries against two moving operands (the second batch reuses the
    bounds the first read), then one of them alone and in another batch (its own part
    of them): every output equals the exact sum rounded once."""
    lhs, rhs = _tiny_per_row_and_column(24, 32, 10)
    other = (RNG.standard_normal((32, 10)) * 2.0**-20).astype(BF16)
    stationaries = [pe_operand(np.ascontiguousarray(lhs[r : r + 8].T)) for r in (0, 8, 16)]
    for moving in (rhs, other, rhs):
        dst = np.empty((24, 10), dtype=np.float32)
        passes = [PePass(dst[8 * n : 8 * n + 8], s, False) for n, s in enumerate(stationaries)]
        pe_passes_into(pe_operand(moving), passes)
        np.testing.assert_array_equal(bits(dst), bits(exact_pass(lhs, moving)))
    alone = np.empty((8, 10), dtype=np.float32)
    pe_passes_into(pe_operand(other), [PePass(alone, stationaries[1], False)])
    np.testing.assert_array_equal(bits(alone), bits(exact_pass(lhs[8:16], other)))
    swapped = np.empty((16, 10), dtype=np.float32)
    pe_passes_into(
        pe_operand(rhs),
        [PePass(swapped[:8], stationaries[2], False), PePass(swapped[8:], stationaries[0], False)],
    )
    want = exact_pass(np.concatenate([lhs[16:24], lhs[0:8]]), rhs)
    np.testing.assert_array_equal(bits(swapped), bits(want))
    for n, s in enumerate(stationaries):  # each kept part bounds its own columns
        _assert_bounds(lhs[8 * n : 8 * n + 8].T.astype(np.float64), s.quick_bits, 8)


def test_a_repeated_batch_keeps_its_float64_stack(monkeypatch):
    """The same stationaries against four moving tiles: the first two uses stack and
    widen them, the later ones read the stack the batch kept (read-only) from its second
    use; every output equals the exact sum rounded once. The kept stack is what the passes
    read (a wrong one changes the outputs), and another order of the same stationaries is
    another batch."""
    lhs, rhs = _tiny_per_row_and_column(24, 32, 10)
    stationaries = [pe_operand(np.ascontiguousarray(lhs[r : r + 8].T)) for r in (0, 8, 16)]
    stacks: list[int] = []
    stack = matmul._same_kind_stack
    monkeypatch.setattr(matmul, "_same_kind_stack", lambda s: stacks.append(1) or stack(s))
    movings = [rhs, *((RNG.standard_normal((32, 10)) * 4).astype(BF16) for _ in range(3))]
    for moving in movings:
        dst = np.empty((24, 10), dtype=np.float32)
        passes = [PePass(dst[8 * n : 8 * n + 8], s, False) for n, s in enumerate(stationaries)]
        pe_passes_into(pe_operand(moving), passes)
        np.testing.assert_array_equal(bits(dst), bits(exact_pass(lhs, moving)))
    assert len(stacks) == 2
    kept = stationaries[0].__dict__["_batch"].lhs
    assert kept is not None
    assert not kept.flags.writeable
    wrong = kept.copy()
    wrong[0, 0] += 1.0
    stationaries[0].__dict__["_batch"].lhs = wrong
    dst = np.empty((24, 10), dtype=np.float32)
    passes = [PePass(dst[8 * n : 8 * n + 8], s, False) for n, s in enumerate(stationaries)]
    pe_passes_into(pe_operand(rhs), passes)
    assert not np.array_equal(bits(dst), bits(exact_pass(lhs, rhs)))
    pair = [stationaries[0], stationaries[2]]
    assert matmul._lhs(pair, None).shape == (32, 16)  # not the batch of three's stack
    swapped = np.empty((16, 10), dtype=np.float32)
    pe_passes_into(
        pe_operand(rhs), [PePass(swapped[:8], pair[0], False), PePass(swapped[8:], pair[1], False)]
    )
    want = exact_pass(np.concatenate([lhs[0:8], lhs[16:24]]), rhs)
    np.testing.assert_array_equal(bits(swapped), bits(want))


@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16), np.dtype(np.float32)])
def test_quick_bounds_with_zeros_among_nonzeros(dtype: np.dtype):
    """Columns holding +0 and -0 beside nonzeros (re-read with the zeros skipped), an
    all-zero column, and ordinary ones: ``top`` is the largest element's exponent, ``low``
    the smallest nonzero's less the significand bits."""
    precision = {BF16: 8, np.dtype(np.float16): 11, np.dtype(np.float32): 24}[dtype]
    values = np.array([[0.0, 0.0, 1.5, 0.25], [-0.0, 0.0, -3.0, -0.0], [2.0**-9, -0.0, 0.5, 6.0]])
    tile = values.astype(dtype)
    quick = quick_column_bits(tile)
    assert quick is not None
    assert quick.top.tolist()[0] == -9
    assert quick.low.tolist()[0] == -9 - (precision - 1)
    assert quick.count.tolist()[1] == 0  # the all-zero column
    assert quick.top.tolist()[2:] == [1, 2]
    assert quick.low.tolist()[2:] == [-1 - (precision - 1), -2 - (precision - 1)]
    _assert_bounds(values, quick.take(np.array([0, 2, 3])), precision, columns=[0, 2, 3])


def _assert_bounds(values: np.ndarray, quick, precision: int, columns=None) -> None:
    """Every nonzero element of ``values [K, F]`` (the selected columns) is below
    ``2**(top + 1)`` in magnitude and a multiple of ``2**low`` with at most ``precision``
    significant bits above it (``np.frexp``: independent of the bit reading)."""
    values = values if columns is None else values[:, columns]
    mantissa, exponent = np.frexp(values)
    nonzero = values != 0
    assert np.all(np.where(nonzero, exponent - 1, -(10**6)).max(axis=0) <= quick.top)
    assert np.all(np.where(nonzero, exponent - precision, 10**6).min(axis=0) >= quick.low)
    scaled = np.ldexp(values, -quick.low[None, :].astype(np.int64))
    assert np.all(scaled == np.rint(scaled))

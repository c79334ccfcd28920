"""The fix-up of one pass's uncertified outputs (``exact.fix_uncertified``, ``docs/numerics.md``,
"Between the certificate and the exact path"): the exponent screen with its margins
built as float64 bit patterns, the products gathered along the operands' rows, and the
settling of the doubtful few from sums gathered once. Outputs are checked against exact
rational sums rounded once to fp32 (``exact_reference``, sharing no code with the
package) on adversarial passes: cancellation, ``2**60 + 1 - 2**60``, subnormal sums and
ties, exact midpoints, all-zero products of -0, sums overflowing fp32, and infinities."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from batched_passes import batched_passes
from exact_reference import bits, exact_pass

from mxdsl.numerics.exact import (
    _exponent_doubt,
    _settle,
    column_bits,
    fix_uncertified,
    may_overflow,
)
from mxdsl.numerics.matmul import PePass, pe_operand, pe_pass, pe_passes_into

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(20261202)
K = 16


def _wide(m: int, n: int, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """float64 ``lhs [m, K]``, ``rhs [K, n]`` of bf16 values whose rows and columns all
    span more than the certificate allows (one tiny element each), so every output is a
    failing pair."""
    lhs = (RNG.standard_normal((m, K)) * scale).astype(BF16).astype(np.float64)
    rhs = (RNG.standard_normal((K, n)) * scale).astype(BF16).astype(np.float64)
    lhs[:, K - 1] = 2.0**-40 * scale
    rhs[K - 2, :] = -(2.0**-37) * scale
    return lhs, rhs


def _plant(lhs: np.ndarray, rhs: np.ndarray, r: int, c: int, a: list, b: list) -> None:
    """Row ``r`` of lhs and column ``c`` of rhs hold ``a`` and ``b`` in their first
    entries and zeros elsewhere but for the tiny elements (at positions where the other
    side is zero), so output ``(r, c)`` is exactly ``sum a * b``."""
    lhs[r, : K - 1] = 0.0
    rhs[: K - 2, c] = 0.0
    rhs[K - 1, c] = 0.0
    lhs[r, K - 2] = 0.0
    lhs[r, : len(a)] = a
    rhs[: len(b), c] = b
    lhs[r, K - 1] = 2.0**-40  # keeps the row wide: its product is 0 * this
    rhs[K - 2, c] = -(2.0**-37)


ADVERSARIAL = [
    ([2.0**30, 1.0, -(2.0**30)], [2.0**30, 1.0, 2.0**30]),  # 2**60 + 1 - 2**60 = 1
    ([3.0 * 2.0**20, 2.0**-10, -3.0 * 2.0**20], [1.0, 1.0, 1.0]),  # a + b - a
    ([1.0, 2.0**-12], [1.0, 2.0**-12]),  # 1 + 2**-24: a tie, to even (1)
    ([1.0, 3.0 * 2.0**-12], [1.0, 2.0**-12]),  # 1 + 3 * 2**-24: a tie, up
    ([1.0, -1.0], [2.0**-3, 2.0**-3]),  # cancels to +0
    ([-1.0, -(2.0**-30), 0.0, 0.0], [0.0, 0.0, -1.0, -(2.0**-30)]),  # only -0 products
    ([2.0**-70, 2.0**-75], [2.0**-70, 2.0**-74]),  # 2**-140 + 2**-149: subnormal
    ([2.0**-75, 2.0**-60], [2.0**-75, 2.0**-90]),  # 2**-150 + 2**-150: 2**-149
    ([2.0**-75], [-(2.0**-75)]),  # -2**-150: a tie below the subnormals, -0
    ([2.0**-75, -(2.0**-80)], [2.0**-75, 2.0**-80]),  # just under 2**-150: +0
    ([1.5, 2.0**-20, -1.5], [2.0**-8, 2.0**-20, 2.0**-8]),  # cancellation to 2**-40
]


def test_adversarial_sums_through_the_pass():
    """Each adversarial output sits among random failing pairs of the same pass; every
    output, through ``pe_pass`` and the batched path, equals the exact sum rounded
    once."""
    lhs, rhs = _wide(24, 20)
    for n, (a, b) in enumerate(ADVERSARIAL):
        _plant(lhs, rhs, n, n + 3, a, b)
    lhs16, rhs16 = lhs.astype(BF16), rhs.astype(BF16)
    assert np.array_equal(lhs16.astype(np.float64), lhs)  # every value is a bf16 value
    expected = bits(exact_pass(lhs, rhs))
    assert expected[0, 3] == bits(np.float32(1.0))  # spot checks of the reference
    assert expected[5, 8] == 0  # +0, not -0
    np.testing.assert_array_equal(bits(pe_pass(lhs16, rhs16)), expected)
    np.testing.assert_array_equal(bits(batched_passes(lhs16, rhs16, 8)), expected)


def test_a_pass_whose_doubtful_outputs_all_snap():
    """Three rows and columns on disjoint K ranges (so the off-diagonal outputs have only
    zero products): one output of -0 products alone, two exact fp32 midpoints. Every
    output is doubtful and snaps to its grid in one go; each is the exact sum rounded
    once (the -0 sum becomes +0)."""
    lhs = np.zeros((3, K))
    rhs = np.zeros((K, 3))
    plants = [
        ([-1.0, -(2.0**-30), 0.0, 0.0], [0.0, 0.0, -1.0, -(2.0**-30)]),
        ([1.0, 2.0**-12], [1.0, 2.0**-12]),
        ([1.0, 3.0 * 2.0**-12], [1.0, 2.0**-12]),
    ]
    for n, (a, b) in enumerate(plants):
        lhs[n, 4 * n : 4 * n + len(a)] = a
        rhs[4 * n : 4 * n + len(b), n] = b
    lhs[:, K - 1] = 2.0**-40  # wide rows and columns; their products are all 0
    rhs[K - 2, :] = -(2.0**-37)
    expected = bits(exact_pass(lhs, rhs))
    assert expected[0, 0] == 0
    assert expected[2, 2] == bits(np.float32(1.0 + 2.0**-22))
    np.testing.assert_array_equal(bits(pe_pass(lhs, rhs)), expected)
    dst = np.empty((3, 3), dtype=np.float32)
    stationary = pe_operand(np.ascontiguousarray(lhs.T).astype(BF16))
    pe_passes_into(pe_operand(rhs.astype(BF16)), [PePass(dst, stationary, False)])
    np.testing.assert_array_equal(bits(dst), expected)


@pytest.mark.parametrize("scale", [1.0, 2.0**-60, 2.0**56])
def test_no_floating_point_flag_escapes(scale: float):
    """``fix_uncertified`` called outside any ``np.errstate`` with overflow, invalid and
    divide raising (underflow is ignored, numpy's default: casting a tiny sum to fp32
    underflows, as rounding it does):
    with sums far from fp32's overflow and with sums near and past it (``scale =
    2**56``) nothing is raised and the outputs are the exact sums' rounding."""
    lhs, rhs = _wide(12, 10, scale)
    if scale > 1:  # 1.5 * 2**127 + 0.5 * 2**127 = 2**128: past fp32's largest value
        _plant(lhs, rhs, 0, 0, [2.0**64, 2.0**63], [1.5 * 2.0**63, 2.0**63])
        _plant(lhs, rhs, 1, 1, [2.0**64, -(2.0**40)], [1.5 * 2.0**63, 2.0**60])
    with np.errstate(all="ignore"):
        out = lhs @ rhs
    rows, columns = column_bits(lhs.T), column_bits(rhs)
    assert may_overflow(rows, columns, K) == (scale > 1)
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        fix_uncertified(out, lhs, rhs, rows, columns)
    with np.errstate(over="ignore"):
        got = out.astype(np.float32)
    np.testing.assert_array_equal(bits(got), bits(exact_pass(lhs, rhs)))
    if scale > 1:
        assert got[0, 0] == np.inf
        assert np.isfinite(got[1, 1])


def test_exponent_screen_matches_its_definition():
    """``_exponent_doubt`` flags exactly the sums whose ends ``s -+ 2**(t + 2 log - 49)``
    (formed with ``np.ldexp``) round to different fp32 bit patterns: at the extreme
    ``top_i + top_j`` of fp32 values, at exact fp32 midpoints and values, around zero,
    and off a midpoint by 0.75 and 1.5 times the margin ``2**-41`` (``top_i + top_j = 0``:
    doubtful, not doubtful), for infinite and NaN sums (never doubtful)."""
    log = 4
    tops = np.array([-298, -298, 254, 254, 0, 0, 0, 0, 0, -30, 10, 10, 10, 0, 0])
    sums = np.array(
        [2.0**-290, 0.0, 2.0**300, 2.0**200, 1.0, 1.0 + 2.0**-24, 1.0 + 2.0**-30, 0.0, -0.0]
        + [2.0**-20, np.inf, -np.inf, np.nan]
        + [1.0 + 2.0**-24 + 3.0 * 2.0**-43, 1.0 + 2.0**-24 + 3.0 * 2.0**-42]
    )
    with np.errstate(over="ignore"):
        got = _exponent_doubt(sums, tops, log)
        margin = np.ldexp(1.0, tops + 2 * log - 49)
        below = (sums - margin).astype(np.float32).view(np.uint32)
        above = (sums + margin).astype(np.float32).view(np.uint32)
    want = np.flatnonzero(below != above)
    np.testing.assert_array_equal(got, want)
    assert {1, 5, 7, 8, 13} <= set(want.tolist())  # zeros, at and near a midpoint
    assert not {4, 10, 11, 12, 14} & set(want.tolist())  # fp32 value, inf, NaN, far off


def test_settle_keeps_non_finite_sums_and_snaps_zeros():
    """``_settle`` on a non-finite sum keeps it (NaN and inf absorb); an output whose
    products are all -0 (a float64 sum of -0) becomes +0, whether or not every output
    snaps; an infinite sum whose other products are zeros snaps to itself; a near-tie is
    snapped; a cancellation takes the exact path."""
    products = np.array(
        [
            [np.inf, 1.0, 0.0],
            [np.nan, 1.0, 0.0],
            [-0.0, -0.0, -0.0],
            [1.0, 2.0**-24, 0.0],
            [2.0**60, 1.0, -(2.0**60)],
        ]
    )
    out = np.array([[np.inf, np.nan, -0.0, 1.0 + 2.0**-24, 0.0]])
    index = (np.zeros(5, dtype=np.int64), np.arange(5))
    taken = _settle(out, products, index, 2, out[index].copy())
    assert taken == 1  # the cancellation alone
    assert out[0, 0] == np.inf
    assert np.isnan(out[0, 1])
    assert out[0, 2] == 0.0
    assert not np.signbit(out[0, 2])
    assert out[0, 3] == 1.0 + 2.0**-24  # exact: rounds to even in the fp32 cast
    assert out[0, 4] == 1.0
    out = np.array([[-0.0, 1.0 + 2.0**-24]])  # all snap: the -0 sum still becomes +0
    products = np.array([[-0.0, -0.0], [1.0, 2.0**-24]])
    index = (np.zeros(2, dtype=np.int64), np.arange(2))
    assert _settle(out, products, index, 1, out[index].copy()) == 0
    assert out[0, 0] == 0.0
    assert not np.signbit(out[0, 0])
    assert out[0, 1] == 1.0 + 2.0**-24
    out = np.array([[np.inf, 1.0 + 2.0**-24, -np.inf]])  # infinities among snapping sums
    products = np.array([[np.inf, 0.0], [1.0, 2.0**-24], [-np.inf, -0.0]])
    index = (np.zeros(3, dtype=np.int64), np.arange(3))
    assert _settle(out, products, index, 1, out[index].copy()) == 0
    np.testing.assert_array_equal(out, [[np.inf, 1.0 + 2.0**-24, -np.inf]])


@pytest.mark.parametrize("scale", [1.0, 2.0**-60, 2.0**56])
def test_quiet_fix_is_the_same_fix(scale: float):
    """``fix_uncertified(..., quiet=True)`` under the caller's ``np.errstate`` (as
    ``pe_passes_into`` calls it) writes the same float64 bits and takes the same outputs
    to the exact path as without ``quiet``, on the adversarial sums, sums past fp32's
    overflow and outputs with infinities and NaN; every output is the exact sum's
    rounding where the operands are finite."""
    lhs, rhs = _wide(24, 20, scale)
    for n, (a, b) in enumerate(ADVERSARIAL):
        _plant(lhs, rhs, n, n + 3, [x * scale for x in a], b)
    if scale > 1:
        _plant(lhs, rhs, 20, 0, [2.0**64, 2.0**63], [1.5 * 2.0**63, 2.0**63])
    finite = bits(exact_pass(lhs, rhs))
    lhs_special = lhs.copy()
    lhs_special[21, 0] = np.inf
    lhs_special[22, 1] = np.nan
    lhs_special[23, 2] = -np.inf
    for left in (lhs, lhs_special):
        with np.errstate(all="ignore"):
            out = left @ rhs
        rows, columns = column_bits(left.T), column_bits(rhs)
        plain = out.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            taken = fix_uncertified(plain, left, rhs, rows, columns)
            quiet = out.copy()
            assert fix_uncertified(quiet, left, rhs, rows, columns, quiet=True) == taken
        np.testing.assert_array_equal(quiet.view(np.uint64), plain.view(np.uint64))
        if left is lhs:
            with np.errstate(over="ignore"):
                np.testing.assert_array_equal(bits(quiet.astype(np.float32)), finite)


def test_fix_with_batch_dimensions():
    """Outputs ``[2, M, N]`` with bits per batch (three index arrays) and with one lhs
    broadcast over the batch: each batch is the exact sums' rounding, with and without
    ``quiet``; a batch whose uncertified outputs the exponent screen keeps all (small
    integer sums) is left as BLAS computed it."""
    pairs = [_wide(16, 12) for _ in range(2)]
    for n, (a, b) in enumerate(ADVERSARIAL[:8]):
        _plant(*pairs[n % 2], n, n + 2, a, b)
    lhs = np.stack([p[0] for p in pairs])
    rhs = np.stack([p[1] for p in pairs])
    # small positive integers with one tiny element per row and column: every output
    # uncertified, none doubtful (sums of at least 1, far from any fp32 midpoint)
    plain_lhs = RNG.integers(1, 4, (2, 16, K)).astype(np.float64)
    plain_rhs = RNG.integers(1, 4, (2, K, 12)).astype(np.float64)
    plain_lhs[..., K - 1] = 2.0**-40
    plain_rhs[..., K - 2, :] = 2.0**-37
    for left, right in ((lhs, rhs), (lhs[0], rhs), (plain_lhs, plain_rhs)):
        rows = column_bits(np.swapaxes(left, -1, -2))
        columns = column_bits(right)
        got = []
        for quiet in (False, True):
            out = np.matmul(left, right)
            with np.errstate(over="ignore", invalid="ignore"):
                fix_uncertified(out, left, right, rows, columns, quiet=quiet)
            got.append(out)
        np.testing.assert_array_equal(got[0].view(np.uint64), got[1].view(np.uint64))
        if left is plain_lhs:
            np.testing.assert_array_equal(got[1], np.matmul(left, right))
        for b in range(2):
            want = exact_pass(left if left.ndim == 2 else left[b], right[b])
            np.testing.assert_array_equal(bits(got[1][b].astype(np.float32)), bits(want))

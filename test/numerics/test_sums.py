"""mxdsl.numerics.sums: the exact sum rounded once. Against Fraction sums rounded to
nearest even by a search written here, on rows built to cancel and to straddle rounding
boundaries, in f32, bf16, f16 and fp8; and the special values."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import round_to
from mxdsl.numerics.sums import odd_sum

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def nearest(exact: Fraction, dtype: Any) -> np.ndarray:
    """``exact`` rounded to nearest even in ``dtype`` (finite, in range)."""
    if exact == 0:
        return np.array(0.0, dtype)
    u = UINT[np.dtype(dtype).itemsize]
    guess = int(np.array(float(exact), np.float32).astype(dtype).view(u))
    candidates = np.array([guess - 1, guess, guess + 1], np.int64).astype(u).view(dtype)
    candidates = candidates[np.isfinite(candidates.astype(np.float64))]
    distance = [abs(Fraction(float(c)) - exact) for c in candidates.astype(np.float64)]
    best = min(distance)
    picks = [c for c, d in zip(candidates, distance, strict=True) if d == best]
    return np.array(min(picks, key=lambda c: int(np.array(c).view(u)) & 1), dtype)


def rows_for(dtype: Any, n: int, k: int, seed: int) -> np.ndarray:
    """Rows of wide dynamic range that cancel: big +-pairs and small terms."""
    rng = np.random.default_rng(seed)
    info = ml_dtypes.finfo(dtype)
    top = min(int(info.maxexp) - 2, 100)
    low = max(int(info.minexp), -100)
    mags = np.ldexp(rng.uniform(1, 2, (n, k)), rng.integers(low, top, (n, k)))
    x = (mags * rng.choice([-1, 1], (n, k))).astype(dtype)
    half = k // 2
    x[: n // 2, half : 2 * half] = -x[: n // 2, :half]  # exact cancellation of the big ones
    return x


@pytest.mark.parametrize(
    "dtype",
    [np.float32, ml_dtypes.bfloat16, np.float16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2],
)
def test_exact_sum_rounded_once(dtype) -> None:
    x = rows_for(dtype, 64, 9, 1)
    init = np.array(0.375, dtype)
    got = round_to(odd_sum(x, (1,), init), np.dtype(dtype))
    for row, value in zip(x, got, strict=True):
        exact = sum((Fraction(float(v)) for v in row.astype(np.float64)), Fraction(0.375))
        info = ml_dtypes.finfo(dtype)
        if abs(exact) > Fraction(float(info.max)):
            continue  # beyond the format (checked below)
        want = nearest(exact, dtype)
        assert np.array(value).view(UINT[np.dtype(dtype).itemsize]) == want.view(
            UINT[np.dtype(dtype).itemsize]
        ), (row, exact)


def test_cases_by_hand() -> None:
    f32 = np.float32
    # 2^30 + 1 - 2^30 + 0.5: exact 1.5 (a left-to-right f32 fold gives 0.5)
    assert odd_sum(np.array([2.0**30, 1, -(2.0**30)], f32), (0,), 0.5) == 1.5
    # 1 + 2^-24 + 2^-24: exact 1 + 2^-23, an f32; a fold ties to even twice and gives 1
    x = np.array([1.0, 2.0**-24, 2.0**-24], f32)
    assert round_to(odd_sum(x, (0,)), np.dtype(f32)) == np.float32(1 + 2.0**-23)
    # 1 + 2^-24 + 2^-60: above the tie, rounds up (the sticky bit of the exact path)
    x = np.array([1.0, 2.0**-24, 2.0**-60], f32)
    assert round_to(odd_sum(x, (0,)), np.dtype(f32)) == np.float32(1 + 2.0**-23)
    # exact zero is +0 (also for -0 terms); infinities; NaN
    s = odd_sum(np.array([[-0.0, -0.0], [1.0, -1.0], [np.inf, 1.0], [np.inf, -np.inf]], f32), (1,))
    assert not np.signbit(s[0]) and not np.signbit(s[1])  # noqa: PT018
    assert s[2] == np.inf and np.isnan(s[3])  # noqa: PT018
    # a finite sum beyond f32 rounds to inf; bf16 from the round-to-odd value
    big = np.array([3e38, 3e38], f32)
    assert round_to(odd_sum(big, (0,)), np.dtype(f32)) == np.inf
    # several reduced axes, row-major; empty reduction is +0
    y = np.arange(24, dtype=f32).reshape(2, 3, 4)
    assert odd_sum(y, (0, 2)).tolist() == y.astype(np.float64).sum(axis=(0, 2)).tolist()
    assert odd_sum(np.zeros((3, 0), f32), (1,)).tolist() == [0.0, 0.0, 0.0]


def boundary_rows(n: int, k: int, seed: int) -> np.ndarray:
    """f32 rows whose exact sum sits on, or a hair off, a rounding boundary of f32 or
    bf16 (a value or a midpoint), reached through cancellation and wide spreads: where
    a float64 sum's error could decide the rounding."""
    rng = np.random.default_rng(seed)
    base = np.ldexp(rng.uniform(1, 2, (n, 1)), rng.integers(-20, 20, (n, 1))).astype(np.float32)
    bits = rng.choice([8, 9, 24, 25, 26], (n, 1))  # bf16 / f32 values and midpoints
    e = np.frexp(base.astype(np.float64))[1]
    on_grid = np.ldexp(np.round(np.ldexp(base.astype(np.float64), bits - e)), e - bits)
    rows = np.zeros((n, k), np.float64)
    rows[:, 0] = base[:, 0]
    rows[:, 1] = on_grid[:, 0] - base[:, 0]  # exact in f32 (same binade, few bits)
    big = np.ldexp(1.0, rng.integers(30, 90, n))
    rows[:, 2], rows[:, 3] = big, -big  # cancels exactly
    hair = np.ldexp(rng.choice([-1.0, 0.0, 1.0], n), e[:, 0] - rng.integers(27, 120, n))
    rows[:, 4] = hair  # a hair off the boundary, or on it
    rows[:, 5:] = np.ldexp(rng.uniform(-1, 1, (n, k - 5)), rng.integers(-140, -100, (n, k - 5)))
    perm = rng.permuted(np.tile(np.arange(k), (n, 1)), axis=1)
    rows = np.take_along_axis(rows, perm, axis=1)
    return rows.astype(np.float32)


@pytest.mark.parametrize(
    "dtype",
    [np.float32, ml_dtypes.bfloat16, np.float16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_certificates_never_change_an_answer(dtype, seed) -> None:
    """odd_sum (the certificates, float64 where they hold) against the exact path alone
    on every row, each rounded once to the format: the same bits."""
    from mxdsl.numerics.exact import odd_exact_sum

    rows = np.concatenate([boundary_rows(400, 9, seed), rows_for(np.float32, 200, 9, seed)])
    fast = round_to(odd_sum(rows, (1,)), np.dtype(dtype))
    exact = round_to(odd_exact_sum(rows.astype(np.float64)), np.dtype(dtype))
    u = UINT[np.dtype(dtype).itemsize]
    assert (fast.view(u) == exact.view(u)).all()


def test_boundary_rows_against_fractions() -> None:
    rows = boundary_rows(300, 9, 7)
    got = round_to(odd_sum(rows, (1,)), np.dtype(np.float32))
    for row, value in zip(rows, got, strict=True):
        exact = sum((Fraction(float(v)) for v in row.astype(np.float64)), Fraction(0))
        assert np.array(value).view(np.uint32) == nearest(exact, np.float32).view(np.uint32)


def test_the_certificates_carry_ordinary_rows(monkeypatch) -> None:
    """Sums of squares of normal data (an RMSNorm's rows, exponents spread over ~30
    binades) need no exact path; the boundary rows do need it for some rows."""
    from mxdsl.numerics import sums

    calls: list[int] = []
    real = sums.odd_exact_sum

    def counting(rows: np.ndarray) -> np.ndarray:
        calls.append(rows.shape[0])
        return real(rows)

    monkeypatch.setattr(sums, "odd_exact_sum", counting)
    x = np.random.default_rng(0).standard_normal((256, 4096)).astype(np.float32)
    odd_sum(x * x, (1,))
    assert calls == []
    odd_sum(boundary_rows(400, 9, 1), (1,))
    assert sum(calls) > 0


def test_reduce_add_is_the_engine_sum() -> None:
    from mxdsl.numerics.sums import reduce_add

    x = np.array([[1.0, 2.0**-24, 2.0**-60], [2.0**30, 1.0, -(2.0**30)]], np.float32)
    got = round_to(reduce_add(x, (1,)), np.dtype(np.float32))
    assert got.tolist() == [1 + 2.0**-23, 1.0]
    ints = np.array([[2**40, -1, 3]], np.int64)
    assert reduce_add(ints, (1,)).tolist() == [2**40 + 2]

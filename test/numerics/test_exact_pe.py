"""The PE pass is the exact sum of its products rounded once to fp32, for every input
(``docs/numerics.md``, "The PE pass"): ``pe_pass``, the batched ``pe_passes_into`` and
``k_tiled_matmul`` against exact rational sums (``exact_reference``), on data built to
defeat float64 summation: wide exponent spread, cancellation (a + b - a), all-zero and
-0 passes, subnormal and overflowing sums, infinities and NaN, f32 and MX operands."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from exact_reference import bits, exact_pass, k_tiled, round_to_f32

from mxdsl.numerics.exact import exact_sums
from mxdsl.numerics.matmul import PePass, k_tiled_matmul, pe_operand, pe_pass, pe_passes_into

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)
RNG = np.random.default_rng(20261202)


def spread(shape: tuple[int, ...], dtype: np.dtype, low: int, high: int) -> np.ndarray:
    """Normal values times 2**U(low, high): the dtype's rounding of them."""
    scale = np.exp2(RNG.integers(low, high, size=shape)).astype(np.float64)
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dtype)


def cancelling(lhs: np.ndarray, rhs: np.ndarray, big: float) -> tuple[np.ndarray, np.ndarray]:
    """``lhs [M, K]`` gets +big at k = 0 and -big at k = K - 1, ``rhs [K, N]`` the same row
    at both: two large products cancel exactly around the small ones (a + b - a)."""
    lhs, rhs = lhs.copy(), rhs.copy()
    lhs[:, 0] = big
    lhs[:, -1] = -big
    rhs[-1] = rhs[0]
    return lhs, rhs


def cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, lhs [M, K], rhs [K, N]) of finite values."""
    m, k, n = 6, 128, 5
    ones = np.ones((k, n), dtype=np.float32)
    out = [
        ("bf16 spread 80 binades", spread((m, k), BF16, -40, 40), spread((k, n), BF16, -40, 40)),
        (
            "bf16 cancellation",
            *cancelling(spread((m, k), BF16, -8, 8), spread((k, n), BF16, -8, 8), 2.0**90),
        ),
        (
            "f16 spread",
            spread((m, k), np.dtype(np.float16), -12, 12),
            spread((k, n), np.float16, -12, 12),
        ),
        (
            "f32 normal data",
            spread((m, k), np.dtype(np.float32), -2, 2),
            spread((k, n), np.float32, -2, 2),
        ),
        (
            "f32 spread 120 binades",
            spread((m, k), np.dtype(np.float32), -60, 60),
            spread((k, n), np.float32, -60, 60),
        ),
        ("f32 cancellation", *cancelling(spread((m, k), F32, -8, 8), ones, 2.0**100)),
        ("subnormal sums", spread((m, k), BF16, -75, -70), spread((k, n), BF16, -75, -70)),
        (
            "overflowing sums",
            spread((m, k), np.dtype(np.float32), 62, 64),
            spread((k, n), np.float32, 62, 64),
        ),
    ]
    products = np.zeros((1, 3), dtype=np.float32)
    products[0] = [2.0**60, 1.0, -(2.0**60)]
    out.append(("2**60 + 1 - 2**60", products, np.ones((3, 1), dtype=np.float32)))
    tiny_negative = np.full((1, 2), 2.0**-80, dtype=np.float32)
    out.append(
        ("a pass rounding to -0", tiny_negative, np.array([[-(2.0**-80)], [0.0]], np.float32))
    )
    zeros = np.zeros((2, 4), dtype=np.float32)
    zeros[1] = -0.0
    out.append(
        ("all-zero and -0 products", zeros, np.array([[-0.0], [0.0], [-0.0], [1.0]], np.float32))
    )
    return out


CASES = cases()


@pytest.mark.parametrize(("name", "lhs", "rhs"), CASES, ids=[c[0] for c in CASES])
def test_pe_pass_is_the_exactly_rounded_sum(name: str, lhs: np.ndarray, rhs: np.ndarray):
    np.testing.assert_array_equal(bits(pe_pass(lhs, rhs)), bits(exact_pass(lhs, rhs)), err_msg=name)


@pytest.mark.parametrize(("name", "lhs", "rhs"), CASES, ids=[c[0] for c in CASES])
def test_batched_passes_give_the_same_bits(name: str, lhs: np.ndarray, rhs: np.ndarray):
    """The nisa interpreter's batch (stationaries stacked along M, one moving operand,
    zero columns skipped) equals the reference, pass by pass, as does one pass alone."""
    expected = bits(exact_pass(lhs, rhs))
    moving = pe_operand(np.ascontiguousarray(rhs))
    halves = np.array_split(np.arange(lhs.shape[0]), 2)
    dsts = [np.full((len(h), rhs.shape[1]), np.nan, dtype=np.float32) for h in halves]
    passes = [
        PePass(d, pe_operand(np.ascontiguousarray(lhs[h].T)), False)
        for d, h in zip(dsts, halves, strict=True)
    ]
    pe_passes_into(moving, passes)
    np.testing.assert_array_equal(bits(np.concatenate(dsts)), expected, err_msg=name)
    alone = np.empty(dsts[-1].shape, dtype=np.float32)
    pe_passes_into(
        pe_operand(np.ascontiguousarray(rhs)), [PePass(alone, passes[-1].stationary, False)]
    )
    np.testing.assert_array_equal(bits(alone), expected[halves[0].size :], err_msg=name)


def test_padding_columns_are_skipped_exactly():
    """Zero (padding) token columns and rows around adversarial data: +0 there, exact
    sums elsewhere, also when the certificate fails."""
    lhs, rhs = cancelling(
        spread((8, 128), BF16, -30, 30), spread((128, 16), BF16, -30, 30), 2.0**50
    )
    rhs[:, 10:] = 0
    lhs[5:] = 0
    dst = np.full((8, 16), np.nan, dtype=np.float32)
    pe_passes_into(pe_operand(rhs), [PePass(dst, pe_operand(np.ascontiguousarray(lhs.T)), False)])
    np.testing.assert_array_equal(bits(dst), bits(exact_pass(lhs, rhs)))


def test_accumulating_passes_follow_psum():
    lhs = spread((4, 384), BF16, -30, 30)
    rhs = spread((384, 3), BF16, -30, 30)
    np.testing.assert_array_equal(bits(k_tiled_matmul(lhs, rhs, 128)), bits(k_tiled(lhs, rhs, 128)))
    dst = np.empty((4, 3), dtype=np.float32)
    for start in range(0, 384, 128):
        stationary = pe_operand(np.ascontiguousarray(lhs[:, start : start + 128].T))
        moving = pe_operand(np.ascontiguousarray(rhs[start : start + 128]))
        pe_passes_into(moving, [PePass(dst, stationary, start > 0)])
    np.testing.assert_array_equal(bits(dst), bits(k_tiled(lhs, rhs, 128)))


def test_mx_pass_with_block_scales_far_apart():
    """An nc_matmul_mx pass (K = 512): e4m3 codes times block scales 2**20 apart, with a
    block cancelling the one before it."""
    codes = RNG.standard_normal((6, 512)).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    scales = np.exp2(np.repeat(RNG.choice([-20, 0, 20], size=16), 32)).astype(np.float32)
    lhs = codes * scales
    lhs[:, 32:64] = -lhs[:, 0:32]
    lhs[:, 40] += 2.0**-20
    rhs_codes = RNG.standard_normal((512, 7)).astype(ml_dtypes.float8_e5m2).astype(np.float32)
    rhs = rhs_codes * np.exp2(RNG.choice([-20, 20], size=(16, 1)).repeat(32, axis=0)).astype(
        np.float32
    )
    rhs[32:64] = rhs[0:32]
    expected = bits(exact_pass(lhs, rhs))
    np.testing.assert_array_equal(bits(pe_pass(lhs, rhs)), expected)
    dst = np.empty((6, 7), dtype=np.float32)
    stationary = pe_operand(np.ascontiguousarray(lhs.T).astype(np.float64), precision=4)
    pe_passes_into(
        pe_operand(rhs.astype(np.float64), precision=3), [PePass(dst, stationary, False)]
    )
    np.testing.assert_array_equal(bits(dst), expected)


CANONICAL_NAN = np.uint32(0x7FC0_0000)


@pytest.mark.parametrize(
    ("lhs_row", "rhs_column", "expected"),
    [
        ([np.inf, 1.0, 2.0], [1.0, 1.0, 1.0], np.inf),
        ([-np.inf, 1.0, 2.0], [1.0, 1.0, 1.0], -np.inf),
        ([np.inf, -np.inf, 1.0], [1.0, 1.0, 1.0], np.nan),
        ([np.nan, 1.0, 2.0], [1.0, 1.0, 1.0], np.nan),
        ([np.inf, 1.0, 2.0], [0.0, 1.0, 1.0], np.nan),  # the 0 * inf product is NaN
        ([-np.nan, 1.0, 2.0], [1.0, 1.0, 1.0], np.nan),  # every NaN comes out canonical
    ],
)
def test_infinities_and_nan(lhs_row: list[float], rhs_column: list[float], expected: float):
    lhs = np.array([lhs_row], dtype=np.float32)
    rhs = np.array(rhs_column, dtype=np.float32)[:, None]
    want = np.array([[expected]], dtype=np.float32).view(np.uint32)
    if np.isnan(expected):
        want = np.array([[CANONICAL_NAN]])
    np.testing.assert_array_equal(bits(pe_pass(lhs, rhs)), want)
    dst = np.empty((1, 1), dtype=np.float32)
    stationary = pe_operand(np.ascontiguousarray(lhs.T))
    pe_passes_into(pe_operand(rhs), [PePass(dst, stationary, False)])
    np.testing.assert_array_equal(bits(dst), want)


def test_psum_inf_minus_inf_is_the_canonical_nan():
    lhs = np.array([[2.0**100, 2.0**100]], dtype=np.float32)
    plus = np.array([[2.0**100], [2.0**100]], dtype=np.float32)
    out = k_tiled_matmul(np.concatenate([lhs, lhs], 1), np.concatenate([plus, -plus]), 2)
    np.testing.assert_array_equal(bits(out), [[CANONICAL_NAN]])


def test_exact_sums_against_fractions_on_random_spreads():
    """The exact path alone (any finite fp32 products), 400 sums of 1..200 terms."""
    for _ in range(80):
        k = int(RNG.integers(1, 200))
        a = spread((5, k), np.dtype(np.float32), -70, 70).astype(np.float64)
        b = spread((5, k), np.dtype(np.float32), -70, 70).astype(np.float64)
        if k > 2:
            a[:, -1], b[:, -1] = a[:, 0], -b[:, 0]
        got = exact_sums(a, b)
        want = [round_to_f32(sum(_fraction_products(x, y))) for x, y in zip(a, b, strict=True)]
        np.testing.assert_array_equal(bits(got), bits(np.array(want, dtype=np.float32)))


def _fraction_products(x: np.ndarray, y: np.ndarray):
    from fractions import Fraction

    return (Fraction(float(p)) * Fraction(float(q)) for p, q in zip(x, y, strict=True))


def test_wide_f32_passes_take_the_piecewise_route_exactly():
    """A whole f32 pass (128 x 128 x 64, 2**-20 .. 2**20 and cancelling pairs): too many
    uncertified outputs for the per-product path, so 8-bit pieces go through BLAS; every
    output equals the per-product exact path, and a sample equals Fraction sums."""
    lhs, rhs = cancelling(
        spread((128, 128), F32, -20, 20), spread((128, 64), F32, -20, 20), 2.0**70
    )
    lhs[3, 7] = 2.0**-149  # a subnormal operand, far below the rest
    got = pe_pass(lhs, rhs)
    rows = np.repeat(lhs.astype(np.float64), 64, axis=0)
    columns = np.tile(rhs.T.astype(np.float64), (128, 1))
    np.testing.assert_array_equal(bits(got).ravel(), bits(exact_sums(rows, columns)))
    sample = RNG.choice(128 * 64, size=40, replace=False)
    for flat in sample:
        i, j = divmod(int(flat), 64)
        want = exact_pass(lhs[i : i + 1], rhs[:, j : j + 1])
        np.testing.assert_array_equal(bits(got[i : i + 1, j : j + 1]), bits(want))


def test_near_ties_of_wide_bf16_passes():
    """bf16 passes (K = 128) whose exact sums all sit on an fp32 midpoint: 2**24 plus 127
    odd products (odd integers below 256), so the sum is odd and in [2**24, 2**25). Each
    row and column also holds a tiny element (2**-30) facing a zero, so the bit
    certificate fails for every output although float64 happens to add them exactly:
    these are the near-ties that are settled from the products. Every output, through
    one pass and the batched path, equals the exact sum rounded once (ties to even);
    the reference confirms independently that they are midpoints."""
    m, k, n = 12, 128, 20
    lhs = RNG.integers(64, 128, size=(m, k)) * 2 + 1
    rhs = RNG.integers(64, 128, size=(k, n)) * 2 + 1
    lhs[:, 0], rhs[0] = 2**16, 2**8  # one product of 2**24
    lhs[:, 1], rhs[1] = 0, 0  # two positions where the tiny elements face zeros
    lhs = lhs.astype(np.float32).astype(BF16)
    rhs = rhs.astype(np.float32).astype(BF16)
    lhs[:, 2], rhs[2] = 0, 0
    lhs[:, 1], rhs[2] = BF16.type(2.0**-30), BF16.type(2.0**-30)
    _check_near_ties(lhs, rhs, every_output_a_midpoint=True)


def test_wide_bf16_passes_with_random_data():
    """The same with random bf16 data and one tiny element per row and column (facing
    ordinary values): uncertified outputs settled by the error bound, the grid or the
    exact path, each equal to the exact sum rounded once."""
    m, k, n = 24, 128, 40
    lhs = spread((m, k), BF16, -3, 3)
    rhs = spread((k, n), BF16, -3, 3)
    lhs[np.arange(m), RNG.integers(0, k, m)] = BF16.type(2.0**-30)
    rhs[RNG.integers(0, k, n), np.arange(n)] = BF16.type(-(2.0**-28))
    _check_near_ties(lhs, rhs, every_output_a_midpoint=False)


def _check_near_ties(lhs: np.ndarray, rhs: np.ndarray, every_output_a_midpoint: bool) -> None:
    m, n = lhs.shape[0], rhs.shape[1]
    expected = exact_pass(lhs, rhs)
    np.testing.assert_array_equal(bits(pe_pass(lhs, rhs)), bits(expected))
    dst = np.empty((m, n), dtype=np.float32)
    starts = range(0, m, 4)
    passes = [
        PePass(dst[r : r + 4], pe_operand(np.ascontiguousarray(lhs[r : r + 4].T)), False)
        for r in starts
    ]
    pe_passes_into(pe_operand(rhs), passes)
    np.testing.assert_array_equal(bits(dst), bits(expected))
    if every_output_a_midpoint:
        exact = [
            sum(_fraction_products(lhs[i].astype(np.float64), rhs[:, j].astype(np.float64)))
            for i in range(m)
            for j in range(n)
        ]
        assert all(_is_f32_midpoint(value) for value in exact)


def _is_f32_midpoint(value) -> bool:
    """Whether a nonzero Fraction lies halfway between two fp32 neighbours (normal range:
    scaled into [2**23, 2**24), where fp32's values are the integers, it is an odd
    multiple of 1/2)."""
    from fractions import Fraction

    if value == 0:
        return False
    magnitude = abs(value)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    scaled = magnitude / Fraction(2) ** (exponent - 23)  # in [2**23, 2**24): fp32's grid
    return scaled.denominator == 2

"""mxdsl/numerics/elementary.py, bit for bit: the vectorised, in-place functions against a
plain scalar transcription of the algorithms their docstrings and docs/numerics.md
("Elementary functions") describe, in Python floats (IEEE-754 double, round to nearest,
no FMA) with ``math.ldexp``. The 2**(j/256) table is rebuilt here with :mod:`decimal`;
the reduction constants are checked against their definition. This pins the numpy code
(buffer reuse, masked fix-ups, the integer read from a float's bits) to the algorithm,
NaN and signed zeros included."""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from mxdsl.numerics import elementary as E

CTX = decimal.Context(prec=50)
RNG = np.random.default_rng(1717)
LN2 = CTX.ln(Decimal(2))

# 2**(j/256) as hi (correctly rounded) + lo (the rounded rest)
TABLE = []
for _j in range(256):
    _d = CTX.power(Decimal(2), CTX.divide(Decimal(_j), Decimal(256)))
    TABLE.append((float(_d), float(CTX.subtract(_d, Decimal(float(_d))))))

INV_L, L1, L2 = E._EXP_INV_L, E._EXP_L1, E._EXP_L2
C2, C3, C4, C5 = 1 / 2, 1 / 6, 1 / 24, 1 / 120


def test_reduction_constants():
    assert float(CTX.divide(Decimal(256), LN2)) == INV_L
    assert Fraction(L1).numerator.bit_length() <= 34  # k * L1 exact for |k| < 2**19
    assert abs(Decimal(L1) - LN2 / 256) < Decimal(2) ** -41  # L1: ln2/256 to 34 bits
    assert float(CTX.subtract(LN2 / 256, Decimal(L1))) == L2
    assert (C2, C3, C4, C5) == (E._C2, E._C3, E._C4, E._C5)


def ldexp(v: float, m: int) -> float:
    try:
        return math.ldexp(v, m)
    except OverflowError:
        return math.copysign(math.inf, v)


def exp_parts(x: float) -> tuple[int, float, float]:
    """exp(x) = 2**m (hi + lo), x in [-750, 750] and not NaN."""
    k = round(x * INV_L)  # round half to even, as rint
    r = (x - k * L1) - k * L2
    p = r + (r * r) * (C2 + r * (C3 + r * (C4 + r * C5)))
    hi, lo = TABLE[k % 256]
    return k // 256, hi, lo + hi * p


def exp(x: float) -> float:
    if math.isnan(x):
        return x
    m, hi, lo = exp_parts(min(max(x, -750.0), 750.0))
    return ldexp(hi + lo, m)


def expm1(x: float) -> float:
    if math.isnan(x) or x == 0.0:
        return x
    if x > 709.782712893384:  # e**x overflows: +Inf (not Inf - Inf when lo < 0)
        return math.inf
    m, hi, lo = exp_parts(max(x, -750.0))
    return (ldexp(hi, m) - 1.0) + ldexp(lo, m)


def sigmoid(x: float) -> float:
    if math.isnan(x):
        return x
    e = exp(-abs(x))
    return 1.0 / (1.0 + e) if x >= 0.0 else e / (1.0 + e)


def silu(x: float) -> float:
    return x * sigmoid(x)


def tanh(x: float) -> float:
    if math.isnan(x):
        return x
    a = min(abs(x), 20.0)
    e = expm1(2.0 * a)
    return math.copysign(e / (e + 2.0) if a < 20.0 else 1.0, x)


def split(a: float) -> tuple[float, float]:
    t = 134217729.0 * a
    hi = t - (t - a)
    return hi, a - hi


def gelu_apprx_sigmoid(x: float) -> float:
    if math.isnan(x):
        return x
    xc = min(max(x, -1000.0), 1000.0)
    c_hi, c_lo = E._C1702_HI, E._C1702_LO
    assert abs(Decimal(c_hi) + Decimal(c_lo) - Decimal("1.702")) < Decimal(10) ** -32
    t = xc * c_hi
    (a_hi, a_lo), (b_hi, b_lo) = split(xc), split(c_hi)
    t_lo = (((a_hi * b_hi - t) + a_hi * b_lo) + a_lo * b_hi) + a_lo * b_lo
    s = sigmoid(t)
    return x * (s + s * ((1.0 - s) * (t_lo + xc * c_lo)))


REFERENCES: dict[str, Callable[[float], float]] = {
    "exp": exp,
    "expm1": expm1,
    "sigmoid": sigmoid,
    "silu": silu,
    "tanh": tanh,
    "gelu_apprx_sigmoid": gelu_apprx_sigmoid,
}


def inputs() -> np.ndarray:
    """Every branch of the functions above: random ranges, float32 values, thresholds
    and their neighbours, tiny / subnormal / huge values, signed zeros, Inf, NaN."""
    thresholds = [20.0, 40.0, 709.782712893384, 745.13, 750.0, 1000.0, 587.6, 0.5, 1.0]
    steps = np.arange(-3, 4)
    near = [s * t + steps * np.spacing(t) for t in thresholds for s in (1.0, -1.0)]
    return np.concatenate(
        [
            RNG.uniform(-800, 800, 1500),
            RNG.standard_normal(1500),
            (RNG.standard_normal(500) * 4).astype(np.float32),
            np.concatenate(near),
            [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, -1e-300],
            [1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308],
        ]
    )


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_bits_equal_scalar_transcription(name):
    x = inputs()
    got = getattr(E, name)(x)
    want = np.array([REFERENCES[name](float(v)) for v in x])
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    diff = np.flatnonzero(got[~nan].view(np.uint64) != want[~nan].view(np.uint64))
    assert diff.size == 0, f"{name}({x[~nan][diff[0]]!r}): {got[~nan][diff[0]]!r}"
    # NaN in, NaN out with the input's payload (sigmoid's sign is that of -|x|)
    payloads = np.array([0x7FF8000000000001, 0xFFF800000000BEEF], np.uint64)
    out = getattr(E, name)(payloads.view(np.float64)).view(np.uint64)
    no_sign = np.uint64(0x7FFFFFFFFFFFFFFF)
    assert np.array_equal(out & no_sign, payloads & no_sign)

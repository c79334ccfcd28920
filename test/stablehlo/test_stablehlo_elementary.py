"""The elementwise functions JAX writes for whole layers, at the StableHLO level
(``exponential``, ``exponential_minus_one``, ``log``, ``log_plus_one``, ``logistic``,
``tanh``, ``sqrt``, ``rsqrt``, ``power`` with an integer exponent, ``chlo.erf``,
``chlo.erfc``): each result equals the correctly rounded value of the function,
computed here at 120 digits with :mod:`decimal` from formulas of its own (erf by its
Maclaurin series, tanh and the logistic from exp), on f32 and bf16 inputs."""
# ruff: noqa: E501

from __future__ import annotations

import decimal
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]

CTX = decimal.Context(prec=120)
BF16 = ml_dtypes.bfloat16
UINT = {2: np.uint16, 4: np.uint32}


def _pi() -> Decimal:
    """Gauss-Legendre."""
    with decimal.localcontext(CTX):
        a, b, t, p = Decimal(1), 1 / Decimal(2).sqrt(), Decimal(1) / 4, Decimal(1)
        for _ in range(9):
            a, b, t, p = (a + b) / 2, (a * b).sqrt(), t - p * ((a - b) / 2) ** 2, 2 * p
        return (a + b) ** 2 / (4 * t)


PI = _pi()


def erf_ref(d: Decimal) -> Decimal:
    with decimal.localcontext(CTX):
        z = d * d
        term, total, n = d, d, 0
        while True:
            n += 1
            term = -term * z / n
            step = term / (2 * n + 1)
            if step == 0 or abs(step) < Decimal(10) ** -110:
                return 2 * total / PI.sqrt()
            total += step


def _in_ctx(fn: Callable[[Decimal], Decimal]) -> Callable[[Decimal], Decimal]:
    def run(d: Decimal) -> Decimal:
        with decimal.localcontext(CTX):
            return fn(d)

    return run


REFERENCES: dict[str, Callable[[Decimal], Decimal]] = {
    "exponential": _in_ctx(lambda d: d.exp()),
    "exponential_minus_one": _in_ctx(lambda d: d.exp() - 1),
    "log": _in_ctx(lambda d: d.ln()),
    "log_plus_one": _in_ctx(lambda d: (1 + d).ln()),
    "logistic": _in_ctx(lambda d: 1 / (1 + (-d).exp())),
    "tanh": _in_ctx(lambda d: ((2 * d).exp() - 1) / ((2 * d).exp() + 1)),
    "sqrt": _in_ctx(lambda d: d.sqrt()),
    "rsqrt": _in_ctx(lambda d: 1 / d.sqrt()),
    "erf": erf_ref,
    "erfc": _in_ctx(lambda d: 1 - erf_ref(d)),
}
DOMAINS = {
    "exponential": (-20, 20),
    "exponential_minus_one": (-4, 4),
    "log": (0.001, 1000),
    "log_plus_one": (-0.9, 20),
    "logistic": (-20, 20),
    "tanh": (-8, 8),
    "sqrt": (0.001, 1e4),
    "rsqrt": (0.001, 1e4),
    "erf": (-4, 4),
    "erfc": (-1, 5),
}


def nearest(ref: Decimal, dtype: Any) -> np.ndarray:
    """``ref`` rounded to nearest even in ``dtype``: the candidate nearest to it among the
    float64 rounding's conversion and its two neighbours (finite, nonzero ``ref``)."""
    u = UINT[np.dtype(dtype).itemsize]
    if ref == 0:
        return np.array(0.0, dtype)
    guess = int(np.array(float(ref)).astype(np.float32).astype(dtype).view(u))
    candidates = np.array([guess - 1, guess, guess + 1], np.int64).astype(u).view(dtype)
    candidates = candidates[np.isfinite(candidates.astype(np.float64))]
    distances = [abs(Decimal(float(c)) - ref) for c in candidates.astype(np.float64)]
    best = min(distances)
    picks = [c for c, dist in zip(candidates, distances, strict=True) if dist == best]
    return min(picks, key=lambda c: int(np.array(c).view(u)) & 1)


def run_unary(text_op: str, t: str, x: np.ndarray) -> np.ndarray:
    program = f"func.func @main(%a: {t}) -> {t} {{\n  %r = {text_op} %a : {t}{' -> ' + t if text_op.startswith('chlo') else ''}\n  func.return %r : {t}\n}}"
    ctx = _context()
    module, _ = parse_located(ctx, program, "t")
    module.verify()
    (result,) = make_interpreter(module, ctx).call_op("main", (x,))
    return result


def _inputs(name: str, dtype: Any, n: int) -> np.ndarray:
    lo, hi = DOMAINS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    values = np.exp(rng.uniform(np.log(lo), np.log(hi), n)) if lo > 0 else rng.uniform(lo, hi, n)
    if name in ("exponential_minus_one", "log_plus_one", "tanh", "erf"):
        values[:8] = [1e-5, -1e-5, 3e-3, -2e-3, 1e-7, -3e-7, 0.25, -0.125]
    return values.astype(dtype)


@pytest.mark.parametrize("name", sorted(REFERENCES))
@pytest.mark.parametrize(("dtype", "t", "n"), [(np.float32, "f32", 300), (BF16, "bf16", 120)])
def test_correctly_rounded_against_decimal(name: str, dtype: Any, t: str, n: int) -> None:
    x = _inputs(name, dtype, n)
    op = f"chlo.{name}" if name in ("erf", "erfc") else f"stablehlo.{name}"
    got = run_unary(op, f"tensor<{n}x{t}>", x)
    assert got.dtype == np.dtype(dtype)
    expected = np.array(
        [nearest(REFERENCES[name](Decimal(float(v))), dtype) for v in x.astype(np.float64)],
        dtype,
    )
    u = UINT[np.dtype(dtype).itemsize]
    bad = np.flatnonzero(got.view(u) != expected.view(u))
    assert bad.size == 0, [(float(x[i]), float(got[i]), float(expected[i])) for i in bad[:5]]


def test_special_values() -> None:
    t = "tensor<6xf32>"
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0], np.float32)
    exp = run_unary("stablehlo.exponential", t, x)
    assert exp.tolist()[:4] == [1.0, 1.0, np.inf, 0.0]
    log = run_unary("stablehlo.log", t, x)
    assert log[0] == -np.inf and log[2] == np.inf and np.isnan(log[5])  # noqa: PT018
    em1 = run_unary("stablehlo.exponential_minus_one", t, x)
    assert np.signbit(em1[1]) and em1[3] == -1.0  # noqa: PT018
    lp1 = run_unary("stablehlo.log_plus_one", t, x)
    assert np.signbit(lp1[1]) and lp1[5] == -np.inf  # noqa: PT018
    assert run_unary("stablehlo.logistic", t, x).tolist()[:4] == [0.5, 0.5, 1.0, 0.0]
    th = run_unary("stablehlo.tanh", t, x)
    assert th.tolist()[:4] == [0.0, -0.0, 1.0, -1.0] and np.signbit(th[1])  # noqa: PT018
    erf = run_unary("chlo.erf", t, x)
    assert erf.tolist()[:4] == [0.0, -0.0, 1.0, -1.0] and np.signbit(erf[1])  # noqa: PT018
    assert run_unary("chlo.erfc", t, x).tolist()[:4] == [1.0, 1.0, 0.0, 2.0]
    rs = run_unary("stablehlo.rsqrt", t, x)
    assert rs[0] == np.inf and rs[1] == -np.inf and rs[2] == 0.0 and np.isnan(rs[5])  # noqa: PT018


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, 4])
def test_power_with_a_constant_integer_exponent(exponent: int) -> None:
    """``x ** n`` correctly rounded (exact in decimal) for f32 x in [-10, 10]."""
    x = np.random.default_rng(exponent + 10).uniform(-10, 10, 200).astype(np.float32)
    t = "tensor<200xf32>"
    program = f"""func.func @main(%a: {t}) -> {t} {{
  %c = stablehlo.constant dense<{float(exponent)}> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> {t}
  %r = stablehlo.power %a, %b : {t}
  func.return %r : {t}
}}"""
    ctx = _context()
    module, _ = parse_located(ctx, program, "t")
    (got,) = make_interpreter(module, ctx).call_op("main", (x,))
    with decimal.localcontext(CTX):
        expected = np.array(
            [nearest(Decimal(float(v)) ** exponent, np.float32) for v in x], np.float32
        )
    assert (got.view(np.uint32) == expected.view(np.uint32)).all()

"""mxdsl/numerics/elementary.py: accuracy against high-precision references computed
here with :mod:`decimal` (other formulas than the module's: erf by its alternating
Maclaurin series at 150 digits, tanh / sigmoid / softplus from Decimal exp and ln), the
special values, batch independence, and the construction rule (no libm / SIMD numpy
transcendental in the module)."""

from __future__ import annotations

import ast
import decimal
import math
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from mxdsl.numerics import elementary as E

CTX = decimal.Context(prec=150)
RNG = np.random.default_rng(15)


def _pi() -> Decimal:
    # Chudnovsky-free: Gauss-Legendre, a different formula from the module's Machin
    with decimal.localcontext(CTX):
        a, b, t, p = Decimal(1), 1 / Decimal(2).sqrt(), Decimal(1) / 4, Decimal(1)
        for _ in range(9):
            a, b, t, p = (a + b) / 2, (a * b).sqrt(), t - p * ((a - b) / 2) ** 2, 2 * p
        return (a + b) ** 2 / (4 * t)


PI = _pi()


def erf_ref(x: float | Decimal) -> Decimal:
    """Alternating Maclaurin series, 150 digits (|x| <= 10: at most ~45 digits cancel)."""
    with decimal.localcontext(CTX):
        d = Decimal(x)
        z = d * d
        term, total, n = d, d, 0
        while True:
            n += 1
            term = -term * z / n
            step = term / (2 * n + 1)
            if abs(step) < Decimal(10) ** -140:
                break
            total += step
        return 2 * total / PI.sqrt()


def ln1p_ref(y: Decimal) -> Decimal:
    with decimal.localcontext(CTX):
        if abs(y) < Decimal(10) ** -40:
            return y - y * y / 2 + y**3 / 3
        return (1 + y).ln()


def gelu_tanh_ref(d: Decimal) -> Decimal:
    """``0.5 x (1 + tanh u)``, ``1 + tanh u = 2 e / (e + 1)``, ``e = exp(2u)`` (exact
    identity; 1 + tanh itself would cancel beyond the 150 digits)."""
    with decimal.localcontext(CTX):
        u = (2 / PI).sqrt() * (d + Decimal("0.044715") * d**3)
        if u < -1000:
            return Decimal(0)
        e = (2 * u).exp()
        return d / 2 * (2 * e / (e + 1))


def _exp(x: float | Decimal) -> Decimal:
    with decimal.localcontext(CTX):
        return Decimal(x).exp()


def ulp_error(got: float, ref: Decimal) -> float:
    """|got - ref| in ulps of the float64 nearest ``ref``."""
    r = float(ref)
    if r == 0.0 or math.isinf(r):
        return 0.0 if got == r else math.inf
    with decimal.localcontext(CTX):
        return float(abs(Decimal(got) - ref) / Decimal(math.ulp(r)))


REFS: dict[str, Callable[[float], Decimal]] = {
    "exp": _exp,
    "expm1": lambda x: CTX.subtract(_exp(x), Decimal(1)),
    "log": lambda x: CTX.ln(Decimal(x)),
    "log1p": lambda x: ln1p_ref(Decimal(x)),
    "tanh": lambda x: CTX.divide(_exp(2 * Decimal(x)) - 1, _exp(2 * Decimal(x)) + 1),
    "sigmoid": lambda x: CTX.divide(1, 1 + _exp(-Decimal(x))),
    "softplus": lambda x: ln1p_ref(_exp(x)),
    "silu": lambda x: CTX.divide(Decimal(x), 1 + _exp(-Decimal(x))),
    "gelu_apprx_sigmoid": lambda x: CTX.divide(
        Decimal(x), 1 + _exp(-Decimal("1.702") * Decimal(x))
    ),
    "gelu_apprx_tanh": lambda x: gelu_tanh_ref(Decimal(x)),
    "erf": erf_ref,
    "erfc": lambda x: CTX.subtract(1, erf_ref(x)),
    "gelu": lambda x: CTX.multiply(
        CTX.divide(Decimal(x), 2), 1 + erf_ref(CTX.divide(Decimal(x), CTX.sqrt(2)))
    ),
    "sqrt": lambda x: CTX.sqrt(Decimal(x)),
    "rsqrt": lambda x: CTX.divide(1, CTX.sqrt(Decimal(x))),
}

# (domain sampler, max ulps): a few ulps, as documented in the module and docs/numerics.md
CASES: dict[str, tuple[np.ndarray, float]] = {
    "exp": (np.concatenate([RNG.uniform(-708, 709, 150), RNG.uniform(-1, 1, 50)]), 0.6),
    "expm1": (np.concatenate([RNG.uniform(-40, 40, 100), RNG.uniform(-0.5, 0.5, 100)]), 1.2),
    "log": (np.exp2(RNG.uniform(-1020, 1023, 200)), 0.75),
    "log1p": (np.concatenate([RNG.uniform(-0.9, 3, 150), RNG.uniform(-1e-9, 1e-9, 50)]), 0.75),
    "tanh": (np.concatenate([RNG.uniform(-20, 20, 100), RNG.uniform(-0.6, 0.6, 100)]), 2.0),
    "sigmoid": (RNG.uniform(-700, 40, 200), 2.0),
    "softplus": (RNG.uniform(-700, 40, 200), 1.0),
    "silu": (RNG.uniform(-700, 40, 200), 2.0),
    "gelu_apprx_sigmoid": (
        np.concatenate([RNG.uniform(-400, 20, 150), RNG.uniform(-2, 2, 50)]),
        2.5,
    ),
    # normal results (below x = -18 the result is subnormal)
    "gelu_apprx_tanh": (np.concatenate([RNG.uniform(-18, 10, 150), RNG.uniform(-2, 2, 50)]), 3.0),
    "erf": (np.concatenate([RNG.uniform(-6.5, 6.5, 150), RNG.uniform(-0.6, 0.6, 50)]), 1.5),
    # 1 - erf cancels in the reference too: 150 digits cover erfc down to ~1e-100 (x < 15)
    "erfc": (np.concatenate([RNG.uniform(-3, 12, 150), RNG.uniform(0.4, 0.6, 50)]), 3.5),
    "gelu": (np.concatenate([RNG.uniform(-14, 10, 150), RNG.uniform(-1.5, 1.5, 50)]), 4.0),
    # sqrt correctly rounded; rsqrt two correctly rounded steps (within 1.5 ulps)
    "sqrt": (np.exp2(RNG.uniform(-1070, 1023, 200)), 0.5),
    "rsqrt": (np.exp2(RNG.uniform(-1020, 1020, 200)), 1.5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_accuracy_against_decimal(name):
    xs, bound = CASES[name]
    ys = getattr(E, name)(xs)
    errors = [ulp_error(float(y), REFS[name](float(x))) for x, y in zip(xs, ys, strict=True)]
    worst = int(np.argmax(errors))
    assert errors[worst] <= bound, f"{name}({xs[worst]!r}) off by {errors[worst]:.3f} ulp"


def test_power_accuracy_and_integers():
    a = np.exp2(RNG.uniform(-30, 30, 200))
    b = RNG.uniform(-20, 20, 200)
    ys = E.power(a, b)
    for x, p, y in zip(a, b, ys, strict=True):
        with decimal.localcontext(CTX):
            ref = (Decimal(float(p)) * Decimal(float(x)).ln()).exp()
        assert ulp_error(float(y), ref) <= 2.0 + 2.0 * abs(float(p) * math.log(x)), (x, p)
    # small integer exponents multiply exactly while the powers are exact
    base = np.array([3.0, -3.0, 0.5, -2.0, 7.0, 1.5])
    ints = np.array([20.0, 13.0, 40.0, 63.0, 17.0, 9.0])
    assert E.power(base, ints).tolist() == [
        float(Decimal(v) ** int(n)) for v, n in zip(base, ints, strict=True)
    ]


def test_power_special_cases():
    """C99 pow's special cases (Annex F.9.4.4)."""
    inf, nan = math.inf, math.nan
    cases = [
        (2.0, 0.0, 1.0), (nan, 0.0, 1.0), (1.0, nan, 1.0), (1.0, inf, 1.0), (-1.0, inf, 1.0),
        (-8.0, 1.0 / 3.0, nan), (-2.0, 3.0, -8.0), (-2.0, -3.0, -0.125), (-2.0, 2.0, 4.0),
        (0.0, -1.0, inf), (-0.0, -1.0, -inf), (-0.0, 3.0, -0.0), (0.0, 0.5, 0.0),
        (0.5, inf, 0.0), (0.5, -inf, inf), (2.0, inf, inf), (2.0, -inf, 0.0),
        (inf, 0.5, inf), (inf, -0.5, 0.0), (-inf, 3.0, -inf), (nan, 1.0, nan), (2.0, nan, nan),
        (4.0, 0.5, 2.0), (10.0, 400.0, inf), (10.0, -400.0, 0.0),
    ]  # fmt: skip
    a, b, want = (np.array(c) for c in zip(*cases, strict=True))
    got = E.power(a, b)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_special_values():
    inf, nan = math.inf, math.nan
    x = np.array([0.0, -0.0, inf, -inf, nan, 800.0, -800.0])
    assert np.array_equal(E.exp(x), [1, 1, inf, 0, nan, inf, 0], equal_nan=True)
    assert np.array_equal(E.expm1(x), [0, -0.0, inf, -1, nan, inf, -1], equal_nan=True)
    assert np.array_equal(np.signbit(E.expm1(x)[:2]), [False, True])
    # beyond the overflow threshold +Inf, never Inf - Inf = NaN (2**m lo < 0 there for
    # about a third of x; 709.79 .. 749.9 covers every table index j)
    over = np.linspace(709.79, 749.9, 4001)
    assert np.all(E.expm1(over) == inf)
    assert np.all(E.exp(over) == inf)
    assert np.array_equal(
        E.log(np.array([0.0, -1.0, inf, nan, 1.0, 5e-324])),
        [-inf, nan, inf, nan, 0.0, -744.4400719213812],
        equal_nan=True,
    )
    assert np.array_equal(
        E.log1p(np.array([-1.0, -2.0, 0.0, -0.0, 1e-300])),
        [-inf, nan, 0, 0, 1e-300],
        equal_nan=True,
    )
    assert np.array_equal(np.signbit(E.tanh(np.array([-0.0, 0.0]))), [True, False])
    assert np.array_equal(E.tanh(x), [0, 0, 1, -1, nan, 1, -1], equal_nan=True)
    assert np.array_equal(E.sigmoid(x), [0.5, 0.5, 1, 0, nan, 1, 0], equal_nan=True)
    assert np.array_equal(E.erf(x), [0, 0, 1, -1, nan, 1, -1], equal_nan=True)
    assert np.array_equal(E.erfc(x), [1, 1, 0, 2, nan, 0, 2], equal_nan=True)
    assert np.array_equal(
        E.softplus(x), [math.log(2), math.log(2), inf, 0, nan, 800, 0], equal_nan=True
    )
    assert np.array_equal(
        E.gelu(np.array([0.0, inf, nan, 50.0, -50.0])), [0, inf, nan, 50, -0.0], equal_nan=True
    )
    # subnormal results keep gradual underflow
    assert E.exp(np.array([-740.0]))[0] == float(CTX.exp(Decimal(-740)))


def test_batch_and_shape_independence():
    """An element's result does not depend on the rest of the array (erf / erfc / gelu
    split the elements by range) nor on the array's shape."""
    x = np.concatenate([RNG.uniform(-30, 30, 500), RNG.standard_normal(500)])
    for fn in (E.erf, E.erfc, E.gelu, E.tanh, E.exp, E.log1p, E.softplus):
        whole = fn(x)
        assert np.array_equal(fn(x.reshape(20, 50)).ravel(), whole, equal_nan=True)
        singles = np.array([fn(np.float64(v))[()] for v in x[::37]])
        assert np.array_equal(singles, whole[::37], equal_nan=True)


# numpy functions that reach libm or SIMD approximations (differing between machines)
FORBIDDEN = {
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2",
    "power", "float_power", "tanh", "sinh", "cosh", "sin", "cos", "tan", "arctan", "arctanh",
    "cbrt", "erf",
}  # fmt: skip


def test_module_uses_only_correctly_rounded_operations():
    """The construction rule: elementary.py never calls numpy's (or math's / scipy's)
    transcendentals; ``**`` appears only on Python ints / Fractions / Decimals."""
    source = Path(E.__file__).read_text()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "np":
                assert node.attr not in FORBIDDEN, f"np.{node.attr} at line {node.lineno}"
            if node.value.id == "math":
                assert node.attr in {"frexp", "floor", "ulp"}, f"math.{node.attr}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any("scipy" in n for n in names)


def _f32_error(got: float, ref: Decimal) -> float:
    """|got - ref| in ulps of float32 at ``ref`` (normal float32 results)."""
    r = abs(float(ref))
    ulp32 = 2.0 ** (math.frexp(r)[1] - 24)
    with decimal.localcontext(CTX):
        return float(abs(Decimal(got) - ref) / Decimal(ulp32))


@pytest.mark.parametrize("name", ["silu", "sigmoid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_evaluate_into_in_place_kernels(name, dtype):
    """``evaluate_into`` of SiLU / sigmoid (the allocation-free kernels) on a strided
    float32 block into a strided ``out``: float64 results within the function's 2 ulps
    of 150-digit values, float32 ones correctly rounded but for that (0.5 + 2**-28 ulp);
    the special values as written."""
    base = RNG.uniform(-30, 30, (7, 2, 40)).astype(np.float32)
    x = base[:, 1, :]  # not contiguous
    x[0, :6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 3e-39]
    store = np.full((7, 3, 40), 5, dtype)
    out = store[:, 2, :]
    E.evaluate_into(getattr(E, name), x, out)
    assert np.array_equal(store[:, :2], np.full((7, 2, 40), 5, dtype))  # nothing else written
    sigmoid = {0.0: 0.5, np.inf: 1.0, -np.inf: 0.0}
    for v, y in zip(x.ravel()[:5], out.ravel()[:5], strict=True):
        if np.isnan(v):
            assert np.isnan(y)
        elif name == "sigmoid":
            assert y == sigmoid[float(v)]
        elif v == -np.inf:
            assert np.isnan(y)  # -inf * 0
        else:
            assert y == v  # +-0, +inf
            assert np.signbit(y) == np.signbit(v)
    for v, y in zip(x.ravel()[5:], out.ravel()[5:], strict=True):
        ref = REFS[name](float(v))
        if dtype == np.float64:
            assert ulp_error(float(y), ref) <= 2.0, (v, y)
        elif abs(float(ref)) >= 2.0**-126:
            assert _f32_error(float(y), ref) <= 0.5 + 2.0**-28, (v, y)


ZERO_VALUES = {  # f(+0), f(-0) as float32 bit patterns, worked out by hand
    "silu": (0x0000_0000, 0x8000_0000),  # +-0 * 1/2
    "sigmoid": (0x3F00_0000, 0x3F00_0000),  # 1/2
    "exp": (0x3F80_0000, 0x3F80_0000),  # 1
    "tanh": (0x0000_0000, 0x8000_0000),  # odd: tanh(-0) = -0
}


@pytest.mark.parametrize("name", sorted(ZERO_VALUES))
def test_evaluate_into_zero_tail(name):
    """An all-zero tail of the last axis (padding tokens) is filled with f(+0) / f(-0)
    by sign, not evaluated element by element: those elements hold the hand-worked
    values, the elements before the tail what the function gives on the whole array
    (``E.<name>`` itself, not through ``evaluate_into``), a column holding a NaN or a
    nonzero anywhere stops the tail, and nothing outside ``out`` is written."""
    function = getattr(E, name)
    positive, negative = ZERO_VALUES[name]
    base = (RNG.standard_normal((5, 2, 48)) * 4).astype(np.float32)
    x = base[:, 0, :]  # not contiguous
    x[:, 30:] = 0.0
    x[1, 40:] = -0.0
    x[3, 31] = -0.0
    x[4, 29] = np.nan  # column 29 is live: the tail starts at 30
    store = np.full((5, 3, 48), 9, np.float32)
    out = store[:, 1, :]
    E.evaluate_into(function, x, out)
    assert np.array_equal(store[:, [0, 2]], np.full((5, 2, 48), 9, np.float32))
    bits = out.view(np.uint32)
    expected_tail = np.where(np.signbit(x[:, 30:]), negative, positive)
    assert np.array_equal(bits[:, 30:], expected_tail)
    whole = np.asarray(function(x.astype(np.float64)), dtype=np.float64).astype(np.float32)
    live = ~np.isnan(x[:, :30])  # a NaN's sign is not pinned (see the NaN test above)
    assert np.array_equal(bits[:, :30][live], whole.view(np.uint32)[:, :30][live])
    assert np.isnan(out[4, 29])


def test_evaluate_into_all_zero_and_degenerate_shapes():
    """A block of zeros alone is filled by sign; a tail-free block, a 0-d and an empty
    block are evaluated as before."""
    x = np.zeros((3, 8), np.float32)
    x[2] = -0.0
    out = np.full((3, 8), 9, np.float32)
    E.evaluate_into(E.silu, x, out)
    assert (out.view(np.uint32)[:2] == 0).all()
    assert (out.view(np.uint32)[2] == 0x8000_0000).all()
    E.evaluate_into(E.sigmoid, x, out)
    assert (out.view(np.uint32) == 0x3F00_0000).all()
    scalar = np.empty((), np.float64)
    E.evaluate_into(E.silu, np.array(0.0, np.float32), scalar)
    assert scalar.item() == 0.0
    empty = np.empty((2, 0), np.float32)
    E.evaluate_into(E.silu, np.empty((2, 0), np.float32), empty)
    dense = np.ones((2, 4), np.float32)
    E.evaluate_into(E.exp, dense, out[:2, :4])
    assert (out[:2, :4] == np.float32(math.e)).all()


def test_evaluate_into_other_functions_and_large_blocks():
    """Any other function takes the fresh-copy path (``x * x`` exactly, and float64
    ``exp`` within its 1 ulp); a block beyond the thread's work buffers grows them, in a
    thread of its own (buffers are per thread)."""
    import threading

    x = RNG.uniform(-3, 3, (3, 50)).astype(np.float32)
    out = np.empty((3, 50), np.float64)
    E.evaluate_into(lambda a: a * a, x, out)
    assert all(y == float(v) * float(v) for v, y in zip(x.ravel(), out.ravel(), strict=True))
    E.evaluate_into(E.exp, x, out)
    pairs = zip(x.ravel(), out.ravel(), strict=True)
    assert max(ulp_error(float(y), _exp(float(v))) for v, y in pairs) <= 1
    big = RNG.uniform(-20, 20, 5 * E.CHUNK + 3)
    got = np.empty_like(big)
    errors: list[BaseException] = []

    def body() -> None:
        try:
            E.evaluate_into(E.silu, big, got)
        except BaseException as err:  # noqa: BLE001 - re-raised below
            errors.append(err)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert not errors
    picks = RNG.integers(0, big.size, 60)
    assert max(ulp_error(float(got[i]), REFS["silu"](float(big[i]))) for i in picks) <= 2.0


def test_block_elements():
    """4 chunks of 8192 for the in-place kernels (sigmoid, SiLU), one for the others."""
    assert E.CHUNK == 8192
    assert E.block_elements(E.silu) == E.block_elements(E.sigmoid) == 32768
    assert E.block_elements(E.exp) == E.block_elements(E.tanh) == 8192
    assert E.block_elements(lambda a: a) == 8192

"""Elementary functions in float64, the same bits on every machine and install.

Every transcendental the interpreters and the goldens evaluate (``exp``, ``log``, ``tanh``,
``sigmoid``, ``erf``, ``softplus``, non-integer ``power``, the GELU variants, SiLU) is
written here once, from IEEE-754 operations that are correctly rounded by definition:
``+ - * /``, ``sqrt``, ``rint``, ``ldexp`` / ``frexp``, comparisons, ``np.where`` and table
look-ups. numpy's own ``exp`` / ``log`` / ``tanh`` / ``power`` dispatch to SIMD code that
differs in the last bit between CPUs, and ``erf`` came from scipy or ``math.erf``; none
of them is used here. numpy never fuses a multiply and an add, so there is no FMA either.
Constants and tables are computed at import (or first use) with :mod:`decimal`, which is
software arithmetic and gives the same digits everywhere. The per-element algorithm
never depends on the other elements of the array (branches are ``np.where``, a fixed
split of the elements by range, or a fix-up of just the lanes that need one, skipped when
none does), so batching does not change a result.

Accuracy (float64 ulps, measured by ``test/numerics/test_elementary.py`` against
150-digit :mod:`decimal` evaluations): ``exp``, ``log``, ``log1p``, ``expm1`` within 1
ulp (``sqrt`` correctly rounded); ``rsqrt``, ``sigmoid``, ``softplus``, ``erf``, SiLU
within 2; ``tanh``, ``erfc``, the GELU variants within 3 (normal results);
``power(a, b)`` within about ``2 + 2 |b ln a|``. See ``docs/numerics.md`` ("Elementary
functions").
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from functools import cache

import numpy as np

from mxdsl.numerics.exact import scratch

F64 = np.float64

_CTX = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_EVEN)


def _pi() -> Decimal:
    """pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239), in ``_CTX``."""

    def atan_inv(n: int) -> Decimal:
        x = _CTX.divide(Decimal(1), Decimal(n))
        x2 = _CTX.multiply(x, x)
        term, total, k = x, x, 1
        while True:
            term = _CTX.multiply(term, x2)
            step = _CTX.divide(term, Decimal(2 * k + 1))
            if step.is_zero() or step.adjusted() < -_CTX.prec - 5:
                return total
            total = _CTX.add(total, _CTX.minus(step) if k % 2 else step)
            k += 1

    return _CTX.subtract(
        _CTX.multiply(Decimal(16), atan_inv(5)), _CTX.multiply(Decimal(4), atan_inv(239))
    )


def _hi_lo(d: Decimal) -> tuple[float, float]:
    """``d`` as a float64 pair ``hi + lo`` (hi correctly rounded, lo the rounded rest)."""
    hi = float(d)
    return hi, float(_CTX.subtract(d, Decimal(hi)))


def _truncated(d: Decimal, bits: int) -> float:
    """Positive ``d`` truncated to a float64 of at most ``bits`` significant bits (so its
    product with an integer below ``2**(53 - bits)`` is exact)."""
    _, e = math.frexp(float(d))
    scale = Fraction(2) ** (bits - e)
    return float(Fraction(math.floor(Fraction(d) * scale)) / scale)


_PI = _pi()
_LN2 = _CTX.ln(Decimal(2))
_SQRT_PI = _CTX.sqrt(_PI)
_TWO_OVER_SQRT_PI = _CTX.divide(Decimal(2), _SQRT_PI)
INV_SQRT2 = float(_CTX.divide(Decimal(1), _CTX.sqrt(Decimal(2))))
_INV_SQRT_PI = float(_CTX.divide(Decimal(1), _SQRT_PI))
SQRT_2_OVER_PI = float(_CTX.sqrt(_CTX.divide(Decimal(2), _PI)))

# ---------------------------------------------------------------------- helpers


def _f64(x: object) -> np.ndarray:
    return np.asarray(x, dtype=F64)


CHUNK = 8192
"""Elements per pass of :func:`_elementwise`: the temporaries stay in cache and off mmap
(callers evaluating a large array piecewise use blocks of this size too, or of
:func:`block_elements`, which is 4 chunks where the work buffers are reused)."""


def _elementwise(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """Run ``fn`` on the broadcast, flattened float64 arguments, 8192 elements at a time
    (each element's result depends on that element only, so chunks change no bit; fresh
    whole-array temporaries would page-fault), and give the result the input's shape.
    Floating-point warnings are off inside (overflow to Inf, NaN inputs and lanes whose
    value a fix-up replaces are all intended); ``fn`` may overwrite its own temporaries
    but never its arguments."""

    @functools.wraps(fn)
    def run(*args: object) -> np.ndarray:
        arrays = np.broadcast_arrays(*(_f64(a) for a in args))
        shape = arrays[0].shape
        flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
        n = flat[0].size
        with np.errstate(all="ignore"):
            if n <= CHUNK:
                return fn(*flat).reshape(shape)
            out = np.empty(n, F64)
            for start in range(0, n, CHUNK):
                out[start : start + CHUNK] = fn(*(a[start : start + CHUNK] for a in flat))
        return out.reshape(shape)

    return run


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split: ``a = hi + lo`` exactly, each with at most 26 significant bits
    (``|a|`` below 2**995, so nothing overflows)."""
    t = 134217729.0 * a  # 2**27 + 1
    hi = np.subtract(t, a)
    np.subtract(t, hi, out=hi)
    return hi, a - hi


def _split_constant(c: float) -> tuple[float, float]:
    """:func:`_split` of one float (the same operations, done once)."""
    hi, lo = _split(np.array([c]))
    return float(hi[0]), float(lo[0])


def _two_square(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's product ``a * a = p + e`` exactly (``|a|`` below 2**995)."""
    p = a * a
    hi, lo = _split(a)
    e = hi * hi
    e -= p
    hi *= lo
    hi *= 2.0
    e += hi
    lo *= lo
    e += lo
    return p, e


def _two_product(
    a: np.ndarray, b: np.ndarray | float, b_split: tuple[np.ndarray | float, np.ndarray | float]
) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's product ``a * b = p + e`` exactly (``|a|, |b|`` below 2**995), given
    ``b_split = _split(b)`` (a constant's is computed once)."""
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = b_split
    e = a_hi * b_hi
    e -= p
    a_hi *= b_lo
    e += a_hi
    t = a_lo * b_hi
    e += t
    a_lo *= b_lo
    e += a_lo
    return p, e


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's sum ``a + b = s + e`` exactly."""
    s = a + b
    bb = s - a
    t = s - bb
    np.subtract(a, t, out=t)
    np.subtract(b, bb, out=bb)
    t += bb
    return s, t


def _horner(coefficients: tuple[float, ...], z: np.ndarray) -> np.ndarray:
    """``c0 + z (c1 + z (c2 + ...))``."""
    acc = z * coefficients[-1]
    acc += coefficients[-2]
    for c in reversed(coefficients[:-2]):
        acc *= z
        acc += c
    return acc


# -------------------------------------------------------------------------- exp

_EXP_BITS = 8
_EXP_N = 1 << _EXP_BITS  # table of 2**(j/256)
_EXP_INV_L = float(_CTX.divide(Decimal(_EXP_N), _LN2))
_EXP_L1 = _truncated(_CTX.divide(_LN2, Decimal(_EXP_N)), 34)  # k * L1 exact for |k| < 2**19
_EXP_L2 = float(_CTX.subtract(_CTX.divide(_LN2, Decimal(_EXP_N)), Decimal(_EXP_L1)))
_EXP_TABLE = [
    _hi_lo(_CTX.power(Decimal(2), _CTX.divide(Decimal(j), Decimal(_EXP_N)))) for j in range(_EXP_N)
]
_EXP_T_HI = np.array([hi for hi, _ in _EXP_TABLE], dtype=F64)
_EXP_T_LO = np.array([lo for _, lo in _EXP_TABLE], dtype=F64)
# exp(r) - 1 = r + r^2 (1/2 + r (1/6 + r (1/24 + r / 120))) for |r| <= ln2 / 512
# (the first term left out, r^6 / 720, is below 2**-66)
_C2, _C3, _C4, _C5 = (float(Fraction(1, f)) for f in (2, 6, 24, 120))
_EXP_MAX = 709.782712893384  # above: overflow (the reduction below clips to +-750 first)
_EXP_CLIP = 750.0
# an integer k with |k| < 2**51 plus 1.5 * 2**52 is exact, and its bit pattern is that of
# 1.5 * 2**52 plus k: the integer is read from the bits instead of a float -> int cast
_ROUNDER = 1.5 * 2.0**52  # bit pattern 0x4338000000000000


def _exp_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``exp(x) = 2**m * (hi + lo)`` for ``x`` in [-750, 750]: ``hi = 2**(j/256)``
    rounded, ``lo`` the rest (``|lo| < 0.003 hi``), ``m`` int32; a NaN ``x`` gives a NaN
    ``lo`` (``hi`` and ``m`` are then meaningless but finite). ``hi`` and ``lo`` are
    fresh arrays the caller may overwrite (:func:`_exp_parts_into` on fresh buffers)."""
    hi, lo = np.empty_like(x), np.empty_like(x)
    m = np.empty(x.shape, np.int32)
    _exp_parts_into(x, hi, lo, m, np.empty_like(x), np.empty_like(x), np.empty(x.shape, np.int64))
    return m, hi, lo


def _exp_parts_into(
    x: np.ndarray,
    hi: np.ndarray,
    lo: np.ndarray,
    m: np.ndarray,
    k: np.ndarray,
    r: np.ndarray,
    j: np.ndarray,
) -> None:
    """:func:`_exp_parts` of ``x`` written into ``hi``, ``lo`` (float64) and ``m``
    (int32); ``k``, ``r`` (float64) and ``j`` (int64) are work buffers. All are of
    ``x``'s shape and none shares memory with ``x`` or another.

    ``x = k ln2/256 + r`` with ``k = rint(256 x / ln2)``; ``k * L1`` is exact (L1 has 34
    bits, ``|k| < 2**19``) and ``x - k L1`` is exact (Sterbenz), so ``r`` carries one
    rounding of a term below ``2**-9``."""
    np.multiply(x, _EXP_INV_L, out=k)
    np.rint(k, out=k)
    np.multiply(k, _EXP_L1, out=r)
    np.subtract(x, r, out=r)
    t = np.multiply(k, _EXP_L2, out=hi)  # hi and lo serve as work space until the gathers
    r -= t
    np.add(k, _ROUNDER, out=t)
    bits = t.view(np.int64)  # 0x4338000000000000 + k (garbage for a NaN)
    np.bitwise_and(bits, _EXP_N - 1, out=j)  # k mod 256, in [0, 256) whatever bits holds
    # m = floor(k / 256) = k >> 8 in int32: the low 32 bits of bits (numpy's int64 ->
    # int32 cast keeps them) are k's, as |k| < 2**31 (for a NaN x they are garbage, and
    # ldexp of the NaN lo gives that NaN whatever m is)
    np.copyto(m, bits, casting="unsafe")
    np.right_shift(m, _EXP_BITS, out=m)
    # p = r + r^2 (C2 + r (C3 + r (C4 + r C5))): k's buffer is free
    p = np.multiply(r, _C5, out=k)
    for c in (_C4, _C3):
        p += c
        p *= r
    p += _C2
    np.multiply(r, r, out=lo)
    p *= lo
    p += r
    np.take(_EXP_T_HI, j, mode="clip", out=hi)
    np.take(_EXP_T_LO, j, mode="clip", out=lo)
    p *= hi
    lo += p


def _exp_clipped(x: np.ndarray) -> np.ndarray:
    """``e**x`` for ``x`` in [-750, 750] (or NaN): ``ldexp(hi + lo, m)``, a fresh array."""
    m, hi, lo = _exp_parts(x)
    lo += hi
    return np.ldexp(lo, m, out=lo)


def _exp_neg_abs(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|)`` (:func:`exp`'s clip of ``-|x|``, in place)."""
    a = np.abs(x)
    np.negative(a, out=a)
    np.clip(a, -_EXP_CLIP, _EXP_CLIP, out=a)
    return _exp_clipped(a)


def _expm1_clipped(x: np.ndarray) -> np.ndarray:
    """``e**x - 1`` for ``x`` in [-750, 750], as :func:`expm1` without its fix-ups for
    ``x = -0`` and NaN (there it gives +0 and some NaN)."""
    m, hi, lo = _exp_parts(x)
    # 2**m hi - 1 is exact for -1 <= m <= 52 (Sterbenz / a shared ulp); else rounded once
    np.ldexp(hi, m, out=hi)
    hi -= 1.0
    np.ldexp(lo, m, out=lo)
    hi += lo
    return hi


def _keep_input_where(y: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``y`` with ``x`` in the lanes of ``mask`` (a rare fix-up: copies only if any)."""
    if mask.any():
        y[mask] = x[mask]
    return y


@_elementwise
def exp(x: object) -> np.ndarray:
    """``e**x`` (within 1 ulp; overflow to +Inf, gradual underflow to 0)."""
    return _exp_clipped(np.clip(_f64(x), -_EXP_CLIP, _EXP_CLIP))  # NaN stays NaN


@_elementwise
def expm1(x: object) -> np.ndarray:
    """``e**x - 1`` without the cancellation near 0; +Inf beyond the overflow threshold
    (where ``2**m hi`` is +Inf and ``2**m lo`` may be -Inf: their sum would be NaN)."""
    x = _f64(x)
    y = _expm1_clipped(np.clip(x, -_EXP_CLIP, _EXP_CLIP))
    over = x > _EXP_MAX
    if over.any():
        y[over] = np.inf
    return _keep_input_where(y, x, (x == 0.0) | np.isnan(x))  # expm1(-0) = -0


# -------------------------------------------------------------------------- log

_LN2_HI = _truncated(_LN2, 40)  # e * LN2_HI exact for |e| < 2**13
_LN2_LO = float(_CTX.subtract(_LN2, Decimal(_LN2_HI)))
_SQRT_HALF = float(_CTX.sqrt(Decimal("0.5")))
# log(1 + f) = 2 atanh(s), s = f / (2 + f): 2 s + s R(s^2), R = z (2/3 + 2z/5 + ...)
_LOG_R = tuple(float(Fraction(2, 2 * n + 1)) for n in range(1, 12))
_TINY = 2.0**-1022


def _log_core(x: np.ndarray, correction: np.ndarray | None = None) -> np.ndarray:
    """``log(x) (+ correction)`` for finite ``x > 0``; ``correction`` is a small absolute
    term added before the last rounding (log1p's rounding error of ``1 + y``)."""
    subnormal = x < _TINY
    scaled = subnormal.any()
    if scaled:
        x = np.where(subnormal, x * 2.0**54, x)  # exact
    mant, e = np.frexp(x)  # x = mant * 2**e, mant in [0.5, 1)
    low = mant < _SQRT_HALF
    np.ldexp(mant, low, out=mant)  # times 2 where low (exact); now in [sqrt(1/2), sqrt(2))
    e -= low  # exact small integers
    ef = e.astype(F64)
    if scaled:
        ef -= np.where(subnormal, 54.0, 0.0)
    f = mant - 1.0  # exact (Sterbenz)
    s = f + 2.0
    np.divide(f, s, out=s)
    z = s * s
    r = _horner(_LOG_R, z)
    r *= z
    hfsq = 0.5 * f
    hfsq *= f
    tail = ef * _LN2_LO
    if correction is not None:
        tail += correction
    # log(1 + f) = f - (hfsq - s (hfsq + R)) since hfsq (1 - s) = s f
    r += hfsq
    r *= s
    r += tail
    np.subtract(hfsq, r, out=r)
    r -= f
    ef *= _LN2_HI
    ef -= r
    return ef


@_elementwise
def log(x: object) -> np.ndarray:
    """Natural logarithm (within 1 ulp); ``log(0) = -Inf``, negative -> NaN."""
    x = _f64(x)
    ok = (x > 0.0) & (x < np.inf)
    if ok.all():
        return _log_core(x)
    y = _log_core(np.where(ok, x, 1.0))
    y[x == 0.0] = -np.inf
    y[x == np.inf] = np.inf
    y[(x < 0.0) | np.isnan(x)] = np.nan
    return y


@_elementwise
def log1p(x: object) -> np.ndarray:
    """``log(1 + x)`` without the cancellation near 0."""
    x = _f64(x)
    ok = (x > -1.0) & (x < np.inf)
    xs = x if ok.all() else np.where(ok, x, 0.0)
    y = _log1p_core(xs)
    _keep_input_where(y, x, x == 0.0)  # log1p(-0) = -0
    if ok.all():
        return y
    y[x == -1.0] = -np.inf
    y[x == np.inf] = np.inf
    y[(x < -1.0) | np.isnan(x)] = np.nan
    return y


def _log1p_core(x: np.ndarray) -> np.ndarray:
    """``log(1 + x)`` for finite ``x > -1`` (``log1p(-0)`` comes out +0)."""
    u = 1.0 + x
    # 1 + x rounded lost c = x - (u - 1) (u - 1 is exact here); log1p = log(u) + c / u
    c = u - 1.0
    np.subtract(x, c, out=c)
    c /= u
    return _log_core(u, c)


# ------------------------------------------------------ exp-based activations


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """:func:`sigmoid` of a flat chunk, a fresh array (:func:`_sigmoid_into`)."""
    return _sigmoid_into(x, np.empty_like(x))


_F64 = np.dtype(F64)
_LOWER_CLIP = [np.full(4 * CHUNK, -_EXP_CLIP)]  # grown on demand, never written


def _lower_clip(n: int) -> np.ndarray:
    """``n`` copies of exp's lower clip -750 (numpy's ``maximum`` against an array has a
    SIMD loop, against a scalar none: 2.7 against 4.3 us per 8192)."""
    bound = _LOWER_CLIP[0]
    if bound.size < n:
        bound = _LOWER_CLIP[0] = np.full(n, -_EXP_CLIP)
    return bound[:n]


def _sigmoid_into(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`sigmoid` of a flat float64 chunk ``x`` written into ``out`` (float64, of
    ``x``'s size; it may be ``x`` itself), which is returned; with no ``out``, into the
    thread's first float64 work buffer (valid until the next call). The temporaries are
    the thread's :func:`~mxdsl.numerics.exact.scratch` buffers (float64 slot 0 as five
    rows, int32, int64 and bool): reused from call to call, so the SiLU / sigmoid kernel
    allocates nothing. Fresh temporaries of a few dozen kB cost a page fault per 4 kB
    whenever the allocator has just handed its top of heap back to the system, which the
    interpreter's large tiles make common (measured: the same SiLU tile 3x slower).

    ``e = e**-|x|`` (:func:`exp` of ``-|x|``: ``max(-|x|, -750)`` is exp's clip, as
    ``-|x| <= 750`` and a NaN stays the same NaN), then ``1 / (1 + e)`` for ``x >= 0``
    and ``e / (1 + e)`` below; the numerator is ``max(e, x >= 0)`` (``e <= 1``; a NaN
    ``e`` is kept)."""
    n = x.size
    a, hi, lo, k, r = (scratch(_F64, (n,), slot) for slot in (0, 2, 3, 4, 5))  # 1: evaluate_into's
    m = scratch(np.dtype(np.int32), (n,))
    np.abs(x, out=a)
    np.negative(a, out=a)
    np.maximum(a, _lower_clip(n), out=a)
    _exp_parts_into(a, hi, lo, m, k, r, scratch(np.dtype(np.int64), (n,)))
    lo += hi
    e = np.ldexp(lo, m, out=lo)
    d = np.add(e, 1.0, out=k)
    positive = np.greater_equal(x, 0.0, out=scratch(np.dtype(bool), (n,)))
    np.maximum(e, positive, out=e)
    return np.divide(e, d, out=a if out is None else out)  # a is free after the exp


def _silu_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`silu` of a flat float64 chunk ``x`` written into ``out`` (as
    :func:`_sigmoid_into`), which is returned: ``x * sigmoid(x)``."""
    return np.multiply(x, _sigmoid_into(x), out=out)


@_elementwise
def sigmoid(x: object) -> np.ndarray:
    """``1 / (1 + e**-x)``, as ``e**x / (1 + e**x)`` for negative x (no overflow)."""
    return _sigmoid(_f64(x))


@_elementwise
def tanh(x: object) -> np.ndarray:
    """``tanh x = E / (E + 2)`` with ``E = expm1(2|x|)``, the sign of x (``tanh(-0) =
    -0``); exactly +-1 beyond |x| = 20 (there ``E + 2`` rounds to ``E``)."""
    x = _f64(x)
    a = np.abs(x)
    np.minimum(a, 20.0, out=a)
    a *= 2.0
    e = _expm1_clipped(a)  # 2|x| is +0 for x = +-0, where this gives +0 too
    t = e + 2.0
    np.divide(e, t, out=t)
    np.copysign(t, x, out=t)
    return _keep_input_where(t, x, np.isnan(x))


@_elementwise
def softplus(x: object) -> np.ndarray:
    """``log(1 + e**x) = max(x, 0) + log1p(e**-|x|)``."""
    x = _f64(x)
    y = _log1p_core(_exp_neg_abs(x))  # e**-|x| in [0, 1] (or NaN, replaced below)
    np.add(np.maximum(x, 0.0), y, out=y)
    return _keep_input_where(y, x, np.isnan(x))


@_elementwise
def silu(x: object) -> np.ndarray:
    """SiLU ``x * sigmoid(x)``."""
    x = _f64(x)
    s = _sigmoid(x)
    return np.multiply(x, s, out=s)


_IN_PLACE: dict[Callable[..., np.ndarray], Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    sigmoid: _sigmoid_into,
    silu: _silu_into,
}


def block_elements(function: Callable[..., np.ndarray]) -> int:
    """Elements per :func:`evaluate_into` call that suit ``function``: 4 chunks for
    sigmoid and SiLU (their work buffers are reused, so a larger block only saves ufunc
    calls: a [128, 512] SiLU tile 0.53 ms in blocks of 4 chunks, 0.58 of 2, 0.62 of 1),
    one :data:`CHUNK` for any other function (its fresh temporaries must stay small:
    ``x * x`` on 4-chunk blocks page-faulted to 5x the time)."""
    return 4 * CHUNK if function in _IN_PLACE else CHUNK


def evaluate_into(function: Callable[..., np.ndarray], x: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = function(x widened to float64)``, rounded to ``out``'s dtype as numpy's
    assignment rounds (float32: to nearest even); ``x`` and ``out`` of one shape, not
    sharing memory, ``function`` elementwise. :func:`sigmoid` and :func:`silu` allocate
    nothing here (``x`` is widened into the thread's float64 scratch slot 1
    and the in-place kernel evaluates the same operations as the function); any other
    function is called on a fresh float64 copy of ``x``. An all-zero tail of the last
    axis (a tile's padding tokens: about half the MoE kernels' SiLU elements) is not
    evaluated element by element: ``function`` being elementwise, its +0s get
    ``function(+0)`` and its -0s ``function(-0)``, evaluated once (:func:`_at_zeros`), the
    same bits. Floating-point warnings are off, as in :func:`_elementwise`."""
    with np.errstate(all="ignore"):
        tail = _zero_tail(x)
        if tail is not None:
            _fill_zeros(function, x[..., tail:], out[..., tail:])
            if tail == 0:
                return
            x, out = x[..., :tail], out[..., :tail]
        kernel = _IN_PLACE.get(function)
        if kernel is None:
            out[...] = np.asarray(function(x.astype(np.float64)), dtype=np.float64)
            return
        wide = scratch(_F64, x.shape, slot=1)  # held while the kernel uses slot 0
        np.copyto(wide, x)  # exact (a wider float type)
        out[...] = kernel(wide.reshape(-1), wide.reshape(-1)).reshape(x.shape)


def _zero_tail(x: np.ndarray) -> int | None:
    """Where the all-zero tail of ``x``'s last axis starts (the positions after the last
    one holding a nonzero, or a NaN, somewhere), or None when there is none: a nonzero in
    the last position, the common case, is seen from that position alone."""
    if x.ndim == 0 or x.size == 0 or x[..., -1].any():
        return None
    n = x.shape[-1]
    nonzero = np.logical_or.reduce((x != 0).reshape(-1, n), axis=0)
    return n - int(nonzero[::-1].argmax()) if nonzero.any() else 0


def _fill_zeros(function: Callable[..., np.ndarray], zeros: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = function(zeros)`` for an array of +-0: ``function(+0)`` and
    ``function(-0)`` placed by sign."""
    values = _at_zeros(function, out.dtype)
    out[...] = values[0]
    if values[0].tobytes() != values[1].tobytes():
        np.copyto(out, values[1], where=np.signbit(zeros))


@functools.lru_cache(maxsize=64)
def _at_zeros(function: Callable[..., np.ndarray], dtype: np.dtype) -> np.ndarray:
    """``[function(+0), function(-0)]`` rounded to ``dtype`` as :func:`evaluate_into`
    rounds (read-only)."""
    values = np.empty(2, dtype)
    values[...] = np.asarray(function(np.array([0.0, -0.0])), dtype=np.float64)
    values.flags.writeable = False
    return values


def _sigmoid_of_pair(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """``sigmoid(hi + lo)`` for a small ``lo``: ``s + s (1 - s) lo`` with ``s =
    sigmoid(hi)`` (first order; ``lo`` is below an ulp of ``hi``)."""
    s = _sigmoid(hi)
    t = 1.0 - s
    t *= lo
    t *= s
    t += s
    return t


_C1702_HI, _C1702_LO = _hi_lo(Decimal("1.702"))
_C044715_HI, _C044715_LO = _hi_lo(Decimal("0.044715"))
_TWO_SQRT_2_OVER_PI_HI, _TWO_SQRT_2_OVER_PI_LO = _hi_lo(
    _CTX.multiply(2, _CTX.sqrt(_CTX.divide(Decimal(2), _PI)))
)
_C1702_SPLIT = _split_constant(_C1702_HI)
_C044715_SPLIT = _split_constant(_C044715_HI)
_TWO_SQRT_2_OVER_PI_SPLIT = _split_constant(_TWO_SQRT_2_OVER_PI_HI)
_SATURATED = 1000.0  # |argument| beyond which the sigmoids below are exactly 0 or 1


def _clipped_nan_to_zero(x: np.ndarray) -> np.ndarray:
    """``x`` clipped to +-_SATURATED, NaN replaced by 0 (a fresh array)."""
    xc = np.clip(x, -_SATURATED, _SATURATED)
    nan = np.isnan(xc)
    if nan.any():
        xc[nan] = 0.0
    return xc


@_elementwise
def gelu_apprx_sigmoid(x: object) -> np.ndarray:
    """``x * sigmoid(1.702 x)`` (nkilib's Swish / NKI's gelu_apprx_sigmoid); ``1.702 x``
    is formed exactly as a pair (Dekker) from 1.702 to 32 digits, so its rounding is not
    amplified where the result is ``x e**(1.702 x)``."""
    x = _f64(x)
    xc = _clipped_nan_to_zero(x)
    t, t_lo = _two_product(xc, _C1702_HI, _C1702_SPLIT)
    xc *= _C1702_LO
    t_lo += xc
    s = _sigmoid_of_pair(t, t_lo)
    return np.multiply(x, s, out=s)


@_elementwise
def gelu_apprx_tanh(x: object) -> np.ndarray:
    """``0.5 x (1 + tanh(u))``, ``u = sqrt(2/pi) (x + 0.044715 x**3)``, evaluated as the
    equal ``x * sigmoid(2u)`` (no cancellation for negative x), with ``2u`` carried as a
    pair (Dekker products, Knuth sums; the constants to 32 digits) so its rounding is not
    amplified where the result is ``x e**(2u)``."""
    x = _f64(x)
    xc = _clipped_nan_to_zero(x)
    p, p_lo = _two_square(xc)  # x^2
    q, q_lo = _two_product(xc, p, _split(p))  # x^3 = q + q_lo + x p_lo
    p_lo *= xc
    q_lo += p_lo
    r, r_lo = _two_product(q, _C044715_HI, _C044715_SPLIT)  # 0.044715 x^3
    q_lo *= _C044715_HI
    q *= _C044715_LO
    q_lo += q
    r_lo += q_lo
    v, v_lo = _two_sum(xc, r)  # x + 0.044715 x^3
    v_lo += r_lo
    w, w_lo = _two_product(v, _TWO_SQRT_2_OVER_PI_HI, _TWO_SQRT_2_OVER_PI_SPLIT)  # 2u
    v_lo *= _TWO_SQRT_2_OVER_PI_HI
    v *= _TWO_SQRT_2_OVER_PI_LO
    v_lo += v
    w_lo += v_lo
    s = _sigmoid_of_pair(w, w_lo)
    return np.multiply(x, s, out=s)


# -------------------------------------------------------------------- erf, erfc

# erf(x) = x (a0 + z (a1 + ...)), z = x*x, a_n = 2/sqrt(pi) (-1)^n / (n! (2n + 1)), |x| < 1/2
_ERF_SMALL = 0.5
_ERF_A0_HI, _ERF_A0_LO = _hi_lo(_TWO_OVER_SQRT_PI)


def _erf_series() -> tuple[float, ...]:
    out, factorial = [], 1
    for n in range(1, 15):
        factorial *= n
        a = _CTX.divide(_TWO_OVER_SQRT_PI, Decimal(factorial * (2 * n + 1)))
        out.append(float(_CTX.minus(a) if n % 2 else a))
    return tuple(out)


_ERF_TAIL = _erf_series()

# erfcx(z) = e**(z*z) erfc(z): Taylor polynomials at c = i/8 (i = 4 .. 48) for z in
# [1/2, 6 + 1/16); a continued fraction beyond.
_ERFCX_STEP = 8
_ERFCX_FIRST, _ERFCX_LAST = 4, 48
_ERFCX_DEGREE = 18
_ERFCX_CF_FROM = (_ERFCX_LAST + 0.5) / _ERFCX_STEP
_ERFCX_CF_DEPTH = 60


def _erfcx_decimal(c: Decimal) -> Decimal:
    """``e**(c*c) - 2/sqrt(pi) sum 2**n c**(2n+1) / (2n+1)!!`` (positive terms: erf's
    series times e**(c*c)) at 60 digits, for 0 <= c <= 6 (at most 17 digits cancel)."""
    c2 = _CTX.multiply(c, c)
    term, total, n = c, c, 0
    while True:
        n += 1
        term = _CTX.divide(_CTX.multiply(_CTX.multiply(term, c2), Decimal(2)), Decimal(2 * n + 1))
        if term.adjusted() < total.adjusted() - _CTX.prec - 2:
            break
        total = _CTX.add(total, term)
    return _CTX.subtract(_CTX.exp(c2), _CTX.multiply(_TWO_OVER_SQRT_PI, total))


@cache
def _erfcx_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per centre ``c``: ``a0`` as hi / lo and ``a_1 .. a_D`` (Taylor coefficients, from
    ``y' = 2 z y - 2/sqrt(pi)``: ``a1 = 2c a0 - 2/sqrt(pi)``, ``a_{n+1} = (2c a_n + 2
    a_{n-1}) / (n + 1)``)."""
    hi, lo, rest = [], [], []
    for i in range(_ERFCX_FIRST, _ERFCX_LAST + 1):
        c = Decimal(i) / _ERFCX_STEP
        a = [_erfcx_decimal(c)]
        two_c = 2 * c  # exact
        a.append(_CTX.subtract(_CTX.multiply(two_c, a[0]), _TWO_OVER_SQRT_PI))
        for n in range(1, _ERFCX_DEGREE):
            twice = _CTX.add(_CTX.multiply(two_c, a[n]), _CTX.multiply(2, a[n - 1]))
            a.append(_CTX.divide(twice, Decimal(n + 1)))
        h, low = _hi_lo(a[0])
        hi.append(h)
        lo.append(low)
        rest.append([float(v) for v in a[1:]])
    # rest[n - 1] holds a_n of every centre (contiguous rows for np.take)
    return np.array(hi, F64), np.array(lo, F64), np.array(rest, F64).T.copy()


def _erfcx(z: np.ndarray) -> np.ndarray:
    """``e**(z*z) erfc(z)`` for ``z >= 1/2`` (finite)."""
    out = np.empty_like(z)
    near = z < _ERFCX_CF_FROM
    if near.any():
        out[near] = _erfcx_taylor(z[near])
    far = ~near
    if not far.any():
        return out
    zf = z[far]
    # e**(z*z) erfc(z) = (1/sqrt(pi)) / (z + (1/2) / (z + (2/2) / (z + (3/2) / ...)))
    t = zf.copy()
    for n in range(_ERFCX_CF_DEPTH, 0, -1):
        np.divide(0.5 * n, t, out=t)
        t += zf
    out[far] = np.divide(_INV_SQRT_PI, t, out=t)
    return out


def _erfcx_taylor(z: np.ndarray) -> np.ndarray:
    """``erfcx(z)`` for ``1/2 <= z < 6 + 1/16`` by the Taylor polynomial at the nearest
    ``c = i/8``."""
    i = np.rint(z * _ERFCX_STEP)
    h = i / _ERFCX_STEP
    np.subtract(z, h, out=h)  # exact (Sterbenz: i/8 is within 1/16 of z >= 1/2)
    row = i.astype(np.int64)
    row -= _ERFCX_FIRST
    a0_hi, a0_lo, rest = _erfcx_tables()
    acc = np.take(rest[-1], row, mode="clip")
    for n in range(_ERFCX_DEGREE - 2, -1, -1):
        acc *= h
        acc += np.take(rest[n], row, mode="clip")
    acc *= h
    acc += np.take(a0_lo, row, mode="clip")
    acc += np.take(a0_hi, row, mode="clip")
    return acc


def _erfc_positive(z: np.ndarray, z2_hi: np.ndarray, z2_lo: np.ndarray) -> np.ndarray:
    """``erfc(z)`` for ``z >= 1/2`` given ``z*z = z2_hi + z2_lo`` (exact or nearly):
    ``e**-(z2_hi) (1 - z2_lo) erfcx(z)``."""
    e = np.negative(z2_hi)
    np.maximum(e, -_EXP_CLIP, out=e)  # exp's clip (the argument is below 0)
    e = _exp_clipped(e)
    t = e * z2_lo
    np.subtract(e, t, out=t)
    t *= _erfcx(z)
    return t


def _erf_small(x: np.ndarray) -> np.ndarray:
    """erf for ``|x| < 1/2`` by its Maclaurin series."""
    z = x * x
    series = _horner(_ERF_TAIL, z)
    series *= z
    series += _ERF_A0_LO
    series *= x
    y = x * _ERF_A0_HI
    y += series
    return y


_ERFC_ZERO = 27.5  # erfc underflows to 0 beyond 27.3


def _square_of(a: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """``(scale a)**2`` as hi + lo for ``scale`` 1 or 1/2 (the latter for ``a / sqrt 2``,
    squared exactly as ``a*a / 2``)."""
    p, e = _two_square(a)
    if scale != 1.0:
        p *= scale
        e *= scale
    return p, e


@_elementwise
def erf(x: np.ndarray) -> np.ndarray:
    """The error function: Maclaurin series below 1/2, ``1 - erfc`` above."""
    a = np.minimum(np.abs(x), _ERFC_ZERO)
    small = a < _ERF_SMALL
    out = np.where(np.isnan(x), x, np.copysign(1.0, x))
    out[small] = _erf_small(x[small])
    mid = ~small & ~np.isnan(x)
    am = a[mid]
    hi, lo = _square_of(am, 1.0)
    y = _erfc_positive(am, hi, lo)
    np.subtract(1.0, y, out=y)
    out[mid] = np.copysign(y, x[mid], out=y)
    return out


@_elementwise
def erfc(x: np.ndarray) -> np.ndarray:
    """The complementary error function ``1 - erf(x)``, accurate in the tail."""
    a = np.minimum(np.abs(x), _ERFC_ZERO)
    small = a < _ERF_SMALL
    out = np.where(np.isnan(x), x, np.where(x > 0.0, 0.0, 2.0))
    out[small] = 1.0 - _erf_small(x[small])
    mid = ~small & ~np.isnan(x)
    am = a[mid]
    hi, lo = _square_of(am, 1.0)
    tail = _erfc_positive(am, hi, lo)
    out[mid] = np.where(x[mid] > 0.0, tail, 2.0 - tail)
    return out


@_elementwise
def gelu(x: np.ndarray) -> np.ndarray:
    """``0.5 x (1 + erf(x / sqrt 2))``: ``x - 0.5 x erfc(z)`` for positive x and ``0.5 x
    erfc(-z)`` for negative x (no cancellation), ``z**2 = x*x/2`` exactly."""
    a = np.minimum(np.abs(x), _ERFC_ZERO * 1.5)
    z = a * INV_SQRT2
    small = z < _ERF_SMALL
    half = 0.5 * x
    out = x.copy()  # NaN stays NaN; every other element is overwritten
    out[small] = half[small] * (1.0 + _erf_small(x[small] * INV_SQRT2))
    mid = ~small & ~np.isnan(x)
    hi, lo = _square_of(a[mid], 0.5)
    tail = _erfc_positive(z[mid], hi, lo)
    hm = half[mid]
    positive = x[mid] > 0.0
    # inf * 0 in the branch not taken (and -inf): warnings are off in _elementwise
    out[mid] = np.where(positive, hm * (2.0 - tail), hm * tail)
    return out


# ------------------------------------------------------------------ sqrt, rsqrt


@_elementwise
def sqrt(x: object) -> np.ndarray:
    """The square root, correctly rounded (an IEEE-754 operation): NaN below -0,
    ``sqrt(-0) = -0``."""
    return np.sqrt(_f64(x))


@_elementwise
def rsqrt(x: object) -> np.ndarray:
    """``1 / sqrt(x)``: the correctly rounded square root, then the correctly rounded
    reciprocal (within 1.5 ulps); ``rsqrt(+-0) = +-Inf``, ``rsqrt(+Inf) = +0``, NaN below
    -0."""
    r = np.sqrt(_f64(x))
    return np.divide(1.0, r, out=r)


# ------------------------------------------------------------------------ power


@_elementwise
def power(a: object, b: object) -> np.ndarray:
    """``a ** b`` with C99 ``pow``'s special cases: ``exp(b log|a|)`` for general b, with
    the sign of a for odd integer b, NaN for negative a and non-integer b. Integer
    ``|b| <= 64``: binary powering of ``|a|`` (exact whenever the intermediate powers
    are, at most 13 roundings otherwise), then its reciprocal for negative b."""
    a, b = np.broadcast_arrays(_f64(a), _f64(b))
    a = np.asarray(a, F64)
    b = np.asarray(b, F64)
    integer = np.isfinite(b) & (np.floor(b) == b)
    odd = integer & (np.abs(np.fmod(np.where(integer, b, 0.0), 2.0)) == 1.0)
    mag = np.abs(a)
    with np.errstate(all="ignore"):
        y = exp(b * log(mag))
        # integer exponents up to 64 in magnitude: binary powering (then 1 / that)
        small = integer & (np.abs(b) <= 64)
        n = np.where(small, np.abs(b), 0.0).astype(np.int64)
        square, acc = mag, np.ones_like(mag)
        for bit in range(7):
            acc = np.where(((n >> bit) & 1) == 1, acc * square, acc)
            square = square * square
        negative = b < 0.0
        # a reciprocal only of a normal power (else the exp / log form)
        normal = (acc >= _TINY) & (acc < np.inf)
        y = np.where(small & (~negative | normal), np.where(negative, 1.0 / acc, acc), y)
        y = np.where(odd & (np.signbit(a)), -y, y)
        y = np.where((a < 0.0) & ~integer & np.isfinite(a), np.nan, y)
        # b = +-Inf: |a| = 1 -> 1, else 0 or Inf by |a| < 1 and the sign of b
        inf_b = np.isinf(b)
        y = np.where(inf_b, np.where((mag < 1.0) == (b > 0), 0.0, np.inf), y)
        y = np.where(inf_b & (mag == 1.0), 1.0, y)
        y = np.where(np.isnan(a) | np.isnan(b), np.nan, y)
        y = np.where((b == 0.0) | (a == 1.0), 1.0, y)
    return y


__all__ = [
    "INV_SQRT2",
    "SQRT_2_OVER_PI",
    "block_elements",
    "erf",
    "erfc",
    "evaluate_into",
    "exp",
    "expm1",
    "gelu",
    "gelu_apprx_sigmoid",
    "gelu_apprx_tanh",
    "log",
    "log1p",
    "power",
    "rsqrt",
    "sigmoid",
    "silu",
    "softplus",
    "sqrt",
    "tanh",
]

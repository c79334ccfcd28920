"""Exactly rounded PE-pass sums: the certificate and the exact path.

A PE pass is the *exact* sum of its K products rounded once to fp32 (``docs/numerics.md``,
"The PE pass"). Every PE operand is an fp32 value (bf16, f16, fp8 and MX-dequantized
values all are), so each product is exact in float64 (at most 48 significant bits,
magnitudes within ``[2**-298, 2**256)``). What float64 cannot always do is *add* them
exactly. Two tools make the sum exact at BLAS speed:

* **The certificate** (:func:`uncertified`). If every product of output ``(i, j)`` is a
  multiple of ``2**(low_i + low_j)`` and smaller than ``2**(top_i + top_j + 2)`` in
  magnitude, every partial sum of at most ``c`` of them is a multiple of the same power
  of two below ``c * 2**(top_i + top_j + 2)``; when that fits in 53 bits
  (``top_i + top_j + 2 + ceil(log2 c) - low_i - low_j <= 53``) every partial sum is a
  float64 and the float64 sum is exact *in any order* - whatever BLAS, CPU or batching
  computes it. ``top`` and ``low`` are per row of the stationary and per column of the
  moving operand (the exponent of the highest and of the lowest set bit over the
  column), ``c`` the number of products that can be nonzero; a row or column with at
  most one nonzero element is exact outright (one product).
* **The exact path** (:func:`exact_sums`) for the outputs the certificate cannot vouch
  for: each product split into three 26-bit pieces of an integer significand aligned on
  a common grid, the pieces summed per limb (integers below ``2**53``: exact), carries
  propagated, and the result rounded to fp32 through a round-to-odd float64 (at least
  27 significant bits, so the final round to nearest even is the correct rounding of the
  exact sum: the usual round-to-odd double-rounding argument, p' >= p + 2).

A sum that is exactly zero is +0 (the PE's accumulators start at +0), so only a nonzero
sum that underflows gives -0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_F32 = np.dtype(np.float32)

EMPTY_TOP = -(1 << 20)
"""``top`` of a column without a finite nonzero element (smaller than any exponent)."""
EMPTY_LOW = 1 << 20
"""``low`` of a column without a finite nonzero element (larger than any exponent)."""

FLOAT64_BITS = 53


@dataclass
class ExactPathCounter:
    """How many PE-pass outputs were certified by float64 and how many took the exact
    path, since the last :meth:`reset` (the benchmarks print it)."""

    outputs: int = 0
    exact: int = 0

    def reset(self) -> None:
        self.outputs = 0
        self.exact = 0


EXACT_PATH = ExactPathCounter()


@dataclass(frozen=True)
class ColumnBits:
    """Per column of an operand ``[..., K, F]`` (the contraction along axis -2): the
    exponent of the highest (``top``) and of the lowest (``low``) set bit over its finite
    nonzero elements, and how many elements may be nonzero (``count``; an upper bound)."""

    top: np.ndarray
    low: np.ndarray
    count: np.ndarray

    @staticmethod
    def concatenate(parts: list[ColumnBits]) -> ColumnBits:
        if len(parts) == 1:
            return parts[0]
        return ColumnBits(
            np.concatenate([p.top for p in parts], axis=-1),
            np.concatenate([p.low for p in parts], axis=-1),
            np.concatenate([p.count for p in parts], axis=-1),
        )

    def take(self, columns: slice | np.ndarray) -> ColumnBits:
        return ColumnBits(self.top[..., columns], self.low[..., columns], self.count[..., columns])


_QUICK_LAYOUT = {
    # dtype: (unsigned view, magnitude mask, mantissa bits, exponent bias, precision)
    np.dtype(np.float64): (np.dtype(np.uint64), 0x7FFF_FFFF_FFFF_FFFF, 52, 1023, 53),
    np.dtype(np.float32): (np.dtype(np.uint32), 0x7FFF_FFFF, 23, 127, 24),
    np.dtype(np.float16): (np.dtype(np.uint16), 0x7FFF, 10, 15, 11),
}


def _quick_layout(dtype: np.dtype) -> tuple[np.dtype, int, int, int, int] | None:
    layout = _QUICK_LAYOUT.get(dtype)
    if layout is not None:
        return layout
    if dtype.name == "bfloat16":
        return np.dtype(np.uint16), 0x7FFF, 7, 127, 8
    return None


def quick_column_bits(tile: np.ndarray, precision: int | None = None) -> ColumnBits | None:
    """A cheap bound of :class:`ColumnBits` for a float64 / float32 / bfloat16 / float16
    tile ``[K, F]`` from its largest and smallest nonzero magnitude words: ``top`` from the
    largest's exponent field, ``low`` = the smallest's exponent minus ``precision - 1``
    (the significand's bits: the dtype's own precision unless the values are known to
    carry fewer, as MX-dequantized values do), ``count`` = K. A subnormal counts as the
    smallest normal exponent (right for the dtype's own precision, and for float64 holding
    fp32 values, which are never float64 subnormals). ``None`` for other dtypes.
    Infinities and NaNs are not excluded: their exponent field only widens the bound."""
    layout = _quick_layout(tile.dtype)
    if layout is None:
        return None
    word, magnitude_mask, mantissa_bits, bias, own_precision = layout
    if precision is None:
        precision = own_precision
    k = tile.shape[0]
    magnitude = tile.view(word) & word.type(magnitude_mask)
    if k == 0:
        empty = np.full(tile.shape[1], EMPTY_TOP, dtype=np.int64)
        return ColumnBits(empty, -empty, np.zeros(tile.shape[1], dtype=np.int64))
    largest = magnitude.max(axis=0)
    magnitude -= word.type(1)  # zero wraps to the largest word: the min skips it
    smallest = magnitude.min(axis=0) + word.type(1)
    top = np.maximum((largest >> mantissa_bits).astype(np.int64), 1) - bias
    low = np.maximum((smallest >> mantissa_bits).astype(np.int64), 1) - bias - (precision - 1)
    empty = largest == 0
    top[empty] = EMPTY_TOP
    low[empty] = EMPTY_LOW
    return ColumnBits(top, low, np.where(empty, 0, k))


def column_bits(values: np.ndarray) -> ColumnBits:
    """The exact :class:`ColumnBits` of a float64 operand ``[..., K, F]``: highest and
    lowest set bit of each finite nonzero element from its bit pattern, and the count of
    its nonzero elements (non-finite ones included)."""
    bits = np.ascontiguousarray(values).view(np.uint64)
    field = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    significand = bits & np.uint64((1 << 52) - 1)
    nonzero = (bits & np.uint64(0x7FFF_FFFF_FFFF_FFFF)) != 0
    finite = nonzero & (field != 0x7FF)
    normal = field != 0
    significand |= np.where(normal, np.uint64(1 << 52), np.uint64(0))
    field = np.maximum(field, 1)
    lowest = significand & (~significand + np.uint64(1))  # the lowest set bit
    trailing = np.frexp(lowest.astype(np.float64))[1] - 1
    top = np.where(finite, field - 1023 - np.where(normal, 0, _leading_gap(significand)), EMPTY_TOP)
    low = np.where(finite, field - 1075 + trailing, EMPTY_LOW)
    return ColumnBits(
        top.max(axis=-2), low.min(axis=-2), np.count_nonzero(nonzero, axis=-2).astype(np.int64)
    )


def _leading_gap(significand: np.ndarray) -> np.ndarray:
    """For a subnormal float64's significand: how far its highest set bit sits below bit
    52 (0 where the significand is 0)."""
    highest = np.frexp(significand.astype(np.float64))[1] - 1
    return np.where(significand == 0, 0, 52 - highest)


def _ceil_log2(count: np.ndarray) -> np.ndarray:
    """``ceil(log2(count))`` for positive integer counts (0 for 0 and 1)."""
    c = np.maximum(count, 1).astype(np.float64)
    mantissa, exponent = np.frexp(c)
    return exponent - (mantissa == 0.5)


def uncertified(rows: ColumnBits, columns: ColumnBits) -> np.ndarray:
    """``[..., M, N]``: whether output ``(i, j)`` of ``lhs[..., M, K] @ rhs[..., K, N]``
    may not be exact in float64 (``rows``: the bits of lhs's rows, ``columns``: of rhs's
    columns); see the module docstring."""
    width = (rows.top - rows.low)[..., :, None] + (columns.top - columns.low)[..., None, :]
    row_log, column_log = _ceil_log2(rows.count), _ceil_log2(columns.count)
    width += 2 + np.minimum(row_log[..., :, None], column_log[..., None, :])
    several = np.minimum(rows.count[..., :, None], columns.count[..., None, :]) > 1
    return (width > FLOAT64_BITS) & several


def uncertified_outputs(rows: ColumnBits, columns: ColumnBits) -> tuple[np.ndarray, ...]:
    """The indices of :func:`uncertified`'s True entries. For one pass (1-D bits) only
    the rows and columns that fail against the other side's widest are compared pairwise,
    so a few wide rows or columns cost O(M + N) plus their own cross product."""
    if rows.top.ndim != 1 or columns.top.ndim != 1:
        return np.nonzero(uncertified(rows, columns))
    row_width, column_width = rows.top - rows.low, columns.top - columns.low
    if row_width.size == 0 or column_width.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # (i, j) fails only if width_i + width_j + 2 + log_j > 53 (min(log_i, log_j) <= log_j)
    # and likewise with log_i: so only rows failing against the widest column (with its
    # log) and columns failing against the widest row can meet in a failure
    limit = FLOAT64_BITS - 2
    widest_column = int((column_width + _ceil_log2(columns.count)).max())
    widest_row = int((row_width + _ceil_log2(rows.count)).max())
    wide_rows = np.flatnonzero(row_width + widest_column > limit)
    wide_columns = np.flatnonzero(column_width + widest_row > limit)
    sub = uncertified(rows.take(wide_rows), columns.take(wide_columns))
    i, j = np.nonzero(sub)
    return wide_rows[i], wide_columns[j]


def all_certified(rows: ColumnBits, columns: ColumnBits) -> bool:
    """Whether every output is certified, from the widest row and column alone (an
    O(M + N) test that decides the common case)."""
    if rows.top.size == 0 or columns.top.size == 0:
        return True
    row_width = rows.top - rows.low
    column_width = columns.top - columns.low
    count = int(min(rows.count.max(initial=0), columns.count.max(initial=0)))
    if count <= 1:
        return True
    widest = int(row_width.max()) + int(column_width.max())
    return widest + 2 + int(_ceil_log2(np.array(count))) <= FLOAT64_BITS


def may_overflow(rows: ColumnBits, columns: ColumnBits, k: int) -> bool:
    """Whether some finite pass sum may reach the fp32 overflow threshold (``2**128``)."""
    if rows.top.size == 0 or columns.top.size == 0:
        return False
    bound = int(rows.top.max()) + int(columns.top.max()) + 2 + int(_ceil_log2(np.array(k)))
    return bound >= 128


# ----------------------------------------------------------------------------- exact path

LIMB_BITS = 26
_LIMB_MASK = (1 << LIMB_BITS) - 1


def exact_sums(lhs_rows: np.ndarray, rhs_columns: np.ndarray) -> np.ndarray:
    """``sum_k lhs_rows[n, k] * rhs_columns[n, k]`` for each n, exactly, rounded once to
    fp32 (round to nearest even; an exact zero is +0). The operands are fp32 values held
    in float64 whose products are finite (the caller routes non-finite outputs, which
    float64 gets right in any order, around this path)."""
    products = lhs_rows * rhs_columns  # exact: fp32 x fp32 fits float64
    return round_exact_sum(products)


def round_exact_sum(products: np.ndarray) -> np.ndarray:
    """The fp32 rounding of the exact row sums of ``products [n, K]`` (finite float64)."""
    n = products.shape[0]
    if n == 0:
        return np.zeros(0, dtype=_F32)
    mantissa, exponent = np.frexp(products)
    significand = np.ldexp(mantissa, FLOAT64_BITS).astype(np.int64)  # value = sig * 2**(e-53)
    nonzero = significand != 0
    if not nonzero.any():
        return np.zeros(n, dtype=_F32)
    lsb = exponent.astype(np.int64) - FLOAT64_BITS
    base = int(lsb[nonzero].min())
    offset = np.where(nonzero, lsb - base, 0)
    limbs_needed = int(offset.max()) + FLOAT64_BITS + products.shape[1].bit_length() + 1
    limb_count = limbs_needed // LIMB_BITS + 2
    limbs = _limb_sums(significand, offset, limb_count)
    negative = _normalize(limbs)
    return _round_limbs(limbs, negative, base)


def _limb_sums(significand: np.ndarray, offset: np.ndarray, limb_count: int) -> np.ndarray:
    """``[n, limb_count]`` int64: the signed pieces of every ``significand * 2**offset``
    summed per 26-bit limb. A 53-bit significand at shift ``r < 26`` covers three limbs;
    a limb's sum of at most K pieces below 2**26 stays below 2**53, so bincount's float64
    accumulation is exact."""
    n, k = significand.shape
    magnitude = np.abs(significand)
    sign = np.sign(significand)
    limb = offset // LIMB_BITS
    shift = offset % LIMB_BITS
    pieces = np.empty((3, n, k), dtype=np.int64)
    pieces[0] = (magnitude & ((1 << (LIMB_BITS - shift)) - 1)) << shift
    pieces[1] = (magnitude >> (LIMB_BITS - shift)) & _LIMB_MASK
    pieces[2] = magnitude >> (2 * LIMB_BITS - shift)
    pieces *= sign
    row = np.arange(n, dtype=np.int64)[:, None] * limb_count
    index = np.stack([row + limb, row + limb + 1, row + limb + 2])
    sums = np.bincount(
        index.ravel(), weights=pieces.ravel().astype(np.float64), minlength=n * limb_count
    )
    return sums.astype(np.int64).reshape(n, limb_count)


def _carry(limbs: np.ndarray) -> None:
    """Every limb but the top into ``[0, 2**26)``, carries moved up (the value kept)."""
    for t in range(limbs.shape[1] - 1):
        carry = limbs[:, t] >> LIMB_BITS  # floor division: the remainder is nonnegative
        limbs[:, t] -= carry << LIMB_BITS
        limbs[:, t + 1] += carry


def _normalize(limbs: np.ndarray) -> np.ndarray:
    """Limbs into magnitude form (all in ``[0, 2**26)``), in place; which rows were
    negative. After one carry pass only the top limb can be negative, and it then
    decides the sign."""
    _carry(limbs)
    negative = limbs[:, -1] < 0
    if negative.any():
        limbs[negative] = -limbs[negative]
        _carry(limbs)
    return negative


def _round_limbs(limbs: np.ndarray, negative: np.ndarray, base: int) -> np.ndarray:
    """fp32 of ``(-1)**negative * sum limbs[t] * 2**(26 t + base)``: the two highest
    nonzero limbs (27 to 52 bits: exact in float64) with the lowest bit set when any limb
    below them is nonzero (round to odd), then one round to nearest even to fp32."""
    n, limb_count = limbs.shape
    nonzero = limbs != 0
    any_nonzero = nonzero.any(axis=1)
    highest = limb_count - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    rows = np.arange(n)
    upper = limbs[rows, highest]
    lower = np.where(highest >= 1, limbs[rows, np.maximum(highest - 1, 0)], 0)
    below = np.logical_or.accumulate(nonzero, axis=1)
    sticky = (highest >= 2) & below[rows, np.maximum(highest - 2, 0)]
    window = (upper << LIMB_BITS) | lower | sticky.astype(np.int64)
    exponent = LIMB_BITS * (highest - 1) + base
    magnitude = np.ldexp(window.astype(np.float64), exponent)
    with np.errstate(over="ignore"):
        rounded = magnitude.astype(_F32)
    rounded[~any_nonzero] = 0.0
    return np.where(negative, -rounded, rounded)


CANONICAL_NAN_F32 = np.uint32(0x7FC0_0000)
"""The one NaN a PE pass or PSUM accumulation produces: positive, quiet, no payload (the
sign and payload of a generated NaN differ between CPUs, e.g. x86's negative default)."""


def canonicalize_nan(array: np.ndarray) -> None:
    """Every NaN of a float32 or float64 array replaced by the canonical quiet NaN."""
    nan = np.isnan(array)
    if nan.any():
        array[nan] = np.nan


def fix_uncertified(
    out: np.ndarray, lhs: np.ndarray, rhs: np.ndarray, rows: ColumnBits, columns: ColumnBits
) -> int:
    """Make ``out = lhs[..., M, K] @ rhs[..., K, N]`` (float64, computed by any BLAS)
    round to the exact sums' fp32 values everywhere. ``rows`` / ``columns``: (bounds of)
    the :class:`ColumnBits` of lhs's rows and rhs's columns. An output the bit
    certificate does not cover is kept when :func:`rounds_safely` proves its fp32
    rounding right anyway; the rest get the exactly rounded fp32 sum (held in float64).
    Returns how many outputs took the exact path."""
    index = uncertified_outputs(rows, columns)
    if index[0].size == 0:
        return 0
    if len(index) != out.ndim:  # the bits broadcast over batch dims of the outputs
        index = np.nonzero(np.broadcast_to(uncertified(rows, columns), out.shape))
    tops = (
        np.broadcast_to(rows.top[..., :, None], out.shape)[index]
        + np.broadcast_to(columns.top[..., None, :], out.shape)[index]
    )
    counts = np.minimum(
        np.broadcast_to(rows.count[..., :, None], out.shape)[index],
        np.broadcast_to(columns.count[..., None, :], out.shape)[index],
    )
    unsafe = ~rounds_safely(out[index], tops, counts)
    index = tuple(i[unsafe] for i in index)
    count = index[0].size
    EXACT_PATH.exact += count
    if count == 0:
        return 0
    if count * lhs.shape[-1] >= _PIECES_FROM:
        mask = _mask(index, out.shape)
        done = _piece_sums(out, lhs, rhs, mask)
        index = np.nonzero(mask & ~done)
        if index[0].size == 0:
            return count
    batch = out.shape[:-2]
    lhs_b = np.broadcast_to(lhs, (*batch, *lhs.shape[-2:]))
    rhs_t = np.swapaxes(np.broadcast_to(rhs, (*batch, *rhs.shape[-2:])), -1, -2)
    lhs_rows = lhs_b[index[:-1]]
    rhs_cols = rhs_t[(*index[:-2], index[-1])]
    out[index] = exact_sums(lhs_rows, rhs_cols)
    return count


def _mask(index: tuple[np.ndarray, ...], shape: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    mask[index] = True
    return mask


def rounds_safely(sums: np.ndarray, tops: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Whether a float64 sum ``sums`` of at most ``counts`` products, each below
    ``2**(tops + 2)`` in magnitude, rounds to the same fp32 value as the exact sum, in
    whatever order float64 added them. Any order of ``c - 1`` float64 additions is off
    by at most ``gamma(c - 1) * sum |p| < c**2 * 2**-52 * 2**(tops + 2)`` (the products
    are exact); when the float64 sum is further than twice that from every fp32 rounding
    boundary (the midpoints around its fp32 rounding, measured on the narrower side), the
    exact sum rounds the same way. Non-finite sums are right in any order (NaN and inf
    absorb; these products cannot overflow float64) and count as safe; a sum whose fp32
    rounding is 0 or inf, or whose error interval reaches 0, does not."""
    with np.errstate(over="ignore", invalid="ignore"):
        bound = np.ldexp(np.square(counts.astype(np.float64)), tops + 2 - 52)
        rounded = sums.astype(_F32)
        magnitude = np.abs(rounded)
        gap = (magnitude - np.nextafter(magnitude, _F32.type(0))).astype(np.float64)
        distance = np.abs(sums - rounded.astype(np.float64))
        safe = distance + 2 * bound < gap / 2
        safe &= np.abs(sums) > 2 * bound
    return safe | ~np.isfinite(sums)


_PIECES_FROM = 1 << 16
"""Products on the exact path from which the piecewise BLAS route is tried first."""

PIECE_BITS = 8
_PIECE_MASK = np.uint64(~((1 << (52 - (PIECE_BITS - 1))) - 1) & 0xFFFF_FFFF_FFFF_FFFF)


def split_pieces(values: np.ndarray) -> list[np.ndarray]:
    """fp32 values held in float64 as three pieces of at most 8 significant bits that
    add up to them exactly: each piece is what is left truncated to its leading 8 bits
    (a prefix of the significand, so the subtraction leaving the rest is exact)."""
    pieces = []
    rest = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        for _ in range(2):
            piece = (np.ascontiguousarray(rest).view(np.uint64) & _PIECE_MASK).view(np.float64)
            pieces.append(piece)
            rest = rest - piece
    pieces.append(rest)
    return pieces


def _piece_sums(out: np.ndarray, lhs: np.ndarray, rhs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Exact sums for the ``mask`` entries through BLAS: with both operands cut into
    8-bit pieces (:func:`split_pieces`), ``lhs @ rhs`` is the sum of the nine piece
    products, each of which float64 computes exactly where the certificate holds for it;
    the (at most nine) exact float64 terms are then added exactly by
    :func:`round_exact_sum`. Writes those entries of ``out``; returns where it did."""
    lhs_pieces = [p for p in split_pieces(lhs) if p.any()]
    rhs_pieces = [p for p in split_pieces(rhs) if p.any()]
    lhs_bits = [column_bits(np.swapaxes(p, -1, -2)) for p in lhs_pieces]
    rhs_bits = [column_bits(p) for p in rhs_pieces]
    failed = np.zeros(out.shape, dtype=bool)
    terms = []
    for piece, bits in zip(lhs_pieces, lhs_bits, strict=True):
        for other, other_bits in zip(rhs_pieces, rhs_bits, strict=True):
            terms.append(np.matmul(piece, other))
            if not all_certified(bits, other_bits):
                failed |= uncertified(bits, other_bits)
    if not terms:  # an all-zero operand: every sum is an exact +0 (certified already)
        return np.zeros(out.shape, dtype=bool)
    done = mask & ~failed
    index = np.nonzero(done)
    if index[0].size:
        out[index] = round_exact_sum(np.stack([t[index] for t in terms], axis=-1))
    return done

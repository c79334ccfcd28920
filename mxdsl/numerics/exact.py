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

import math
import threading
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TypeVar

import ml_dtypes
import numpy as np

_F32 = np.dtype(np.float32)

EMPTY_TOP = -(1 << 20)
"""``top`` of a column without a finite nonzero element (smaller than any exponent)."""
EMPTY_LOW = 1 << 20
"""``low`` of a column without a finite nonzero element (larger than any exponent)."""

FLOAT64_BITS = 53

NARROW = -(1 << 30)
"""The :attr:`ColumnBits.width` of a column that cannot make a sum inexact."""


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
    nonzero elements, and how many elements may be nonzero (``count``; an upper bound).
    The derived figures the certificate reads are computed once per operand.

    Bits of one pass (1-D figures) may hold all four per-column figures as the rows of one
    int64 array ``[4, F]`` (``top``, ``low``, ``count``, :attr:`width`; :meth:`packed`,
    its ``_packed`` entry): :meth:`concatenate` of such bits is then one concatenation,
    with their widths and log carried over instead of recomputed."""

    top: np.ndarray
    low: np.ndarray
    count: np.ndarray

    @staticmethod
    def concatenate(parts: list[ColumnBits]) -> ColumnBits:
        """The parts' columns side by side (each figure concatenated along the last axis;
        :attr:`width` and :attr:`log` those the parts have: the width of a column is its
        own, and ``ceil(log2)`` of the largest count is the largest part's)."""
        if len(parts) == 1:
            return parts[0]
        if all("_packed" in p.__dict__ for p in parts):
            block = np.concatenate([p.__dict__["_packed"] for p in parts], axis=1)
            return ColumnBits.packed(block, max(p.log for p in parts))
        return ColumnBits(
            np.concatenate([p.top for p in parts], axis=-1),
            np.concatenate([p.low for p in parts], axis=-1),
            np.concatenate([p.count for p in parts], axis=-1),
        )

    @staticmethod
    def known(
        top: np.ndarray, low: np.ndarray, count: np.ndarray, width: np.ndarray, log: int
    ) -> ColumnBits:
        """Bits whose :attr:`width` and :attr:`log` the caller has at hand already (they
        must be what the properties compute)."""
        return prefilled(ColumnBits, top=top, low=low, count=count, width=width, log=log)

    @staticmethod
    def packed(block: np.ndarray, log: int) -> ColumnBits:
        """The bits of one pass held as one int64 array ``[4, F]``: rows ``top``, ``low``,
        ``count`` and :attr:`width`, and ``log`` (``width`` and ``log`` must be what the
        properties compute from the other rows). The figures are views of ``block``,
        which must not change afterwards (its rows are taken by index: cheaper than
        unpacking the array, which iterates it)."""
        return prefilled(
            ColumnBits,
            top=block[0],
            low=block[1],
            count=block[2],
            width=block[3],
            log=log,
            _packed=block,
        )

    def take(self, columns: slice | np.ndarray) -> ColumnBits:
        return ColumnBits(self.top[..., columns], self.low[..., columns], self.count[..., columns])

    @cached_property
    def width(self) -> np.ndarray:
        """``top - low`` (the bits a column's elements span), or :data:`NARROW` for a
        column with at most one nonzero element: its products are one product per
        output, exact whatever the other side."""
        return np.where(self.count > 1, self.top - self.low, NARROW)

    @cached_property
    def log(self) -> int:
        """``ceil(log2(count))`` of the largest count: a bound for every column."""
        return ceil_log2(int(self.count.max(initial=0)))

    @cached_property
    def widest(self) -> int:
        return int(self.width.max(initial=NARROW))

    @cached_property
    def highest(self) -> int:
        """The largest ``top``."""
        return int(self.top.max(initial=EMPTY_TOP))


_T = TypeVar("_T")


def prefilled(cls: type[_T], **fields: object) -> _T:
    """An instance of the frozen dataclass ``cls`` with ``fields`` (its fields, and
    cached properties known already) stored directly: what its ``__init__`` and the
    ``cached_property`` getters would store, without their per-field calls (PE operands
    and their bits are made per tile). The caller passes every field."""
    instance = object.__new__(cls)
    instance.__dict__.update(fields)
    return instance


_QUICK_LAYOUT = {
    # dtype: (unsigned view, magnitude mask, mantissa bits, exponent bias, precision)
    np.dtype(np.float64): (np.uint64, 0x7FFF_FFFF_FFFF_FFFF, 52, 1023, 53),
    np.dtype(np.float32): (np.uint32, 0x7FFF_FFFF, 23, 127, 24),
    np.dtype(ml_dtypes.bfloat16): (np.uint16, 0x7FFF, 7, 127, 8),
    np.dtype(np.float16): (np.uint16, 0x7FFF, 10, 15, 11),
}


def quick_column_bits(tile: np.ndarray, precision: int | None = None) -> ColumnBits | None:
    """A cheap bound of :class:`ColumnBits` for a float64 / float32 / bfloat16 / float16
    tile ``[K, F]`` from its largest and smallest nonzero magnitude words: ``top`` from the
    largest's exponent field, ``low`` = the smallest's exponent minus ``precision - 1``
    (the significand's bits: the dtype's own precision unless the values are known to
    carry fewer, as MX-dequantized values do), ``count`` = K. A subnormal counts as the
    smallest normal exponent (right for the dtype's own precision, and for float64 holding
    fp32 values, which are never float64 subnormals). ``None`` for other dtypes.
    Infinities and NaNs are not excluded: their exponent field only widens the bound.

    The tile is read in three passes (mask, max, min; the few columns holding a +-0 among
    nonzeros once more, their zeros skipped) and the rest is done on ``[2, F]`` arrays:
    the figures are needed for every PE operand, so their cost is mostly the count of
    numpy calls. A tile without a +-0 (every column's smallest magnitude word nonzero:
    no column to re-read, none empty; weight and token tiles) takes the fewest. The bits
    come :meth:`~ColumnBits.packed` (``width`` and ``log`` known)."""
    layout = _QUICK_LAYOUT.get(tile.dtype)
    if layout is None:
        return None
    unsigned, magnitude_mask, mantissa_bits, bias, own_precision = layout
    precision = own_precision if precision is None else precision
    k, width = tile.shape
    if k == 0 or width == 0:
        return ColumnBits(
            np.full(width, EMPTY_TOP, np.int64),
            np.full(width, EMPTY_LOW, np.int64),
            np.zeros(width, np.int64),
        )
    magnitude = np.bitwise_and(
        tile.view(unsigned), unsigned(magnitude_mask), out=scratch(np.dtype(unsigned), tile.shape)
    )
    words = np.empty((2, width), dtype=unsigned)  # the largest and the smallest nonzero
    magnitude.max(axis=0, out=words[0])
    magnitude.min(axis=0, out=words[1])
    block = np.empty((4, width), np.int64)  # top, low, count, width
    top, low, count, spread = block
    some_zero = not words[1].all()  # else every column's smallest word is a nonzero's
    if some_zero:
        (zeros,) = np.nonzero((words[1] == 0) & (words[0] != 0))
        if zeros.size:  # columns holding a +-0 and a nonzero: their smallest nonzero word
            rest = magnitude[:, zeros]
            rest -= unsigned(1)  # zero wraps to the largest word: the min skips it
            words[1, zeros] = rest.min(axis=0) + unsigned(1)
    _exponents(words, mantissa_bits, _exponent_offsets(bias, precision), block)
    count.fill(k)
    if k == 1:
        spread.fill(NARROW)
    else:
        np.subtract(top, low, out=spread)
    empty = words[0] == 0 if some_zero else None
    if empty is None or not empty.any():
        return ColumnBits.packed(block, ceil_log2(k))
    top[empty] = EMPTY_TOP
    low[empty] = EMPTY_LOW
    count[empty] = 0
    spread[empty] = NARROW
    return ColumnBits.packed(block, 0 if empty.all() else ceil_log2(k))


def _exponents(words: np.ndarray, mantissa_bits: int, offsets: np.ndarray, block: np.ndarray):
    """``top`` and ``low`` into ``block[:2]`` from the (largest, smallest nonzero)
    magnitude words ``[2, F]``: their exponent fields (a subnormal's 0 counted as 1) less
    ``offsets`` (:func:`_exponent_offsets`)."""
    fields = words >> mantissa_bits
    np.maximum(fields, 1, out=fields)
    np.subtract(fields, offsets, out=block[:2], dtype=np.int64, casting="unsafe")  # < 2**11


_SCRATCH = threading.local()


def scratch(dtype: np.dtype, shape: tuple[int, ...], slot: int = 0) -> np.ndarray:
    """A per-thread scratch array of ``dtype`` and ``shape`` (its contents undefined),
    reused from call to call: a fresh temporary of a large tile costs its page faults
    every time (the SPMD interpreter runs cores in threads, hence one per thread). Each
    ``(dtype, slot)`` is one buffer: a caller holding one while it calls code that asks
    for the same pair gets the same memory, so work held across such calls takes its own
    ``slot``."""
    buffers: dict[tuple[np.dtype, int], np.ndarray] | None = getattr(_SCRATCH, "buffers", None)
    if buffers is None:
        buffers = _SCRATCH.buffers = {}
    size = math.prod(shape)  # np.prod of a tuple costs ~3 us, as much as the rest
    key = (dtype, slot)
    buffer = buffers.get(key)
    if buffer is None or buffer.size < size:
        buffer = buffers[key] = np.empty(size, dtype=dtype)
    return buffer[:size].reshape(shape)


@cache
def _exponent_offsets(bias: int, precision: int) -> np.ndarray:
    """What a ``[2, F]`` pair of (largest, smallest) exponent fields less gives (top,
    low)."""
    return np.array([[bias], [bias + precision - 1]], dtype=np.int64)


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


def ceil_log2(count: int) -> int:
    """``ceil(log2(count))`` for a positive count (0 for 0 and 1)."""
    return max(count - 1, 0).bit_length()


def uncertified(rows: ColumnBits, columns: ColumnBits) -> np.ndarray:
    """``[..., M, N]``: whether output ``(i, j)`` of ``lhs[..., M, K] @ rhs[..., K, N]``
    may not be exact in float64 (``rows``: the bits of lhs's rows, ``columns``: of rhs's
    columns); see the module docstring."""
    log = min(rows.log, columns.log)
    return rows.width[..., :, None] + columns.width[..., None, :] > FLOAT64_BITS - 2 - log


def uncertified_outputs(rows: ColumnBits, columns: ColumnBits) -> tuple[np.ndarray, ...]:
    """The indices of :func:`uncertified`'s True entries. For one pass (1-D bits) only
    the rows failing against the widest column and the columns failing against the
    widest row are compared, so a few wide rows or columns cost O(M + N) plus their own
    pairs (:func:`failing_pairs`)."""
    if rows.top.ndim != 1 or columns.top.ndim != 1:
        return np.nonzero(uncertified(rows, columns))
    limit = FLOAT64_BITS - 2 - min(rows.log, columns.log)
    return failing_pairs(rows.width, columns.width, limit, rows.widest, columns.widest)


_CROSS_AT_MOST = 4096
"""Up to this many (wide row, wide column) pairs are compared as one dense block."""


def failing_pairs(
    row_width: np.ndarray, column_width: np.ndarray, limit: int, row_widest: int, column_widest: int
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(i, j)`` with ``row_width[i] + column_width[j] > limit`` (``*_widest``:
    the arrays' maxima), in O(M + N log N) plus the count of pairs: only the rows failing
    against the widest column and the columns failing against the widest row can pair;
    when they are many, the columns are sorted by width, so each row's partners are the
    tail of that order from the first width above ``limit - row_width[i]``
    (``searchsorted``), and the pairs are enumerated from the tails' lengths."""
    # the array methods, not the np.* functions: these are called per pass batch on
    # small arrays, where the functions' dispatch layer is a fair part of the cost
    (wide_rows,) = (row_width > limit - column_widest).nonzero()
    (wide_columns,) = (column_width > limit - row_widest).nonzero()
    if wide_rows.size == 0 or wide_columns.size == 0:
        return wide_rows[:0], wide_columns[:0]
    if wide_rows.size * wide_columns.size <= _CROSS_AT_MOST:
        fails = np.add.outer(row_width[wide_rows], column_width[wide_columns]) > limit
        i, j = fails.nonzero()
        return wide_rows[i], wide_columns[j]
    widths = column_width[wide_columns]
    order = widths.argsort(kind="stable")
    first = widths[order].searchsorted(limit - row_width[wide_rows], side="right")
    counts = wide_columns.size - first  # row r's partners: order[first[r]:]
    ends = counts.cumsum()
    # pair p of row r (ends[r] - counts[r] <= p < ends[r]) is order[first[r] + p -
    # (ends[r] - counts[r])], and first + counts is wide_columns.size
    position = np.arange(int(ends[-1])) + (wide_columns.size - ends).repeat(counts)
    return wide_rows.repeat(counts), wide_columns[order[position]]


def all_certified(rows: ColumnBits, columns: ColumnBits) -> bool:
    """Whether every output is certified, from the widest row and column alone (an
    O(M + N) test, O(1) once the operands' figures are known, that decides the common
    case)."""
    return rows.widest + columns.widest + 2 + min(rows.log, columns.log) <= FLOAT64_BITS


def may_overflow(rows: ColumnBits, columns: ColumnBits, k: int) -> bool:
    """Whether some finite pass sum may reach the fp32 overflow threshold (``2**128``)."""
    if rows.top.size == 0 or columns.top.size == 0:
        return False
    return rows.highest + columns.highest + 2 + ceil_log2(k) >= 128


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
    with np.errstate(over="ignore"):
        return odd_exact_sum(products).astype(_F32)


def odd_exact_sum(products: np.ndarray) -> np.ndarray:
    """The exact row sums of ``products [n, K]`` (finite float64) as float64 rounded to
    odd with at least 27 significant bits (a nonzero sum with bits below the kept ones has
    its last kept bit set): rounding that once more to nearest even in any format of at
    most 25 significand bits (fp32, f16, bf16, fp8) is the correct rounding of the exact
    sum. An exact zero is +0."""
    n = products.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    mantissa, exponent = np.frexp(products)
    significand = np.ldexp(mantissa, FLOAT64_BITS).astype(np.int64)  # value = sig * 2**(e-53)
    nonzero = significand != 0
    if not nonzero.any():
        return np.zeros(n, dtype=np.float64)
    lsb = exponent.astype(np.int64) - FLOAT64_BITS
    base = int(lsb[nonzero].min())
    offset = np.where(nonzero, lsb - base, 0)
    limbs_needed = int(offset.max()) + FLOAT64_BITS + products.shape[1].bit_length() + 1
    limb_count = limbs_needed // LIMB_BITS + 2
    limbs = _limb_sums(significand, offset, limb_count)
    negative = _normalize(limbs)
    return _odd_limbs(limbs, negative, base)


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


def _odd_limbs(limbs: np.ndarray, negative: np.ndarray, base: int) -> np.ndarray:
    """float64 of ``(-1)**negative * sum limbs[t] * 2**(26 t + base)`` rounded to odd: the
    two highest nonzero limbs (27 to 52 bits: exact in float64) with the lowest bit set
    when any limb below them is nonzero. A zero sum is +0."""
    n, limb_count = limbs.shape
    nonzero = limbs != 0
    highest = limb_count - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    rows = np.arange(n)
    upper = limbs[rows, highest]
    lower = np.where(highest >= 1, limbs[rows, np.maximum(highest - 1, 0)], 0)
    below = np.logical_or.accumulate(nonzero, axis=1)
    sticky = (highest >= 2) & below[rows, np.maximum(highest - 2, 0)]
    window = (upper << LIMB_BITS) | lower | sticky.astype(np.int64)
    exponent = LIMB_BITS * (highest - 1) + base
    magnitude = np.ldexp(window.astype(np.float64), exponent)
    return np.where(negative, -magnitude, magnitude)


CANONICAL_NAN_F32 = np.uint32(0x7FC0_0000)
"""The one NaN a PE pass or PSUM accumulation produces: positive, quiet, no payload (the
sign and payload of a generated NaN differ between CPUs, e.g. x86's negative default)."""


def canonicalize_nan(array: np.ndarray) -> None:
    """Every NaN of a float32 or float64 array replaced by the canonical quiet NaN."""
    nan = np.isnan(array)
    if nan.any():
        array[nan] = np.nan


def fix_uncertified(
    out: np.ndarray,
    lhs: np.ndarray,
    rhs: np.ndarray,
    rows: ColumnBits,
    columns: ColumnBits,
    *,
    quiet: bool = False,
) -> int:
    """Make ``out = lhs[..., M, K] @ rhs[..., K, N]`` (float64, computed by any BLAS)
    round to the exact sums' fp32 values everywhere. ``rows`` / ``columns``: (bounds of)
    the :class:`ColumnBits` of lhs's rows and rhs's columns. Of the outputs the
    certificate does not cover, those whose fp32 rounding an error bound from the
    exponents alone proves right are kept (:func:`_doubtful`); the few others are settled
    from their products (:func:`_settle`). Returns how many outputs took the exact path.
    ``quiet``: the caller ignores overflow and invalid already (``np.errstate``, as
    :func:`~mxdsl.numerics.matmul.pe_passes_into` does), so none is entered here (that
    costs as much as a numpy call); it changes no bit, only which flags may be raised."""
    index = uncertified_outputs(rows, columns)
    if index[0].size == 0:
        return 0
    if len(index) != out.ndim:  # the bits broadcast over batch dims of the outputs
        index = np.nonzero(np.broadcast_to(uncertified(rows, columns), out.shape))
    log = min(rows.log, columns.log)
    index, sums = _doubtful(out, rows, columns, index, log, quiet)
    if index[0].size == 0:
        return 0
    if index[0].size * lhs.shape[-1] >= _PIECES_FROM:
        return _fix_by_pieces(out, lhs, rhs, index)
    return _settle(out, _pair_products(lhs, rhs, index, out.shape), index, log, sums)


def _doubtful(
    out: np.ndarray,
    rows: ColumnBits,
    columns: ColumnBits,
    index: tuple[np.ndarray, ...],
    log: int,
    quiet: bool = False,
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Those outputs at ``index`` whose fp32 rounding the error bound from the exponents
    alone does not settle (:func:`_exponent_doubt`), and their float64 sums (``quiet``:
    overflow and invalid are ignored by the caller already). When none is doubtful (the
    common case) the empty result is made without indexing ``index`` and ``sums``."""
    sums = out[index]
    tops = _pair_tops(rows, columns, index, out.shape)
    if quiet:
        doubt = _exponent_doubt(sums, tops, log)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            doubt = _exponent_doubt(sums, tops, log)
    if doubt.size == 0:
        return (doubt,) * len(index), sums[:0]
    return tuple(i[doubt] for i in index), sums[doubt]


def _exponent_doubt(sums: np.ndarray, tops: np.ndarray, log: int) -> np.ndarray:
    """The positions of the float64 sums ``sums`` (of pairs whose ``top_i + top_j`` is
    ``tops``) whose fp32 rounding the bound from the exponents alone does not settle.
    Any order of ``c - 1`` float64 additions of ``c`` products below
    ``2**(top_i + top_j + 2)`` is off by at most
    ``gamma(c - 1) * c * 2**(top_i + top_j + 2) < 2**(2 log + top_i + top_j + 2 - 52)``;
    as in :func:`rounds_safely`, a sum is settled when both ends of the interval twice
    that wide, ``sums -+ m`` with ``m = 2**(tops + 2 log + 3 - 52)``, round to the same
    fp32 bit pattern (NaN and inf sums are their own ends where the margin is finite:
    settled). The ends are formed in one add of ``[-m, m]`` (:func:`_margin_bits`);
    ``s + (-m)`` is ``s - m``.

    With finite margins (every ``top`` within -149 .. 128), only the fp32 cast of a
    finite end at or beyond ``2**128 - 2**103`` can raise a floating-point flag
    (overflow; inf - x, NaN + x and their casts raise none): callers that may meet such
    sums or larger ``top``s silence it."""
    ends = sums + ((tops << 52) + _margin_bits(log)).view(np.float64)
    bits = ends.astype(_F32).view(np.uint32)
    return (bits[0] != bits[1]).nonzero()[0]


@cache
def _margin_bits(log: int) -> np.ndarray:
    """``[[b - 2**63], [b]]`` (int64, shape ``[2, 1]``) with
    ``b = (2 log + 3 - 52 + 1023) << 52``: adding ``tops << 52`` gives the float64 bit
    patterns of ``-m`` and ``m``, ``m = 2**(tops + 2 log + 3 - 52)`` (:func:`_exponent_doubt`'s
    margins), as long as the biased exponent ``tops + 2 log + 3 - 52 + 1023`` is a normal
    one (1 .. 2046): then the pattern of ``m`` is below ``2**63`` and less ``2**63`` it
    is the same pattern with the sign bit set. It is for every finite sum: an infinite or
    NaN element makes every product with it, so the sum, infinite or NaN; so both
    operand vectors of a finite sum are finite fp32 values, whose ``top`` lie within
    -149 .. 127, putting the biased exponent within ``676 + 2 log .. 1228 + 2 log``
    (``log = ceil(log2 c)`` is far below 396). An infinite or NaN sum (whose ``top`` may
    be the all-ones exponent's, or more from a float64 tile) gives infinite or NaN ends
    whatever the pattern: kept, or settled by :func:`_settle`, which keeps it."""
    biased = (2 * log + 3 - 52 + 1023) << 52
    bits = np.array([[biased - (1 << 63)], [biased]], dtype=np.int64)
    bits.flags.writeable = False
    return bits


def _settle(
    out: np.ndarray,
    products: np.ndarray,
    index: tuple[np.ndarray, ...],
    log: int,
    sums: np.ndarray,
) -> int:
    """Settle the outputs at ``index`` (their float64 sums: ``sums``) from their
    ``products [n, K]``. Their float64 sums are off by at most ``gamma(c - 1) * sum |p|``;
    the float64 sum ``S`` of the ``|p|`` being within a factor ``1 + gamma(c - 1)`` of
    the exact one, ``bound = 2**(log - 52) * S`` bounds the error. Let ``grid`` be the
    power of two just above twice the bound: where every product is a multiple of the
    grid, so is the exact sum, and it is the float64 sum snapped to the grid (the nearest
    multiple is less than half a step away; dividing and multiplying by a power of two is
    exact; + 0.0 makes an exact zero +0). That settles the near-ties (bf16 products' sums
    often sit on an fp32 midpoint). The rest are kept where :func:`rounds_safely` holds
    with ``bound``, and take the exact path otherwise; non-finite sums are kept (NaN and
    inf absorb, and these products cannot overflow float64). Returns how many took the
    exact path.

    ``grid`` is ``2**(E + log - 50)``, ``2**E <= S < 2**(E + 1)``, formed by adding
    ``log - 50`` to the exponent field of ``S``'s bit pattern (its significand bits
    cleared): for ``S > 0`` that is the power of two above ``2 * bound``, since ``S`` (at
    least the smallest nonzero product, ``2**-298``, at most ``2**(256 + log)``) times
    ``2**(log - 52)`` is an exact, normal float64 and the field stays normal. Two other
    cases need no test of their own:

    * ``S = 0``: every product is a zero; the pattern is that of a finite negative
      number, and any finite nonzero grid snaps a zero sum to +0 (``(+-0 / g) * g`` is a
      zero, ``+ 0.0`` makes it +0).
    * a NaN or infinite sum: its products hold a NaN or an infinity (finite products
      cannot overflow float64), so ``S`` is NaN or inf, whose all-ones exponent field
      gives the finite ``grid = 2**(974 + log)``; snapping then leaves an infinite sum as
      it is and a NaN a NaN (NaN comes out canonical downstream). Where it does not snap
      the sum is kept, as any non-finite sum (NaN and inf absorb: right in any order).

    ``bound`` itself is formed only for the outputs the grid does not settle."""
    # np.add / np.logical_and .reduce are what ndarray.sum / .all call (the same loops,
    # the same pairwise sum), without their Python layer: this runs per pass batch
    magnitude = np.add.reduce(np.abs(products), axis=-1)
    grid = ((magnitude.view(np.int64) & _EXPONENT_FIELD) + ((log - 50) << 52)).view(np.float64)
    multiples = products / grid[:, None]
    snaps = np.logical_and.reduce(np.rint(multiples) == multiples, axis=-1)
    if np.logical_and.reduce(snaps):  # the common case: no subsets to take
        out[index] = np.rint(sums / grid) * grid + 0.0
        return 0
    out[tuple(i[snaps] for i in index)] = np.rint(sums[snaps] / grid[snaps]) * grid[snaps] + 0.0
    doubt = ~snaps & np.isfinite(sums)  # NaN and inf absorb: right in any order
    bound = np.ldexp(magnitude[doubt], log - 52)
    doubt[doubt] = ~rounds_safely(sums[doubt], bound)
    count = int(np.count_nonzero(doubt))
    EXACT_PATH.exact += count
    if count:
        out[tuple(i[doubt] for i in index)] = round_exact_sum(products[doubt])
    return count


_EXPONENT_FIELD = 0x7FF0_0000_0000_0000
"""A float64 bit pattern's exponent field."""


def _pair_tops(
    rows: ColumnBits, columns: ColumnBits, index: tuple[np.ndarray, ...], shape: tuple[int, ...]
) -> np.ndarray:
    """``top_i + top_j`` for the outputs at ``index``."""
    if rows.top.ndim == 1 and columns.top.ndim == 1 and len(index) == 2:
        return rows.top[index[0]] + columns.top[index[1]]
    return (
        np.broadcast_to(rows.top[..., :, None], shape)[index]
        + np.broadcast_to(columns.top[..., None, :], shape)[index]
    )


def _pair_products(
    lhs: np.ndarray, rhs: np.ndarray, index: tuple[np.ndarray, ...], shape: tuple[int, ...]
) -> np.ndarray:
    """``[n, K]``: the products of the outputs at ``index`` (exact in float64)."""
    if lhs.ndim == 2 and rhs.ndim == 2 and len(index) == 2:
        # gathered along the operands' rows (``take``'s copy is the faster one for the
        # kernel's transposed-view lhs and C-contiguous rhs), read through the transpose
        return (lhs.T.take(index[0], axis=1) * rhs.take(index[1], axis=1)).T
    batch = shape[:-2]
    lhs_b = np.broadcast_to(lhs, (*batch, *lhs.shape[-2:]))
    rhs_t = np.swapaxes(np.broadcast_to(rhs, (*batch, *rhs.shape[-2:])), -1, -2)
    return lhs_b[index[:-1]] * rhs_t[(*index[:-2], index[-1])]


def _fix_by_pieces(
    out: np.ndarray, lhs: np.ndarray, rhs: np.ndarray, index: tuple[np.ndarray, ...]
) -> int:
    """The exact path for many outputs: 8-bit pieces through BLAS where they certify,
    products one by one for the rest."""
    count = index[0].size
    EXACT_PATH.exact += count
    mask = _mask(index, out.shape)
    done = _piece_sums(out, lhs, rhs, mask)
    index = np.nonzero(mask & ~done)
    if index[0].size:
        out[index] = round_exact_sum(_pair_products(lhs, rhs, index, out.shape))
    return count


def _mask(index: tuple[np.ndarray, ...], shape: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    mask[index] = True
    return mask


def rounds_safely(sums: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Whether a float64 sum ``sums``, off the exact sum by at most ``bound``, rounds to
    the same fp32 value as the exact sum: rounding is monotone, so every value of
    ``[sums - bound, sums + bound]`` rounds alike when both ends do (as bit patterns: an
    interval around 0 does not, since the exact sum may be an exact zero, +0). The ends
    are taken at twice the bound, which covers their own float64 rounding (``bound`` is
    at least ``2**-53 * |sums|`` wherever this is used). Non-finite sums are right in any
    order (NaN and inf absorb; these products cannot overflow float64) and come out safe:
    their ends are the same NaN or infinity."""
    with np.errstate(over="ignore", invalid="ignore"):
        margin = 2 * bound
        below = (sums - margin).astype(_F32).view(np.uint32)
        above = (sums + margin).astype(_F32).view(np.uint32)
    return below == above


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

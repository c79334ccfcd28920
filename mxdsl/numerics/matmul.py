"""The one matmul semantics, shared by every level (``docs/numerics.md``, "The PE pass").

"One semantics at three levels" (design) needs the dot products of hlo ``dot_general`` /
``ScaledMatmul_*``, nisa ``nc_matmul`` / ``nc_matmul_mx`` and bir ``matmult`` /
``matmult_mx`` to round identically, for every input. So the semantics are defined here
without any summation order:

* one PE pass contracts at most one K tile — 128 partitions for ``nc_matmul``,
  128 partitions x 4 packed lanes = 512 elements for ``nc_matmul_mx`` — and is the
  *exact* sum of its products rounded once to fp32, round to nearest even
  (:func:`pe_pass`); an exact zero is +0, NaN is the canonical quiet NaN;
* PSUM accumulates the passes in K order, in fp32 (:func:`k_tiled_matmul`,
  :func:`psum_add`), the first pass of a chain overwriting.

Float64 BLAS computes each pass where :mod:`mxdsl.numerics.exact`'s certificate proves
the float64 sum exact in any order; the other outputs take its exact path. So no result
depends on the BLAS build, the CPU, the batching or the order of passes.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from mxdsl.numerics.exact import (
    EMPTY_TOP,
    EXACT_PATH,
    ColumnBits,
    all_certified,
    canonicalize_nan,
    ceil_log2,
    column_bits,
    fix_uncertified,
    may_overflow,
    prefilled,
    quick_column_bits,
    scratch,
)
from mxdsl.numerics.formats import MxFormat
from mxdsl.numerics.narrow import decode
from mxdsl.numerics.packing import unpack_fp4_x4, unpack_fp8_x4

MATMUL_K_TILE = 128
"""Contraction elements per ``nc_matmul`` pass: the 128 partitions."""

MX_MATMUL_K_TILE = 128 * 4
"""Contraction elements per ``nc_matmul_mx`` pass: 128 partitions x 4 packed lanes."""


_IEEE_SPECIALS = np.errstate(invalid="ignore", over="ignore")
"""0 * inf = NaN and fp32 overflow to inf are the modelled results, not warnings."""


@_IEEE_SPECIALS
def pe_pass(lhs: npt.ArrayLike, rhs: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """One PE-array pass ``lhs[..., M, K] @ rhs[..., K, N]``: the exact sum of the K
    products rounded once to fp32 (``docs/numerics.md``, "The PE pass"). The operands are
    fp32 values (any dtype that widens to them). Float64 BLAS computes the outputs the
    certificate vouches for, the exact path the rest (:mod:`mxdsl.numerics.exact`); NaN
    comes out canonical."""
    lhs64 = np.asarray(lhs, dtype=np.float64)
    rhs64 = np.asarray(rhs, dtype=np.float64)
    out = np.matmul(lhs64, rhs64)
    EXACT_PATH.outputs += out.size
    rows = column_bits(np.swapaxes(lhs64, -1, -2))
    columns = column_bits(rhs64)
    fix_uncertified(out, lhs64, rhs64, rows, columns, quiet=True)  # under _IEEE_SPECIALS
    result = out.astype(np.float32)
    canonicalize_nan(result)
    return result


_MAGNITUDE_BITS = {
    np.dtype(np.float64): (np.dtype(np.uint64), 0x7FFF_FFFF_FFFF_FFFF),
    np.dtype(np.float32): (np.dtype(np.uint32), 0x7FFF_FFFF),
    np.dtype(ml_dtypes.bfloat16): (np.dtype(np.uint16), 0x7FFF),
    np.dtype(np.float16): (np.dtype(np.uint16), 0x7FFF),
}
"""Unsigned view and magnitude mask (all bits but the sign) of the common float dtypes."""


def nonzero_columns(tile: np.ndarray) -> np.ndarray:
    """Which columns of a 2-D matmul operand ``[K, F]`` hold an element other than +-0
    (NaN counts as nonzero): ``tile.astype(float64).any(axis=0)`` (see
    :func:`column_split`)."""
    columns, _ = column_split(tile)
    mask = np.zeros(tile.shape[1], dtype=bool)
    mask[columns] = True
    return mask


def column_split(tile: np.ndarray) -> tuple[slice | np.ndarray, slice | np.ndarray]:
    """The columns of a 2-D matmul operand ``[K, F]`` that hold an element other than
    +-0 (NaN counts), and the all-zero others, each a slice where contiguous at either
    end, else indices. For f64 / f32 / bf16 / f16 from an OR of the bit patterns
    (cheaper than a float reduction): row 0 decides the columns it has a nonzero in (all
    of them in a weight tile or a tile of real tokens); only the others are read
    further, at once when they follow row 0's nonzeros (padding tokens at the end)."""
    bits = _MAGNITUDE_BITS.get(tile.dtype)
    if bits is None or tile.shape[0] == 0:
        return _split(np.asarray(tile.astype(np.float64).any(axis=0)))
    width = tile.shape[1]
    word, magnitude = bits
    words = tile.view(word)
    nonzero = (words[0] & magnitude) != 0
    leading = int(np.count_nonzero(nonzero))
    if leading == width:
        return slice(0, width), slice(0, 0)
    if tile.shape[0] == 1:
        return _split(nonzero)
    if nonzero[:leading].all():  # row 0's nonzeros first: are the other columns zero?
        rest = np.bitwise_or.reduce(words[1:, leading:], axis=0) & magnitude
        if not rest.any():
            return slice(0, leading), slice(leading, width)
        nonzero[leading:] = rest != 0
        return _split(nonzero)
    undecided = _selection(~nonzero)
    nonzero[undecided] = (np.bitwise_or.reduce(words[1:, undecided], axis=0) & magnitude) != 0
    return _split(nonzero)


def _split(mask: np.ndarray) -> tuple[slice | np.ndarray, slice | np.ndarray]:
    columns = _selection(mask)
    if _count(columns) == mask.size:
        return columns, slice(0, 0)
    return columns, _selection(~mask)


_BF16 = np.dtype(ml_dtypes.bfloat16)

_BUFFER_DTYPES = (np.dtype(np.float32), _BF16, np.dtype(np.float16))
"""The dtypes :class:`BufferOperands` analyses whole (the SBUF tiles of ``nc_matmul``)."""


@_IEEE_SPECIALS
def to_float64(array: np.ndarray) -> np.ndarray:
    """``array.astype(float64)`` as a new array, bit for bit (NaN payloads included; a
    signalling NaN comes out quiet, as from any float cast, without a warning). A
    bfloat16 array goes through its bits: a bf16 word shifted left by 16 is the float32
    word of the same value, and float32 widens exactly. That is about 30 % faster than
    ml_dtypes' cast, and every PE pass widens its operands."""
    if array.dtype != _BF16:
        return array.astype(np.float64)
    return bf16_to_f32(array).astype(np.float64)


def bf16_to_f32(values: np.ndarray) -> np.ndarray:
    """``values.astype(float32)`` for a bfloat16 array, through the bits: a bf16 word
    shifted left by 16 is the float32 word of the same value (NaN payloads too; checked
    against ml_dtypes over all 2^16 words), about 3x faster than ml_dtypes' cast."""
    words = values.view(np.uint16).astype(np.uint32)
    words <<= 16
    return words.view(np.float32)


def _widen(array: np.ndarray) -> np.ndarray:
    return array if array.dtype == np.float64 else to_float64(array)


_SPECIAL_TOP = {
    np.dtype(np.float64): 1024,
    np.dtype(np.float32): 128,
    np.dtype(ml_dtypes.bfloat16): 128,
    np.dtype(np.float16): 16,
}
"""The :func:`~mxdsl.numerics.exact.quick_column_bits` ``top`` of an infinity or NaN of
each dtype (its exponent field all ones, less the bias): every finite value's is lower,
so a column holds an infinity or NaN iff its quick ``top`` reaches this."""


_EXPONENT_MASK = {
    np.dtype(np.float64): 0x7FF0_0000_0000_0000,
    np.dtype(np.float32): 0x7F80_0000,
    np.dtype(ml_dtypes.bfloat16): 0x7F80,
    np.dtype(np.float16): 0x7C00,
}
"""The exponent field of each :data:`_SPECIAL_TOP` dtype: all ones in an infinity or NaN
only."""


def _finite_words(tile: np.ndarray) -> bool:
    """Whether no element of a float64 / float32 / bfloat16 / float16 ``tile`` is an
    infinity or NaN: the largest of its exponent fields (each word masked to them) is
    below all ones. One masking pass and one reduction, where the quick bounds take
    three passes and a dozen calls."""
    if tile.size == 0:
        return True
    word = _MAGNITUDE_BITS[tile.dtype][0]
    mask = _EXPONENT_MASK[tile.dtype]
    fields = np.bitwise_and(tile.view(word), word.type(mask), out=scratch(word, tile.shape))
    return int(fields.max()) < mask


@dataclass(frozen=True)
class PeOperand:
    """A PE-pass operand ``tile[K, F]`` analysed once (it may feed several passes): its
    all-zero columns found; the other columns are widened to float64 when a pass first
    multiplies them (a pass with nothing to multiply needs no widening). ``precision``:
    the significand bits its values carry at most (default: the tile dtype's; an
    MX-dequantized tile held in float64 carries its element format's)."""

    tile: np.ndarray
    widen: Callable[[np.ndarray], np.ndarray]
    columns: slice | np.ndarray  # the columns holding a nonzero (NaN counts)
    zero_columns: slice | np.ndarray  # the others
    precision: int | None = None

    @property
    def dense(self) -> bool:
        return _count(self.zero_columns) == 0

    @cached_property
    def widened(self) -> np.ndarray:
        """The nonzero columns widened to float64, ``[K, len(columns)]``."""
        return self.widen(self.tile[:, self.columns])

    @cached_property
    def finite(self) -> bool:
        """Whether no element is an infinity or NaN (zero columns hold none): from the
        largest exponent field of the quick bounds when they are known (a pass reads
        them), else from one read of the tile's exponent fields (:func:`_finite_words`:
        all a pass with nothing to multiply needs)."""
        special = _SPECIAL_TOP.get(self.tile.dtype)
        if special is None:
            return bool(np.isfinite(self.widened).all())
        quick = self.__dict__.get("quick_bits")
        if quick is not None:
            return quick.highest < special
        return _finite_words(self.tile)

    @cached_property
    def quick_bits(self) -> ColumnBits:
        """A cheap bound of the nonzero columns' :class:`~mxdsl.numerics.exact.ColumnBits`
        (from the narrow tile where it can be), for the O(M + N) certificate."""
        quick = quick_column_bits(self.tile[:, self.columns], self.precision)
        return quick if quick is not None else self.exact_bits

    @cached_property
    def exact_bits(self) -> ColumnBits:
        """The nonzero columns' exact :class:`~mxdsl.numerics.exact.ColumnBits`."""
        return column_bits(self.widened)


def pe_operand(
    tile: np.ndarray,
    widen: Callable[[np.ndarray], np.ndarray] = _widen,
    precision: int | None = None,
) -> PeOperand:
    """``tile`` ready for :func:`pe_pass_into`; ``widen`` converts a column slice of it
    to float64 exactly (default ``astype``); ``precision`` as in :class:`PeOperand`."""
    columns, zero_columns = column_split(tile)
    return PeOperand(tile, widen, columns, zero_columns, precision)


class BufferOperands:
    """PE operands cut from one buffer (``docs/numerics.md``, "The PE pass and PSUM"):
    for a C-contiguous ``root`` ``[P, ...]`` of a bfloat16 / float32 / float16 dtype,
    seen as ``[P, F]``, :meth:`operand` gives a 2-D view of it that spans all ``P`` rows
    (a tile of partitions x free elements) the same :class:`PeOperand` as
    :func:`pe_operand`, bit for bit, and the same object again for the same columns
    (its widening done once). The columns' nonzero and finite flags and
    :func:`~mxdsl.numerics.exact.quick_column_bits` (each column's own: they do not
    depend on which columns are read together) come from reading the buffer in chunks
    of :data:`ANALYSIS_CHUNK` columns, each chunk once, when a tile first reads one of
    its columns: a tile is never analysed twice, and a buffer read in part is analysed
    little beyond the part. A chunk whose columns are all nonzero and finite (every chunk
    of a weight or token buffer) is marked plain when read: a tile within plain chunks
    gets its operand without any reduction (a kernel asks for ~20 k tiles a run). Valid
    while the buffer is unchanged: the caller drops it on a write."""

    __slots__ = (
        "_address",
        "_analysed",
        "_bits",
        "_log",
        "_plain",
        "flat",
        "operands",
        "root",
        "widen",
    )

    def __init__(self, root: np.ndarray, widen: Callable[[np.ndarray], np.ndarray]) -> None:
        self.root = root
        self.flat = root.reshape(root.shape[0], -1)
        self.widen = widen
        self.operands: dict[tuple[int, int, int], PeOperand] = {}
        width = self.flat.shape[1]
        # per column: top, low, count and the certificate's width (ColumnBits.width)
        self._bits = np.empty((4, width), dtype=np.int64)
        chunks = -(-width // ANALYSIS_CHUNK)
        self._analysed = bytearray(chunks)  # 1: chunk read
        self._plain = bytearray(chunks)  # 1: every column of the chunk nonzero and finite
        self._log = ceil_log2(self.flat.shape[0])  # ColumnBits.log of a nonzero column
        self._address = self.flat.__array_interface__["data"][0]

    @staticmethod
    def supports(root: np.ndarray) -> bool:
        """Whether ``root`` can be analysed as a whole: C-contiguous, at least 2-D, of a
        16- or 32-bit float dtype (one with a quick bound)."""
        return root.ndim >= 2 and root.flags.c_contiguous and root.dtype in _BUFFER_DTYPES

    def columns_of(self, tile: np.ndarray) -> slice | None:
        """The ``[P, F]`` columns a 2-D view ``tile`` of the buffer reads, when it spans
        all ``P`` rows with the buffer's row stride; else ``None``."""
        flat = self.flat
        if tile.ndim != 2 or tile.dtype != flat.dtype or tile.shape[0] != flat.shape[0]:
            return None
        if tile.strides[0] != flat.strides[0] and tile.shape[0] > 1:
            return None
        itemsize = flat.itemsize
        offset = tile.__array_interface__["data"][0] - self._address
        step = tile.strides[1] if tile.shape[1] > 1 else itemsize
        if offset < 0 or offset % itemsize or step <= 0 or step % itemsize:
            return None
        start, step = offset // itemsize, step // itemsize
        stop = start + (tile.shape[1] - 1) * step + 1
        if stop > flat.shape[1]:
            return None
        return slice(start, stop, step)

    def operand(self, tile: np.ndarray, columns: slice) -> PeOperand:
        """The :class:`PeOperand` of ``tile`` (its buffer columns ``columns``, from
        :meth:`columns_of`). Its quick bits are :meth:`~ColumnBits.packed`: a view of the
        buffer's figures for a tile within plain chunks (they stay as they are while the
        buffer is unchanged), a gather of its nonzero columns' otherwise."""
        key = (columns.start, columns.stop, columns.step)
        known = self.operands.get(key)
        if known is not None:
            return known
        first, last = columns.start // ANALYSIS_CHUNK, (columns.stop - 1) // ANALYSIS_CHUNK + 1
        if 0 in self._analysed[first:last]:
            self._analyse(columns.start, columns.stop)
        block = self._bits[:, columns]  # top, low, count, width
        if 0 not in self._plain[first:last]:  # the common case, no reduction: dense, finite
            operand = self.operands[key] = prefilled(
                PeOperand,
                tile=tile,
                widen=self.widen,
                columns=slice(0, block.shape[1]),
                zero_columns=slice(0, 0),
                precision=None,
                finite=True,
                quick_bits=ColumnBits.packed(block, self._log),
            )
            return operand
        top = block[0]
        nonzero, zero = _split(top != EMPTY_TOP)  # a column of +-0 only has no top
        kept = block[:, nonzero]
        operand = self.operands[key] = prefilled(
            PeOperand,
            tile=tile,
            widen=self.widen,
            columns=nonzero,
            zero_columns=zero,
            precision=None,
            finite=bool((top < _SPECIAL_TOP[self.flat.dtype]).all()),
            quick_bits=ColumnBits.packed(kept, self._log if kept.shape[1] else 0),
        )
        return operand

    def _analyse(self, start: int, stop: int) -> None:
        """Read the chunks of columns ``[start, stop)`` not read yet (as one run each
        where they are adjacent): their largest and smallest magnitude words."""
        first, last = start // ANALYSIS_CHUNK, (stop - 1) // ANALYSIS_CHUNK + 1
        analysed = self._analysed
        if 0 not in analysed[first:last]:
            return
        for begin, end in _unset_runs(analysed, first, last):
            analysed[begin:end] = b"\x01" * (end - begin)
            self._read(begin * ANALYSIS_CHUNK, min(end * ANALYSIS_CHUNK, self.flat.shape[1]))

    def _read(self, begin: int, end: int) -> None:
        """Columns ``[begin, end)``, whole chunks (the last one may be short): their
        bits, and which of the chunks are plain (every column nonzero and finite)."""
        bits = quick_column_bits(self.flat[:, begin:end])
        assert bits is not None  # a _BUFFER_DTYPES buffer has quick bounds
        packed = bits.__dict__.get("_packed")
        if packed is not None:
            self._bits[:, begin:end] = packed
        else:
            self._bits[:, begin:end] = bits.top, bits.low, bits.count, bits.width
        special = _SPECIAL_TOP[self.flat.dtype]
        for start in range(begin, end, ANALYSIS_CHUNK):
            top = self._bits[0, start : min(start + ANALYSIS_CHUNK, end)]
            plain = int(top.min()) != EMPTY_TOP and int(top.max()) < special
            self._plain[start // ANALYSIS_CHUNK] = plain


def _unset_runs(flags: bytearray, first: int, last: int) -> list[tuple[int, int]]:
    """The maximal runs ``[begin, end)`` of zero bytes of ``flags[first:last]``."""
    runs: list[tuple[int, int]] = []
    for index in range(first, last):
        if flags[index]:
            continue
        if runs and runs[-1][1] == index:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


ANALYSIS_CHUNK = 2048
"""Columns :class:`BufferOperands` reads at a time (with 128 partitions, 256 Ki
elements: few numpy calls per element, a bounded read past a tile)."""


@dataclass(frozen=True)
class PePass:
    """One pass of a :func:`pe_passes_into` batch: ``dst (=|+=) stationary^T @ moving``
    into the f32 PSUM tile ``dst``."""

    dst: np.ndarray
    stationary: PeOperand
    accumulate: bool


def pe_pass_into(
    dst: np.ndarray, stationary: PeOperand, moving: PeOperand, accumulate: bool
) -> None:
    """``dst[M, N] = stationary[K, M]^T @ moving[K, N]`` (``+=`` when ``accumulate``),
    the product being one :func:`pe_pass`, bit for bit, added in fp32 into the f32 PSUM
    tile ``dst`` in place (:func:`pe_passes_into` with one pass)."""
    pe_passes_into(moving, (PePass(dst, stationary, accumulate),))


@_IEEE_SPECIALS
def pe_passes_into(moving: PeOperand, passes: Sequence[PePass]) -> None:
    """The passes in order, each ``pass.dst (=|+=) pass.stationary^T @ moving`` as one
    :func:`pe_pass` (the exact sum rounded once to fp32) written (or added in fp32) into
    its f32 PSUM tile in place. Their products come from one float64 matmul with the
    stationaries stacked along M (a larger BLAS call runs closer to peak); the outputs the
    certificate cannot vouch for are recomputed exactly (:mod:`mxdsl.numerics.exact`), so
    no bit depends on the batching or on BLAS.

    The work of all-zero stationary / moving columns (padding tokens: about half the PE
    work of a block-layout MoE kernel) is skipped: such an output is an exact zero, +0.
    That holds only while the operand on the other side is finite (0 * inf is NaN), so a
    non-finite element there makes the passes run without skipping.

    The batch's products are rounded to fp32 in one cast before they are written: the
    PSUM add of a pass is then an fp32 add of fp32 values, the same bits as the ufunc's
    per-element cast and add (:func:`_write`), without its buffered casting loop."""
    if not passes:
        return
    EXACT_PATH.outputs += sum(p.dst.size for p in passes)
    stationaries = [p.stationary for p in passes]
    columns = slice(0, moving.tile.shape[1])
    if _count(moving.columns) == 0 or all(_count(s.columns) == 0 for s in stationaries):
        # nothing to multiply (e.g. a block of padding tokens): all +0 where the skip is
        # exact, which needs finiteness only (no bounds: _row_bits is not read)
        if not _skip_is_exact(moving, stationaries):
            _unskipped_passes_into(moving, passes)
            return
        for p in passes:
            _write(p.dst, slice(0, p.dst.shape[0]), columns, 0.0, p.accumulate)
        return
    rows, stacked = _row_bits(stationaries)  # every stationary's bounds (so finiteness) known
    if not _skip_is_exact(moving, stationaries):  # every column multiplied
        _unskipped_passes_into(moving, passes)
        return
    lhs = _lhs(stationaries, stacked)
    products = _products(moving, lhs)
    if not all_certified(rows, moving.quick_bits):
        moving_products = products[:, moving.columns]
        fix_uncertified(
            moving_products, lhs.T, moving.widened, rows, moving.quick_bits, quiet=True
        )  # pe_passes_into runs under _IEEE_SPECIALS
        if not isinstance(moving.columns, slice):  # advanced indexing made a copy
            products[:, moving.columns] = moving_products
    nonfinite = not (moving.finite and all(s.finite for s in stationaries))  # from the bits
    if nonfinite:
        canonicalize_nan(products)
    # a pass that may be non-finite (an operand is, or the sums may overflow) is added
    # by psum_add's rule; the others are finite, and NaN + finite keeps the NaN
    special = nonfinite or may_overflow(rows, moving.quick_bits, moving.tile.shape[0])
    rounded = products.astype(np.float32)  # each pass's rounding to fp32, in one cast
    offset = 0
    for p in passes:
        count = _count(p.stationary.columns)
        block = rounded[offset : offset + count]
        offset += count
        if special and p.accumulate:
            whole = np.zeros(p.dst.shape, np.float32)
            whole[p.stationary.columns] = block
            psum_add(p.dst, whole)
            continue
        _write(p.dst, p.stationary.columns, columns, block, p.accumulate)
        _write(p.dst, p.stationary.zero_columns, columns, 0.0, p.accumulate)


def _lhs(stationaries: Sequence[PeOperand], stacked: np.ndarray | None) -> np.ndarray:
    """The stationaries' nonzero columns side by side in float64, ``[K, sum M]``: from
    their stack in their own 16-bit or float64 dtype (``stacked``, read already for their
    bounds, or made here when none of them is widened yet) widened at once, so no float64
    copy of each is made; else their own widenings side by side. A batch met again
    (:class:`_Batch`, which :func:`_row_bits` just found or made for these stationaries)
    keeps it, read-only, for its next passes: the same stationaries against the next
    moving tile (a down projection's token tiles against each H chunk's weights) are
    not stacked and widened again."""
    first = stationaries[0]
    if len(stationaries) == 1:
        return first.widened
    batch = first.__dict__.get("_batch")
    if batch is not None and batch.lhs is not None and batch.holds(stationaries):
        return batch.lhs
    if stacked is None and not any("widened" in s.__dict__ for s in stationaries):
        stacked = _same_kind_stack(stationaries)
    if stacked is not None and all(s.widen is first.widen for s in stationaries):
        lhs = first.widen(stacked)
    else:
        lhs = np.concatenate([s.widened for s in stationaries], axis=1)
    if batch is not None and batch.repeated and batch.holds(stationaries):
        lhs.flags.writeable = False  # shared by the batch's passes: nothing may write it
        batch.lhs = lhs
    return lhs


class _Batch:
    """What the first stationary of a batch keeps for the next batch of the same
    stationaries (the same operand objects in the same order; weak references to the
    others, so no cycle keeps their float64 copies alive): the quick bits of their
    nonzero columns side by side, and from the batch's second use on (``repeated``) the
    float64 stack :func:`_lhs` makes (a batch used once keeps no float64 copy)."""

    __slots__ = ("bits", "lhs", "others", "repeated")

    def __init__(self, stationaries: Sequence[PeOperand], bits: ColumnBits) -> None:
        self.others = tuple(weakref.ref(s) for s in stationaries[1:])
        self.bits = bits
        self.lhs: np.ndarray | None = None
        self.repeated = False

    def holds(self, stationaries: Sequence[PeOperand]) -> bool:
        """Whether ``stationaries`` (whose first keeps this) are the batch's."""
        others = self.others
        return len(others) == len(stationaries) - 1 and all(
            r() is s for r, s in zip(others, stationaries[1:], strict=True)
        )


def _row_bits(stationaries: Sequence[PeOperand]) -> tuple[ColumnBits, np.ndarray | None]:
    """The quick bits of the stationaries' nonzero columns side by side, and the stack of
    those columns in their own dtype when this call read them that way (else ``None``).
    Their cost is mostly the count of numpy calls, so a batch of 16-bit or float64
    (MX) tiles not analysed yet is read as one stack: one :func:`quick_column_bits`
    instead of one per stationary, each stationary getting its own columns' part. The
    bits are kept: the first stationary holds them (a :class:`_Batch`) for the next
    batch of the same stationaries (a kernel that runs the same stationary tiles against
    several moving tiles, as the down projections do once per H chunk)."""
    first, others = stationaries[0], stationaries[1:]
    known = first.__dict__.get("_batch")
    if known is not None and known.holds(stationaries):
        known.repeated = True
        return known.bits, None
    stacked = _stacked_narrow(stationaries)
    bits = None if stacked is None else quick_column_bits(stacked, first.precision)
    if bits is None:
        bits = ColumnBits.concatenate([s.quick_bits for s in stationaries])
    else:
        offset = 0
        for s in stationaries:
            count = _count(s.columns)
            s.__dict__.setdefault("quick_bits", bits.take(slice(offset, offset + count)))
            offset += count
    if others:
        first.__dict__["_batch"] = _Batch(stationaries, bits)
    return bits, stacked


def _stacked_narrow(stationaries: Sequence[PeOperand]) -> np.ndarray | None:
    """The stationaries' nonzero columns side by side in their own dtype, for
    :func:`_row_bits`; ``None`` where reading them one by one is as cheap or they cannot
    be read together (one stationary, all analysed already, mixed dtypes or precisions,
    32-bit tiles)."""
    if len(stationaries) == 1 or all("quick_bits" in s.__dict__ for s in stationaries):
        return None
    return _same_kind_stack(stationaries)


def _same_kind_stack(stationaries: Sequence[PeOperand]) -> np.ndarray | None:
    """The stationaries' nonzero columns side by side in their own dtype when they share
    a 16-bit or float64 dtype and a precision, else ``None``."""
    first = stationaries[0]
    if any(
        s.tile.dtype != first.tile.dtype or s.precision != first.precision for s in stationaries
    ):
        return None
    if first.tile.dtype != np.float64 and first.tile.dtype.itemsize > 2:
        return None
    return np.concatenate([s.tile[:, s.columns] for s in stationaries], axis=1)


def _unskipped_passes_into(moving: PeOperand, passes: Sequence[PePass]) -> None:
    """:func:`pe_passes_into` for operands with infinities or NaNs: every column
    multiplied, one exact pass each, NaN canonical in the pass, added by
    :func:`psum_add`'s rule."""
    whole = moving.widen(moving.tile)
    moving_bits = column_bits(whole)
    for p in passes:
        stationary = p.stationary.widen(p.stationary.tile)
        product = np.matmul(stationary.T, whole)
        fix_uncertified(  # called by pe_passes_into: under _IEEE_SPECIALS
            product, stationary.T, whole, column_bits(stationary), moving_bits, quiet=True
        )
        result = product.astype(np.float32)
        canonicalize_nan(result)
        if p.accumulate:
            psum_add(p.dst, result)
        else:
            p.dst[...] = result


def _skip_is_exact(moving: PeOperand, stationaries: Sequence[PeOperand]) -> bool:
    """Whether the skipped products are all 0 * finite: when the moving operand has
    all-zero columns every stationary is finite, when a stationary has some the moving
    operand is (only nonzero columns can hold an infinity or NaN). The moving operand's
    finiteness comes from its quick bounds when the passes multiply something (they read
    them anyway), else from its own cheaper read (:attr:`PeOperand.finite`); so does each
    stationary's (:func:`pe_passes_into` reads their bounds first only when the batch
    multiplies something)."""
    if not moving.dense and not all(s.finite for s in stationaries):
        return False
    if all(s.dense for s in stationaries):
        return True
    if _count(moving.columns) and any(_count(s.columns) for s in stationaries):
        moving.quick_bits  # noqa: B018  # read for the certificate anyway: finite from it
    return moving.finite


def _products(moving: PeOperand, lhs: np.ndarray) -> np.ndarray:
    """``lhs^T @ moving`` in float64, full width ``[sum M, N]``: the moving operand's
    all-zero columns are +0 (the product of its nonzero columns is written straight into
    its place)."""
    if moving.dense:
        return np.matmul(lhs.T, moving.widened)
    products = np.empty((lhs.shape[1], moving.tile.shape[1]))
    products[:, moving.zero_columns] = 0.0
    if isinstance(moving.columns, slice):  # BLAS writes the column block in place
        np.matmul(lhs.T, moving.widened, out=products[:, moving.columns])
    else:
        products[:, moving.columns] = np.matmul(lhs.T, moving.widened)
    return products


def _write(
    dst: np.ndarray,
    rows: slice | np.ndarray,
    cols: slice | np.ndarray,
    value: Any,
    accumulate: bool,
) -> None:
    """``dst[rows x cols] = value`` rounded to fp32, or ``+=`` it rounded to fp32 (the
    ufunc casts each element to fp32 before the fp32 add); nothing for an empty block."""
    if isinstance(rows, slice) and isinstance(cols, slice):
        if rows.start == rows.stop or cols.start == cols.stop:
            return
        region = dst[rows, cols]  # a view: written in place
        if accumulate:
            np.add(region, value, out=region, dtype=np.float32, casting="unsafe")
        else:
            region[...] = value
        return
    index = (
        (rows, cols) if isinstance(rows, slice) or isinstance(cols, slice) else np.ix_(rows, cols)
    )
    if accumulate:
        dst[index] += np.asarray(value).astype(np.float32, copy=False)
    else:
        dst[index] = value


def _count(selection: slice | np.ndarray) -> int:
    if isinstance(selection, slice):
        return selection.stop - selection.start
    return selection.size


def _selection(mask: np.ndarray) -> slice | np.ndarray:
    """The True positions of ``mask``: a slice when they are contiguous at either end,
    else their indices."""
    size = mask.size
    count = int(np.count_nonzero(mask))
    if count == size or count == 0:
        return slice(0, count)
    if mask[count - 1] and mask[:count].all():
        return slice(0, count)
    if mask[size - count] and mask[size - count :].all():
        return slice(size - count, size)
    return np.flatnonzero(mask)


def k_tiled_matmul(lhs: npt.ArrayLike, rhs: npt.ArrayLike, k_tile: int) -> npt.NDArray[np.float32]:
    """``lhs[..., M, K] @ rhs[..., K, N]`` as PSUM computes it: K split into tiles of
    ``k_tile`` from 0 (the last one partial), one :func:`pe_pass` each, summed in K order
    in fp32."""
    if k_tile <= 0:
        raise ValueError(f"k_tile must be positive, got {k_tile}")
    lhs_arr = np.asarray(lhs)
    rhs_arr = np.asarray(rhs)
    k = lhs_arr.shape[-1]
    if rhs_arr.shape[-2] != k:
        raise ValueError(f"contraction sizes differ: {k} vs {rhs_arr.shape[-2]}")
    if k == 0:
        shape = np.broadcast_shapes(lhs_arr.shape[:-2], rhs_arr.shape[:-2])
        return np.zeros((*shape, lhs_arr.shape[-2], rhs_arr.shape[-1]), dtype=np.float32)
    accumulator = pe_pass(lhs_arr[..., :k_tile], rhs_arr[..., :k_tile, :])
    for start in range(k_tile, k, k_tile):
        psum_add(
            accumulator,
            pe_pass(lhs_arr[..., start : start + k_tile], rhs_arr[..., start : start + k_tile, :]),
        )
    return accumulator


@_IEEE_SPECIALS
def psum_add(accumulator: np.ndarray, value: np.ndarray) -> None:
    """``accumulator += value`` in fp32 (round to nearest even), as PSUM adds one pass
    (``docs/numerics.md``, "NaN in PSUM"), element by element: where ``value`` is NaN,
    or the add makes one (inf + -inf), the result is the canonical quiet NaN; where only
    the accumulator holds a NaN, it keeps its bits (made quiet, as IEEE 754 propagates a
    NaN operand). ``value`` is a pass's result (float32 or float64, rounded to fp32 first).
    A result depends only on the two elements added, never on other passes."""
    if np.isfinite(value).all():  # nothing made here: NaN + finite propagates the NaN
        np.add(accumulator, value, out=accumulator, dtype=np.float32, casting="unsafe")
        return
    kept = np.isnan(accumulator) & ~np.isnan(value)
    np.add(accumulator, value, out=accumulator, dtype=np.float32, casting="unsafe")
    made = np.isnan(accumulator) & ~kept
    if made.any():
        accumulator[made] = np.nan


def mx_matmul_operand(
    containers: npt.ArrayLike,
    scale_rows: npt.ArrayLike,
    fmt: MxFormat,
    dtype: npt.DTypeLike = np.float32,
) -> npt.NDArray[Any]:
    """An ``nc_matmul_mx`` / ``matmult_mx`` operand as the PE array reads it: x4 data
    ``[P, F]`` (uint32 FP8 or uint16 FP4 containers) with its E8M0 scale rows
    ``[P // 8, F]`` (row i covers partitions 8i .. 8i+7: one 8 x 4 physical block per
    scale) dequantized to fp32 ``[F, 4P]``, contraction index ``k = 4p + q`` for
    partition p and lane q. ``dtype=np.float64`` gives the same values widened (exactly)
    for :func:`pe_pass_into`.

    Each value is ``dequantize_mx_reference``'s, bit for bit (NaN payloads included):
    the code decoded exactly, times ``2**(E8M0 - 127)`` rounded once to fp32. FP8 tiles
    without an Inf / NaN code or E8M0 byte take :func:`_fp8_operand` (integer decode);
    the others decode two codes per table lookup and multiply once in fp32. The result
    is a transposed view of a ``[4P, F]`` array: the one reordering copy stays within a
    partition's row."""
    data = np.asarray(containers)
    partitions, free = data.shape
    scales = np.asarray(scale_rows).view(np.uint8)
    if fmt.is_fp8 and data.dtype == np.uint32 and np.dtype(dtype) in _OPERAND_DTYPES:
        fast = _fp8_operand(data, scales, fmt)
        if fast is not None:
            wide = np.dtype(dtype) == np.float64
            return _widened(fast) if wide else fast.reshape(4 * partitions, free).T
    codes = unpack_fp8_x4(data) if fmt.is_fp8 else unpack_fp4_x4(data)
    pairs = np.ascontiguousarray(codes).view("<u2")  # two adjacent codes, the first low
    values = np.take(_pair_values(fmt), pairs).view(np.float32)  # [P, 4F]
    factors = _E8M0_FACTORS[scales]  # [P // 8, F]
    with np.errstate(over="ignore", invalid="ignore"):
        blocks = values.reshape(partitions // 8, 8, free, 4)
        np.multiply(blocks, factors[:, None, :, None], out=blocks)
    by_row = np.empty((partitions, 4, free), dtype=dtype)
    by_row[...] = values.reshape(partitions, free, 4).transpose(0, 2, 1)
    return by_row.reshape(4 * partitions, free).T


def mx_pe_operand(containers: npt.ArrayLike, scale_rows: npt.ArrayLike, fmt: MxFormat) -> PeOperand:
    """An ``nc_matmul_mx`` operand (x4 ``containers`` ``[P, F]``, E8M0 ``scale_rows``
    ``[P // 8, F]``) as a PE operand ``[4P, F]`` of float64 values (``precision`` the
    element format's significand bits), its contraction index **lane-major**:
    ``k' = qP + p`` for partition ``p`` and lane ``q``, where :func:`mx_matmul_operand`
    has ``k = 4p + q``. Row ``qP + p`` of the tile is row ``4p + q`` of
    ``mx_matmul_operand(containers, scale_rows, fmt, float64).T``, bit for bit.

    A PE pass is the exact sum of its K products rounded once (``docs/numerics.md``,
    "The PE pass"): no order of the products is part of it, so a pass between two
    operands of this function is bit for bit the pass between their ``4p + q`` forms.
    Only pair it with operands of this function (the same permutation of K). The
    lane-major order lets every integer step of the FP8 decode run over the whole
    ``[P, F]`` tile per lane (:func:`_fp8_lane_major`) instead of over rows of ``F``.

    The operand is the same as :func:`pe_operand` of that tile gives: the same all-zero
    columns and quick bounds (which do not depend on the order of K). For FP8 tiles
    without an Inf / NaN code or E8M0 255 (the integer-decode path) they come from the
    codes and scale bytes (:func:`_fp8_code_bounds`: a read of the 1-byte codes instead
    of the 8-byte values); otherwise from the tile."""
    data = np.asarray(containers)
    scales = np.asarray(scale_rows).view(np.uint8)
    precision = fmt.info.mantissa_bits + 1
    partitions, free = data.shape
    bounds = None
    if fmt.is_fp8 and data.dtype == np.uint32 and partitions % 8 == 0:
        data = np.ascontiguousarray(data)  # read twice: one copy of a strided tile
        bounds = _fp8_code_bounds(data, scales, fmt)
    if bounds is None:
        values = mx_matmul_operand(data, scales, fmt, dtype=np.float64)  # [F, 4P]
        tile = np.empty((4, partitions, free), np.float64)
        np.copyto(tile, values.reshape(free, partitions, 4).transpose(2, 1, 0))
        return pe_operand(tile.reshape(4 * partitions, free), precision=precision)
    top, low, top_scale = bounds
    tile = _fp8_lane_major(data, scales, fmt, top_scale)
    columns, zero_columns = _split(top != EMPTY_TOP)
    operand = PeOperand(tile, _widen, columns, zero_columns, precision)
    k = tile.shape[0]
    top, low = top[columns], low[columns]
    if top.size and k > 1:  # as quick_column_bits: figures known, or of an empty set
        bits = ColumnBits.known(top, low, np.full(top.size, k, np.int64), top - low, ceil_log2(k))
    else:
        bits = ColumnBits(top, low, np.full(top.size, k, np.int64))
    operand.__dict__["quick_bits"] = bits  # the cached property, from the codes
    return operand


_LANE_SHIFTS = np.array([24, 16, 8, 0], np.uint32)[:, None]
"""Left shifts that bring byte ``q`` of a word to its top byte, one row per lane ``q``."""


def _fp8_lane_major(
    data: np.ndarray, scales: np.ndarray, fmt: MxFormat, top_scale: int
) -> npt.NDArray[np.float64]:
    """:func:`_fp8_values` (FP8 words ``data`` ``[P, F]`` with no Inf / NaN code and
    no E8M0 255, ``top_scale`` their largest E8M0 byte) in lane-major order, widened:
    float64 ``[4P, F]``, row ``qP + p`` the value of lane ``q`` of partition ``p``, each
    the fp32 value bit for bit. The same integer decode and fp32 multiplies (see
    :func:`_fp8_operand`), each over ``[4, P * F]`` (lane ``q``'s row a shift of the
    contiguous words), the E8M0 factor of each block repeated over its 8 partitions."""
    info = fmt.info
    partitions, free = data.shape
    size = partitions * free
    words = np.ascontiguousarray(data).reshape(1, size)
    bits = np.empty((4, size), np.uint32)
    np.left_shift(words, _LANE_SHIFTS, out=bits)
    signed = bits.view(np.int32)
    shift = 23 - info.mantissa_bits
    np.right_shift(signed, np.int32(1 + info.mantissa_bits), out=signed)
    np.bitwise_and(signed, np.int32((0x8000_0000 | (0x7F << shift)) - (1 << 32)), out=signed)
    values = bits.view(np.float32)
    with np.errstate(over="ignore"):
        if top_scale <= 127 + info.bias:
            factors = _fp8_factors(fmt).take(scales)
        else:
            np.multiply(values, np.float32(2.0 ** (127 - info.bias)), out=values)
            factors = _E8M0_FACTORS.take(scales)
        np.multiply(values, np.repeat(factors, 8, axis=0).reshape(1, size), out=values)
    wide = np.empty((4 * partitions, free), np.float64)
    np.copyto(wide.reshape(4, size), values)
    return wide


def _fp8_code_bounds(
    data: np.ndarray, scales: np.ndarray, fmt: MxFormat
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Per column ``f`` of the dequantized FP8 tile ``[4P, F]`` (x4 words ``data``
    ``[P, F]``, E8M0 rows ``scales`` ``[P // 8, F]``): what
    :func:`~mxdsl.numerics.exact.quick_column_bits` reads from its float64 values with
    the element format's precision, ``top`` (:data:`~mxdsl.numerics.exact.EMPTY_TOP`
    for a column of +-0 only) and ``low`` (only meaningful for the other columns), both
    int64, and the largest E8M0 byte; ``None`` when a code is Inf / NaN or a byte is
    255 (the caller reads the values instead).

    A finite code's value times ``2**(s - 127)`` is exact in fp32 (at most 4
    significant bits, at least ``2**-143``: no rounding, never 0) unless it reaches
    ``2**128`` and overflows to Inf. So its exponent is the code's own plus ``s - 127``,
    and the largest (smallest nonzero) value of a block is its largest (smallest
    nonzero) magnitude code's, scaled: the block extremes of the code bytes (one
    reduce over the 8 partitions, three over the 4 lanes), looked up in
    :func:`_code_exponents`, plus the block's byte, then reduced over the blocks. An
    exponent of 128 or more stands for Inf, whose float64 exponent field gives 1024,
    and ``low`` is the exponent less ``precision - 1``."""
    info = fmt.info
    assert info.first_special_code is not None
    top_scale = int(scales.max(initial=0))
    if top_scale == 255:
        return None
    partitions, free = data.shape
    magnitudes = np.bitwise_and(data, np.uint32(0x7F7F_7F7F))  # a fresh C-contiguous array
    blocks = magnitudes.view(np.uint8).reshape(partitions // 8, 8, 4 * free)
    largest = _lanes(np.maximum, blocks.max(axis=1), free)
    if int(largest.max(initial=0)) >= info.first_special_code:
        return None
    np.subtract(blocks, np.uint8(1), out=blocks)  # +-0 wraps to 255: never the smallest
    smallest = _lanes(np.minimum, blocks.min(axis=1), free)
    smallest += np.uint8(1)  # back to the code; 0 for a block of +-0 only
    highest, lowest = _code_exponents(fmt)  # less 127, and ``low``'s less precision - 1
    top = highest.take(largest)
    top += scales
    top = top.max(axis=0)
    low = lowest.take(smallest)
    low += scales
    low = low.min(axis=0)
    if int(top.max()) > 127:  # an Inf: the all-ones float64 exponent field gives 1024
        np.putmask(top, top > 127, 1024)
        np.putmask(low, low > 127 - info.mantissa_bits, 1024 - info.mantissa_bits)
    top[top < _NO_CODE_TOP + 512] = EMPTY_TOP
    return top, low, top_scale


_NO_CODE_TOP = -(1 << 40)
""":func:`_code_exponents`' exponent of code 0 as a block's largest (and the negated one
as its smallest): far below any real ``exponent + E8M0``, so an all-zero block never
wins a column's reduction and an all-zero column stays below ``_NO_CODE_TOP + 512``."""


def _lanes(ufunc: np.ufunc, words: np.ndarray, free: int) -> np.ndarray:
    """``ufunc`` over the 4 lanes of each word: bytes ``[B, 4F]`` to ``[B, F]``."""
    lanes = words.reshape(words.shape[0], free, 4)
    pair = ufunc(lanes[..., 0], lanes[..., 1])
    ufunc(pair, ufunc(lanes[..., 2], lanes[..., 3]), out=pair)
    return pair


@cache
def _code_exponents(fmt: MxFormat) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For each magnitude code byte (0 .. 255; only the finite ones are read) the
    exponent of its decoded value's highest set bit, less 127 (the E8M0 bias): as a
    block's largest code (code 0: ``_NO_CODE_TOP``), and less ``precision - 1`` too as
    its smallest nonzero one (code 0: ``-_NO_CODE_TOP``)."""
    values = np.abs(decode(np.arange(256, dtype=np.uint8), fmt).astype(np.float64))
    finite = np.isfinite(values) & (values != 0)
    exponents = np.frexp(np.where(finite, values, 1.0))[1].astype(np.int64) - 1 - 127
    highest = np.where(finite, exponents, _NO_CODE_TOP)
    lowest = np.where(finite, exponents - fmt.info.mantissa_bits, -_NO_CODE_TOP)
    return highest, lowest


_OPERAND_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_LANE_TO_TOP = np.array([24, 16, 8, 0], np.uint32)[None, :, None]
"""Left shifts that bring byte ``q`` of a word to its top byte, one per lane ``q``."""


def _widened(values: np.ndarray) -> npt.NDArray[np.float64]:
    """fp32 ``[P, 4, F]`` widened to float64 ``[F, 4P]`` (a transposed view)."""
    partitions, _, free = values.shape
    wide = np.empty(values.shape, np.float64)
    np.copyto(wide, values)
    return wide.reshape(4 * partitions, free).T


def _fp8_operand(data: np.ndarray, scales: np.ndarray, fmt: MxFormat) -> np.ndarray | None:
    """The fp32 values ``[P, 4, F]`` of :func:`mx_matmul_operand` for FP8 words ``data``
    with no Inf / NaN code and no E8M0 255 (else None: the caller takes the table path),
    with integer decoding and contiguous ufuncs only.

    As in ``fast.dequantize_fp8`` (``docs/numerics.md``, "Dequantize"): each word shifted
    left to bring byte ``q`` to the top (straight into lane ``q``'s row of the
    ``[P, 4, F]`` layout), then shifted right arithmetically by ``1 + mantissa_bits``
    and masked to the sign and the code's 7 magnitude bits at bit ``23 - mantissa_bits``
    on, is the fp32 pattern of ``element * 2**(bias - 127)`` exactly (a subnormal code
    becomes an fp32 denormal). One fp32 multiply by ``2**(E8M0 - bias)`` then rounds the
    exact product ``element * 2**(E8M0 - 127)`` once, as the reference does; when that
    factor is no fp32 (E8M0 > 127 + bias) a first multiply by ``2**(127 - bias)``
    (exact: it gives the element) and one by ``2**(E8M0 - 127)`` do the same."""
    info = fmt.info
    top = int(scales.max(initial=0))
    if top == 255:
        return None
    assert info.first_special_code is not None
    # (code & 0x7F) + (0x80 - first special) reaches 0x80 exactly for an Inf / NaN code;
    # four bytes a word, no carry between them.
    flags = np.bitwise_and(data, np.uint32(0x7F7F_7F7F))
    np.add(flags, np.uint32((0x80 - info.first_special_code) * 0x0101_0101), out=flags)
    if int(np.bitwise_or.reduce(flags, axis=None)) & 0x8080_8080:
        return None
    return _fp8_values(data, scales, fmt, top)


def _fp8_values(data: np.ndarray, scales: np.ndarray, fmt: MxFormat, top: int) -> np.ndarray:
    """:func:`_fp8_operand`'s values once its checks passed (no Inf / NaN code, no E8M0
    255; ``top`` the largest E8M0 byte)."""
    info = fmt.info
    partitions, free = data.shape
    shift = 23 - info.mantissa_bits
    bits = np.empty((partitions, 4, free), np.uint32)
    np.left_shift(data[:, None, :], _LANE_TO_TOP, out=bits)
    signed = bits.view(np.int32)
    np.right_shift(signed, np.int32(1 + info.mantissa_bits), out=signed)
    np.bitwise_and(signed, np.int32((0x8000_0000 | (0x7F << shift)) - (1 << 32)), out=signed)
    values = bits.view(np.float32)
    blocks = values.reshape(partitions // 8, 8, 4, free)
    with np.errstate(over="ignore"):
        if top <= 127 + info.bias:
            np.multiply(blocks, _fp8_factors(fmt)[scales][:, None, None, :], out=blocks)
        else:
            np.multiply(blocks, np.float32(2.0 ** (127 - info.bias)), out=blocks)
            np.multiply(blocks, _E8M0_FACTORS[scales][:, None, None, :], out=blocks)
    return values


@cache
def _fp8_factors(fmt: MxFormat) -> npt.NDArray[np.float32]:
    """``2**(s - bias)`` in fp32, exactly, for each E8M0 byte ``s <= 127 + bias`` (the
    others are never read: zero)."""
    exponents = np.arange(256) - fmt.info.bias
    return np.where(exponents <= 127, np.ldexp(1.0, np.minimum(exponents, 127)), 0.0).astype(
        np.float32
    )


with np.errstate(over="ignore"):
    _E8M0_FACTORS = np.ldexp(np.float32(1), np.arange(256) - 127).astype(np.float32)
_E8M0_FACTORS[255] = np.nan
"""``2**(s - 127)`` in fp32 for each E8M0 byte s, exactly (0 is the denormal
``2**-127``); 255 is NaN (``float8_e8m0fnu``): the same as ``e8m0_to_float32``."""


@cache
def _pair_values(fmt: MxFormat) -> np.ndarray:
    """For each little-endian pair of code bytes ``low + 256 * high``: the two decoded
    fp32 values (``low``'s first) as one 8-byte word, so one gather decodes two codes.
    FP4 codes are nibbles (only the low four bits of a byte are read)."""
    codes = np.arange(256, dtype=np.uint8)
    values = decode(codes if fmt.is_fp8 else codes & np.uint8(0x0F), fmt)
    table = np.empty((256, 256, 2), dtype=np.float32)  # [high, low, which]
    table[:, :, 0] = values[np.newaxis, :]
    table[:, :, 1] = values[:, np.newaxis]
    return table.reshape(256 * 256, 2).view(np.uint64).reshape(256 * 256)

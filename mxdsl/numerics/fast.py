"""The fast MX quantize (bf16 input) and dequantize (FP8 codes): the same bits as
:mod:`mxdsl.numerics.reference`, two orders of magnitude faster.

Both walk the array in chunks of whole block-rows small enough to stay in cache, with
preallocated buffers and only contiguous SIMD-friendly numpy ufuncs: no gathers (a table
lookup costs about as much as twenty in-cache integer passes) and no per-element Python.
``docs/numerics.md`` has the derivation and the measurements.

Quantize works on the bf16 bit pattern with uint8 arithmetic. The prescale by
``2**(127 - E8M0)`` is exact, so an element's code depends only on its sign, its 7-bit
mantissa ``m`` and its target exponent ``t = e - E8M0 + bias`` (``e`` the exponent
byte). For a normal result (``t >= 1``) the code is
``min((t << mantissa_bits) + RNE(m >> (7 - mantissa_bits)), max_code)``, the rounding
carry running into the exponent. ``t`` is kept modulo 256: inside one block it spans at
most 255 values (``t <= emax + bias`` by the EMAX rule, ``t >= bias + emaxBias - 254``),
so the wrap is unambiguous. The rare cases are redone by the reference:

* results in the subnormal range (``-mantissa_bits <= t <= 0``), element by element;
* blocks with an Inf / NaN (max exponent byte 255) and "tiny" blocks
  (``E8M0 <= bias + mantissa_bits``, the only blocks where a zero or denormal input
  would be read with an implicit leading one; all-zero blocks are tiny), block by block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import numpy.typing as npt

from mxdsl.numerics.blocks import canonical_geometry, grid_shape
from mxdsl.numerics.formats import MxFormat, emax_bias
from mxdsl.numerics.narrow import narrow
from mxdsl.numerics.reference import e8m0_to_float32, prescale_multiplier

CHUNK_ELEMENTS = 1 << 18
"""Elements per chunk: 512 KiB of bf16. Measured best on the 2-core benchmark machine
(smaller chunks pay numpy's per-call overhead more often, larger ones leave the caches)."""

_BYTE_SPLAT = np.uint64(0x0101_0101_0101_0101)
_BF16_MANTISSA_BITS = 7


@dataclass(frozen=True)
class ChunkPlan:
    """A canonical geometry (see :func:`canonical_geometry`) cut into chunks of whole
    block-rows along axis 0."""

    shape: tuple[int, ...]
    block: tuple[int, ...]
    grid: tuple[int, ...]
    rows_per_chunk: int
    """Block-rows (``block[0]`` axis-0 rows each) per chunk."""

    @classmethod
    def of(cls, shape: Sequence[int], block_shape: Sequence[int]) -> ChunkPlan:
        canon_shape, canon_block = canonical_geometry(shape, block_shape)
        grid = grid_shape(canon_shape, canon_block)
        block_row = canon_block[0] * int(np.prod(canon_shape[1:], dtype=np.int64))
        rows = max(1, CHUNK_ELEMENTS // max(block_row, 1))
        return cls(canon_shape, canon_block, grid, rows)

    @property
    def row_elements(self) -> int:
        """Elements per axis-0 row of the canonical shape."""
        return int(np.prod(self.shape[1:], dtype=np.int64))

    @property
    def capacity(self) -> int:
        """Elements in a full chunk."""
        return self.rows_per_chunk * self.block[0] * self.row_elements

    @property
    def last_axis_only(self) -> bool:
        """Blocks run along the last axis only (the logical HLO geometry)."""
        return all(b == 1 for b in self.block[:-1])

    def chunks(self) -> list[tuple[slice, slice]]:
        """``(data rows, grid rows)`` slices along axis 0."""
        out = []
        for start in range(0, self.grid[0], self.rows_per_chunk):
            stop = min(start + self.rows_per_chunk, self.grid[0])
            out.append((slice(start * self.block[0], stop * self.block[0]), slice(start, stop)))
        return out

    def interleaved(self, rows: int) -> tuple[int, ...]:
        """Interleaved shape ``(n0, b0, n1, b1, ...)`` of a chunk of ``rows`` block-rows."""
        grid = (rows, *self.grid[1:])
        return tuple(v for pair in zip(grid, self.block, strict=True) for v in pair)

    def per_block(self, rows: int) -> tuple[int, ...]:
        """Broadcastable per-block shape ``(n0, 1, n1, 1, ...)`` of such a chunk."""
        return tuple(v for n in (rows, *self.grid[1:]) for v in (n, 1))


class _ByteBlockMax:
    """Per-block maximum of a chunk's bytes. Last-axis blocks of a power-of-two size
    reduce by halving (view byte pairs as uint16, keep the larger byte, compact),
    every level a contiguous SIMD ufunc; other geometries use numpy's reduce.

    The halving works in caller-provided scratch: two uint16 buffers and one byte
    buffer of at least half a chunk each."""

    def __init__(
        self,
        plan: ChunkPlan,
        source: np.ndarray,
        wide: tuple[np.ndarray, np.ndarray],
        narrow_bytes: np.ndarray,
    ) -> None:
        self.plan = plan
        group = plan.block[-1]
        self.halving = plan.last_axis_only and group > 1 and group & (group - 1) == 0
        self.levels = group.bit_length() - 1 if self.halving else 0
        self.wide = wide
        self.narrow_bytes = narrow_bytes
        self.full = self._views(source)

    def _views(self, source: np.ndarray) -> list[tuple[np.ndarray, ...]]:
        views = []
        current, size = source, source.size
        half = size // 2
        for level in range(self.levels):
            size //= 2
            # Ping-pong inside narrow_bytes: [0, half) and [half, half + half/2).
            start = 0 if level % 2 == 0 else half
            reduced = self.narrow_bytes[start : start + size]
            views.append(
                (current.view(np.uint16), self.wide[0][:size], self.wide[1][:size], reduced)
            )
            current = reduced
        return views

    def __call__(self, source: np.ndarray, rows: int) -> np.ndarray:
        plan = self.plan
        grid = (rows, *plan.grid[1:])
        if not self.halving:
            axes = tuple(range(1, 2 * len(plan.shape), 2))
            return source.reshape(plan.interleaved(rows)).max(axis=axes)
        views = self.full if source.size == plan.capacity else self._views(source)
        eight, low_byte = np.uint16(8), np.uint16(0xFF)
        for pairs, high, low, reduced in views:
            np.right_shift(pairs, eight, out=high)
            np.bitwise_and(pairs, low_byte, out=low)
            np.maximum(high, low, out=high)
            np.copyto(reduced, high, casting="unsafe")
        return (views[-1][3] if views else source).reshape(grid)


def _expand_bytes(per_block: np.ndarray, out: np.ndarray, plan: ChunkPlan, rows: int) -> None:
    """Write every per-block byte over its whole block into ``out`` (flat, chunk-sized).
    Last-axis blocks of a multiple of 8 store 8-byte splats column by column."""
    group = plan.block[-1]
    if plan.last_axis_only and group % 8 == 0:
        words = out.view(np.uint64).reshape(-1, group // 8)
        splat = np.multiply(per_block.reshape(-1), _BYTE_SPLAT, dtype=np.uint64)
        for column in range(group // 8):
            words[:, column] = splat
        return
    np.copyto(out.reshape(plan.interleaved(rows)), per_block.reshape(plan.per_block(rows)))


class _Bf16Quantizer:
    """The quantize kernel: format constants and one set of chunk-sized buffers, reused
    for every chunk (fresh arrays would page-fault on every chunk)."""

    def __init__(self, fmt: MxFormat, plan: ChunkPlan, *, alternative_emax: bool) -> None:
        info = fmt.info
        self.fmt, self.plan = fmt, plan
        capacity = plan.capacity
        if capacity % 8:
            raise AssertionError("chunks hold whole 8-byte words")
        scale_bias = emax_bias(fmt, alternative_emax=alternative_emax)
        self.bias = np.uint8(info.bias)
        self.mbits = info.mantissa_bits
        self.step = np.uint8(1 << info.mantissa_bits)
        self.drop = np.uint8(_BF16_MANTISSA_BITS - info.mantissa_bits)
        self.round_half = np.uint8((1 << (int(self.drop) - 1)) - 1)
        self.drop16 = np.uint16(self.drop)
        self.byte_lsb = np.uint16(0x0101)
        self.round_half16 = np.uint16(int(self.round_half) * 0x0101)
        # After the shift each byte keeps its low (8 - drop) bits; the rest came from the
        # byte above.
        self.low_bits16 = np.uint16(((1 << (8 - int(self.drop))) - 1) * 0x0101)
        self.exponent_floor = np.uint8(scale_bias + 1)
        self.emax_bias = np.uint8(scale_bias)
        # E8M0 - (tiny + 1) (mod 256) is >= this for tiny blocks and Inf / NaN blocks.
        self.tiny_shift = np.uint8(info.bias + info.mantissa_bits + 1)
        self.special_from = 255 - scale_bias - (info.bias + info.mantissa_bits + 1)
        self.infinite_e8m0 = np.uint8(255 - scale_bias)
        """E8M0 of a block whose max exponent byte is 255 (an Inf or NaN)."""
        self.sign_shift = np.uint16(16 - info.bits)
        self.sign_mask = np.uint8(1 << (info.bits - 1))
        self.exponent = np.empty(capacity, np.uint8)
        self.target = np.empty(capacity, np.uint8)
        self.rounded = np.empty(capacity, np.uint8)
        self.sign = np.empty(capacity, np.uint8)
        self.word_flag = np.empty(capacity // 8, np.bool_)
        self.max_code = np.full(capacity, info.max_code, np.uint8)
        # A normal target t lies in [1, emax + bias]: the EMAX rule bounds the block max.
        self.normal_span = np.full(capacity, info.emax + info.bias, np.uint8)
        # t - 1 >= 255 - mbits (mod 256) <=> t in [-mbits, 0]: a subnormal result.
        self.subnormal_from = np.uint8(255 - info.mantissa_bits)
        self.wide_scratch = np.empty(capacity // 2, np.uint16)
        self.narrow_scratch = np.empty(capacity, np.uint8)
        wide = (self.target.view(np.uint16), self.wide_scratch)
        self.block_max = _ByteBlockMax(plan, self.exponent, wide, self.narrow_scratch)

    def run(
        self,
        bits: np.ndarray,
        codes: np.ndarray,
        scale: np.ndarray,
        data_rows: slice,
        grid_rows: slice,
    ) -> np.ndarray | None:
        """Quantize one chunk into ``codes`` / ``scale``. Returns the flat indices of the
        8-element words of ``codes`` (counted from the start of the array) that hold an
        element the reference must redo, if any."""
        plan = self.plan
        src = bits[data_rows].reshape(-1)
        out = codes[data_rows].reshape(-1)
        n = src.size
        rows = grid_rows.stop - grid_rows.start
        e, tt, rm, sign = self.exponent[:n], self.target[:n], self.rounded[:n], self.sign[:n]
        t8 = self.narrow_scratch[:n]
        one = np.uint8(1)

        # Everything the input is read for, while it is hot in cache: the exponent byte
        # e = (uint8)(fp32_bits >> 23) = (bf16_bits >> 7) mod 256, the 7-bit mantissa
        # and the sign.
        np.right_shift(src, np.uint16(7), out=e, casting="unsafe")
        np.copyto(rm, src, casting="unsafe")
        np.bitwise_and(rm, np.uint8(0x7F), out=rm)
        np.right_shift(src, self.sign_shift, out=sign, casting="unsafe")

        # RNE of the mantissa to mantissa_bits: 0 .. 2**mbits (the carry included), two
        # bytes at a time in uint16 lanes (numpy has SIMD shifts for 16-bit lanes only; a
        # byte sum is at most 0x7F + 0x20, so nothing carries into the next byte).
        rm2, tt2 = rm.view(np.uint16), tt.view(np.uint16)
        np.right_shift(rm2, self.drop16, out=tt2)
        np.bitwise_and(tt2, self.byte_lsb, out=tt2)
        np.add(rm2, tt2, out=rm2)
        np.add(rm2, self.round_half16, out=rm2)
        np.right_shift(rm2, self.drop16, out=rm2)
        np.bitwise_and(rm2, self.low_bits16, out=rm2)

        # Block max; E8M0 = max(1, max(0, maxExp - emaxBias)) = max(maxExp, emaxBias + 1)
        # - emaxBias.
        max_exp = self.block_max(e, rows)
        e8m0 = scale[grid_rows]
        np.maximum(max_exp, self.exponent_floor, out=e8m0)
        np.subtract(e8m0, self.emax_bias, out=e8m0)

        # t = e - E8M0 + bias (mod 256), per element.
        _expand_bytes(e8m0 - self.bias, tt, plan, rows)
        np.subtract(e, tt, out=tt)

        # code = min((t << mbits) + rm, max_code) where 1 <= t <= emax + bias, else 0.
        np.multiply(tt, self.step, out=out)
        np.add(out, rm, out=out)
        np.minimum(out, self.max_code[:n], out=out)
        flag = rm.view(np.bool_)
        np.subtract(tt, one, out=t8)
        np.less(t8, self.normal_span[:n], out=flag)
        np.multiply(out, rm, out=out)

        # Subnormal results (t in [-mbits, 0]): flag their 8-element words.
        np.greater_equal(t8, self.subnormal_from, out=flag)
        word_flag = self.word_flag[: n // 8]
        np.not_equal(rm.view(np.uint64), np.uint64(0), out=word_flag)
        words = np.flatnonzero(word_flag)

        # Sign bit.
        np.bitwise_and(sign, self.sign_mask, out=sign)
        np.bitwise_or(out, sign, out=out)

        # Tiny blocks (E8M0 <= bias + mbits) and Inf / NaN blocks (E8M0 = 255 - emaxBias).
        if (e8m0 - self.tiny_shift).max() >= self.special_from:
            special = (e8m0 == self.infinite_e8m0) | (e8m0 < self.tiny_shift)
            _expand_bytes(special.astype(np.uint8), t8, plan, rows)
            words = np.union1d(words, np.flatnonzero(t8.view(np.uint64)))
        if words.size == 0:
            return None
        return words + data_rows.start * plan.row_elements // 8


def _block_index(flat_index: np.ndarray, plan: ChunkPlan) -> np.ndarray:
    """Flat grid index of the block holding each flat element index."""
    if plan.last_axis_only:
        return flat_index // plan.block[-1]
    coords = np.unravel_index(flat_index, plan.shape)
    block_coords = tuple(c // b for c, b in zip(coords, plan.block, strict=True))
    return np.ravel_multi_index(block_coords, plan.grid)


def _redo_flagged_words(
    words: np.ndarray,
    bits: np.ndarray,
    codes: np.ndarray,
    scale: np.ndarray,
    plan: ChunkPlan,
    kernel: _Bf16Quantizer,
) -> None:
    """Recompute through the reference (widen, prescale, narrow) every element of the
    flagged 8-element words that has a subnormal result or sits in an Inf / NaN or tiny
    block; the other elements of those words are already right."""
    idx = (words[:, None] * 8 + np.arange(8)).reshape(-1)
    e8m0 = scale.reshape(-1)[_block_index(idx, plan)]
    src = bits.reshape(-1)[idx]
    target = ((src >> 7) & 0xFF).astype(np.int16) - e8m0.astype(np.int16) + int(kernel.bias)
    needed = (target >= -kernel.mbits) & (target <= 0)
    needed |= (e8m0 == kernel.infinite_e8m0) | (e8m0 < kernel.tiny_shift)
    idx, e8m0, src = idx[needed], e8m0[needed], src[needed]
    widened = src.view(ml_dtypes.bfloat16).astype(np.float32)
    with np.errstate(invalid="ignore"):
        codes.reshape(-1)[idx] = narrow(widened * prescale_multiplier(e8m0), kernel.fmt)


def quantize_bf16(
    x: np.ndarray,
    fmt: MxFormat,
    block_shape: Sequence[int],
    *,
    alternative_emax: bool = False,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """The fast path of :func:`mxdsl.numerics.reference.quantize_mx_reference` for a
    bfloat16 ``x``; returns the same ``(codes, scale)`` bit for bit."""
    plan = ChunkPlan.of(x.shape, block_shape)
    bits = np.ascontiguousarray(x).view(np.uint16).reshape(plan.shape)
    codes = np.empty(plan.shape, np.uint8)
    scale = np.empty(plan.grid, np.uint8)
    kernel = _Bf16Quantizer(fmt, plan, alternative_emax=alternative_emax)
    redo_words = []
    for data_rows, grid_rows in plan.chunks():
        words = kernel.run(bits, codes, scale, data_rows, grid_rows)
        if words is not None:
            redo_words.append(words)
    if redo_words:
        _redo_flagged_words(np.concatenate(redo_words), bits, codes, scale, plan, kernel)
    return codes.reshape(x.shape), scale.reshape(grid_shape(x.shape, block_shape))


def dequantize_fp8(
    codes: np.ndarray,
    scale: np.ndarray,
    fmt: MxFormat,
    block_shape: Sequence[int],
) -> npt.NDArray[np.float32]:
    """The fast path of :func:`mxdsl.numerics.reference.dequantize_mx_reference` for FP8
    codes, bit for bit.

    A code's magnitude shifted to the top of an fp32 pattern
    (``code << (23 - mantissa_bits)``, the sign to bit 31) is the element times
    ``2**(bias - 127)`` exactly, subnormals included (they become fp32 denormals). One
    fp32 multiply by ``2**(E8M0 - bias)`` then rounds the exact product once, like the
    reference. Chunks with a block whose
    factor is not a finite fp32 take two multiplies; Inf / NaN codes are redone with
    the reference decode."""
    info = fmt.info
    assert info.first_special_code is not None
    plan = ChunkPlan.of(codes.shape, block_shape)
    src_all = np.ascontiguousarray(codes).reshape(plan.shape)
    scale_all = np.ascontiguousarray(scale).reshape(plan.grid)
    result = np.empty(plan.shape, np.float32)
    shift = 16 + _BF16_MANTISSA_BITS - info.mantissa_bits
    # int32 mask keeping the sign (bit 31) and the magnitude (bits shift .. shift + 6).
    magnitude_mask = np.int32((0x8000_0000 | (0x7F << shift)) - (1 << 32))
    capacity = plan.capacity
    flag = np.empty(capacity, np.bool_)
    tmp = np.empty(capacity, np.uint8)
    special_code = np.uint8(info.first_special_code)
    redo = []

    for data_rows, grid_rows in plan.chunks():
        src = src_all[data_rows].reshape(-1)
        n = src.size
        rows = grid_rows.stop - grid_rows.start
        fl, t8 = flag[:n], tmp[:n]
        out = result[data_rows].reshape(-1)
        out_bits = out.view(np.int32)

        # Sign-extend the code into the output's int32 (the sign fills bits 8..31), move
        # the magnitude to the top of an fp32 pattern, keep sign and magnitude bits.
        np.copyto(out_bits, src.view(np.int8), casting="safe")
        np.multiply(out_bits, np.int32(1 << shift), out=out_bits)
        np.bitwise_and(out_bits, magnitude_mask, out=out_bits)

        e8m0 = scale_all[grid_rows]
        exponent = e8m0.astype(np.int32) - info.bias
        view = out.reshape(plan.interleaved(rows))
        with np.errstate(over="ignore", invalid="ignore"):
            if exponent.max() <= 127:
                factor = np.ldexp(np.float32(1), exponent).astype(np.float32)
            else:
                np.multiply(out, np.float32(2.0 ** (127 - info.bias)), out=out)
                factor = e8m0_to_float32(e8m0)
            np.multiply(view, factor.reshape(plan.per_block(rows)), out=view)

        np.bitwise_and(src, np.uint8(0x7F), out=t8)
        if t8.max() >= special_code:
            np.greater_equal(t8, special_code, out=fl)
            redo.append(np.flatnonzero(fl) + data_rows.start * plan.row_elements)

    if redo:
        idx = np.concatenate(redo)
        flat_e8m0 = scale_all.reshape(-1)[_block_index(idx, plan)]
        special = src_all.reshape(-1)[idx].view(fmt.dtype).astype(np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            result.reshape(-1)[idx] = special * e8m0_to_float32(flat_e8m0)
    return result.reshape(codes.shape)

"""The fast MX quantize (bf16 input) and dequantize (FP8 codes): the same bits as
:mod:`mxdsl.numerics.reference`, two orders of magnitude faster.

Both walk the array in chunks of whole block-rows small enough to stay in cache, with
preallocated buffers and only contiguous SIMD-friendly numpy ufuncs: no gathers (a table
lookup costs about as much as twenty in-cache integer passes) and no per-element Python.
The quantize's chunks are shared among threads (:func:`quantize_bf16`, ``threads``);
each is whole block-rows, so the bits do not depend on the thread count.
``docs/numerics.md`` has the derivation and the measurements.

Quantize works on the bf16 bit pattern with byte arithmetic. The prescale by
``2**(127 - E8M0)`` is exact, so an element's code depends only on its sign, its 7-bit
mantissa ``m`` and its target exponent ``t = e - E8M0 + bias`` (``e`` the exponent
byte). For a normal result (``1 <= t <= emax + bias``) the code is
``min((t << mantissa_bits) + RNE(m >> (7 - mantissa_bits)), max_code)``, the rounding
carry running into the exponent; below the subnormal range (``t < -mantissa_bits``) it
is a signed zero. The kernel keeps ``v = t - 1`` modulo 256: inside one block ``t``
spans at most 255 values (``t <= emax + bias`` by the EMAX rule, ``t >= bias - E8M0``),
so normal results have ``v < emax + bias``, subnormal ones ``v >= 255 - mantissa_bits``
and the zeros lie in between. Clamping ``v`` to ``B = 128 >> mantissa_bits`` and forming
``(v << mantissa_bits) + RNE(...)`` puts the normal codes less one ``step``
(``1 << mantissa_bits``) in ``[0, 127]`` and the zeros in ``[-128, -128 + step]`` as
int8, so one int8 clip to ``[-step, max_code - step]`` and adding ``step`` back both
zeroes and saturates. The rare cases are redone afterwards:

* results in the subnormal range (``-mantissa_bits <= t <= 0``), element by element,
  from a table of the reference's codes (they depend on sign, ``m`` and ``t`` alone);
* "tiny" blocks (``E8M0 <= bias + mantissa_bits``, the only blocks where a zero or
  denormal input would be read with an implicit leading one; all-zero blocks are tiny)
  and "huge" blocks (``E8M0 >= 256 - B + bias``, 247 / 239 / 193 for e4m3fn / e5m2 /
  e2m1: every block with an Inf or NaN, and the finite blocks so large that a zero's
  ``v`` could fall below ``B``), block by block, through the reference.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, cached_property

import ml_dtypes
import numpy as np
import numpy.typing as npt

from mxdsl.numerics.blocks import canonical_geometry, grid_shape
from mxdsl.numerics.formats import MxFormat, emax_bias
from mxdsl.numerics.narrow import narrow
from mxdsl.numerics.reference import e8m0_to_float32, prescale_multiplier

CHUNK_ELEMENTS = 1 << 19
"""Elements per chunk: 1 MiB of bf16. Measured best on the 2-core benchmark machine:
every chunk costs ~18 us of numpy call overhead (about 35 calls), so smaller chunks pay
it more often; larger ones spill more of the working set (~6 bytes per element) out of
the caches."""

THREADS_ENV = "MXDSL_QUANTIZE_THREADS"
"""Environment variable: the bf16 quantize's thread count when the caller passes none
(default: the CPUs this process may run on, ``os.sched_getaffinity``)."""

MIN_THREADED_ELEMENTS = 1 << 21
"""Inputs below this many elements (4 chunks) quantize in the calling thread alone: the
hand-off to the pool (~50-100 us) would cost more than a second core brings."""

_BF16_MANTISSA_BITS = 7
_UINT_OF_BYTES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _u8(value: int) -> np.ndarray:
    """A 0-d uint8 operand: a Python or numpy scalar is converted on every ufunc call,
    a 0-d array of the operand's type goes straight in."""
    return np.array(value % 256, np.uint8)


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
        """The plan of ``shape`` in blocks of ``block_shape`` (kept: kernels quantize
        tiles of a few shapes many times over)."""
        key = (tuple(shape), tuple(block_shape), CHUNK_ELEMENTS)
        plan = _PLANS.get(key)
        if plan is not None:
            return plan
        canon_shape, canon_block = canonical_geometry(shape, block_shape)
        grid = grid_shape(canon_shape, canon_block)
        block_row = canon_block[0] * int(np.prod(canon_shape[1:], dtype=np.int64))
        rows = max(1, CHUNK_ELEMENTS // max(block_row, 1))
        if len(_PLANS) >= 64:
            _PLANS.clear()
        plan = _PLANS[key] = cls(canon_shape, canon_block, grid, rows)
        return plan

    @cached_property
    def row_elements(self) -> int:
        """Elements per axis-0 row of the canonical shape."""
        return int(np.prod(self.shape[1:], dtype=np.int64))

    @cached_property
    def capacity(self) -> int:
        """Elements in a full chunk."""
        return self.rows_per_chunk * self.block[0] * self.row_elements

    @cached_property
    def block_volume(self) -> int:
        """Elements per block."""
        return int(np.prod(self.block, dtype=np.int64))

    @cached_property
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

    def flat_chunks(self) -> list[tuple[int, int, int, int]]:
        """The chunks as flat ``(first element, end element, first block, end block)``
        ranges of the C-ordered data and grid."""
        return list(self._flat_chunks)

    @cached_property
    def _flat_chunks(self) -> tuple[tuple[int, int, int, int], ...]:
        grid_row = int(np.prod(self.grid[1:], dtype=np.int64))
        row = self.row_elements
        return tuple(
            (data.start * row, data.stop * row, blocks.start * grid_row, blocks.stop * grid_row)
            for data, blocks in self.chunks()
        )

    def interleaved(self, rows: int) -> tuple[int, ...]:
        """Interleaved shape ``(n0, b0, n1, b1, ...)`` of a chunk of ``rows`` block-rows."""
        grid = (rows, *self.grid[1:])
        return tuple(v for pair in zip(grid, self.block, strict=True) for v in pair)

    def per_block(self, rows: int) -> tuple[int, ...]:
        """Broadcastable per-block shape ``(n0, 1, n1, 1, ...)`` of such a chunk."""
        return tuple(v for n in (rows, *self.grid[1:]) for v in (n, 1))


_PLANS: dict[tuple[tuple[int, ...], tuple[int, ...], int], ChunkPlan] = {}

_Slide = tuple[np.ndarray, np.ndarray, np.ndarray]


def _slides(
    source: np.ndarray, spare: tuple[np.ndarray, np.ndarray], levels: int
) -> tuple[list[_Slide], np.ndarray]:
    """The ``(a[:-s], a[s:], out)`` operands of ``levels`` sliding-max steps (``s`` = 1,
    2, 4, ...: windows of 2, 4, 8, ... bytes) ping-ponging between the two spare
    buffers, and the buffer the last step writes."""
    size = source.size
    current, target, other = source, spare[0][:size], spare[1][:size]
    steps, step = [], 1
    for _ in range(levels):
        steps.append((current[: size - step], current[step:], target[: size - step]))
        current, target, other = target, other, target
        step *= 2
    return steps, current


class _SlidingMax:
    """Per-block maximum of a chunk's bytes for blocks whose extent ``G`` along the last
    axis is a power of two ``>= 2``, without numpy's per-block reduce (one inner loop
    per block).

    ``max(a[:-1], a[1:])`` then ``max(b[:-2], b[2:])`` leave at every multiple of 4 the
    maximum of the 4 bytes from there, one contiguous SIMD ufunc each; casting the
    uint32 view to uint8 keeps exactly those (byte 0 of each word; for ``G = 2`` one
    level and the uint16 view); the remaining ``log2(G / 4)`` levels run the same way on
    that quarter, and a cast of its ``G / 4``-byte view (a strided copy beyond 8 bytes)
    picks every window's first byte. (Two levels before compacting measured as fast as
    three and faster than one.) That is every block's maximum for last-axis blocks;
    blocks that also span other axes take numpy's reduce over those axes on the
    ``G``-times smaller result (:meth:`_Bf16Quantizer.block_max`), its inner loop then
    a whole row of windows. The operand views of a chunk size are built once
    (:meth:`views`); they depend on the chunk's size and ``G`` alone."""

    def __init__(self, capacity: int, group: int, scratch: tuple[np.ndarray, np.ndarray]):
        levels = group.bit_length() - 1
        self.first = min(levels, 2)
        """Levels before the compaction (windows of 2 or 4 bytes)."""
        self.rest = levels - self.first
        """Levels after the compaction: ``log2(G / 4)``."""
        self.group = group
        self.scratch = scratch
        compact = capacity >> self.first
        self.compact = (np.empty(compact, np.uint8), np.empty(compact, np.uint8))
        self.result = np.empty(capacity // group, np.uint8)

    @staticmethod
    def fits(group: int) -> bool:
        return group >= 2 and group & (group - 1) == 0

    def views(self, source: np.ndarray) -> tuple:
        n = source.size
        full, windows = _slides(source, self.scratch, self.first)
        compact = self.compact[0][: n >> self.first]
        small, reduced = _slides(compact, (self.compact[1], self.scratch[0]), self.rest)
        wide = _UINT_OF_BYTES.get(1 << self.rest)
        picked = reduced.view(wide) if wide is not None else reduced[:: 1 << self.rest]
        return (
            full,
            windows.view(_UINT_OF_BYTES[1 << self.first]),
            compact,
            small,
            picked,
            self.result[: n // self.group],
        )

    @staticmethod
    def run(views: tuple) -> np.ndarray:
        """The maximum of every ``G`` bytes (flat)."""
        full, windows, compact, small, picked, result = views
        maximum = np.maximum
        for low, high, out in full:
            maximum(low, high, out=out)
        np.copyto(compact, windows, "unsafe")
        for low, high, out in small:
            maximum(low, high, out=out)
        np.copyto(result, picked, "unsafe")
        return result


_SPLAT = {2: np.array(0x0101, np.uint16), 4: np.array(0x0101_0101, np.uint32)}
_SPLAT[8] = np.array(0x0101_0101_0101_0101, np.uint64)
"""Multipliers that repeat a byte over a 2-, 4- or 8-byte word."""


def _expand_bytes(
    per_block: np.ndarray, scratch: np.ndarray, plan: ChunkPlan, rows: int
) -> np.ndarray:
    """Every per-block byte over its whole block, flat and chunk-sized: ``repeat`` for
    last-axis blocks (one call, faster than any splat-and-store); otherwise each byte
    repeated along the last axis first (a multiply by ``0x0101...`` in words of the
    block's width where one fits, else ``repeat``), then a broadcast copy into
    ``scratch`` over the other block axes, its inner loop a whole row (a broadcast
    straight from the per-block shape runs one short inner loop per block)."""
    group = plan.block[-1]
    if plan.last_axis_only:
        return per_block.reshape(-1).repeat(group)
    splat = _SPLAT.get(group)
    if group == 1:
        spread = per_block
    elif splat is not None:
        spread = np.multiply(per_block, splat, dtype=splat.dtype).view(np.uint8)
    else:
        spread = per_block.reshape(-1).repeat(group)
    rows_shape = (*plan.interleaved(rows)[:-2], plan.shape[-1])
    spread_shape = (*plan.per_block(rows)[:-2], plan.shape[-1])
    np.copyto(scratch.reshape(rows_shape), spread.reshape(spread_shape))
    return scratch


class _Workspace:
    """The chunk-sized buffers of the quantize kernel and their views per chunk size.
    Kept per thread between calls (:func:`_workspace`): fresh buffers page-fault."""

    def __init__(self, plan: ChunkPlan) -> None:
        capacity = plan.capacity
        self.plan = plan
        self.blocks = capacity // int(np.prod(plan.block))
        self.exponent = np.empty(capacity, np.uint8)
        self.mantissa = np.empty(capacity, np.uint8)
        self.scratch = (np.empty(capacity, np.uint8), np.empty(capacity, np.uint8))
        self.words = np.empty(capacity // 8, np.bool_)
        self.per_block = np.empty(self.blocks, np.uint8)
        self.zero_in_tiny = np.empty(capacity, np.bool_)
        self.tiny = (np.empty(capacity, np.uint8), np.empty(self.blocks, np.uint8))
        self.magnitude = np.empty(capacity, np.uint16)
        group = plan.block[-1]
        sliding = _SlidingMax.fits(group)
        self.sliding = _SlidingMax(capacity, group, self.scratch) if sliding else None
        self.views: dict[int, tuple] = {}
        self.kernels: dict[tuple[MxFormat, ChunkPlan, bool], _Bf16Quantizer] = {}
        """The kernels over this workspace (:func:`_kernel`)."""

    def fits(self, plan: ChunkPlan) -> bool:
        """Buffers and views right for ``plan``: the same chunk capacity and block."""
        return self.plan.capacity == plan.capacity and self.plan.block == plan.block

    def chunk_views(self, n: int) -> tuple:
        """The buffers of a chunk of ``n`` elements and their views (built once)."""
        views = self.views.get(n)
        if views is None:
            if len(self.views) >= 4:  # full chunks and a few last-chunk sizes
                self.views.clear()
            exponent, mantissa = self.exponent[:n], self.mantissa[:n]
            scratch0, scratch1 = self.scratch[0][:n], self.scratch[1][:n]
            views = self.views[n] = (
                exponent,
                mantissa,
                mantissa.view(np.uint16),
                scratch0.view(np.uint16),
                scratch0.view(np.bool_),
                scratch0.view(np.uint64),
                self.words[: n // 8],
                scratch0,
                scratch1,
                scratch1.view(np.uint16),
                self.per_block[: n * self.blocks // self.plan.capacity],
                None if self.sliding is None else self.sliding.views(exponent),
                self.zero_in_tiny[:n],
                self.tiny[0][:n],
                self.tiny[1][: n * self.blocks // self.plan.capacity],
                self.magnitude[:n],
            )
        return views


_LOCAL = threading.local()


def _workspace(plan: ChunkPlan) -> _Workspace:
    """This thread's workspace for ``plan`` (the last one is kept)."""
    workspace = getattr(_LOCAL, "workspace", None)
    if workspace is None or not workspace.fits(plan):
        workspace = _LOCAL.workspace = _Workspace(plan)
    return workspace


def _kernel(fmt: MxFormat, plan: ChunkPlan, alternative_emax: bool) -> _Bf16Quantizer:
    """This thread's kernel for ``fmt`` and ``plan`` over its workspace, kept with the
    workspace (building one makes ~30 constant arrays: a cost per call on small
    tiles)."""
    kernels = _workspace(plan).kernels
    key = (fmt, plan, alternative_emax)
    kernel = kernels.get(key)
    if kernel is None:
        if len(kernels) >= 16:
            kernels.clear()
        kernel = kernels[key] = _Bf16Quantizer(fmt, plan, alternative_emax=alternative_emax)
    return kernel


class _Bf16Quantizer:
    """The quantize kernel: the format's constants over this thread's
    :class:`_Workspace`. Operands are 0-d arrays of the operand's type (see
    :func:`_u8`), and full-size arrays where numpy's loop with a 0-d operand is not the
    SIMD one (``maximum`` / ``minimum``)."""

    def __init__(self, fmt: MxFormat, plan: ChunkPlan, *, alternative_emax: bool) -> None:
        info = fmt.info
        self.fmt, self.plan = fmt, plan
        if plan.capacity % 8:
            raise AssertionError("chunks hold whole 8-byte words")
        self.work = _workspace(plan)
        scale_bias = emax_bias(fmt, alternative_emax=alternative_emax)
        mbits = info.mantissa_bits
        step = 1 << mbits
        drop = _BF16_MANTISSA_BITS - mbits
        self.bias, self.mbits = info.bias, mbits
        self.tiny_below = info.bias + mbits + 1
        """E8M0 below this: a tiny block."""
        zero_clamp = 128 // step
        self.huge_from = 256 - zero_clamp + info.bias
        """E8M0 from this on: a huge block (every Inf / NaN block among them)."""
        if not self.tiny_below < self.huge_from <= 255 - scale_bias:
            raise AssertionError("the special-block bounds must cover every Inf / NaN block")
        self.fp8 = info.bits == 8
        self.grid_row = int(np.prod(plan.grid[1:], dtype=np.int64))
        self.seven = np.array(_BF16_MANTISSA_BITS, np.uint16)
        self.sign_shift = np.array(16 - info.bits, np.uint16)
        self.sign_mask = _u8(1 << (info.bits - 1))
        self.drop16 = np.array(drop, np.uint16)
        self.byte_lsb = np.array(0x0101, np.uint16)
        self.mantissa_mask = np.array(0x7F7F, np.uint16)
        self.round_half16 = np.array(((1 << (drop - 1)) - 1) * 0x0101, np.uint16)
        self.drop8 = _u8(drop)
        self.exponent_floor = np.full(self.work.blocks, scale_bias + 1, np.uint8)
        self.emax_bias = _u8(scale_bias)
        self.v_offset = _u8(1 - info.bias)
        """E8M0 + this = ``E8M0 - bias + 1``, and ``e`` minus that is ``v = t - 1``."""
        self.subnormal_from = _u8(255 - mbits)
        self.zero = _u8(0)
        self.zero_clamp = _u8(zero_clamp)
        self.step = _u8(step)
        self.step16 = np.array(step, np.uint16)
        self.code_low = np.array(-step, np.int8)
        self.code_high = np.array(info.max_code - step, np.int8)
        self.special_shift = _u8(self.tiny_below)
        self.special_from = self.huge_from - self.tiny_below
        self.no_flags = np.array(0, np.uint64)
        self.all_bytes_one = np.array(0x0101_0101_0101_0101, np.uint64)
        self.tiny_below_u8 = _u8(self.tiny_below)
        self.magnitude16 = np.array(0x7FFF, np.uint16)
        self.zero16 = np.array(0, np.uint16)

    def block_max(self, exponent: np.ndarray, tree: tuple | None, rows: int) -> np.ndarray:
        """The exponent bytes' maximum per block, flat: :class:`_SlidingMax` along the
        last axis where it applies (``tree``, its views), numpy's reduce over the other
        interleaved block axes, if any, of its result or else of the bytes."""
        plan = self.plan
        if tree is None:
            axes = tuple(range(1, 2 * len(plan.shape), 2))
            return exponent.reshape(plan.interleaved(rows)).max(axis=axes).reshape(-1)
        windows = _SlidingMax.run(tree)
        if plan.last_axis_only:
            return windows
        axes = tuple(range(1, 2 * len(plan.shape) - 2, 2))
        return windows.reshape(plan.interleaved(rows)[:-1]).max(axis=axes).reshape(-1)

    def _sign_bytes(self, bits: np.ndarray, start: int, stop: int, out: np.ndarray) -> None:
        """``(uint8)(bits >> (16 - element bits))`` of elements ``[start, stop)``. For
        FP8 that is each element's high byte: the uint16 view of the bytes from one byte
        in (odd, so unaligned) cast to uint8 keeps exactly those, a plain narrowing copy
        at half the cost of a shift into a narrower type; the array's last element has
        no byte after it and is done alone."""
        if not self.fp8:
            np.right_shift(bits[start:stop], self.sign_shift, out=out, casting="unsafe")
            return
        last = min(stop, bits.size - 1)
        raw = bits.view(np.uint8)[2 * start + 1 : 2 * last + 1]
        np.copyto(out[: last - start], raw.view(np.uint16), "unsafe")
        if last < stop:
            out[-1] = bits[last] >> 8

    def run(
        self, bits: np.ndarray, codes: np.ndarray, scale: np.ndarray, chunk: tuple[int, ...]
    ) -> np.ndarray | None:
        """Quantize one chunk of the flat ``bits`` into ``codes`` / ``scale``. Returns
        the flat indices of the 8-element words of ``codes`` that hold an element the
        reference must redo, if any."""
        start, stop, block_start, block_stop = chunk
        n = stop - start
        views = self.work.chunk_views(n)
        (exponent, mantissa, pairs, odd, flag, flag_words, words, special, v, v_pairs,
         per_block, tree) = views[:12]  # fmt: skip
        src, out = bits[start:stop], codes[start:stop]
        e8m0 = scale[block_start:block_stop]
        rows = (block_stop - block_start) // self.grid_row

        # The low byte (the mantissa below e's lowest bit) and the exponent byte
        # e = (uint8)(fp32_bits >> 23) = (bf16_bits >> 7) mod 256.
        np.copyto(mantissa, src, "unsafe")
        np.right_shift(src, self.seven, out=exponent, casting="unsafe")

        # RNE of the mantissa to mantissa_bits: 0 .. 2**mbits (the carry included), two
        # bytes at a time in uint16 lanes (numpy's 16-bit shifts are faster than its
        # 8-bit ones); a byte sum is at most 0x7F + 0x20, so nothing carries across. The
        # last shift is a byte one: a uint16 one would need a mask after it.
        np.right_shift(pairs, self.drop16, odd)
        np.bitwise_and(odd, self.byte_lsb, odd)
        np.bitwise_and(pairs, self.mantissa_mask, pairs)
        np.add(pairs, odd, pairs)
        np.add(pairs, self.round_half16, pairs)
        np.right_shift(mantissa, self.drop8, mantissa)

        # E8M0 = max(1, max(0, maxExp - emaxBias)) = max(maxExp, emaxBias + 1) - emaxBias.
        maxima = self.block_max(exponent, tree, rows)
        np.maximum(maxima, self.exponent_floor[: e8m0.size], out=e8m0)
        np.subtract(e8m0, self.emax_bias, e8m0)

        # v = e - (E8M0 - bias + 1) = t - 1 (mod 256), per element.
        np.add(e8m0, self.v_offset, per_block)
        np.subtract(exponent, _expand_bytes(per_block, v, self.plan, rows), v)

        # Subnormal results (t in [-mbits, 0]): flag their 8-element words.
        np.greater_equal(v, self.subnormal_from, out=flag)
        np.not_equal(flag_words, self.no_flags, out=words)

        # Tiny and huge blocks: flag all their words, but for the words of +-0 alone in a
        # tiny block (all-zero blocks: padding tokens), whose codes are their signs.
        np.subtract(e8m0, self.special_shift, per_block)
        signs_only = None
        if per_block.max() >= self.special_from:
            np.greater_equal(per_block, self.special_from, out=per_block.view(np.bool_))
            expanded = _expand_bytes(per_block, special, self.plan, rows)
            words |= expanded.view(np.uint64) != 0
            signs_only = self._zeros_in_tiny_blocks(src, e8m0, rows, views[12:])
            if signs_only is not None:
                words &= signs_only.view(np.uint64) != self.all_bytes_one

        # code = clip_int8((min(v, B) << mbits) + RNE(m), -step, max_code - step) + step:
        # the normal codes, saturated, and 0 for t < -mbits. min(v, B) * step is at most
        # 128, so the multiply runs in uint16 lanes (numpy has no SIMD byte multiply)
        # without a carry across bytes.
        v.clip(self.zero, self.zero_clamp, out=v)
        np.multiply(v_pairs, self.step16, v_pairs)
        np.add(v, mantissa, v)
        v.view(np.int8).clip(self.code_low, self.code_high, out=out.view(np.int8))
        np.add(out, self.step, out)

        # The sign bit (its byte goes where the mantissa was).
        self._sign_bytes(bits, start, stop, mantissa)
        np.bitwise_and(mantissa, self.sign_mask, mantissa)
        np.bitwise_or(out, mantissa, out)
        if signs_only is not None:
            np.copyto(out, mantissa, where=signs_only)

        flagged = np.flatnonzero(words)
        return flagged + start // 8 if flagged.size else None

    def _zeros_in_tiny_blocks(
        self,
        src: np.ndarray,
        e8m0: np.ndarray,
        rows: int,
        buffers: tuple[np.ndarray, ...],
    ) -> np.ndarray | None:
        """Which elements are +-0 in a tiny block (None if no block is tiny): the
        reference narrows ``+-0 * prescale`` (a finite prescale there) to the code of
        +-0, the sign alone. (In a huge block the prescale may be NaN: not so there.)"""
        out, tiny, tiny_blocks, magnitude = buffers
        np.less(e8m0, self.tiny_below_u8, out=tiny_blocks.view(np.bool_))
        if not tiny_blocks.any():
            return None
        in_tiny = _expand_bytes(tiny_blocks, tiny, self.plan, rows).view(np.bool_)
        np.bitwise_and(src, self.magnitude16, out=magnitude)
        np.equal(magnitude, self.zero16, out=out)
        np.logical_and(out, in_tiny, out=out)
        return out


def _block_index(flat_index: np.ndarray, plan: ChunkPlan) -> np.ndarray:
    """Flat grid index of the block holding each flat element index (a 2-D geometry,
    the physical block's, from the row and column directly: ``unravel_index`` and
    ``ravel_multi_index`` cost more than the arithmetic on a few indices)."""
    if plan.last_axis_only:
        return flat_index // plan.block[-1]
    if len(plan.shape) == 2:
        row, column = np.divmod(flat_index, plan.shape[1])
        row //= plan.block[0]
        row *= plan.grid[1]
        column //= plan.block[1]
        row += column
        return row
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
    """Recompute every element of the flagged 8-element words that has a subnormal
    result or sits in a tiny or huge block; the other elements of those words are
    already right. Tiny and huge blocks go through the reference (widen, prescale,
    narrow); a subnormal result in any other block is looked up in
    :func:`_subnormal_codes` (the reference's codes of every sign, ``t`` and ``m``)."""
    src = bits.reshape(-1, 8)[words]
    if plan.last_axis_only:
        # Blocks of a multiple of 8 along the last axis: a word lies in one block.
        e8m0 = scale.reshape(-1)[words // (plan.block[-1] // 8)][:, None]
    else:
        e8m0 = scale.reshape(-1)[_block_index(words[:, None] * 8 + np.arange(8), plan)]
    target = ((src >> 7) & 0xFF).astype(np.int16) - e8m0.astype(np.int16) + kernel.bias
    special = (e8m0 < kernel.tiny_below) | (e8m0 >= kernel.huge_from)
    subnormal = (target >= -kernel.mbits) & (target <= 0)
    if special.any():
        subnormal &= ~special
        word, lane = np.nonzero(np.broadcast_to(special, src.shape))
        wide = src[word, lane].view(ml_dtypes.bfloat16).astype(np.float32)
        prescale = prescale_multiplier(np.broadcast_to(e8m0, src.shape)[word, lane])
        with np.errstate(invalid="ignore"):
            codes[words[word] * 8 + lane] = narrow(wide * prescale, kernel.fmt)
    word, lane = np.nonzero(subnormal)
    if word.size:
        element = src[word, lane]
        row = (element >> 15) * (kernel.mbits + 1) + (target[word, lane] + kernel.mbits)
        codes[words[word] * 8 + lane] = _subnormal_codes(kernel.fmt)[row, element & 0x7F]


@cache
def _subnormal_codes(fmt: MxFormat) -> npt.NDArray[np.uint8]:
    """The reference's code of every result in the subnormal range of a block that is
    neither tiny nor huge, ``[2 * (mbits + 1), 128]``: row ``sign * (mbits + 1) + t +
    mbits`` for target exponent ``t`` in ``[-mbits, 0]``, column the bf16 mantissa
    ``m``. The element is a normal bf16 there (``e >= E8M0 - bias - mbits >= 1``) and
    its prescale exact, so the narrowed value is ``+-(1 + m / 128) * 2**(t - bias)``."""
    mbits, bias = fmt.info.mantissa_bits, fmt.info.bias
    sign = np.array([1.0, -1.0])[:, None, None]
    exponent = np.arange(-mbits, 1)[None, :, None] - bias
    significand = 1.0 + np.arange(128)[None, None, :] / 128
    values = (sign * np.ldexp(significand, exponent)).astype(np.float32)
    return narrow(values, fmt).reshape(2 * (mbits + 1), 128)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def quantize_threads(threads: int | None = None) -> int:
    """The thread count of the bf16 quantize: ``threads`` if given (anything but a
    positive integer is a ValueError), else ``$MXDSL_QUANTIZE_THREADS`` if set, else
    :func:`available_cpus`. A setting that is not a positive integer is warned about
    (once: a RuntimeWarning naming the variable, not a traceback from deep inside an
    interpreter) and the available CPUs are used."""
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(
                f"threads must be a positive integer (1 = no threads), got {threads!r}"
            )
        return threads
    setting = os.environ.get(THREADS_ENV, "").strip()
    if not setting:
        return available_cpus()
    if setting.isdecimal() and int(setting) >= 1:
        return int(setting)
    if setting not in _WARNED:
        _WARNED.add(setting)
        warnings.warn(
            f"${THREADS_ENV}={setting!r} is not a positive integer (1 = no threads); "
            f"using {available_cpus()} (every available CPU). Set it to a count or unset it.",
            RuntimeWarning,
            stacklevel=2,
        )
    return available_cpus()


_WARNED: set[str] = set()


class _Pool:
    """One process-wide pool of worker threads, grown on demand and never shrunk: the
    threads (and the per-thread workspaces they keep) are reused from call to call.
    Its tasks never wait on one another, so concurrent callers only queue."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.executor: ThreadPoolExecutor | None = None
        self.workers = 0

    def start(self, count: int, work: Callable[[], None]) -> list[Future[None]]:
        """Run ``work`` in ``count`` pool threads."""
        with self.lock:
            if self.executor is None or self.workers < count:
                if self.executor is not None:
                    self.executor.shutdown(wait=False)  # its queued tasks still run
                self.executor = ThreadPoolExecutor(count, thread_name_prefix="mxdsl-quantize")
                self.workers = count
            return [self.executor.submit(work) for _ in range(count)]

    def forget(self) -> None:
        """Drop the executor without joining it: in a forked child its threads do not
        exist (the next call builds a new one)."""
        self.lock = threading.Lock()
        self.executor, self.workers = None, 0


_POOL = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_POOL.forget)


def _run_chunks(
    kernel: _Bf16Quantizer,
    make_kernel: Callable[[], _Bf16Quantizer],
    bits: np.ndarray,
    codes: np.ndarray,
    scale: np.ndarray,
    chunks: list[tuple[int, int, int, int]],
    threads: int,
) -> list[np.ndarray]:
    """Run the kernel over every chunk in ``threads`` threads: the caller (with
    ``kernel``) and ``threads - 1`` pool threads (each with its own kernel from
    ``make_kernel``, so its own workspace), taking chunks in turn from a shared
    counter (a preempted thread leaves its share to the other). Chunks are whole
    block-rows, so each block is computed by one thread exactly as by one thread alone.
    Returns the flagged words of every chunk in chunk order. An exception in any thread
    stops the others after their current chunk and is raised here once all have
    stopped."""
    flagged: list[np.ndarray | None] = [None] * len(chunks)
    indices = iter(range(len(chunks)))
    lock = threading.Lock()
    failed = threading.Event()

    def run(worker: _Bf16Quantizer) -> None:
        try:
            while not failed.is_set():
                with lock:
                    index = next(indices, None)
                if index is None:
                    return
                flagged[index] = worker.run(bits, codes, scale, chunks[index])
        except BaseException:
            failed.set()
            raise

    futures = _POOL.start(threads - 1, lambda: run(make_kernel())) if threads > 1 else []
    error: BaseException | None = None
    try:
        run(kernel)
    except BaseException as exc:
        error = exc
    for future in futures:
        error = error or future.exception()
    if error is not None:
        raise error
    return [words for words in flagged if words is not None]


def quantize_bf16(
    x: np.ndarray,
    fmt: MxFormat,
    block_shape: Sequence[int],
    *,
    alternative_emax: bool = False,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """The fast path of :func:`mxdsl.numerics.reference.quantize_mx_reference` for a
    bfloat16 ``x``; returns the same ``(codes, scale)`` bit for bit, whatever the thread
    count. ``threads`` (default: :func:`quantize_threads`) bounds the threads sharing
    the chunks; inputs under :data:`MIN_THREADED_ELEMENTS` run in the caller alone."""
    count = quantize_threads(threads)
    plan = ChunkPlan.of(x.shape, block_shape)
    bits = np.ascontiguousarray(x).view(np.uint16).reshape(-1)
    codes = np.empty(bits.size, np.uint8)
    scale = np.empty(bits.size // plan.block_volume, np.uint8)
    chunks = plan.flat_chunks()
    count = 1 if bits.size < MIN_THREADED_ELEMENTS else min(count, len(chunks))

    def make_kernel() -> _Bf16Quantizer:
        return _kernel(fmt, plan, alternative_emax)

    kernel = make_kernel()
    flagged = _run_chunks(kernel, make_kernel, bits, codes, scale, chunks, count)
    if flagged:
        _redo_flagged_words(np.concatenate(flagged), bits, codes, scale, plan, kernel)
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

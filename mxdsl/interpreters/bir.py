"""Interpreter functions for the ``bir`` dialect: the BIR simulator twin (``docs/bir.md``).

**Memory is bytes.** Each interpreter (each SPMD core) owns an SBUF and a PSUM, numpy
``uint8`` arrays of ``[128, bytes per partition]``, created on first use, as wide as the
instructions have reached (up to the capacity) and filled with ``0xFF`` (a read before a
write is NaN in every float dtype, -1 / the maximum in the integer ones). HBM tensors
are the kernel's ``memref`` values (numpy arrays, shared by all cores); an instruction
sees one as its flat little-endian bytes, so a write lands in the caller's array.

**Access patterns.** Every instruction reads and writes through its ``#bir.ap``s: the
pattern's byte addresses are built as index arrays (one strided slice per partition
when the pattern is contiguous) and the bytes are viewed as the dtype code's numpy type
(ml_dtypes for bf16 / fp8 / E8M0; ``uint32`` / ``uint16`` containers for the x4 dtypes,
lane 0 in the low byte, as the nisa interpreter holds them). Values come out as
``[np, elements per partition]`` (HBM: ``[1, elements]``), element order as in the
dialect. No per-element Python loops.

**Matmuls** into f32 PSUM are deferred and batched by moving operand, their SBUF
operands analysed once and kept until another instruction touches their bytes
(:class:`Machine`), as the nisa interpreter does inside planned loops; MX operands are
the nisa interpreter's (K lane-major, :func:`mx_pe_operand`).

**Arithmetic** is nisa's, call for call (:mod:`mxdsl.interpreters.nisa`: the ALU table,
the f32 / exact-integer compute domain, the activation functions, ``round_to``), so a
program lowered from nisa to bir computes the same bits. MX arithmetic is
:mod:`mxdsl.numerics`; ``quantize_mx`` follows ``visitInstQuantizeMx`` step by step
(:func:`quantize_mx_tile`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.builtin import scalar_attr
from xdsl.ir import Attribute, Operation, SSAValue

from mxdsl.dialects import bir
from mxdsl.dialects.bir import AccessPatternAttr, Dtype
from mxdsl.interpreters import OpInterpretationError, is_float_dtype, round_to
from mxdsl.interpreters.engines import (
    ACTIVATIONS,
    F32,
    REDUCE,
    alu,
    as_f64,
    compute_domain,
    in_domain,
    scalar_in_domain,
    scalar_operand,
    to_f32,
    wrap_i32,
)
from mxdsl.interpreters.fast_path import fast_path
from mxdsl.interpreters.index import as_int
from mxdsl.interpreters.nisa import core_context, write_pass
from mxdsl.numerics.blocks import PHYSICAL_BLOCK_SHAPE, block_max, expand_blocks
from mxdsl.numerics.formats import MxFormat
from mxdsl.numerics.matmul import (
    PeOperand,
    PePass,
    mx_matmul_operand,
    pe_operand,
    pe_pass,
    pe_pass_into,
    pe_passes_into,
)
from mxdsl.numerics.matmul import mx_pe_operand as numerics_mx_pe_operand
from mxdsl.numerics.narrow import decode_e2m1, encode_e2m1, narrow, narrow_fp8
from mxdsl.numerics.packing import (
    pack_fp4_x4,
    pack_fp8_x4,
    scale_row_slot,
    unpack_fp4_x4,
    unpack_fp8_x4,
)
from mxdsl.numerics.quantize import quantize_mx
from mxdsl.numerics.reference import (
    e8m0_from_max_exponent,
    exponent_bytes,
    prescale_multiplier,
)

_BF16 = np.dtype(ml_dtypes.bfloat16)

UNINITIALIZED_BYTE = 0xFF
"""What SBUF and PSUM hold before the first write."""

NUMPY_DTYPES: dict[Dtype, np.dtype[Any]] = {
    Dtype.UINT8: np.dtype(np.uint8),
    Dtype.FLOAT4_E2M1FN_X4: np.dtype("<u2"),
    Dtype.FLOAT8_E3M4: np.dtype(ml_dtypes.float8_e3m4),
    Dtype.FLOAT8_E4M3: np.dtype(ml_dtypes.float8_e4m3),
    Dtype.FLOAT8_E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    Dtype.FLOAT8_E5M2: np.dtype(ml_dtypes.float8_e5m2),
    Dtype.FLOAT8_E4M3FN_X4: np.dtype("<u4"),
    Dtype.FLOAT8_E5M2_X4: np.dtype("<u4"),
    Dtype.BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    Dtype.FLOAT16: np.dtype("<f2"),
    Dtype.INT8: np.dtype(np.int8),
    Dtype.INT16: np.dtype("<i2"),
    Dtype.UINT16: np.dtype("<u2"),
    Dtype.FLOAT8_E8M0FNU: np.dtype(ml_dtypes.float8_e8m0fnu),
    Dtype.FLOAT32: np.dtype("<f4"),
    Dtype.INT32: np.dtype("<i4"),
    Dtype.UINT32: np.dtype("<u4"),
}
"""The numpy type of one access-pattern element of each dtype code."""

MX_FORMATS: dict[Dtype, MxFormat] = {
    Dtype.FLOAT4_E2M1FN_X4: MxFormat.E2M1,
    Dtype.FLOAT8_E4M3FN: MxFormat.E4M3FN,
    Dtype.FLOAT8_E5M2: MxFormat.E5M2,
    Dtype.FLOAT8_E4M3FN_X4: MxFormat.E4M3FN,
    Dtype.FLOAT8_E5M2_X4: MxFormat.E5M2,
}
"""The MX element format of each quantize / MX-matmul data dtype (the EMAX table's key)."""


def numpy_dtype(dtype: Dtype) -> np.dtype[Any]:
    return NUMPY_DTYPES[dtype]


# --------------------------------------------------------------------------- memory


class Machine:
    """One core's on-chip memory: SBUF and PSUM as ``[128, bytes per partition]``, the
    bytes of the current target's partitions (``mxdsl.targets``, ``--target``).

    Matmuls are deferred (:meth:`defer`): consecutive PE passes into f32 PSUM tiles that
    share their moving operand run as one :func:`pe_passes_into` batch (one float64
    matmul), as the nisa interpreter runs an iteration of a read-only loop. Their SBUF
    operands are analysed once (:meth:`operand`) and kept while no other instruction
    touches the SBUF bytes they were read from (as the nisa interpreter keeps a planned
    loop's operands until a write to their buffer). :meth:`memory` is every other
    instruction's access to on-chip memory: it runs the deferred passes first and
    forgets the analysed operands read from the bytes it touches, so every reader and
    writer of SBUF / PSUM (``sbuf`` / ``psum`` included) sees the memory as if each pass
    had run at once, and no operand outlives a change of its bytes."""

    def __init__(self) -> None:
        self._memories: dict[bir.Memory, np.ndarray] = {}
        self._pending: list[PePass] = []
        self._moving: PeOperand | None = None
        self._operands: dict[tuple[Any, ...], PeOperand] = {}
        # per analysed operand, the SBUF granules it read (bit g: bytes [64 g, 64 g + 64)
        # of any partition), and their union
        self._granules: dict[tuple[Any, ...], int] = {}
        self._read: int = 0

    def array(self, memory: bir.Memory, used: int | None = None) -> np.ndarray:
        """The memory's array as it is (deferred passes not run), holding at least the
        bytes ``[0, used)`` of every partition (all of them by default).

        The array is only as wide as the instructions so far have reached, and grows
        (doubling, up to the capacity; the new bytes are 0xFF) when one reaches further:
        a kernel using 35 KiB of the 256 KiB per partition never pays for the rest (the
        allocation and page faults of 34 MiB per core were a third of a MoE run).
        :class:`Region` reads the array anew on every access, so a region made before a
        growth writes to the grown array."""
        capacity = bir.partition_capacity(memory)  # --target's
        need = capacity if used is None else min(capacity, -(-max(used, 1) // _FILL) * _FILL)
        array = self._memories.get(memory)
        width = 0 if array is None else array.shape[1]
        if need <= width:
            assert array is not None
            return array
        self.flush()  # deferred passes write through views of the old PSUM
        grown = np.empty((bir.PARTITIONS, min(capacity, max(need, 2 * width))), np.uint8)
        if array is not None:
            grown[:, :width] = array
        grown[:, width:] = UNINITIALIZED_BYTE
        self._memories[memory] = grown
        return grown

    def memory(
        self, memory: bir.Memory, used: int | None = None, span: tuple[int, int] | None = None
    ) -> np.ndarray:
        """The memory's array, for an instruction other than a matmul, which may read and
        write the bytes ``span`` = ``[low, high)`` of any of its partitions (``None``: any
        byte). The deferred passes are run first; an SBUF access forgets the analysed
        operands read from bytes in ``span`` (they may change now). Matmul operands are
        in SBUF (the verifier's rule), so a PSUM access forgets none."""
        self.flush()
        if self._operands and memory == bir.Memory.SBUF:
            self._forget(span)
        return self.array(memory, used)

    def _forget(self, span: tuple[int, int] | None) -> None:
        """Forget the analysed operands that read SBUF bytes in ``span`` (all: ``None``),
        to the granule (:data:`_GRANULE`: an operand within the same granules as
        ``span`` but not its bytes is forgotten too). Most accesses touch no operand's
        granules: one integer AND against their union tells."""
        if span is None:
            self._operands.clear()
            self._granules.clear()
            self._read = 0
            return
        touched = _granules(*span)
        if not touched & self._read:
            return
        granules = self._granules
        for key in [key for key, read in granules.items() if read & touched]:
            del self._operands[key], granules[key]
        self._read = 0
        for read in granules.values():
            self._read |= read

    def operand(
        self,
        key: tuple[Any, ...],
        analyse: Callable[[], PeOperand],
        spans: tuple[tuple[int, int], ...],
    ) -> PeOperand:
        """``analyse()``, or the operand analysed for the same ``key`` (the patterns read,
        by value, and their run-time positions) while no other instruction touched the
        SBUF bytes ``spans`` (``[low, high)`` of any partition) it reads: one object, so
        passes that share it can share a batch."""
        known = self._operands.get(key)
        if known is not None:
            return known
        if len(self._operands) >= _OPERANDS_MAX:
            self._forget(None)
        operand = self._operands[key] = analyse()
        read = 0
        for low, high in spans:
            read |= _granules(low, high)
        self._granules[key] = read
        self._read |= read
        return operand

    def defer(self, dst: np.ndarray, stationary: PeOperand, moving: PeOperand, acc: bool) -> None:
        """Queue ``dst (=|+=) stationary^T @ moving``, ``dst`` an f32 view of PSUM; a pass
        with another moving operand runs the queued ones first."""
        if self._moving is not moving:
            self.flush()
            self._moving = moving
        self._pending.append(PePass(dst, stationary, acc))

    def flush(self) -> None:
        """Run the deferred passes, in order, as one batch."""
        if not self._pending:
            return
        moving, passes = self._moving, self._pending
        self._moving, self._pending = None, []
        assert moving is not None
        pe_passes_into(moving, passes)

    @property
    def sbuf(self) -> np.ndarray:
        """SBUF after the deferred passes; every analysed operand forgotten (the caller
        may write any byte)."""
        return self.memory(bir.Memory.SBUF)

    @property
    def psum(self) -> np.ndarray:
        return self.memory(bir.Memory.PSUM)


_FILL = 16384
"""The width of an on-chip array is a multiple of this (:meth:`Machine.array`)."""

_OPERANDS_MAX = 64
"""Analysed matmul operands a core keeps at most (cleared when reached)."""

_GRANULE = 64
"""Bytes per partition of one granule of SBUF: :class:`Machine` tracks which bytes its
analysed operands read, and which an instruction touches, to the granule."""


def _granules(low: int, high: int) -> int:
    """The granules holding bytes ``[low, high)`` as the bits of an integer (bit ``g``:
    bytes ``[g * _GRANULE, (g + 1) * _GRANULE)``); 0 when the range is empty."""
    if high <= low:
        return 0
    first, last = low // _GRANULE, (high - 1) // _GRANULE
    return ((1 << (last - first + 1)) - 1) << first


def machine(interpreter: Interpreter) -> Machine:
    """The on-chip memory of the core ``interpreter`` runs."""
    return interpreter.get_data(BirFunctions, "machine", Machine)


def hbm_bytes(op: Operation, array: Any) -> np.ndarray:
    """An HBM tensor's bytes as a ``[1, size]`` uint8 view (writes reach the tensor)."""
    if not isinstance(array, np.ndarray):
        raise OpInterpretationError(op, f"an hbm tensor must be a numpy array, got {array!r}")
    if not array.flags.c_contiguous:
        raise OpInterpretationError(op, "an hbm tensor must be a contiguous array")
    return array.reshape(-1).view(np.uint8).reshape(1, -1)


# --------------------------------------------------------------------- access patterns


@lru_cache(maxsize=4096)
def _element_offsets(pairs: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Element offsets ``sum_k(i_k * step_k)`` of every pattern element, row-major."""
    offsets = np.zeros(1, dtype=np.int64)
    for step, num in pairs:
        offsets = (offsets[:, None] + np.arange(num, dtype=np.int64) * step).reshape(-1)
    offsets.setflags(write=False)
    return offsets


def _byte_columns(pairs: tuple[tuple[int, int], ...], start: int, size: int) -> np.ndarray:
    """``[elements, size]``: the byte columns of every element in one partition."""
    first = start + _element_offsets(pairs) * size
    return first[:, None] + np.arange(size, dtype=np.int64)


class Region:
    """Where a pattern lives: the ``[partitions, bytes]`` array (HBM: ``[1, bytes]``) and
    the first partition (``p0`` plus a run-time partition offset). ``f`` is the
    pattern's :attr:`~mxdsl.dialects.bir.AccessPatternAttr.facts`."""

    __slots__ = ("_array", "_core", "ap", "byte_offset", "capacity", "f", "op", "p0", "role")

    def __init__(
        self,
        op: Operation,
        role: str,
        ap: AccessPatternAttr,
        array: np.ndarray,
        partition_offset: int = 0,
        byte_offset: int = 0,
        core: Machine | None = None,
    ):
        self.op, self.role, self.ap, self._array, self._core = op, role, ap, array, core
        f = self.f = ap.facts
        self.capacity = array.shape[1] if core is None else bir.partition_capacity(f.memory)
        self.byte_offset = byte_offset  # run-time bytes added to ``off``
        self.p0 = f.p0 + partition_offset
        if partition_offset:
            last = self.p0 + (f.np - 1) * f.ps
            if self.p0 < 0 or last >= array.shape[0]:
                raise OpInterpretationError(
                    op,
                    f"{role} partitions {self.p0} .. {last} (with its run-time partition) are "
                    f"outside the {array.shape[0]} partitions of {f.memory.value}",
                )

    @property
    def array(self) -> np.ndarray:
        """The ``[partitions, bytes]`` array (on chip: the core's, as wide as it is now)."""
        if self._core is None:
            return self._array
        return self._core._memories[self.f.memory]  # pyright: ignore[reportPrivateUsage]

    def bounds(self, extra: int) -> tuple[int, int]:
        f = self.f
        start = f.off + extra + self.byte_offset
        low, high = start + f.low, start + f.high
        capacity = self.capacity
        if low < 0 or high > capacity:
            raise OpInterpretationError(
                self.op,
                f"{self.role} touches bytes [{low}, {high}) with its run-time offset, "
                f"outside the {capacity} bytes of its {f.memory.value} "
                f"{'tensor' if f.memory == bir.Memory.HBM else 'partition'}",
            )
        return low, high

    def rows(self, selected: np.ndarray | None) -> Any:
        """The partitions of the pattern (or of the ``selected`` relative ones)."""
        ps = self.f.ps
        if selected is None:
            return slice(self.p0, self.p0 + (self.f.np - 1) * ps + 1, ps)
        return self.p0 + selected * ps

    def row_index(self, selected: np.ndarray | None) -> np.ndarray:
        relative = np.arange(self.f.np) if selected is None else selected
        return self.p0 + relative * self.f.ps

    def read_bytes(self, extra: int = 0, selected: np.ndarray | None = None) -> np.ndarray:
        """``[rows, elements, size]`` uint8 (a copy)."""
        f = self.f
        low, _ = self.bounds(extra)
        rows = self.rows(selected)
        size, count = f.dtype.size, f.epp
        if f.contiguous:
            block = self.array[rows, low : low + count * size]
            return np.ascontiguousarray(block).reshape(-1, count, size)
        columns = _byte_columns(f.pairs, f.off + extra + self.byte_offset, size)
        return np.ascontiguousarray(self.array[rows][:, columns])

    def write_bytes(
        self, raw: np.ndarray, extra: int = 0, selected: np.ndarray | None = None
    ) -> None:
        f = self.f
        low, _ = self.bounds(extra)
        rows = self.rows(selected)
        size, count = f.dtype.size, f.epp
        nrows = f.np if selected is None else len(selected)
        raw = raw.reshape(nrows, count, size)
        if f.contiguous:
            self.array[rows, low : low + count * size] = raw.reshape(nrows, count * size)
            return
        columns = _byte_columns(f.pairs, f.off + extra + self.byte_offset, size)
        self.array[self.row_index(selected)[:, None, None], columns[None]] = raw

    def typed(self, extra: int = 0) -> tuple[np.ndarray, int] | None:
        """The memory as elements of the pattern's dtype and the pattern's first element
        column, when its start is aligned to the element size (the common case: the
        verifier aligns ``off``, lowered run-time offsets keep it); else None."""
        f = self.f
        size = f.dtype.size
        start = f.off + extra + self.byte_offset
        array = self.array
        if start % size or array.shape[1] % size or self.capacity % size:
            return None
        return array.view(NUMPY_DTYPES[f.dtype]), start // size

    def read(self, extra: int = 0, selected: np.ndarray | None = None) -> np.ndarray:
        """``[rows, elements per partition]`` in the dtype code's numpy type (a copy)."""
        f = self.f
        typed = self.typed(extra)
        if typed is None:
            raw = self.read_bytes(extra, selected)
            return raw.view(NUMPY_DTYPES[f.dtype]).reshape(raw.shape[0], raw.shape[1])
        self.bounds(extra)
        elements, first = typed
        rows = self.rows(selected)
        if f.contiguous:
            return np.array(elements[rows, first : first + f.epp])
        return elements[rows][:, first + _element_offsets(f.pairs)]

    def write(self, values: np.ndarray, extra: int = 0, selected: np.ndarray | None = None) -> None:
        f = self.f
        dtype = NUMPY_DTYPES[f.dtype]
        if values.dtype != dtype:
            raise AssertionError(f"writing {values.dtype} through a {dtype} pattern")
        typed = self.typed(extra)
        if typed is None:
            self.write_bytes(np.ascontiguousarray(values).view(np.uint8), extra, selected)
            return
        self.bounds(extra)
        elements, first = typed
        nrows = f.np if selected is None else len(selected)
        if f.contiguous:
            elements[self.rows(selected), first : first + f.epp] = values.reshape(nrows, f.epp)
            return
        columns = first + _element_offsets(f.pairs)
        rows = self.row_index(selected)
        elements[rows[:, None], columns[None, :]] = values.reshape(nrows, -1)


Runtime = dict[str, tuple[int, int]]
"""Run-time offsets of an instruction's patterns: role -> (bytes, partitions)."""


class _OpPlan:
    """What an instruction's run needs from its operation, worked out once: the
    position in its operand list of each run-time key's value, and of named operands
    (``dst_tensor``, ``src_offset``, ...; the xDSL accessors cost more than the work of
    a small instruction)."""

    __slots__ = ("op", "runtime", "slots")

    def __init__(self, op: Operation) -> None:
        self.op = op
        self.slots: dict[str, int | None] = {}
        keys = bir.runtime_keys(op)
        values = bir.runtime_operands(op)
        self.runtime = tuple(
            (role, partition, self._position(value))
            for (role, partition), value in zip(keys, values, strict=True)
        )

    def _position(self, value: SSAValue) -> int:
        # the first use of the value: a value used twice has the same argument both times
        return next(i for i, v in enumerate(self.op.operands) if v is value)

    def arg(self, args: PythonValues, name: str) -> Any:
        """The argument of the optional operand ``name`` (None when absent)."""
        slot = self.slots.get(name, -1)
        if slot == -1:
            value = getattr(self.op, name)
            slot = self.slots[name] = None if value is None else self._position(value)
        return None if slot is None else args[slot]


_PLANS: dict[int, _OpPlan] = {}
_PLANS_MAX = 1 << 16


def _plan(op: Operation) -> _OpPlan:
    """The :class:`_OpPlan` of ``op`` (by identity; the plan holds the op)."""
    plan = _PLANS.get(id(op))
    if plan is None or plan.op is not op:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        plan = _PLANS[id(op)] = _OpPlan(op)
    return plan


def _runtime(op: Operation, args: PythonValues) -> Runtime:
    """The values of ``op``'s ``runtime`` operands by role (``docs/bir.md``)."""
    keys = _plan(op).runtime
    if not keys:
        return {}
    out: Runtime = {}
    for role, partition, slot in keys:
        moved_bytes, partitions = out.get(role, (0, 0))
        amount = as_int(args[slot])
        out[role] = (
            (moved_bytes, partitions + amount) if partition else (moved_bytes + amount, partitions)
        )
    return out


def _region(
    interpreter: Interpreter,
    op: Operation,
    role: str,
    ap: AccessPatternAttr,
    tensor: Any = None,
    partition_offset: int = 0,
    runtime: Runtime | None = None,
    matmul: bool = False,
    byte_offset: int = 0,
    indexed: bool = False,
) -> Region:
    """``ap`` of ``op`` moved by its run-time keys (and ``partition_offset`` /
    ``byte_offset``). ``matmul``: for a matmul's own patterns, which leave its deferred
    passes queued (:class:`Machine`). An HBM pattern is reported to the SPMD race
    checker as read (written for ``dst`` roles), unless ``indexed`` (an indirect DMA's
    indexed side, reported with its indices by the DMA)."""
    moved_bytes, partitions = runtime.get(role, (0, 0)) if runtime else (0, 0)
    moved_bytes += byte_offset
    f = ap.facts
    if f.memory == bir.Memory.HBM:
        data = hbm_bytes(op, tensor)
        context = core_context(interpreter)
        if context.races is not None and not indexed:
            context.races.access_pattern(
                context.rank,
                op,
                data,
                f.off + moved_bytes,
                f.pairs,
                f.dtype.size,
                role.startswith("dst"),
            )
        return Region(op, role, ap, data, byte_offset=moved_bytes)
    core = machine(interpreter)
    start = f.off + moved_bytes
    used = start + f.high
    if matmul:
        memory = core.array(f.memory, used)
    else:  # what the instruction may touch through the pattern: [low, high) of its bytes
        memory = core.memory(f.memory, used, (start + f.low, used))
    return Region(op, role, ap, memory, partition_offset + partitions, moved_bytes, core)


def destination_value(interpreter: Interpreter, op: Operation, args: PythonValues) -> Any:
    """What ``op`` wrote to its ``dst`` access pattern, read back after it ran (a copy,
    ``[partitions, elements]``), for value traces; None for an op without a single
    ``dst`` pattern (``dma_indirect``'s indexed side, ops writing no pattern)."""
    ap = op.properties.get("dst")
    if not isinstance(ap, AccessPatternAttr) or isinstance(op, bir.DmaIndirectOp):
        return None
    if isinstance(op, bir.DmaOp):
        region = _region(
            interpreter,
            op,
            "dst",
            ap,
            _tensor(op, args, "dst_tensor"),
            _index(op, args, "dst_partition"),
            byte_offset=_index(op, args, "dst_offset"),
        )
    else:
        region = _region(interpreter, op, "dst", ap, runtime=_runtime(op, args))
    return region.read()


def _indexed_columns(
    ap: AccessPatternAttr, dim: int, index: np.ndarray, valid: np.ndarray, extra: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Byte columns ``[kept, size]`` of an indexed (hbm) pattern whose pair ``dim``
    visits ``index[i] * step``, and the enumeration positions kept (valid indices)."""
    pairs = ap.get_pairs()
    offsets = np.zeros((1,) * len(pairs), dtype=np.int64)
    keep = np.ones((1,) * len(pairs), dtype=np.bool_)
    for k, (step, num) in enumerate(pairs):
        shape = [1] * len(pairs)
        shape[k] = num
        if k == dim:
            coordinates = np.where(valid, index, 0) * step
            keep = keep & valid.reshape(shape)
        else:
            coordinates = np.arange(num, dtype=np.int64) * step
        offsets = offsets + coordinates.reshape(shape)
    full = tuple(num for _, num in pairs)
    kept = np.flatnonzero(np.broadcast_to(keep, full))
    size = ap.dtype.size
    first = ap.off + extra + np.broadcast_to(offsets, full).reshape(-1)[kept] * size
    return first[:, None] + np.arange(size, dtype=np.int64), kept


def _indirect_rows(
    indexed: Region,
    direct: Region,
    typed_indexed: tuple[np.ndarray, int],
    typed_direct: tuple[np.ndarray, int],
    dim: int,
    index: np.ndarray,
    valid: np.ndarray,
) -> bool:
    """The common indirect DMA as whole rows (False when it is not that form): the
    indices select the outermost pair of an hbm pattern with non-negative steps, and
    index position i's elements are exactly partition i of a contiguous on-chip
    pattern (``[[row, n], [1, F]]`` against ``np = n``, F per partition). The hbm
    tensor is then a strided ``[rows, ...]`` view and a gather / scatter moves rows
    (``np.take`` / row assignment), the same elements as the element path."""
    ip, dp = indexed.ap, direct.ap
    pairs = ip.get_pairs()
    if (
        dim != 0
        or ip.memory != bir.Memory.HBM
        or not dp.on_chip
        or not dp.is_contiguous()
        or len(index) != pairs[0][1]
        or dp.np != len(index)
        or any(step < 0 for step, _ in pairs)
    ):
        return False
    rest = pairs[1:]
    if dp.elements_per_partition != math.prod(num for _, num in rest):
        return False
    hbm, first = typed_indexed
    kept = None if bool(valid.all()) else np.flatnonzero(valid)
    chosen = index if kept is None else index[kept]
    if chosen.size == 0:
        return True
    rows = int(chosen.max()) + 1
    inner = sum(step * (num - 1) for step, num in rest)
    if first < 0 or first + pairs[0][0] * (rows - 1) + inner >= hbm.shape[1]:
        return False  # outside the tensor: the element path reports it
    flat = hbm[0]
    size = flat.itemsize
    view = np.lib.stride_tricks.as_strided(
        flat[first:],
        shape=(rows, *(num for _, num in rest)),
        strides=(pairs[0][0] * size, *(step * size for step, _ in rest)),
        writeable=indexed.role == "dst",
    )
    direct.bounds(0)
    memory, start = typed_direct
    count = dp.elements_per_partition
    columns = slice(start, start + count)
    partitions = direct.rows(None) if kept is None else direct.p0 + kept * dp.ps
    if indexed.role == "src":  # gather
        moved = convert(np.take(view, chosen, axis=0), memory.dtype)
        memory[partitions, columns] = moved.reshape(-1, count)
    else:  # scatter, rows in order (a repeated index keeps the last)
        moved = convert(memory[partitions, columns], flat.dtype)
        view[chosen] = moved.reshape(len(chosen), *view.shape[1:])
    return True


def _indirect_elements(
    indexed: Region, direct: Region, dim: int, index: np.ndarray, valid: np.ndarray
) -> bool:
    """The indirect DMA with element (not byte) indices, when both sides are aligned to
    their element size; False when they are not (the byte path runs then)."""
    typed_indexed, typed_direct = indexed.typed(), direct.typed()
    if typed_indexed is None or typed_direct is None:
        return False
    if _indirect_rows(indexed, direct, typed_indexed, typed_direct, dim, index, valid):
        return True
    hbm, first = typed_indexed
    pairs = indexed.ap.get_pairs()
    offsets = np.zeros((1,) * len(pairs), dtype=np.int64)
    keep = np.ones((1,) * len(pairs), dtype=np.bool_)
    for k, (step, num) in enumerate(pairs):
        shape = [1] * len(pairs)
        shape[k] = num
        if k == dim:
            coordinates = np.where(valid, index, 0) * step
            keep = keep & valid.reshape(shape)
        else:
            coordinates = np.arange(num, dtype=np.int64) * step
        offsets = offsets + coordinates.reshape(shape)
    full = tuple(num for _, num in pairs)
    flat = first + np.broadcast_to(offsets, full).reshape(-1)
    everything = bool(valid.all())
    kept = None if everything else np.flatnonzero(np.broadcast_to(keep, full))
    if kept is not None:
        flat = flat[kept]
    if flat.size and (flat.min() < 0 or flat.max() >= hbm.shape[1]):
        raise OpInterpretationError(
            indexed.op,
            f"{indexed.role} with its run-time offset reaches outside its "
            f"{indexed.array.shape[1]}-byte tensor",
        )
    direct.bounds(0)
    memory, start = typed_direct
    ap = direct.ap
    per_partition = ap.elements_per_partition
    columns = start + _element_offsets(ap.get_pairs())
    if kept is None:
        rows = (direct.p0 + np.arange(ap.np) * ap.ps)[:, None]
        cols = columns[None, :]
    else:
        rows = direct.p0 + (kept // per_partition) * ap.ps
        cols = columns[kept % per_partition]
    if indexed.role == "src":  # gather
        moved = convert(hbm[0][flat], memory.dtype)
        memory[rows, cols] = moved.reshape(np.broadcast_shapes(rows.shape, cols.shape))
    else:  # scatter
        moved = convert(memory[rows, cols].reshape(-1), hbm.dtype)
        hbm[0][flat] = moved
    return True


def _element_columns(region: Region, elements: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partition rows ``[n]`` and byte columns ``[n, size]`` of the given enumeration
    positions of a pattern."""
    ap = region.ap
    region.bounds(0)
    per_partition = ap.elements_per_partition
    columns = _byte_columns(ap.get_pairs(), ap.off + region.byte_offset, ap.dtype.size)
    rows = region.p0 + (elements // per_partition) * ap.ps
    return rows, columns[elements % per_partition]


def _as_bytes(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.ascontiguousarray(values).view(np.uint8).reshape(shape)


def _tensor(op: Operation, args: PythonValues, name: str) -> Any:
    """The HBM tensor (or None) of ``op``'s optional operand ``name``."""
    return _plan(op).arg(args, name)


def _index(op: Operation, args: PythonValues, name: str) -> int:
    """The ``index`` value of ``op``'s optional operand ``name``, 0 when absent."""
    value = _plan(op).arg(args, name)
    return 0 if value is None else as_int(value)


def _operand_values(op: Operation, args: PythonValues) -> dict[SSAValue | None, Any]:
    return dict(zip(op.operands, args, strict=True))


# ------------------------------------------------------------------------ conversions


def convert(values: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """nisa's DMA conversion: same dtype copies the bits; a float on either side goes
    through f32 (src -> f32 -> dst); integers convert directly."""
    if values.dtype == dtype:
        return values
    if is_float_dtype(dtype) or is_float_dtype(values.dtype):
        return round_to(to_f32(values), dtype)
    return round_to(values, dtype)


def logical_values(values: np.ndarray, dtype: Dtype) -> np.ndarray:
    """An x4 pattern's ``[rows, containers]`` as f32 ``[rows, 4 * containers]``; other
    dtypes unchanged."""
    if dtype == Dtype.FLOAT4_E2M1FN_X4:
        return decode_e2m1(unpack_fp4_x4(values.astype(np.uint16)))
    if dtype.is_x4:
        codes = unpack_fp8_x4(values.astype(np.uint32))
        return codes.view(MX_FORMATS[dtype].dtype).astype(np.float32)
    return values


def cast_values(values: np.ndarray, dtype: Dtype, *, saturate: bool) -> np.ndarray:
    """``CastToNewDType`` of logical values ``[rows, n]`` to ``dtype`` (x4: packed)."""
    if dtype == Dtype.FLOAT4_E2M1FN_X4:
        return pack_fp4_x4(encode_e2m1(to_f32(values)))
    if dtype.is_x4:
        fmt = MX_FORMATS[dtype]
        codes = narrow_fp8(values, fmt) if saturate else _fp8_codes(values, fmt)
        return pack_fp8_x4(codes)
    if saturate:
        return narrow_fp8(values, MX_FORMATS[dtype]).view(numpy_dtype(dtype))
    return convert(values, numpy_dtype(dtype))


def _fp8_codes(values: np.ndarray, fmt: MxFormat) -> np.ndarray:
    return round_to(to_f32(values), fmt.dtype).view(np.uint8)


# ------------------------------------------------------------------------------ MX


def quantize_mx_tile(
    src: np.ndarray, dtype: Dtype, *, alternative_emax: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``visitInstQuantizeMx`` on a ``[P, F]`` tile, step by step (spec
    "MX Microscaling: Quantize, Block-Scaling and E8M0"); the arithmetic is :mod:`mxdsl.numerics`.

    Returns ``(data, scale)``: data in ``dtype``'s numpy type (``[P, F/4]`` containers
    for x4, ``[P, F]`` codes for 5 / 7), scale as E8M0 bytes ``[P/8, F/4]`` (scale row i
    goes to partition ``(i & 3) + 32 * (i >> 2)``, :func:`scale_row_slot`)."""
    fmt = MX_FORMATS[dtype]  # the EMAX table is keyed by the data dtype code
    if src.dtype == _BF16 and fmt.is_fp8:
        # bf16 to FP8: the numerics' vectorised kernel, bit-identical to
        # quantize_mx_reference and so to the steps below (the nisa interpreter's path)
        codes, scale = quantize_mx(
            np.ascontiguousarray(src), fmt, PHYSICAL_BLOCK_SHAPE, alternative_emax=alternative_emax
        )
        return (pack_fp8_x4(codes) if dtype.is_x4 else codes.view(fmt.dtype)), scale
    in2d = src.astype(np.float32)  # cast_to(input -> Dtype 16 = fp32)
    # findMaxExponentPerInputBlock: (uint8)(fp32_bits >> 23), max over 8 x 4.
    max_exponent = block_max(exponent_bytes(in2d), PHYSICAL_BLOCK_SHAPE)
    # doQuantizeMx / generateMxScales: emaxBias = EMAX[dt] (- 1 with MxAlternativeEmaxEn),
    # CLAMP-LOW then ZERO-FLOOR.
    scale = e8m0_from_max_exponent(max_exponent, fmt, alternative_emax=alternative_emax)
    # quantizeDataApplyingMxScales: x * bit_cast<float>((254 - E8M0) << 23).
    multiplier = expand_blocks(prescale_multiplier(scale), PHYSICAL_BLOCK_SHAPE)
    with np.errstate(invalid="ignore", over="ignore"):
        prescaled = in2d * multiplier
    # Memory::write: the narrow (FP8 with saturate forced on; FP4 by the e2m1 encoder).
    codes = narrow(prescaled, fmt)
    if dtype == Dtype.FLOAT4_E2M1FN_X4:
        data = pack_fp4_x4(codes)  # nibbles through the lane remap
    elif dtype.is_x4:
        data = pack_fp8_x4(codes)  # 4 code bytes per container, lane 0 low
    else:
        data = codes.view(fmt.dtype)
    return data, scale


@cache
def scale_rows_of(partitions: int) -> np.ndarray:
    """Partitions (relative to the scale pattern) of scale rows ``0 .. P/8 - 1``
    (one read-only array per ``partitions``: every MX operand and quantize reads it)."""
    rows = scale_row_slot(np.arange(partitions // bir.MX_BLOCK_PARTITIONS))
    rows.flags.writeable = False
    return rows


def _matmul(
    core: Machine, dst: Region, stationary: PeOperand, moving: PeOperand, accumulate: bool
) -> None:
    """``dst (=|+=) stationary[K, M]^T @ moving[K, N]`` as one PE pass
    (:func:`pe_pass_into`: the same bits as :func:`pe_pass` plus an f32 add, skipping the
    work of all-zero columns). Into a contiguous f32 PSUM pattern it is deferred
    (:meth:`Machine.defer`: it may join a batch) and written through a view of PSUM; a
    bf16 dst is widened, added to and rounded once (the nisa interpreter's
    ``_matmul_into``)."""
    _check_bank(dst)
    m, n = stationary.tile.shape[1], moving.tile.shape[1]
    ap = dst.ap
    if (
        ap.dtype == Dtype.FLOAT32
        and ap.is_contiguous()
        and (ap.np, ap.elements_per_partition)
        == (
            m,
            n,
        )
    ):
        low, high = dst.bounds(0)
        view = dst.array[dst.rows(None), low:high].view(F32)
        core.defer(view, stationary, moving, accumulate)
        return
    core.flush()
    if ap.dtype != Dtype.FLOAT32:
        total = to_f32(dst.read()).copy() if accumulate else np.empty((m, n), dtype=F32)
        pe_pass_into(total, stationary, moving, accumulate)
        dst.write(round_to(total, numpy_dtype(ap.dtype)))
        return
    acc = dst.read().copy() if accumulate else np.empty((m, n), dtype=F32)
    pe_pass_into(acc, stationary, moving, accumulate)
    dst.write(acc)


def mx_pe_operand(data: np.ndarray, dtype: Dtype, scale_rows: np.ndarray) -> PeOperand:
    """x4 matmul data ``[P, F]`` (``dtype``'s containers) with its E8M0 scale rows
    ``[P/8, F]`` as a PE operand ``[4P, F]``: :func:`mxdsl.numerics.matmul.mx_pe_operand`,
    the nisa interpreter's ``nc_matmul_mx`` operand. Its values are the fp32
    dequantized elements held as float64 (the element format's codes times a power of
    two: they carry its significand bits, the certificate's precision); its contraction
    index is **lane-major**, ``k' = qP + p`` for partition ``p`` and lane ``q``, not
    the documented ``k = 4p + q``. A PE pass is an exact sum (no order of K is part of
    it), so a pass between two operands of this function is bit for bit the pass of
    ``k = 4p + q``: both operands of every ``matmult_mx`` come from here, never mixed
    with another order."""
    return numerics_mx_pe_operand(_containers(data, dtype), scale_rows, MX_FORMATS[dtype])


def _containers(data: np.ndarray, dtype: Dtype) -> np.ndarray:
    """x4 data as its uint16 (FP4) or uint32 (FP8) containers, contiguous."""
    return np.ascontiguousarray(
        data, dtype=np.uint16 if dtype == Dtype.FLOAT4_E2M1FN_X4 else np.uint32
    )


def _reference_write(dst: Region, product: np.ndarray, accumulate: bool) -> None:
    """One pass's fp32 ``product`` written into (or added to) its PSUM pattern, as
    :func:`mxdsl.interpreters.nisa.write_pass` does (the reference mode's matmuls)."""
    _check_bank(dst)
    values = dst.read().reshape(product.shape).copy()
    write_pass(values, product, accumulate)
    dst.write(values)


def _check_bank(dst: Region) -> None:
    if dst.byte_offset:  # the verifier checked the bank of the static pattern only
        low, high = dst.bounds(0)
        bank = bir.PSUM_BANK_BYTES
        if low // bank != (high - 1) // bank:
            raise OpInterpretationError(
                dst.op,
                f"dst touches bytes [{low}, {high}) of each psum partition with its run-time "
                f"offset, crossing a {bank}-byte bank boundary",
            )


def _scalar(
    interpreter: Interpreter,
    op: Operation,
    role: str,
    operand: Attribute,
    partitions: int,
    runtime: Runtime | None = None,
) -> Any:
    """An immediate as nisa sees it (FloatAttr / int), or a column read as ``[P, 1]``."""
    if isinstance(operand, AccessPatternAttr):
        column = _region(interpreter, op, role, operand, runtime=runtime).read()
        return scalar_operand(column, partitions)
    if isinstance(operand, FloatAttr | IntegerAttr):
        return scalar_operand(operand, partitions)
    raise OpInterpretationError(op, f"{role}: unsupported operand {operand}")


# ------------------------------------------------------------------ the functions


@register_impls
class BirFunctions(InterpreterFunctions):
    """``@impl`` for every ``bir`` instruction. Each one reads its run-time offsets
    (``runtime``) first; a pattern then moves by them (``_region``)."""

    # --------------------------------------------------------- data movement

    @impl(bir.DmaOp)
    def run_dma(self, interpreter: Interpreter, op: bir.DmaOp, args: PythonValues):
        dst_extra = _index(op, args, "dst_offset")
        src_extra = _index(op, args, "src_offset")
        dst_partition = _index(op, args, "dst_partition")
        src_partition = _index(op, args, "src_partition")
        dst_tensor, src_tensor = _tensor(op, args, "dst_tensor"), _tensor(op, args, "src_tensor")
        dst = _region(
            interpreter, op, "dst", op.dst, dst_tensor, dst_partition, byte_offset=dst_extra
        )
        src = _region(
            interpreter, op, "src", op.src, src_tensor, src_partition, byte_offset=src_extra
        )
        moved = convert(src.read().reshape(-1), numpy_dtype(op.dst.dtype))
        dst.write(moved)
        return ()

    @impl(bir.DmaIndirectOp)
    def run_dma_indirect(self, interpreter: Interpreter, op: bir.DmaIndirectOp, args: PythonValues):
        rt = _runtime(op, args)
        scatter = op.scatter is not None
        dst_tensor, src_tensor = _tensor(op, args, "dst_tensor"), _tensor(op, args, "src_tensor")
        dst = _region(interpreter, op, "dst", op.dst, dst_tensor, runtime=rt, indexed=scatter)
        src = _region(interpreter, op, "src", op.src, src_tensor, runtime=rt, indexed=not scatter)
        index_region = _region(interpreter, op, "index", op.index, runtime=rt)
        index = index_region.read().reshape(-1).astype(np.int64)
        bound = op.bound.value.data
        valid = (index >= 0) & (index < bound)
        skip = op.oob_mode.data == bir.OobMode.SKIP
        if not skip and not valid.all():
            bad = int(np.flatnonzero(~valid)[0])
            raise OpInterpretationError(
                op,
                f"indirect DMA index {int(index[bad])} at position {bad} is outside [0, "
                f"{bound}) (oob_mode error; use oob_mode skip to drop such rows)",
            )
        indexed, direct = (dst, src) if scatter else (src, dst)
        if indexed.f.memory != bir.Memory.HBM:  # its indices may reach past its pattern
            machine(interpreter).memory(indexed.f.memory)
        dim = op.indirect_dim.value.data
        context = core_context(interpreter)
        if context.races is not None and indexed.f.memory == bir.Memory.HBM:
            ap = indexed.ap
            context.races.access_indexed(
                context.rank,
                op,
                indexed.array,
                ap.off + indexed.byte_offset,
                ap.get_pairs(),
                ap.dtype.size,
                dim,
                index[valid],
                scatter,
            )
        if _indirect_elements(indexed, direct, dim, index, valid):
            return ()
        indexed_columns, kept = _indexed_columns(indexed.ap, dim, index, valid, indexed.byte_offset)
        if indexed_columns.size and (
            indexed_columns.min() < 0 or indexed_columns.max() >= indexed.array.shape[1]
        ):
            raise OpInterpretationError(
                op,
                f"{indexed.role} with its run-time offset reaches outside its "
                f"{indexed.array.shape[1]}-byte tensor",
            )
        rows, direct_columns = _element_columns(direct, kept)
        if indexed is src:  # gather: dst[e] = src[e, with idx] for every kept element e
            raw = src.array[0][indexed_columns]
            moved = raw.view(numpy_dtype(src.ap.dtype)).reshape(-1)
            converted = convert(moved, numpy_dtype(dst.ap.dtype))
            dst.array[rows[:, None], direct_columns] = _as_bytes(converted, direct_columns.shape)
        else:  # scatter: dst[e, with idx] = src[e]
            raw = src.array[rows[:, None], direct_columns]
            moved = raw.view(numpy_dtype(src.ap.dtype)).reshape(-1)
            converted = convert(moved, numpy_dtype(dst.ap.dtype))
            dst.array[0][indexed_columns] = _as_bytes(converted, indexed_columns.shape)
        return ()

    @impl(bir.DmaComputeOp)
    def run_dma_compute(self, interpreter: Interpreter, op: bir.DmaComputeOp, args: PythonValues):
        """The sources summed in f32 in list order, rounded once to dst (nisa's order)."""
        values = _operand_values(op, args)
        rt = _runtime(op, args)
        total: np.ndarray | None = None
        for i, (ap, tensor) in enumerate(zip(op.srcs.data, op.source_tensors(), strict=True)):
            region = _region(interpreter, op, f"src{i}", ap, values.get(tensor), runtime=rt)
            term = to_f32(region.read()).reshape(-1)
            total = term.copy() if total is None else total + term
        assert total is not None
        dst = _region(interpreter, op, "dst", op.dst, _tensor(op, args, "dst_tensor"), runtime=rt)
        dst.write(round_to(total, dst_np(op.dst)))
        return ()

    @impl(bir.MemsetOp)
    def run_memset(self, interpreter: Interpreter, op: bir.MemsetOp, args: PythonValues):
        dst = _region(interpreter, op, "dst", op.dst, runtime=_runtime(op, args))
        value = round_to(np.array([op.value.value.data], dtype=np.float64), dst_np(op.dst))
        dst.write(np.broadcast_to(value, (op.dst.np, op.dst.elements_per_partition)))
        return ()

    @impl(bir.IotaOp)
    def run_iota(self, interpreter: Interpreter, op: bir.IotaOp, args: PythonValues):
        """``offset + i * channel_multiplier + sum(j_k * step_k)`` in int32, one cast."""
        partitions = op.dst.np
        base = op.offset.value.data + np.arange(partitions, dtype=np.int64) * (
            op.channel_multiplier.value.data
        )
        free = _element_offsets(op.pattern.get_pairs())
        result = (base[:, None] + free[None, :]).astype(np.int32)
        dst = _region(interpreter, op, "dst", op.dst, runtime=_runtime(op, args))
        dst.write(round_to(result, dst_np(op.dst)))
        return ()

    @impl(bir.TensorCopyOp)
    def run_tensor_copy(self, interpreter: Interpreter, op: bir.TensorCopyOp, args: PythonValues):
        rt = _runtime(op, args)
        src = _region(interpreter, op, "src", op.src, runtime=rt).read()
        dtype = dst_np(op.dst)
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(
            src if src.dtype == dtype else round_to(src, dtype)
        )
        return ()

    @impl(bir.TensorCopyPredicatedOp)
    def run_tensor_copy_predicated(
        self, interpreter: Interpreter, op: bir.TensorCopyPredicatedOp, args: PythonValues
    ):
        rt = _runtime(op, args)
        dst = _region(interpreter, op, "dst", op.dst, runtime=rt)
        mask = _region(interpreter, op, "predicate", op.predicate, runtime=rt).read() != 0
        if op.reverse_predicate is not None:
            mask = ~mask
        current = dst.read().copy()
        dtype = dst_np(op.dst)
        if isinstance(op.src, AccessPatternAttr):
            chosen = _region(interpreter, op, "src", op.src, runtime=rt).read()
        else:
            scalar = scalar_operand(op.src, current.shape[0])
            chosen = np.broadcast_to(round_to(np.asarray([scalar]), dtype), current.shape)
        current[mask] = chosen[mask]
        dst.write(current)
        return ()

    @impl(bir.CastOp)
    def run_cast(self, interpreter: Interpreter, op: bir.CastOp, args: PythonValues):
        rt = _runtime(op, args)
        src = logical_values(
            _region(interpreter, op, "src", op.src, runtime=rt).read(), op.src.dtype
        )
        result = cast_values(src, op.dst.dtype, saturate=op.saturate is not None)
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(result)
        return ()

    # ------------------------------------------------------------ matmul / MX

    @impl(bir.MatmultOp)
    def run_matmult(self, interpreter: Interpreter, op: bir.MatmultOp, args: PythonValues):
        rt = _runtime(op, args)
        core = machine(interpreter)
        if not fast_path(interpreter):  # the definition: pe_pass of the widened tiles
            lhs = _region(interpreter, op, "stationary", op.stationary, runtime=rt, matmul=True)
            rhs = _region(interpreter, op, "moving", op.moving, runtime=rt, matmul=True)
            product = pe_pass(lhs.read().T, rhs.read())
            dst = _region(interpreter, op, "dst", op.dst, runtime=rt, matmul=True)
            _reference_write(dst, product, op.accumulate is not None)
            return ()

        def operand(role: str, ap: AccessPatternAttr) -> PeOperand:
            region = _region(interpreter, op, role, ap, runtime=rt, matmul=True)
            key = ("pe", ap.key, region.p0, region.byte_offset)
            # widened to float64 exactly (as to_f32 then float64 would), its dtype kept
            # for the certificate (nisa's nc_matmul does the same)
            return core.operand(key, lambda: pe_operand(region.read(), as_f64), (region.bounds(0),))

        lhs = operand("stationary", op.stationary)
        rhs = operand("moving", op.moving)
        dst = _region(interpreter, op, "dst", op.dst, runtime=rt, matmul=True)
        _matmul(core, dst, lhs, rhs, op.accumulate is not None)
        return ()

    @impl(bir.MatmultMxOp)
    def run_matmult_mx(self, interpreter: Interpreter, op: bir.MatmultMxOp, args: PythonValues):
        rt = _runtime(op, args)
        core = machine(interpreter)

        def operand(role: str, data_ap: AccessPatternAttr, scale_ap: AccessPatternAttr):
            data = _region(interpreter, op, role, data_ap, runtime=rt, matmul=True)
            scale = _region(interpreter, op, f"{role}_scale", scale_ap, runtime=rt, matmul=True)

            def analyse() -> PeOperand:
                rows = scale_rows_of(data_ap.np)
                scale_rows = scale.read_bytes(selected=rows).reshape(len(rows), -1)
                return mx_pe_operand(data.read(), data_ap.dtype, scale_rows)

            key = (
                "mx",
                data_ap.key,
                data.p0,
                data.byte_offset,
                scale_ap.key,
                scale.p0,
                scale.byte_offset,
            )
            return core.operand(key, analyse, (data.bounds(0), scale.bounds(0)))

        if not fast_path(interpreter):  # the definition: pe_pass of the k = 4p + q operands

            def values(role: str, data_ap: AccessPatternAttr, scale_ap: AccessPatternAttr):
                data = _region(interpreter, op, role, data_ap, runtime=rt, matmul=True)
                scale = _region(interpreter, op, f"{role}_scale", scale_ap, runtime=rt, matmul=True)
                rows = scale_rows_of(data_ap.np)
                scale_rows = scale.read_bytes(selected=rows).reshape(len(rows), -1)
                return mx_matmul_operand(
                    _containers(data.read(), data_ap.dtype), scale_rows, MX_FORMATS[data_ap.dtype]
                )

            lhs_values = values("stationary", op.stationary, op.stationary_scale)
            rhs_values = values("moving", op.moving, op.moving_scale)
            dst = _region(interpreter, op, "dst", op.dst, runtime=rt, matmul=True)
            _reference_write(dst, pe_pass(lhs_values, rhs_values.T), op.accumulate is not None)
            return ()
        lhs = operand("stationary", op.stationary, op.stationary_scale)
        rhs = operand("moving", op.moving, op.moving_scale)
        # [M, 4P] x [4P, N]: the products of k = 4p + q, one PE pass (an exact sum), so
        # both operands are read lane-major (k' = qP + p: mx_pe_operand), the same bits.
        dst = _region(interpreter, op, "dst", op.dst, runtime=rt, matmul=True)
        _matmul(core, dst, lhs, rhs, op.accumulate is not None)
        return ()

    @impl(bir.QuantizeMxOp)
    def run_quantize_mx(self, interpreter: Interpreter, op: bir.QuantizeMxOp, args: PythonValues):
        rt = _runtime(op, args)
        src = _region(interpreter, op, "src", op.src, runtime=rt).read()
        # NEPP of the data pattern, x4 for the x4 dtypes {2, 8, 9}: the logical columns.
        columns = op.dst.elements_per_partition * op.dst.dtype.lanes
        if columns != src.shape[1]:
            raise OpInterpretationError(
                op, f"dst holds {columns} logical columns, src has {src.shape[1]}"
            )
        data, scale = quantize_mx_tile(
            src, op.dst.dtype, alternative_emax=op.alternative_emax is not None
        )
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(data)
        rows = scale_rows_of(op.src.np)  # copy2DScaleVectorToArray: (i & 3) + 32 * (i >> 2)
        _region(interpreter, op, "dst_scale", op.dst_scale, runtime=rt).write_bytes(
            scale, selected=rows
        )
        return ()

    # ------------------------------------------------------------ elementwise

    @impl(bir.TensorTensorOp)
    def run_tensor_tensor(
        self, interpreter: Interpreter, op: bir.TensorTensorOp, args: PythonValues
    ):
        rt = _runtime(op, args)
        in0 = _region(interpreter, op, "in0", op.in0, runtime=rt).read()
        in1 = _region(interpreter, op, "in1", op.in1, runtime=rt).read()
        dtype = dst_np(op.dst)
        alu_op = op.op.data
        domain = compute_domain(np.empty(0, dtype), in0, in1, bitwise=alu_op in bir.BITWISE_ALU_OPS)
        result = alu(alu_op, in_domain(in0, domain), in_domain(in1, domain))
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(
            round_to(np.asarray(result), dtype)
        )
        return ()

    @impl(bir.TensorScalarOp)
    def run_tensor_scalar(
        self, interpreter: Interpreter, op: bir.TensorScalarOp, args: PythonValues
    ):
        rt = _runtime(op, args)
        data = _region(interpreter, op, "src", op.src, runtime=rt).read()
        partitions = data.shape[0]
        dtype = dst_np(op.dst)
        bitwise = op.op0.data in bir.BITWISE_ALU_OPS
        operands = [op.operand0] if op.operand1 is None else [op.operand0, op.operand1]
        scalars = [
            _scalar(interpreter, op, f"operand{i}", o, partitions, rt)
            for i, o in enumerate(operands)
        ]
        tiles = [s for s in scalars if isinstance(s, np.ndarray)]
        domain = compute_domain(np.empty(0, dtype), data, *tiles, bitwise=bitwise)
        if not bitwise and any(isinstance(o, FloatAttr) for o in operands):
            domain = F32
        x = in_domain(data, domain)
        s0 = scalar_in_domain(scalars[0], domain)
        x = alu(op.op0.data, s0, x) if op.reverse0 is not None else alu(op.op0.data, x, s0)
        if op.op1 is not None:
            s1 = scalar_in_domain(scalars[1], domain)
            x = alu(op.op1.data, s1, x) if op.reverse1 is not None else alu(op.op1.data, x, s1)
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(round_to(np.asarray(x), dtype))
        return ()

    @impl(bir.ScalarTensorTensorOp)
    def run_scalar_tensor_tensor(
        self, interpreter: Interpreter, op: bir.ScalarTensorTensorOp, args: PythonValues
    ):
        """As nisa: f32 throughout, ``op1(op0(src, s), in1)``, one rounding to dst."""
        rt = _runtime(op, args)
        data = _region(interpreter, op, "src", op.src, runtime=rt).read()
        x = to_f32(data)
        s0 = scalar_in_domain(
            _scalar(interpreter, op, "operand0", op.operand0, data.shape[0], rt), F32
        )
        t = to_f32(_region(interpreter, op, "in1", op.in1, runtime=rt).read())
        x = alu(op.op0.data, s0, x) if op.reverse0 is not None else alu(op.op0.data, x, s0)
        x = alu(op.op1.data, t, x) if op.reverse1 is not None else alu(op.op1.data, x, t)
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(
            round_to(np.asarray(x), dst_np(op.dst))
        )
        return ()

    @impl(bir.ActivationOp)
    def run_activation(self, interpreter: Interpreter, op: bir.ActivationOp, args: PythonValues):
        rt = _runtime(op, args)
        data = _region(interpreter, op, "src", op.src, runtime=rt).read()
        partitions = data.shape[0]
        x = to_f32(data)
        if op.scale is not None:
            scale = _scalar(interpreter, op, "scale", op.scale, partitions, rt)
            x = x * scalar_in_domain(scale, F32)
        if op.bias is not None:
            bias = _scalar(interpreter, op, "bias", op.bias, partitions, rt)
            x = x + scalar_in_domain(bias, F32)
        with np.errstate(all="ignore"):
            y = ACTIVATIONS[op.func.data](np.asarray(x, dtype=F32).astype(np.float64))
        dtype = dst_np(op.dst)
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(
            round_to(np.asarray(y, dtype=np.float64), dtype)
        )
        return ()

    # ------------------------------------------------------ transpose / reduce

    @impl(bir.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: bir.TransposeOp, args: PythonValues):
        rt = _runtime(op, args)
        src = _region(interpreter, op, "src", op.src, runtime=rt).read()
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(np.ascontiguousarray(src.T))
        return ()

    @impl(bir.TensorReduceOp)
    def run_tensor_reduce(
        self, interpreter: Interpreter, op: bir.TensorReduceOp, args: PythonValues
    ):
        rt = _runtime(op, args)
        data = _region(interpreter, op, "src", op.src, runtime=rt).read()
        nums = [num for _, num in op.src.get_pairs()]
        inner = op.inner.value.data
        data = data.reshape(data.shape[0], *nums)
        axes = tuple(range(data.ndim - inner, data.ndim))
        dtype = dst_np(op.dst)
        alu_op = op.op.data
        domain = compute_domain(np.empty(0, dtype), data, bitwise=alu_op in bir.BITWISE_ALU_OPS)
        with np.errstate(all="ignore"):
            result = np.asarray(REDUCE[alu_op](in_domain(data, domain), axis=axes))
            if op.negate is not None:
                result = -result
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(round_to(result, dtype))
        return ()

    # ------------------------------------------------------------------ SPMD

    @impl(bir.SendRecvOp)
    def run_sendrecv(self, interpreter: Interpreter, op: bir.SendRecvOp, args: PythonValues):
        """The src pattern's values ``[np, elements]`` go to the partner (the same SPMD
        exchange as nisa's, :mod:`mxdsl.interpreters.spmd`); what arrives is written
        through dst when the exchange completes."""
        values = _operand_values(op, args)
        rt = _runtime(op, args)
        src = _region(interpreter, op, "src", op.src, runtime=rt).read()
        received = np.empty_like(src)
        send_to, recv_from = as_int(values[op.send_to]), as_int(values[op.recv_from])
        context = core_context(interpreter)
        context.sendrecv(op, received, src, send_to, recv_from)  # pyright: ignore[reportArgumentType]
        _region(interpreter, op, "dst", op.dst, runtime=rt).write(received)
        return ()

    @impl(bir.CoreBarrierOp)
    def run_core_barrier(self, interpreter: Interpreter, op: bir.CoreBarrierOp, args: PythonValues):
        (tensor,) = args
        context = core_context(interpreter)
        context.barrier(op, tensor, op.get_cores())  # pyright: ignore[reportArgumentType]
        return ()

    @impl(bir.RegisterLoadOp)
    def run_register_load(
        self, interpreter: Interpreter, op: bir.RegisterLoadOp, args: PythonValues
    ):
        rt = _runtime(op, args)
        region = _region(
            interpreter, op, "src", op.src, _tensor(op, args, "src_tensor"), runtime=rt
        )
        value = int(region.read().reshape(-1)[0])
        result_type = op.result.type
        if isinstance(result_type, IndexType):
            return (scalar_attr(value, result_type, interpreter.index_bitwidth),)
        return (IntegerAttr(wrap_i32(value), result_type),)


def dst_np(ap: AccessPatternAttr) -> np.dtype[Any]:
    return numpy_dtype(ap.dtype)


__all__ = [
    "NUMPY_DTYPES",
    "BirFunctions",
    "Machine",
    "cast_values",
    "destination_value",
    "logical_values",
    "machine",
    "numpy_dtype",
    "quantize_mx_tile",
]

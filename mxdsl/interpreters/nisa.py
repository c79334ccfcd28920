"""Interpreter functions for the ``nisa`` dialect (see ``docs/nisa-interpreter.md``).

**Buffers.** Every memref value is a numpy array; views are numpy views, so a write
through a ``memref.subview`` / ``expand_shape`` / ``collapse_shape`` lands in the parent.
Element dtypes follow :func:`mxdsl.interpreters.numpy_dtype`, plus:

* ``!nisa.float8_e4m3fn_x4`` / ``!nisa.float8_e5m2_x4``: ``uint32`` containers, lane 0
  in the low byte (the FP8 codes of 4 consecutive logical elements viewed as a
  little-endian word, the hlo interpreter's packing of MX data);
* ``!nisa.float4_e2m1fn_x4``: ``uint16`` containers (the lane order is the numerics'
  FP4 lane permutation; no nisa op here unpacks FP4 yet, see the docs).

``memref.alloc`` fills the new buffer with a sentinel so a read-before-write is visible:
NaN for floats (E8M0 too), all-ones bytes for x4 containers (FP8 NaN codes), and 4 for
integers (as the NKI simulator does).

**Arithmetic.** Engines compute in float32 and round once to the dst dtype
(:func:`mxdsl.interpreters.round_to`, RNE); PSUM accumulation is float32 (a bf16 PSUM
dst is widened, added to, rounded once). Integer-only elementwise ops compute exactly in
int64 and wrap to the dst. Activation functions are evaluated in float64 on the float32
``data * scale + bias`` and rounded once to the dst.

**MX.** ``quantize_mx`` and ``nc_matmul_mx`` call :mod:`mxdsl.numerics` with the physical
block (8 partitions x 4 free elements); scale row ``i`` lives at partition
``(i & 3) + 32 * (i >> 2)`` of a scale tile (the quadrant layout).

**SPMD.** ``program_id``, ``num_programs``, ``sendrecv`` and ``core_barrier`` talk to the
core context installed by :mod:`mxdsl.interpreters.spmd`; without one the program runs
as core 0 of 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
)
from xdsl.interpreter import (
    Interpreter,
    PythonValues,
    register_impls,
)
from xdsl.interpreters.builtin import scalar_attr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import SymbolTable

from mxdsl.dialects import nisa
from mxdsl.interpreters import (
    OpInterpretationError,
    dense_literal_value,
    f32_to_bf16_into,
    is_float_dtype,
    numpy_dtype,
    round_to,
)
from mxdsl.interpreters.engines import (
    ACTIVATIONS as _ACTIVATIONS,
)
from mxdsl.interpreters.engines import (
    F32,
    alu,
    to_f32,
)
from mxdsl.interpreters.engines import REDUCE as _REDUCE
from mxdsl.interpreters.engines import compute_domain as _compute_domain
from mxdsl.interpreters.engines import in_domain as _in_domain
from mxdsl.interpreters.engines import scalar_in_domain as _scalar_in_domain
from mxdsl.interpreters.engines import scalar_operand as _scalar_operand
from mxdsl.interpreters.engines import wrap_i32 as _wrap_i32
from mxdsl.interpreters.fast_path import fast_path
from mxdsl.interpreters.index import IndexFunctions, as_int, direct_impl
from mxdsl.interpreters.nisa_engine import LoopEngine
from mxdsl.numerics import elementary
from mxdsl.numerics.blocks import PHYSICAL_BLOCK_SHAPE
from mxdsl.numerics.formats import MxFormat
from mxdsl.numerics.matmul import (
    PeOperand,
    mx_matmul_operand,
    mx_pe_operand,
    pe_pass,
    psum_add,
)
from mxdsl.numerics.quantize import quantize_mx

_BF16 = np.dtype(ml_dtypes.bfloat16)
INT_SENTINEL = 4
"""What an uninitialized integer buffer reads as (the NKI simulator's sentinel)."""

# ------------------------------------------------------------------ value helpers


def element_dtype(element_type: Attribute) -> np.dtype[Any]:
    """The numpy dtype of a memref element type (x4 types: their integer container)."""
    if isinstance(element_type, nisa.X4Type):
        return np.dtype(np.uint32 if element_type.bitwidth == 32 else np.uint16)
    return numpy_dtype(element_type)


def buffer_dtype(memref_type: Attribute) -> np.dtype[Any]:
    assert isinstance(memref_type, MemRefType)
    return element_dtype(memref_type.get_element_type())


def x4_format(element_type: Attribute) -> MxFormat:
    if isinstance(element_type, nisa.Float8E4M3FNx4Type):
        return MxFormat.E4M3FN
    if isinstance(element_type, nisa.Float8E5M2x4Type):
        return MxFormat.E5M2
    return MxFormat.E2M1


def uninitialized(shape: tuple[int, ...], element_type: Attribute) -> np.ndarray:
    """A fresh buffer filled with the read-before-write sentinel."""
    dtype = element_dtype(element_type)
    if isinstance(element_type, nisa.X4Type):
        return np.full(shape, np.iinfo(dtype).max, dtype=dtype)
    if is_float_dtype(dtype):  # one NaN converted, its word filled in (np.full is ~15x
        # slower on an ml_dtypes type)
        word = np.array(np.nan, dtype=np.float32).astype(dtype).view(f"u{dtype.itemsize}")
        buffer = np.empty(shape, dtype=dtype)
        buffer.view(word.dtype).fill(word[()])
        return buffer
    if dtype == np.bool_:
        return np.ones(shape, dtype=dtype)
    return np.full(shape, INT_SENTINEL, dtype=dtype)


def scale_rows(data_partitions: int) -> np.ndarray:
    """Partitions of a scale tile holding scale rows 0 .. P/8-1 (quadrant layout); one
    read-only array per ``data_partitions``, kept (every MX op indexes with it)."""
    rows = _SCALE_ROWS.get(data_partitions)
    if rows is None:
        i = np.arange(data_partitions // nisa.MX_BLOCK_PARTITIONS)
        rows = _SCALE_ROWS[data_partitions] = (i & 3) + 32 * (i >> 2)
        rows.setflags(write=False)
    return rows


_SCALE_ROWS: dict[int, np.ndarray] = {}


def _elem_type(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, MemRefType)
    return t.get_element_type()


def as_2d(array: np.ndarray) -> np.ndarray:
    """``[P, free...]`` as ``[P, F]`` (a view when possible; used for reads)."""
    if array.ndim == 1:
        return array.reshape(array.shape[0], 1)
    return array.reshape(array.shape[0], -1)


def store(op: Operation, dst: np.ndarray, values: np.ndarray) -> None:
    """Write ``values`` (dst's element count) into dst, rounded once to dst's dtype
    (:func:`round_to`) when it is another (float32 to bfloat16 straight into dst,
    :func:`f32_to_bf16_into`); ``values`` may view dst (numpy copies an overlapping
    source first; the bfloat16 rounding reads all of ``values`` before writing)."""
    if values.size != dst.size:
        raise OpInterpretationError(
            op, f"result has {values.size} elements, dst {tuple(dst.shape)} has {dst.size}"
        )
    if values.dtype != dst.dtype:
        if values.dtype == F32 and dst.dtype == _BF16:
            f32_to_bf16_into(values.reshape(dst.shape), dst)
            return
        values = round_to(values, dst.dtype)
    dst[...] = values.reshape(dst.shape)


def _dma_convert(src: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """``src`` in ``dtype`` as a DMA converts it: src -> f32 -> dst for floats, itself
    when the dtypes agree."""
    if src.dtype == dtype:
        return src
    if is_float_dtype(dtype) or is_float_dtype(src.dtype):
        return round_to(to_f32(src), dtype)
    return round_to(src, dtype)


_ACTIVATION_BLOCK: int | None = None
"""Elements of an activation evaluated at once (:func:`_activate_blockwise`); None:
:func:`elementary.block_elements` of the function (4 chunks of
:mod:`mxdsl.numerics.elementary` for SiLU and sigmoid, which reuse the thread's work
buffers, one chunk for the others), so every temporary stays small (off the
page-faulting allocations of whole tiles). Tests set a number."""


def _blockwise_target(dst: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """``dst`` viewed as ``x``'s ``[P, F]`` shape for :func:`_activate_blockwise`, or None
    when that path does not apply: ``dst`` not float32 / float64 (other dtypes take
    :func:`round_to`'s rounding), not of ``x``'s size, not viewable as ``[P, F]``
    without a copy, or sharing memory with ``x`` (an in-place or overlapping write would
    change elements not yet read)."""
    if dst.dtype != F32 and dst.dtype != np.float64:
        return None
    if dst.size != x.size or np.may_share_memory(dst, x):
        return None
    if dst.shape == x.shape:
        return dst
    view = dst.view()
    try:
        view.shape = x.shape
    except AttributeError:
        return None
    return view


def _activate_blockwise(
    function: Callable[[np.ndarray], np.ndarray], x: np.ndarray, out: np.ndarray
) -> None:
    """``out[...] = function(x widened to float64)`` rounded to ``out``'s dtype (float32:
    numpy's round-to-nearest-even cast, :func:`round_to`'s; float64: exact), a block of
    whole rows of about ``_ACTIVATION_BLOCK`` elements (by default
    :func:`elementary.block_elements` of ``function``) at a time
    (:func:`elementary.evaluate_into`, without allocating for SiLU and sigmoid). The
    activations are elementwise (an element's result depends on that element only), so
    the blocks give the whole-tile bits; ``out`` must not share memory with ``x``."""
    block = _ACTIVATION_BLOCK or elementary.block_elements(function)
    rows = max(1, block // max(1, x.shape[1]))
    for start in range(0, x.shape[0], rows):
        elementary.evaluate_into(function, x[start : start + rows], out[start : start + rows])


# ------------------------------------------------------------------ SPMD context


class CoreContext:
    """What one program sees of the SPMD launch (replaced by :mod:`spmd`); ``races``:
    the run's HBM race checker (:mod:`mxdsl.interpreters.races`), None when unchecked."""

    def __init__(self, rank: int = 0, num_programs: int = 1) -> None:
        self.rank = rank
        self.num_programs = num_programs
        self.races: Any = None

    def sendrecv(
        self, op: nisa.SendRecvOp, dst: np.ndarray, src: np.ndarray, send_to: int, recv_from: int
    ) -> None:
        raise OpInterpretationError(
            op,
            f"sendrecv to core {send_to} from core {recv_from} in a 1-core run: it has no "
            "partner (run with --cores 2)",
        )

    def barrier(self, op: nisa.CoreBarrierOp, data: np.ndarray, cores: tuple[int, ...]) -> None:
        if set(cores) != {self.rank}:
            raise OpInterpretationError(
                op,
                f"core_barrier on cores {list(cores)} in a 1-core run: core(s) "
                f"{sorted(set(cores) - {self.rank})} do not exist (run with --cores "
                f"{max(cores) + 1})",
            )


def core_context(interpreter: Interpreter) -> CoreContext:
    return interpreter.get_data(NisaFunctions, "core", CoreContext)


def install_core_context(interpreter: Interpreter, context: CoreContext) -> None:
    """Make ``context`` the SPMD context of ``interpreter`` (before running it)."""
    interpreter.get_data(NisaFunctions, "core", lambda: context)


# --------------------------------------------------------------- memref views


def _subview(op: memref.SubviewOp, source: np.ndarray, dynamic: list[int]) -> np.ndarray:
    values = iter(dynamic)

    def resolve(static: tuple[int, ...]) -> list[int]:
        return [next(values) if v == DYNAMIC_INDEX else int(v) for v in static]

    offsets = resolve(op.static_offsets.get_values())
    sizes = resolve(op.static_sizes.get_values())
    strides = resolve(op.static_strides.get_values())
    index: list[Any] = []
    for dim, (offset, size, stride) in enumerate(zip(offsets, sizes, strides, strict=True)):
        last = offset + (size - 1) * stride
        if size < 0 or offset < 0 or (size > 0 and not 0 <= last < source.shape[dim]):
            raise OpInterpretationError(
                op,
                f"subview dim {dim}: offset {offset}, size {size}, stride {stride} is out of "
                f"bounds of the source shape {list(source.shape)}",
            )
        index.append(slice(offset, offset + size * stride if size else offset, stride))
    result_type = op.result.type
    assert isinstance(result_type, MemRefType)
    result_shape = list(result_type.get_shape())
    if len(result_shape) < len(sizes):  # rank reduction: drop unit dims not in the result
        kept = 0
        for dim, size in enumerate(sizes):
            if kept < len(result_shape) and result_shape[kept] == size:
                kept += 1
            elif size == 1:
                index[dim] = offsets[dim]
    return source[tuple(index)]


def _reshape_view(op: Operation, source: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    view = source.view()
    try:
        view.shape = shape
    except AttributeError:
        raise OpInterpretationError(
            op, f"cannot reshape a strided view {list(source.shape)} to {list(shape)} in place"
        ) from None
    return view


def _indirect_plan(op: Operation) -> tuple[bool, int, tuple[slice, ...], bool]:
    """An indirect ``dma_copy``'s static part (worked out once per op: the engine's
    :meth:`LoopEngine.op_plan`): whether the index is dst's (a scatter) rather than
    src's (a gather), the indexed dim, the ``slice(None)`` of each dim before it, and
    whether out-of-range indices are skipped."""
    assert isinstance(op, nisa.DmaCopyOp)
    dim = op.indirect_dim.value.data
    return (
        op.dst_index is not None,
        dim,
        (slice(None),) * dim,
        op.oob_mode.data == nisa.OobMode.SKIP,
    )


# ------------------------------------------------------------------ the functions


@register_impls
class NisaFunctions(IndexFunctions):
    """``@impl`` for every ``nisa`` op, and the ``memref`` ops as numpy views.

    Also ``scf.for`` (and, from :class:`IndexFunctions`, the scalar ``arith`` integer
    ops) with the upstream semantics, but sharing the (immutable) ``IntegerAttr`` values
    of an index and building new ones without re-verification
    (:func:`mxdsl.interpreters.index.int_attr`): building and verifying a fresh
    attribute per loop iteration and per address computation was most of the
    interpreter's per-op cost. Each implementation states the op's semantics; what
    makes it fast (loop plans, operand analyses kept across ops, matmul passes queued
    and batched, subview indices kept) is the loop engine's (``self.engine``,
    :class:`mxdsl.interpreters.nisa_engine.LoopEngine`), used on the fast path only."""

    def __init__(self) -> None:
        super().__init__()
        self.engine = LoopEngine()
        """The speed layer: loop plans, analysis caches, matmul queueing."""

    # ------------------------------------------------------ scf / arith (index)

    @direct_impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues):
        """``scf.for`` as upstream: the body once per induction value ``lb, lb + step,
        ... < ub``, the iteration arguments carried through; run by the loop engine
        (:meth:`LoopEngine.run_for`), which on the fast path runs a planned body."""
        return self.engine.run_for(interpreter, op, args)

    # arith.addi / subi / muli and the other scalar integer ops: IndexFunctions

    # ---------------------------------------------------------------- memref

    @direct_impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues):
        """A fresh buffer of the static shape, filled with the read-before-write sentinel
        (:func:`uninitialized`)."""
        t = op.memref.type
        assert isinstance(t, MemRefType)
        shape = tuple(t.get_shape())
        if len(args) or any(s < 0 for s in shape):
            raise OpInterpretationError(op, "memref.alloc with dynamic sizes is not modelled")
        return (uninitialized(shape, t.get_element_type()),)

    @direct_impl(memref.GetGlobalOp)
    def run_get_global(self, interpreter: Interpreter, op: memref.GetGlobalOp, args: PythonValues):
        """A fresh array holding a constant ``memref.global``'s dense literal (HBM)."""
        glob = SymbolTable.lookup_symbol(op, op.name_)
        if not isinstance(glob, memref.GlobalOp) or not isinstance(
            glob.initial_value, DenseIntOrFPElementsAttr
        ):
            raise OpInterpretationError(op, f"@{op.name_.string_value()} is not a dense global")
        t = op.memref.type
        assert isinstance(t, MemRefType)
        value = dense_literal_value(glob.initial_value)
        dtype = element_dtype(t.get_element_type())
        return (
            np.array(value.view(dtype) if value.dtype != dtype else value).reshape(t.get_shape()),
        )

    @direct_impl(memref.DeallocOp)
    def run_dealloc(self, interpreter: Interpreter, op: memref.DeallocOp, args: PythonValues):
        """Nothing: buffers are numpy arrays, freed when unreferenced."""
        return ()

    @direct_impl(memref.SubviewOp)
    def run_subview(self, interpreter: Interpreter, op: memref.SubviewOp, args: PythonValues):
        """A numpy view of the source (:func:`_subview`); the numpy index of an op with
        static sizes and strides is kept per (op, source shape, dynamic offsets), so a
        view seen before costs one dict lookup (its key spelled out for the common one
        or two dynamic offsets). The reference mode keeps nothing (:func:`_subview`)."""
        source = args[0]
        if not fast_path(interpreter):
            return (_subview(op, source, [as_int(v) for v in args[1:]]),)
        view = self.engine.subview(op, args)
        if view is None:  # dynamic sizes, or out of bounds (reported here)
            return (_subview(op, source, [as_int(v) for v in args[1:]]),)
        return (view,)

    @direct_impl(memref.ExpandShapeOp)
    def run_expand_shape(
        self, interpreter: Interpreter, op: memref.ExpandShapeOp, args: PythonValues
    ):
        """The source viewed with the result shape (in place; a strided view that needs a
        copy is an error)."""
        t = op.result.type
        assert isinstance(t, MemRefType)
        return (_reshape_view(op, args[0], tuple(t.get_shape())),)

    @direct_impl(memref.CollapseShapeOp)
    def run_collapse_shape(
        self, interpreter: Interpreter, op: memref.CollapseShapeOp, args: PythonValues
    ):
        """The source viewed with the result shape (as ``expand_shape``)."""
        t = op.result.type
        assert isinstance(t, MemRefType)
        return (_reshape_view(op, args[0], tuple(t.get_shape())),)

    @direct_impl(memref.CastOp)
    def run_cast(self, interpreter: Interpreter, op: memref.CastOp, args: PythonValues):
        """The source itself (a cast changes only the static type)."""
        return (args[0],)

    # --------------------------------------------------------- data movement

    @direct_impl(nisa.DmaCopyOp)
    def run_dma_copy(self, interpreter: Interpreter, op: nisa.DmaCopyOp, args: PythonValues):
        """``dst = src``, element counts equal, converted as a DMA converts (same dtypes:
        the bits; a float on either side: src -> f32 -> dst; NKI ISA,
        ``nki.isa.dma_copy``). With an index (indirect DMA): a gather ``dst[.., i, ..] =
        src[.., idx[i], ..]`` or, the index on dst, a scatter along ``indirect_dim``; an
        index out of range is an error, or with ``oob_mode skip`` its row is dropped."""
        if len(args) == 2:  # no dst_index / src_index: a plain (converting) copy
            dst, src = args
            if src.dtype != dst.dtype:
                src = _dma_convert(src, dst.dtype)
            if src.shape != dst.shape:
                src = src.reshape(dst.shape)
            dst[...] = src
            return ()
        scatter, dim, lead, skip = self.engine.op_plan(op, _indirect_plan)  # an index is given
        if scatter:
            dst, index, src = args
            indexed = dst
        else:
            dst, src, index = args
            indexed = src
        idx = np.asarray(index).reshape(-1)
        size = indexed.shape[dim]
        every = idx.size == 0 or (int(idx.min()) >= 0 and int(idx.max()) < size)
        valid = None
        if not every:
            valid = (idx >= 0) & (idx < size)
            if not skip:
                bad = int(np.flatnonzero(~valid)[0])
                raise OpInterpretationError(
                    op,
                    f"indirect DMA index {int(idx[bad])} at position {bad} is outside [0, "
                    f"{size}) of dim {dim} (oob_mode error; use oob_mode skip to drop such "
                    "rows)",
                )
        # numpy indexing along dim (take's generic path is several times slower on the
        # ml_dtypes types); a gather converts only the rows it moves
        if not scatter:  # gather: dst[.., i, ..] = src[.., idx[i], ..]
            if valid is None:
                dst[...] = _dma_convert(src[(*lead, idx)], dst.dtype)
                return ()
            rows = np.flatnonzero(valid)
            dst[(*lead, rows)] = _dma_convert(src[(*lead, idx[rows])], dst.dtype)
            return ()
        # scatter: dst[.., idx[i], ..] = src[.., i, ..]
        converted = _dma_convert(src, dst.dtype)
        if valid is None:
            dst[(*lead, idx)] = converted
            return ()
        rows = np.flatnonzero(valid)
        dst[(*lead, idx[rows])] = converted[(*lead, rows)]
        return ()

    @direct_impl(nisa.DmaComputeOp)
    def run_dma_compute(self, interpreter: Interpreter, op: nisa.DmaComputeOp, args: PythonValues):
        """``dst = sum(srcs)`` in f32, in list order, rounded once to dst (NKI ISA,
        ``nki.isa.dma_compute`` with ``reduce_op=add``)."""
        dst, *srcs = args
        total = to_f32(srcs[0]).reshape(-1).copy()
        for src in srcs[1:]:
            total += to_f32(src).reshape(-1)
        store(op, dst, total)
        return ()

    @direct_impl(nisa.MemsetOp)
    def run_memset(self, interpreter: Interpreter, op: nisa.MemsetOp, args: PythonValues):
        """Every element of dst set to ``value`` rounded to dst's dtype."""
        (dst,) = args
        value = np.array([op.value.value.data], dtype=np.float64)
        dst[...] = round_to(value, dst.dtype)[0]
        return ()

    @direct_impl(nisa.IotaOp)
    def run_iota(self, interpreter: Interpreter, op: nisa.IotaOp, args: PythonValues):
        """``dst[c, i] = offset + c * channel_multiplier + sum(idx_k * step_k)`` over the
        pattern's ``[step, num]`` pairs, outermost first, exact and cast to int32, then
        stored to dst (NKI ISA, ``nki.isa.iota``)."""
        (dst,) = args
        pairs = op.pattern.get_pairs()
        partitions = dst.shape[0]
        values = np.full((partitions,), op.offset.value.data, dtype=np.int64)
        values = values + np.arange(partitions) * op.channel_multiplier.value.data
        free = np.zeros((1,), dtype=np.int64)
        for step, num in pairs:  # outermost first: row-major enumeration
            free = (free[:, None] + np.arange(num, dtype=np.int64)[None, :] * step).reshape(-1)
        result = (values[:, None] + free[None, :]).astype(np.int32)
        store(op, dst, result)
        return ()

    @direct_impl(nisa.TensorCopyOp)
    def run_tensor_copy(self, interpreter: Interpreter, op: nisa.TensorCopyOp, args: PythonValues):
        """``dst = src``, rounded once to dst's dtype (:func:`store`)."""
        dst, src = args
        store(op, dst, src)
        return ()

    # ------------------------------------------------------------ matmul / MX

    @direct_impl(nisa.NcMatmulOp)
    def run_nc_matmul(self, interpreter: Interpreter, op: nisa.NcMatmulOp, args: PythonValues):
        """``dst (= | +=) stationary[K, M]^T @ moving[K, N]``: one PE pass of the widened
        tiles (:func:`mxdsl.numerics.matmul.pe_pass`) written into PSUM by the PSUM rule
        (:func:`write_pass`; NKI ISA, ``nki.isa.nc_matmul``; ``docs/numerics.md``)."""
        dst, stationary, moving = args
        if not fast_path(interpreter):  # the definition: pe_pass of the widened tiles
            write_pass(dst, pe_pass(stationary.T, moving), op.accumulate is not None)
            return ()
        # [K, M]^T x [K, N], one PE pass (mxdsl.numerics.matmul), each operand widened to
        # float64 exactly (as to_f32 then float64 would), zero token columns skipped
        engine = self.engine
        lhs = engine.tile_operand("stationary", stationary)
        rhs = engine.tile_operand("moving", moving)
        engine.pe_pass(dst, lhs, rhs, op.accumulate is not None)
        return ()

    @direct_impl(nisa.NcMatmulMxOp)
    def run_nc_matmul_mx(self, interpreter: Interpreter, op: nisa.NcMatmulMxOp, args: PythonValues):
        """``dst (= | +=) stationary^T @ moving`` over the dequantized x4 operands, the
        contraction index ``k = 4p + q`` (partition p, lane q), each value the FP8 code times
        its block's E8M0 scale read from the quadrant layout (NKI ISA,
        ``nki.isa.nc_matmul_mx``); one PE pass as ``nc_matmul``."""
        dst, stationary, stationary_scale, moving, moving_scale = args
        if not fast_path(interpreter):  # the definition: pe_pass of the k = 4p + q operands
            lhs = _mx_values(stationary, stationary_scale, op.stationary)
            rhs = _mx_values(moving, moving_scale, op.moving)
            write_pass(dst, pe_pass(lhs, rhs.T), op.accumulate is not None)
            return ()
        # [M, 4P] x [4P, N]: the products of k = 4p + q, as the HLO ScaledMatmul on data
        # laid out with k = 4p + q; one PE pass (mxdsl.numerics.matmul), an exact sum, so
        # both operands are read lane-major (k' = qP + p: mx_pe_operand), the same bits.
        # The engine keeps a moving tile's operand at once (a kernel re-reads its token
        # tiles against many weight tiles), a stationary tile's from its second request.
        engine = self.engine
        lhs = engine.mx_operand(
            "stationary",
            stationary,
            stationary_scale,
            _elem_type(op.stationary),
            False,
            _mx_pe_operand,
        )
        rhs = engine.mx_operand(
            "moving", moving, moving_scale, _elem_type(op.moving), True, _mx_pe_operand
        )
        engine.pe_pass(dst, lhs, rhs, op.accumulate is not None)
        return ()

    @direct_impl(nisa.QuantizeMxOp)
    def run_quantize_mx(self, interpreter: Interpreter, op: nisa.QuantizeMxOp, args: PythonValues):
        """bf16 ``src [P, F]`` to FP8 x4 codes ``dst [P, F/4]`` and E8M0 scales ``dst_scale``
        (quadrant layout), one scale per physical block of 8 partitions x 4 elements
        (MX Microscaling: Quantize, Block-Scaling and E8M0, "The Quantize Data Path";
        :func:`mxdsl.numerics.quantize.quantize_mx`)."""
        dst, dst_scale, src = args
        fmt = x4_format(_elem_type(op.dst))
        if not fmt.is_fp8:
            raise OpInterpretationError(op, "quantize_mx produces FP8 x4 only")
        # the vectorised fast path for bf16 tiles, bit-identical to the reference
        codes, scale = quantize_mx(np.ascontiguousarray(src), fmt, PHYSICAL_BLOCK_SHAPE)
        dst[...] = codes.view("<u4")  # C-contiguous: four code bytes a word, the first low
        rows = scale_rows(src.shape[0])
        dst_scale[rows] = scale.view(dst_scale.dtype)
        return ()

    @direct_impl(nisa.NcTransposeOp)
    def run_nc_transpose(
        self, interpreter: Interpreter, op: nisa.NcTransposeOp, args: PythonValues
    ):
        """``dst[f, p] = data[p, f]`` (bit-exact)."""
        dst, data = args
        dst[...] = data.T
        return ()

    # ------------------------------------------------------------ elementwise

    @direct_impl(nisa.TensorTensorOp)
    def run_tensor_tensor(
        self, interpreter: Interpreter, op: nisa.TensorTensorOp, args: PythonValues
    ):
        """``dst = op(data1, data2)`` elementwise in the compute domain (f32, or exact int64
        for integer tiles and bitwise ops: :func:`mxdsl.interpreters.engines.compute_domain`),
        rounded once to dst."""
        dst, data1, data2 = args
        alu_op = op.op.data
        domain = _compute_domain(dst, data1, data2, bitwise=alu_op in nisa.BITWISE_ALU_OPS)
        a = _in_domain(as_2d(data1), domain)
        b = _in_domain(as_2d(data2), domain)
        store(op, dst, np.asarray(alu(alu_op, a, b)))
        return ()

    @direct_impl(nisa.TensorScalarOp)
    def run_tensor_scalar(
        self, interpreter: Interpreter, op: nisa.TensorScalarOp, args: PythonValues
    ):
        """``dst = op1(op0(data, operand0), operand1)`` (each swapped by its ``reverse``),
        operands a scalar or a ``[P, 1]`` column, in the compute domain (f32 when a float
        scalar meets arithmetic), rounded once to dst (NKI ISA, ``nki.isa.tensor_scalar``)."""
        dst, data, operand0, *rest = args
        partitions = data.shape[0]
        bitwise = op.op0.data in nisa.BITWISE_ALU_OPS
        tiles = [v for v in (operand0, *rest) if isinstance(v, np.ndarray)]
        domain = _compute_domain(dst, data, *tiles, bitwise=bitwise)
        if any(isinstance(v, FloatAttr) for v in (operand0, *rest)) and not bitwise:
            domain = F32
        x = _in_domain(as_2d(data), domain)
        s0 = _scalar_in_domain(_scalar_operand(operand0, partitions), domain)
        x = alu(op.op0.data, s0, x) if op.reverse0 is not None else alu(op.op0.data, x, s0)
        if op.op1 is not None and rest:
            s1 = _scalar_in_domain(_scalar_operand(rest[0], partitions), domain)
            x = alu(op.op1.data, s1, x) if op.reverse1 is not None else alu(op.op1.data, x, s1)
        store(op, dst, np.asarray(x))
        return ()

    @direct_impl(nisa.ScalarTensorTensorOp)
    def run_scalar_tensor_tensor(
        self, interpreter: Interpreter, op: nisa.ScalarTensorTensorOp, args: PythonValues
    ):
        """``dst = op1(op0(data, operand0), operand1)`` in f32 (each swapped by its
        ``reverse``), ``operand0`` a scalar or ``[P, 1]`` column, ``operand1`` a tile of data's
        shape, rounded once to dst (NKI ISA, ``nki.isa.scalar_tensor_tensor``)."""
        dst, data, operand0, operand1 = args
        x = to_f32(as_2d(data))
        s0 = _scalar_in_domain(_scalar_operand(operand0, data.shape[0]), F32)
        t = to_f32(as_2d(operand1))
        x = alu(op.op0.data, s0, x) if op.reverse0 is not None else alu(op.op0.data, x, s0)
        x = alu(op.op1.data, t, x) if op.reverse1 is not None else alu(op.op1.data, x, t)
        store(op, dst, np.asarray(x))
        return ()

    @direct_impl(nisa.TensorReduceOp)
    def run_tensor_reduce(
        self, interpreter: Interpreter, op: nisa.TensorReduceOp, args: PythonValues
    ):
        """``dst = op-reduce of data over axes`` in the compute domain, negated with
        ``negate``, rounded once to dst (NKI ISA, ``nki.isa.tensor_reduce``)."""
        dst, data = args
        alu_op = op.op.data
        axes = tuple(int(a) for a in op.axes.get_values())
        domain = _compute_domain(dst, data, bitwise=alu_op in nisa.BITWISE_ALU_OPS)
        with np.errstate(all="ignore"):
            result = np.asarray(_REDUCE[alu_op](_in_domain(data, domain), axis=axes))
            if op.negate is not None:
                result = -result
        store(op, dst, result)
        return ()

    @direct_impl(nisa.ActivationOp)
    def run_activation(self, interpreter: Interpreter, op: nisa.ActivationOp, args: PythonValues):
        """``dst = f(data * scale + bias)``: the affine part in f32, ``f`` evaluated in
        float64 on that f32 value and rounded once to dst (NKI ISA, ``nki.isa.activation``;
        the functions: :mod:`mxdsl.interpreters.engines`)."""
        values = iter(args)
        dst, data = next(values), next(values)
        partitions = data.shape[0]
        x = to_f32(as_2d(data))
        if op.scale is not None:
            x = x * _scalar_in_domain(_scalar_operand(next(values), partitions), F32)
        if op.bias is not None:
            x = x + _scalar_in_domain(_scalar_operand(next(values), partitions), F32)
        function = _ACTIVATIONS[op.op.data]
        out = _blockwise_target(dst, x)
        if out is None:
            with np.errstate(all="ignore"):
                y = function(np.asarray(x, dtype=F32).astype(np.float64))
            store(op, dst, np.asarray(y, dtype=np.float64))
            return ()
        _activate_blockwise(function, x, out)
        return ()

    @direct_impl(nisa.TensorCopyPredicatedOp)
    def run_tensor_copy_predicated(
        self, interpreter: Interpreter, op: nisa.TensorCopyPredicatedOp, args: PythonValues
    ):
        """``dst = src`` where the predicate is non-zero (zero with ``reverse_predicate``),
        elsewhere dst unchanged; ``src`` a tile or a scalar rounded to dst's dtype (NKI ISA,
        ``nki.isa.tensor_copy_predicated``)."""
        dst, src, predicate = args
        mask = as_2d(predicate) != 0
        if op.reverse_predicate is not None:
            mask = ~mask
        flat = as_2d(dst).copy()
        if isinstance(src, np.ndarray):
            chosen = as_2d(src)
        else:
            scalar = _scalar_operand(src, dst.shape[0])
            chosen = np.broadcast_to(round_to(np.asarray([scalar]), dst.dtype), flat.shape)
        flat[mask] = chosen[mask]
        store(op, dst, flat)
        return ()

    # ------------------------------------------------------------------ SPMD

    @direct_impl(nisa.ProgramIdOp)
    def run_program_id(self, interpreter: Interpreter, op: nisa.ProgramIdOp, args: PythonValues):
        """This program's rank on axis 0 (the SPMD context), 0 on other axes."""
        rank = core_context(interpreter).rank if op.axis.value.data == 0 else 0
        return (scalar_attr(rank, IndexType(), interpreter.index_bitwidth),)

    @direct_impl(nisa.NumProgramsOp)
    def run_num_programs(
        self, interpreter: Interpreter, op: nisa.NumProgramsOp, args: PythonValues
    ):
        """The number of programs on axis 0 (the SPMD context), 1 on other axes."""
        n = core_context(interpreter).num_programs if op.axis.value.data == 0 else 1
        return (scalar_attr(n, IndexType(), interpreter.index_bitwidth),)

    @direct_impl(nisa.SendRecvOp)
    def run_sendrecv(self, interpreter: Interpreter, op: nisa.SendRecvOp, args: PythonValues):
        """Send ``src`` to core ``send_to`` while receiving core ``recv_from``'s ``src`` into
        ``dst`` (the SPMD context; NKI ISA, ``nki.isa.sendrecv``)."""
        dst, src, send_to, recv_from = args
        core_context(interpreter).sendrecv(op, dst, src, as_int(send_to), as_int(recv_from))
        return ()

    @direct_impl(nisa.CoreBarrierOp)
    def run_core_barrier(
        self, interpreter: Interpreter, op: nisa.CoreBarrierOp, args: PythonValues
    ):
        """Wait until every core in ``cores`` has reached the barrier (the SPMD context)."""
        (data,) = args
        core_context(interpreter).barrier(op, data, op.get_cores())
        return ()

    @direct_impl(nisa.ViewCastOp)
    def run_view_cast(self, interpreter: Interpreter, op: nisa.ViewCastOp, args: PythonValues):
        """The source's bytes viewed as the result element type: FP8 lanes <-> x4 words
        (lane q of word j is byte q, element ``4j + q`` of the row; little-endian)."""
        (src,) = args
        dtype = buffer_dtype(op.result.type)
        if dtype.itemsize != src.dtype.itemsize and not src.flags.c_contiguous:
            raise OpInterpretationError(
                op, "a view_cast between FP8 lanes and x4 words needs a contiguous buffer"
            )
        # little-endian words: lane q of word j is byte q, element 4 j + q of the row
        return (src.view(dtype),)

    @direct_impl(nisa.PermuteOp)
    def run_permute(self, interpreter: Interpreter, op: nisa.PermuteOp, args: PythonValues):
        """The source with its dims reordered: a numpy view (``np.transpose``), no copy."""
        (src,) = args
        return (np.transpose(src, op.get_permutation()),)

    @direct_impl(nisa.RegisterLoadOp)
    def run_register_load(
        self, interpreter: Interpreter, op: nisa.RegisterLoadOp, args: PythonValues
    ):
        """The one element of ``src`` as an index / i32 scalar (NKI ISA,
        ``nki.isa.register_load``)."""
        (src,) = args
        if src.size != 1:
            raise OpInterpretationError(op, f"register_load of {src.size} elements (needs 1)")
        value = int(src.reshape(-1)[0])
        result_type = op.result.type
        if isinstance(result_type, IndexType):
            return (scalar_attr(value, result_type, interpreter.index_bitwidth),)
        return (IntegerAttr(_wrap_i32(value), result_type),)


def write_pass(dst: np.ndarray, product: np.ndarray, accumulate: bool) -> None:
    """``dst (= | +=) product``, one PE pass's fp32 result into a PSUM tile: added by
    :func:`psum_add`'s rule (``docs/numerics.md``, "NaN in PSUM"); into a bf16 tile,
    added to the tile's f32 value and rounded once."""
    if dst.dtype == F32:
        if accumulate:
            psum_add(dst, product)
        else:
            dst[...] = product
        return
    total = product
    if accumulate:
        total = to_f32(dst).copy()
        psum_add(total, product)
    dst[...] = round_to(total, dst.dtype)


def _mx_values(data: np.ndarray, scale: np.ndarray, value: SSAValue) -> np.ndarray:
    """An x4 matmul operand ``[P, F]`` dequantized to fp32 ``[F, 4P]``, contraction
    index ``k = 4p + q`` (:func:`mxdsl.numerics.matmul.mx_matmul_operand`)."""
    rows = scale[scale_rows(data.shape[0])]
    return mx_matmul_operand(data, rows, x4_format(_elem_type(value)))


def _mx_pe_operand(data: np.ndarray, scale: np.ndarray, element_type: Attribute) -> PeOperand:
    """An x4 matmul operand ``[P, F]`` as a PE operand ``[4P, F]``
    (:func:`mxdsl.numerics.matmul.mx_pe_operand`: f32 values held as float64, K
    lane-major, the same order for both operands of every ``nc_matmul_mx``), its scale
    rows read from the quadrant layout."""
    rows = scale[scale_rows(data.shape[0])]  # advanced indexing: a fresh contiguous array
    return mx_pe_operand(data, rows, x4_format(element_type))


__all__ = [
    "CoreContext",
    "NisaFunctions",
    "buffer_dtype",
    "element_dtype",
    "install_core_context",
    "scale_rows",
    "uninitialized",
]

"""The nisa IR builder the lowerings and the kernel builders share.

:class:`NisaBuilder` wraps an insertion point in a function body and offers what a
lowering or a kernel writes nisa IR with: index constants (hoisted to the function entry,
one per value), folded index arithmetic, ``scf.for`` loops over tiles, on-chip and HBM
allocations, views (``memref.subview`` with static or dynamic offsets and explicit rank
reduction, ``expand_shape`` / ``collapse_shape``) and ``emit(op)``. It is public API: an
extension's lowering (``docs/extending.md``) uses the same builder as mxdsl's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    LocationAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mxdsl.dialects import nisa

Offset = int | SSAValue
"""A static or dynamic index."""


Dims = list[tuple[Offset, int, int, bool]]
"""Subview dims: ``(offset, size, stride, keep)`` each (see ``NisaBuilder.view``)."""


def memref_type_of(value: SSAValue) -> MemRefType[Attribute]:
    t = value.type
    assert isinstance(t, MemRefType)
    return t  # pyright: ignore[reportUnknownVariableType]


def shape_of(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType | MemRefType)
    return tuple(t.get_shape())


def element_type_of(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType | MemRefType)
    return t.get_element_type()


def _reassociation(small: Sequence[int], big: Sequence[int]) -> list[list[int]] | None:
    """Groups of consecutive ``big`` dims, one per ``small`` dim, whose sizes multiply to
    it (the reassociation of one expand / collapse_shape), or None."""
    groups: list[list[int]] = []
    j = 0
    for i, size in enumerate(small):
        if j == len(big):
            return None
        group, product = [j], big[j]
        j += 1
        while product < size and j < len(big):
            product *= big[j]
            group.append(j)
            j += 1
        if product != size:
            return None
        if i == len(small) - 1:
            if any(big[k] != 1 for k in range(j, len(big))):
                return None
            group.extend(range(j, len(big)))
            j = len(big)
        groups.append(group)
    return groups if j == len(big) else None


# ------------------------------------------------------------------------- builder


class NisaBuilder:
    """Builds nisa IR into one function body: index constants hoisted to the top of the
    entry block (one per value), everything else at the current insertion point (the
    end of a block or loop body), every op with the builder's ``location``."""

    def __init__(
        self,
        entry: Block,
        location: LocationAttr,
        *,
        constants_in_order: bool = True,
        name_constants: bool = True,
    ):
        """``constants_in_order``: hoisted constants follow each other in the order they
        were first asked for (else each new one goes to the very top of the entry block);
        ``name_constants``: index constants print as ``%c4`` (else by number)."""
        self.entry = entry
        self.ip = InsertPoint.at_end(entry)
        self.location = location
        self.constants_in_order = constants_in_order
        self.name_constants = name_constants
        self._constants: dict[int, SSAValue] = {}
        self._anchor: Operation | None = None
        self._casts: dict[tuple[SSAValue, Attribute], SSAValue] = {}
        self._recording: list[Operation] | None = None
        self._floats: dict[float, SSAValue] = {}

    @contextmanager
    def recording(self) -> Iterator[list[Operation]]:
        """The ops built inside the ``with`` block, listed as they are inserted (the
        driver verifies what an extension's lowering emitted)."""
        saved, self._recording = self._recording, []
        try:
            yield self._recording
        finally:
            recorded, self._recording = self._recording, saved
            if saved is not None:
                saved.extend(recorded)

    def _record(self, op: Operation) -> None:
        if self._recording is not None:
            self._recording.append(op)

    # -- basic emission

    def emit(self, op: Operation) -> Operation:
        op.location = self.location
        Rewriter.insert_op(op, self.ip)
        self._record(op)
        return op

    @contextmanager
    def inside(self, block: Block) -> Iterator[Block]:
        """Emit at the end of ``block`` inside the ``with`` block (a loop or branch body)."""
        saved, self.ip = self.ip, InsertPoint.at_end(block)
        try:
            yield block
        finally:
            self.ip = saved

    def hoist(self, op: Operation) -> SSAValue:
        """Put a constant at the top of the entry block, so it dominates every use."""
        op.location = self.location
        if not self.constants_in_order:
            if self.entry.first_op is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, self.entry.first_op)
        else:
            self._insert_after_constants(op)
        self._record(op)
        return op.results[0]

    def index(self, value: Offset) -> SSAValue:
        """An ``index`` operand: ``value`` itself, or the hoisted constant of an int."""
        if isinstance(value, SSAValue):
            return value
        if (known := self._constants.get(value)) is None:
            op = arith.ConstantOp.from_int_and_width(value, IndexType())
            if self.name_constants:
                op.result.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
            known = self._constants[value] = self.hoist(op)
        return known

    def f32(self, value: float) -> SSAValue:
        """An ``f32`` ``arith.constant``, hoisted beside the index constants (one per value)."""
        value = float(value)
        if (known := self._floats.get(value)) is None:
            known = self._floats[value] = self.hoist(arith.ConstantOp(FloatAttr(value, f32)))
        return known

    def add(self, a: Offset, b: Offset) -> Offset:
        """``a + b``: folded when both are ints or one is 0, else an ``arith.addi``."""
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int) and a == 0:
            return b
        return self.emit(arith.AddiOp(self.index(a), self.index(b))).results[0]

    def sub(self, a: Offset, b: Offset) -> Offset:
        """``a - b``: folded when both are ints or b is 0, else an ``arith.subi``."""
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if isinstance(b, int) and b == 0:
            return a
        return self.emit(arith.SubiOp(self.index(a), self.index(b))).results[0]

    def mul(self, a: Offset, b: Offset) -> Offset:
        """``a * b``: folded when both are ints or one is 1, else an ``arith.muli``."""
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(b, int) and b == 1:
            return a
        if isinstance(a, int) and a == 1:
            return b
        return self.emit(arith.MuliOp(self.index(a), self.index(b))).results[0]

    def lt(self, a: Offset, b: Offset) -> SSAValue:
        """``a < b`` (unsigned), an ``i1``."""
        return self.emit(arith.CmpiOp(self.index(a), self.index(b), "ult")).results[0]

    def eq(self, a: Offset, b: Offset) -> SSAValue:
        """``a == b``, an ``i1``."""
        return self.emit(arith.CmpiOp(self.index(a), self.index(b), "eq")).results[0]

    def loop(
        self,
        lower: Offset,
        upper: Offset,
        step: Offset,
        hint: str,
        body: Callable[[SSAValue], None],
    ) -> None:
        """``scf.for %hint = lower to upper step step { body(%hint) }``."""
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = hint
        self.emit(
            scf.ForOp(self.index(lower), self.index(upper), self.index(step), [], Region(block))
        )
        with self.inside(block):
            body(block.args[0])
            self.emit(scf.YieldOp())

    def tiled(self, total: int, tile: int, hint: str, body: Callable[[Offset, int], None]) -> None:
        """Cover ``[0, total)`` with tiles: an ``scf.for`` over the full tiles of
        ``min(tile, total)`` (also when there is just one), then the partial tile peeled.
        ``body(offset, size)`` emits one tile."""
        if total <= 0:
            return
        step = min(tile, total)
        full = total // step
        self.loop(0, full * step, step, hint, lambda iv: body(iv, step))
        if (rest := total - full * step) > 0:
            body(full * step, rest)

    def chained(
        self, total: int, tile: int, hint: str, body: Callable[[Offset, int, bool], None]
    ) -> None:
        """Cover ``[0, total)`` with the tiles of a PSUM accumulation chain: the first
        tile peeled with ``accumulate`` unset (the first pass initialises PSUM, as
        ``nc_matmul`` without accumulate overwrites: ``docs/numerics.md``, "PSUM"), an
        ``scf.for`` over the other full tiles, then the partial tile.
        ``body(offset, size, accumulate)`` emits one tile."""
        if total <= 0:
            return
        step = min(tile, total)
        full = total // step
        body(0, step, False)
        if full > 1:
            self.loop(step, full * step, step, hint, lambda iv: body(iv, step, True))
        if (rest := total - full * step) > 0:
            body(full * step, rest, True)

    # -- buffers and views

    def alloc(
        self, shape: Sequence[int], element_type: Attribute, space: nisa.MemorySpace, hint: str
    ) -> SSAValue:
        op = memref.AllocOp([], [], nisa.tile_type(shape, element_type, space))
        op.results[0].name_hint = hint
        return self.emit(op).results[0]

    def cast(self, value: SSAValue, element_type: Attribute) -> SSAValue:
        """The same HBM buffer seen with another 32-bit element type (ui32 <-> x4)."""
        t = memref_type_of(value)
        if t.get_element_type() == element_type:
            return value
        key = (value, element_type)
        if (known := self._casts.get(key)) is None:
            target = MemRefType(element_type, t.get_shape(), t.layout, t.memory_space)
            op = memref.CastOp.get(value, target)
            # right after the value's definition, so every later use sees it
            owner = value.owner
            if isinstance(owner, Operation) and owner.parent_block() is not None:
                op.location = self.location
                Rewriter.insert_op(op, InsertPoint.after(owner))
            else:
                assert isinstance(owner, Block)
                op.location = self.location
                self._insert_after_constants(op)
            self._record(op)
            known = self._casts[key] = op.results[0]
        return known

    def _insert_after_constants(self, op: Operation) -> None:
        if self._anchor is not None:
            self.entry.insert_op_after(op, self._anchor)
        elif self.entry.first_op is not None:
            self.entry.insert_op_before(op, self.entry.first_op)
        else:
            self.entry.add_op(op)
        self._anchor = op

    def reshape(
        self,
        value: SSAValue,
        groups: Sequence[Sequence[int]],
        shape: Sequence[int],
        hint: str | None = None,
    ) -> SSAValue:
        """expand_shape (more dims) or collapse_shape (fewer) of an identity-layout buffer;
        ``groups`` are the reassociation groups of the higher-rank side."""
        t = memref_type_of(value)
        source_shape = t.get_shape()
        if tuple(shape) == tuple(source_shape):
            return value
        result_type = nisa.tile_type(shape, t.get_element_type(), t.memory_space)  # pyright: ignore[reportArgumentType]
        reassociation = ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in g) for g in groups)
        if len(shape) > len(source_shape):
            op = memref.ExpandShapeOp.build(
                operands=[value, []],
                result_types=[result_type],
                properties={
                    "reassociation": reassociation,
                    "static_output_shape": DenseArrayBase.from_list(i64, list(shape)),
                },
            )
        else:
            op = memref.CollapseShapeOp.build(
                operands=[value],
                result_types=[result_type],
                properties={"reassociation": reassociation},
            )
        op.results[0].name_hint = hint
        return self.emit(op).results[0]

    def split_dim(
        self, value: SSAValue, dim: int, sizes: Sequence[int], hint: str | None = None
    ) -> SSAValue:
        """expand_shape splitting ``dim`` into ``sizes``."""
        shape = shape_of(value)
        assert math.prod(sizes) == shape[dim]
        groups: list[list[int]] = []
        d = 0
        for i in range(len(shape)):
            n = len(sizes) if i == dim else 1
            groups.append(list(range(d, d + n)))
            d += n
        return self.reshape(value, groups, (*shape[:dim], *sizes, *shape[dim + 1 :]), hint)

    def merge_leading(self, value: SSAValue, keep: int) -> SSAValue:
        """collapse_shape of all dims but the last ``keep`` into one (rank keep + 1); a
        rank-``keep`` buffer gets a leading unit dim."""
        shape = shape_of(value)
        lead = len(shape) - keep
        if lead == 1:
            return value
        if lead == 0:
            groups = [[0, 1], *([d + 1] for d in range(1, keep))] if keep else [[0]]
            return self.reshape(value, groups, (1, *shape))
        groups = [list(range(lead)), *([lead + d] for d in range(keep))]
        return self.reshape(value, groups, (math.prod(shape[:lead]), *shape[lead:]))

    def view(self, source: SSAValue, dims: Sequence[tuple[Offset, int, int, bool]]) -> SSAValue:
        """``memref.subview``: one ``(offset, size, stride, keep)`` per dim; dims with
        ``keep`` False (size 1) are dropped from the result. A view of the whole source
        is the source itself."""
        t = memref_type_of(source)
        if (
            all(isinstance(d[0], int) and d[0] == 0 for d in dims)
            and tuple(d[1] for d in dims) == tuple(t.get_shape())
            and all(d[2] == 1 for d in dims)
            and all(d[3] for d in dims)
        ):
            return source
        return self.subview(source, dims)

    def subview(self, source: SSAValue, dims: Sequence[tuple[Offset, int, int, bool]]) -> SSAValue:
        """Always a ``memref.subview`` (:meth:`view`): the result's strided layout is the
        source's strides times the view's, at the static offset, with the dropped (unit)
        dims left out (a rank-reducing subview)."""
        t = memref_type_of(source)
        offsets = [d[0] for d in dims]
        sizes = [d[1] for d in dims]
        strides = [d[2] for d in dims]
        full = memref.SubviewOp.infer_result_type(t, offsets, sizes, strides)
        layout = full.layout
        assert isinstance(layout, StridedLayoutAttr)
        full_strides = layout.get_strides()
        kept = [i for i, d in enumerate(dims) if d[3]]
        for i, d in enumerate(dims):
            assert d[3] or d[1] == 1, f"dropped dim {i} has size {d[1]}"
        result_type = MemRefType(
            t.get_element_type(),
            [sizes[i] for i in kept],
            StridedLayoutAttr([full_strides[i] for i in kept], layout.get_offset()),
            t.memory_space,
        )
        op = memref.SubviewOp.get(source, offsets, sizes, strides, result_type)
        return self.emit(op).results[0]

    def rows(
        self, tile: SSAValue, rows: int, cols: int, row_offset: Offset = 0, col_offset: Offset = 0
    ) -> SSAValue:
        """``tile[row_offset : +rows, col_offset : +cols]`` of a 2-D on-chip tile."""
        return self.view(tile, [(row_offset, rows, 1, True), (col_offset, cols, 1, True)])

    def reshaped(self, source: SSAValue, shape: Sequence[int]) -> SSAValue:
        """``source`` (contiguous) seen with another shape: collapse to 1-D, expand."""
        e = self
        source_shape = shape_of(source)
        if tuple(shape) == tuple(source_shape):
            return source
        if not source_shape or not shape or not isinstance(memref_type_of(source).layout, NoneAttr):
            out = e.alloc(shape, element_type_of(source), nisa.MemorySpace.HBM, "reshaped")
            e.dma(out, source)
            return out
        small, big = sorted((tuple(source_shape), tuple(shape)), key=len)
        if len(small) < len(big) and (groups := _reassociation(small, big)) is not None:
            return e.reshape(source, groups, shape)
        flat = source
        if len(source_shape) > 1:
            flat = e.reshape(source, [list(range(len(source_shape)))], [math.prod(source_shape)])
        if len(shape) == 1:
            return flat
        return e.reshape(flat, [list(range(len(shape)))], shape)

    def nest(
        self,
        dims: Sequence[int],
        shape: Sequence[int],
        ivs: dict[int, Offset],
        body: Callable[[dict[int, Offset]], None],
    ) -> None:
        """``scf.for`` over each of ``dims`` (outermost first), ``body`` innermost."""
        if not dims:
            body(ivs)
            return
        d, rest = dims[0], dims[1:]
        self.loop(0, shape[d], 1, "i", lambda iv: self.nest(rest, shape, {**ivs, d: iv}, body))

    # -- ops

    def dma(self, dst: SSAValue, src: SSAValue) -> None:
        self.emit(nisa.DmaCopyOp(dst, src))

    def memset(self, dst: SSAValue, value: float) -> None:
        self.emit(nisa.MemsetOp(dst, value))


__all__ = [
    "Dims",
    "NisaBuilder",
    "Offset",
    "element_type_of",
    "memref_type_of",
    "shape_of",
]

"""A small builder over xDSL for writing nisa kernels that read like the algorithm.

:class:`KernelBuilder` builds one kernel function with the nisa IR builder the lowerings
use (:class:`mxdsl.builder.NisaBuilder`, ``self.ir``: hoisted constants, folded index
arithmetic, rank-reducing subviews with their strided layouts) and adds what the MoE-CTE
kernels need on top: the function itself, on-chip allocations with their footprint,
views by offsets, sizes and dims to drop, and ``scf.for`` / ``scf.if`` as context
managers.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FileLineColLoc,
    FixedBitwidthType,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    LocationAttr,
    MemRefType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from mxdsl.builder import NisaBuilder
from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import MemorySpace

Index = SSAValue | int
"""An index operand: an SSA ``index`` value or a Python int (a static value)."""


@dataclass(frozen=True)
class Buffer:
    """An on-chip buffer of a kernel: its type, bytes per partition and what it holds."""

    type: MemRefType[Attribute]
    partition_bytes: int
    what: str = ""

    @property
    def space(self) -> MemorySpace | None:
        return nisa.memory_space_of(self.type)

    def __str__(self) -> str:
        size = f"{self.partition_bytes / 1024:g} KiB"
        return f"{self.what} ({self.type}, {size})" if self.what else f"{self.type} ({size})"


_HERE = frozenset({__file__, contextmanager.__code__.co_filename})
# (functools.wraps adds no frame: in_region's inner is in this module)
"""Files whose frames are not an op's origin: this module and contextlib."""


def _package_path(filename: str) -> str:
    """``filename`` from ``mxdsl/`` on (the same on every machine), else as it is."""
    marker = os.sep + "mxdsl" + os.sep
    at = filename.rfind(marker)
    return filename[at + 1 :].replace(os.sep, "/") if at >= 0 else filename


class _HasBuilder(Protocol):
    kb: KernelBuilder


_S = TypeVar("_S", bound=_HasBuilder)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def in_region(
    name: str,
) -> Callable[[Callable[Concatenate[_S, _P], _R]], Callable[Concatenate[_S, _P], _R]]:
    """A method of a kernel part (an object with ``kb``) whose ops are in region
    ``name`` (:meth:`KernelBuilder.region`)."""

    def wrap(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
        @functools.wraps(method)
        def inner(self: _S, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            with self.kb.region(name):
                return method(self, *args, **kwargs)

        return inner

    return wrap


class KernelBuilder:
    """Builds one ``func.func`` whose arguments are HBM tensors, through a
    :class:`mxdsl.builder.NisaBuilder` (``self.ir``)."""

    def __init__(self, name: str, arg_types: Sequence[Attribute]) -> None:
        self.entry = Block(arg_types=list(arg_types))
        self.func = func.FuncOp(name, (list(arg_types), []), Region(self.entry))
        self.ir = NisaBuilder(
            self.entry, UnknownLoc(), constants_in_order=False, name_constants=False
        )
        self.buffers: list[Buffer] = []
        """Every on-chip buffer allocated."""
        self._regions: list[str] = []

    @contextmanager
    def region(self, name: str) -> Iterator[None]:
        """Ops emitted inside are located ``loc("name"("file":line:1))``: a named part
        of the kernel (gate, up, act, down, scatter), the innermost when nested."""
        self._regions.append(name)
        try:
            yield
        finally:
            self._regions.pop()

    def location(self) -> LocationAttr:
        """Where the op being emitted comes from: the builder's source line outside this
        module (``mxdsl/kernels/...:line:1``), inside the innermost :meth:`region`."""
        frame = sys._getframe(1)  # pyright: ignore[reportPrivateUsage]
        while frame.f_back is not None and frame.f_code.co_filename in _HERE:
            frame = frame.f_back
        line = FileLineColLoc(
            StringAttr(_package_path(frame.f_code.co_filename)), IntAttr(frame.f_lineno), IntAttr(1)
        )
        if not self._regions:
            return line
        return NameLoc(StringAttr(self._regions[-1]), line)

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return tuple(self.entry.args)

    # ------------------------------------------------------------- emission

    def emit(self, op: Operation) -> Operation:
        self.ir.location = self.location()
        return self.ir.emit(op)

    def index(self, value: Index) -> SSAValue:
        return self.ir.index(value)

    def f32(self, value: float) -> SSAValue:
        return self.ir.f32(value)

    # ------------------------------------------------------ index arithmetic

    def add(self, a: Index, b: Index) -> Index:
        return self.ir.add(a, b)

    def sub(self, a: Index, b: Index) -> Index:
        return self.ir.sub(a, b)

    def mul(self, a: Index, b: Index) -> Index:
        return self.ir.mul(a, b)

    def lt(self, a: Index, b: Index) -> SSAValue:
        return self.ir.lt(a, b)

    def eq(self, a: Index, b: Index) -> SSAValue:
        return self.ir.eq(a, b)

    # ------------------------------------------------------------- buffers

    def alloc(
        self,
        shape: Sequence[int],
        dtype: Attribute,
        space: MemorySpace = MemorySpace.SBUF,
        what: str = "",
    ) -> SSAValue:
        """An on-chip buffer; ``what`` names it in footprint reports."""
        tile = nisa.tile_type(list(shape), dtype, space)
        assert isinstance(dtype, FixedBitwidthType)
        self.buffers.append(Buffer(tile, math.prod(shape[1:]) * dtype.size, what))
        return self.emit(memref.AllocOp([], [], tile)).results[0]

    def footprint(self, space: MemorySpace) -> int:
        """Bytes per partition of all buffers allocated in ``space`` (the kernels never
        free one, so all are live at once)."""
        return sum(b.partition_bytes for b in self.buffers if b.space == space)

    def view(
        self,
        source: SSAValue,
        offsets: Sequence[Index],
        sizes: Sequence[int],
        drop: Sequence[int] = (),
    ) -> SSAValue:
        """``memref.subview`` with unit strides; ``drop`` lists (unit) dims to remove."""
        dropped = set(drop)
        return self.ir.subview(
            source,
            [
                (o, n, 1, d not in dropped)
                for d, (o, n) in enumerate(zip(offsets, sizes, strict=True))
            ],
        )

    def expand(self, source: SSAValue, groups: Sequence[Sequence[int]]) -> SSAValue:
        """``memref.expand_shape`` of a contiguous buffer: ``groups[d]`` is the shape that
        source dim d splits into (e.g. ``[[128], [24, 128]]``)."""
        source_type = source.type
        assert isinstance(source_type, MemRefType)
        shape = [n for group in groups for n in group]
        reassociation, d = [], 0
        for group in groups:
            reassociation.append(ArrayAttr([IntegerAttr(d + k, i64) for k in range(len(group))]))
            d += len(group)
        result = MemRefType(source_type.element_type, shape, NoneAttr(), source_type.memory_space)
        op = memref.ExpandShapeOp.create(
            operands=[source],
            result_types=[result],
            properties={
                "reassociation": ArrayAttr(reassociation),
                "static_output_shape": DenseArrayBase.from_list(i64, shape),
            },
        )
        return self.emit(op).results[0]

    # ---------------------------------------------------------- structure

    @contextmanager
    def loop(self, lb: Index, ub: Index, step: int = 1) -> Iterator[SSAValue]:
        """``scf.for %i = lb to ub step step { ... }``; yields ``%i``."""
        body = Block(arg_types=[IndexType()])
        self.emit(scf.ForOp(self.index(lb), self.index(ub), self.index(step), [], Region(body)))
        with self.ir.inside(body):
            yield body.args[0]
            self.emit(scf.YieldOp())

    @contextmanager
    def when(self, condition: SSAValue) -> Iterator[None]:
        """``scf.if %condition { ... }``."""
        body = Block()
        self.emit(scf.IfOp(condition, [], Region(body)))
        with self.ir.inside(body):
            yield
            self.emit(scf.YieldOp())

    def finish(self) -> ModuleOp:
        self.emit(func.ReturnOp())
        module = ModuleOp([self.func])
        module.verify()
        return module


def is_f32(t: Attribute) -> bool:
    return isinstance(t, Float32Type)


__all__ = ["Index", "KernelBuilder", "is_f32"]

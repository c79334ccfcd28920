"""The state of one function's lowering, as a lowering sees it.

A lowering (built in or an extension's) is a function ``lower(lowering, op)``: it reads
the lowered values of its operands (:meth:`FunctionLowering.value`), emits nisa IR with
``lowering.builder`` (:class:`mxdsl.builder.NisaBuilder`) and binds its results
(:meth:`FunctionLowering.bind`). It raises :class:`Refusal` for what it cannot express.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from mxdsl.builder import NisaBuilder, element_type_of, memref_type_of, shape_of
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects import nisa
from mxdsl.interpreters import numpy_dtype
from mxdsl.transforms.hlo_to_nisa.common import (
    ELEMENTWISE_FREE_TILE,
    PASS_NAME,
    PMAX,
    Refusal,
    Splat,
    rows_cols,
)


class TileOptions(Protocol):
    """The pass options a lowering reads (``LowerHloToNisaPass``'s tile sizes)."""

    @property
    def quantize_free_tile(self) -> int: ...
    @property
    def matmul_k_tile(self) -> int: ...
    @property
    def matmul_m_tile(self) -> int: ...
    @property
    def matmul_n_tile(self) -> int: ...


class FunctionLowering:
    """Lowers one ``func.func``: the value map from hlo values to their lowered values
    (HBM buffers, or tuples of them), the constant tensors not yet materialized, and the
    builder of the new body."""

    def __init__(self, options: TileOptions, function: func.FuncOp, entry: Block):
        self.options = options
        self.function = function
        self.builder = NisaBuilder(entry, function.location)
        self.values: dict[SSAValue, SSAValue | tuple[Any, ...]] = {}
        self.splats: dict[SSAValue, Splat] = {}
        """Tensors that are one constant everywhere (StableHLO splat constants and their
        broadcasts): memsets where they are used, an HBM buffer only when one is needed."""

    @property
    def e(self) -> NisaBuilder:
        """The builder (short name, for lowerings that emit much)."""
        return self.builder

    def refuse(self, op: Operation, message: str) -> OpDiagnostic:
        return OpDiagnostic(op, f"{PASS_NAME}: {message}")

    def bind(self, result: SSAValue, value: SSAValue | tuple[Any, ...]) -> None:
        """Make ``value`` (an HBM buffer or a view of one, or a tuple) the lowered value
        of the hlo ``result``."""
        self.values[result] = value

    def lowered(self, value: SSAValue) -> SSAValue | tuple[Any, ...]:
        """The lowered value of a tensor or (nested) tuple."""
        if value not in self.values and value in self.splats:
            return self.value(value)
        mapped = self.values.get(value)
        if mapped is None:
            raise Refusal(f"operand {value} has no lowered value")
        return mapped

    def value(self, tensor: SSAValue) -> SSAValue:
        mapped = self.values.get(tensor)
        if mapped is None and tensor in self.splats:
            mapped = self.values[tensor] = self.materialize(tensor, self.splats[tensor])
        if mapped is None:
            raise Refusal(f"operand {tensor} has no lowered value")
        if isinstance(mapped, tuple):
            raise Refusal("a tuple value is used where a tensor is expected")
        return mapped

    def result_buffer(self, tensor: SSAValue, element_type: Attribute | None = None) -> SSAValue:
        t = tensor.type
        assert isinstance(t, TensorType)
        return self.builder.alloc(
            t.get_shape(),
            element_type or t.get_element_type(),
            nisa.MemorySpace.HBM,
            tensor.name_hint or "out",
        )

    def alias(self, tensor: SSAValue, view: SSAValue) -> SSAValue:
        """A view becomes the value of ``tensor``; one that the function returns is copied
        into a buffer of its own first (a kernel returns whole HBM tensors)."""
        if not any(isinstance(use.operation, func.ReturnOp) for use in tensor.uses):
            return view
        if isinstance(view.owner, memref.AllocOp):
            return view
        out = self.builder.alloc(shape_of(view), element_type_of(view), nisa.MemorySpace.HBM, "out")
        self.builder.dma(out, view)
        return out

    def splat_through(self, op: Operation) -> bool:
        """A reshape / transpose / broadcast of a splat is the same splat."""
        source = self.splats.get(op.operands[0])
        if source is None or op.operands[0] in self.values:
            return False
        self.splats[op.results[0]] = source
        return True

    def materialize(self, tensor: SSAValue, splat: Splat) -> SSAValue:
        """An HBM buffer holding ``splat`` everywhere: a memset tile DMAed to each tile."""
        shape = shape_of(tensor)
        e = self.builder
        out = e.alloc(shape, splat.element, nisa.MemorySpace.HBM, tensor.name_hint or "splat")
        rows, cols = rows_cols(shape)
        tile = e.alloc(
            [min(PMAX, rows), min(ELEMENTWISE_FREE_TILE, cols)],
            splat.element,
            nisa.MemorySpace.SBUF,
            "splat_tile",
        )
        self.fill(tile, splat.value)
        if not shape:
            e.dma(out, tile)
            return out
        out2d = self.builder.reshaped(out, (rows, cols))
        e.tiled(
            rows,
            PMAX,
            "r",
            lambda r0, rt: e.tiled(
                cols,
                ELEMENTWISE_FREE_TILE,
                "c",
                lambda c0, ct: e.dma(
                    e.view(out2d, [(r0, rt, 1, True), (c0, ct, 1, True)]), e.rows(tile, rt, ct)
                ),
            ),
        )
        return out

    def fill(self, tile: SSAValue, value: Any) -> None:
        """Set a whole SBUF tile to a constant: ``nisa.memset`` for floats whose f64
        literal reads back; ``nisa.iota`` (int32 arithmetic, then a wrapping cast) for
        integers, for integral floats the memset syntax cannot carry, and for any other
        float (``-inf``, NaN) as its bit pattern into a ``nisa.view_cast`` of the tile
        to the unsigned integer of its width, so every level holds the same bits."""
        t = memref_type_of(tile)
        element = t.get_element_type()
        free = math.prod(t.get_shape()[1:])
        number = float(value)
        if not isinstance(element, IntegerType) and _memset_prints(number):
            self.builder.memset(tile, number)
            return
        if number.is_integer() and -(1 << 31) <= number < (1 << 32):
            wrapped = int(number) - (1 << 32) if number >= (1 << 31) else int(number)
            if isinstance(element, IntegerType) or abs(number) < (1 << 24):
                self.builder.emit(nisa.IotaOp(tile, [(0, free)], offset=wrapped))
                return
        if isinstance(element, AnyFloat) and element.bitwidth in (8, 16, 32):
            # -inf, NaN, ...: the value's bit pattern, written through an integer view
            width = element.bitwidth
            bits = int(np.asarray(value, numpy_dtype(element)).view(f"u{width // 8}"))
            view = self.builder.emit(
                nisa.ViewCastOp(tile, IntegerType(width, Signedness.UNSIGNED))
            ).results[0]
            wrapped = bits - (1 << 32) if bits >= (1 << 31) else bits
            self.builder.emit(nisa.IotaOp(view, [(0, free)], offset=wrapped))
            return
        raise Refusal(
            f"the constant {value} of {element} has no nisa form here (memset takes finite "
            "floats whose literal reads back, iota 32-bit integers and the bit patterns of "
            "8 / 16 / 32-bit floats); pass it as an argument"
        )


def _memset_prints(value: float) -> bool:
    """Whether xDSL prints ``value`` as an f64 literal that nisa.memset parses back
    (xDSL prints non-finite and some integral values in hex, which it does not read)."""
    if not math.isfinite(value):
        return False
    return float(f"{value:.5e}") == value or "." in f"{value:.17g}"

"""StableHLO ``reduce``: max / min (or and / or / xor) over the trailing dims, one
``tensor_reduce`` per 128 rows."""

from __future__ import annotations

import math
from typing import Any

from xdsl.dialects.builtin import (
    IntegerType,
    Signedness,
    i1,
)
from xdsl.ir import Attribute

from mxdsl.builder import Offset, element_type_of, shape_of
from mxdsl.dialects import nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    ELEMENTWISE_FREE_TILE,
    PMAX,
    Refusal,
    buffer_element,
    element_kind,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


def lower_reduce(lowering: FunctionLowering, op: shlo.ReduceOp) -> None:
    """A max / min (or and / or / xor) reduction over the trailing dims: one
    ``tensor_reduce`` per 128 rows; an init other than the op's identity is combined
    afterwards."""
    body = op.compact_body()
    alu = _REDUCE_ALU.get(body or "")
    if alu is None or len(op.inputs) != 1:
        raise Refusal(
            f"reduce applying {body or 'a multi-op body'}: only single-input max / min / "
            "and / or / xor reductions are lowered (an add's order is the ISA's, not "
            "StableHLO's exact sum)"
        )
    source_tensor, init_tensor, result = op.inputs[0], op.init_values[0], op.reduced[0]
    element = element_type_of(source_tensor)
    kind = element_kind(element)
    ordered = alu in (nisa.AluOp.MAXIMUM, nisa.AluOp.MINIMUM)
    kinds = ("float", "signed", "unsigned") if ordered else ("signed", "unsigned", "i1")
    if kind not in kinds:
        raise Refusal(
            f"reduce {alu.value} on {element}: lowered on {' / '.join(kinds)} element "
            "types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers)"
        )
    shape = shape_of(source_tensor)
    dims = sorted(op.dims)
    if not dims or dims != list(range(len(shape) - len(dims), len(shape))):
        raise Refusal(
            f"reduce over dims {dims} of a rank-{len(shape)} tensor: only trailing dims "
            "are reduced (the free axis); transpose them last"
        )
    reduced = math.prod(shape[len(shape) - len(dims) :])
    rows = math.prod(shape[: len(shape) - len(dims)])
    if reduced > ELEMENTWISE_FREE_TILE * 8 or 0 in shape:
        raise Refusal(
            f"reduce over {reduced} elements per row: at most "
            f"{ELEMENTWISE_FREE_TILE * 8} (one SBUF tile row) are lowered"
        )
    init = lowering.splats.get(init_tensor) if init_tensor not in lowering.values else None
    if init is None:
        raise Refusal("the init value of a reduce must be a constant")
    e = lowering.builder
    source = lowering.builder.reshaped(lowering.value(source_tensor), (rows, reduced))
    tile_element = buffer_element(element)
    out = lowering.result_buffer(result, tile_element)
    lowering.values[result] = out
    out2d = lowering.builder.reshaped(out, (rows, 1))
    p_alloc = min(PMAX, rows)
    data = e.alloc([p_alloc, reduced], tile_element, nisa.MemorySpace.SBUF, "red_in")
    dst = e.alloc([p_alloc, 1], tile_element, nisa.MemorySpace.SBUF, "red_out")
    identity = _is_identity(alu, init.value, element)
    init_tile = None
    if not identity:
        init_tile = e.alloc([p_alloc, 1], tile_element, nisa.MemorySpace.SBUF, "red_init")
        lowering.fill(init_tile, init.value)

    def tile(r0: Offset, rt: int) -> None:
        d = e.rows(dst, rt, 1)
        x = e.rows(data, rt, reduced)
        e.dma(x, e.view(source, [(r0, rt, 1, True), (0, reduced, 1, True)]))
        e.emit(nisa.TensorReduceOp(d, alu, x, [1]))
        if init_tile is not None:
            e.emit(nisa.TensorTensorOp(d, alu, d, e.rows(init_tile, rt, 1)))
        e.dma(e.view(out2d, [(r0, rt, 1, True), (0, 1, 1, True)]), d)

    e.tiled(rows, PMAX, "r", tile)


_REDUCE_ALU = {
    "stablehlo.maximum": nisa.AluOp.MAXIMUM,
    "stablehlo.minimum": nisa.AluOp.MINIMUM,
    "stablehlo.and": nisa.AluOp.BITWISE_AND,
    "stablehlo.or": nisa.AluOp.BITWISE_OR,
    "stablehlo.xor": nisa.AluOp.BITWISE_XOR,
}


def _is_identity(alu: nisa.AluOp, value: Any, element: Attribute) -> bool:
    """Whether ``value`` is the identity of the reduction ``alu`` in ``element``."""
    if alu == nisa.AluOp.MAXIMUM:
        if isinstance(element, IntegerType):
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return value == (0 if unsigned else -(1 << (element.width.data - 1)))
        return value == -math.inf
    if alu == nisa.AluOp.MINIMUM:
        if isinstance(element, IntegerType):
            width = element.width.data
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return value == ((1 << width) - 1 if unsigned else (1 << (width - 1)) - 1)
        return value == math.inf
    if alu == nisa.AluOp.BITWISE_AND:
        return value in (-1, (1 << 32) - 1) or (element == i1 and value == 1)
    return value == 0


def register(lowerings: Lowerings) -> None:
    lowerings.op(shlo.ReduceOp, lower_reduce)

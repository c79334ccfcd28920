"""StableHLO elementwise ops, compare and select, from JAX's MXFP8 quantization. Each op
runs over [128-partition, free] tiles of its result (leading dims merged into rows, the
last dim the free axis; a tensor whose elements fill whole 128-row tiles is seen as
[size / F, F] where that uses more partitions or wider tiles: :func:`partition_view`):
DMA the operands in, one or two ISA ops, DMA out. i1 tensors are ui8 0 / 1 buffers. Each
lowering is exact for the types it accepts: the ISA computes floats in f32 (exact for
max / min / abs / negate / compare, and correctly rounded for + - * / of f32 operands;
for narrower floats the f32 result rounded again is still the correctly rounded one, f32
having more than 2p + 2 bits) and integers exactly (docs/nisa-interpreter.md), as
StableHLO computes them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerType,
    MemRefType,
    Signedness,
)
from xdsl.ir import Attribute, Operation, SSAValue

from mxdsl.builder import Dims, Offset, element_type_of, shape_of
from mxdsl.dialects import nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    ELEMENTWISE_FREE_TILE,
    PMAX,
    Refusal,
    Splat,
    buffer_element,
    element_kind,
    rows_cols,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


def elementwise(
    lowering: FunctionLowering,
    result: SSAValue,
    operands: Sequence[SSAValue | Splat],
    compute: Callable[[SSAValue, list[SSAValue]], None],
    result_element: Attribute | None = None,
) -> None:
    """``result`` tile by tile: each operand (a tensor, an HBM buffer or a splat)
    DMAed into an SBUF tile (a splat: filled once), ``compute(dst tile, operand
    tiles)``, the dst tile DMAed out (into a buffer of ``result_element`` if given)."""
    shape = shape_of(result)
    if not shape or 0 in shape:
        raise Refusal(f"{result.type}: only non-empty tensors of rank >= 1 are lowered")
    e = lowering.builder
    rows, cols = partition_view(shape)
    p_alloc, f_alloc = min(PMAX, rows), min(ELEMENTWISE_FREE_TILE, cols)
    sources: list[tuple[SSAValue | None, SSAValue]] = []
    for operand in operands:
        if isinstance(operand, SSAValue) and isinstance(operand.type, MemRefType):
            hbm = operand  # already a buffer
            buffer = e.alloc([p_alloc, f_alloc], element_type_of(hbm), nisa.MemorySpace.SBUF, "in")
            sources.append((lowering.builder.reshaped(hbm, (rows, cols)), buffer))
            continue
        if isinstance(operand, SSAValue) and operand not in lowering.values:
            operand = lowering.splats.get(operand, operand)
        if isinstance(operand, Splat):
            buffer = e.alloc([p_alloc, f_alloc], operand.element, nisa.MemorySpace.SBUF, "cst")
            lowering.fill(buffer, operand.value)
            sources.append((None, buffer))
            continue
        hbm = lowering.value(operand)
        buffer = e.alloc([p_alloc, f_alloc], element_type_of(hbm), nisa.MemorySpace.SBUF, "in")
        sources.append((lowering.builder.reshaped(hbm, (rows, cols)), buffer))
    out = lowering.result_buffer(result, result_element or buffer_element(element_type_of(result)))
    lowering.values[result] = out
    out2d = lowering.builder.reshaped(out, (rows, cols))
    dst_tile = e.alloc([p_alloc, f_alloc], element_type_of(out), nisa.MemorySpace.SBUF, "res")

    def tile(r0: Offset, rt: int, c0: Offset, ct: int) -> None:
        region: Dims = [(r0, rt, 1, True), (c0, ct, 1, True)]
        views: list[SSAValue] = []
        for hbm, on_chip in sources:
            view = e.rows(on_chip, rt, ct)
            if hbm is not None:
                e.dma(view, e.view(hbm, region))
            views.append(view)
        dst = e.rows(dst_tile, rt, ct)
        compute(dst, views)
        e.dma(e.view(out2d, region), dst)

    e.tiled(
        rows,
        PMAX,
        "r",
        lambda r0, rt: e.tiled(
            cols, ELEMENTWISE_FREE_TILE, "c", lambda c0, ct: tile(r0, rt, c0, ct)
        ),
    )


def partition_view(shape: Sequence[int]) -> tuple[int, int]:
    """The [rows, cols] view an elementwise op runs on: the leading dims merged into rows
    and the last dim the free axis; or, when the elements fill whole 128-row tiles and
    that view would leave partitions idle (fewer than 128 rows) or free tiles narrow (a
    last dim below 512, such as the 32 of an MX block), the whole tensor (row-major,
    contiguous) as ``[size / F, F]`` with the widest ``F <= 512`` that keeps the rows a
    multiple of 128. Elementwise, the view changes no result; the tiles (at most 128 x 512
    elements, (operands + 1) x 2 KiB per partition in f32) fit the SBUF partition of
    every target."""
    rows, cols = rows_cols(shape)
    size = rows * cols
    if size % PMAX or (rows >= PMAX and cols >= ELEMENTWISE_FREE_TILE):
        return rows, cols
    per_partition = size // PMAX
    free = next(
        f for f in range(min(ELEMENTWISE_FREE_TILE, per_partition), 0, -1) if per_partition % f == 0
    )
    if rows >= PMAX and free <= cols:
        return rows, cols
    return size // free, free


def alu_op(
    lowering: FunctionLowering, alu: nisa.AluOp
) -> Callable[[SSAValue, list[SSAValue]], None]:
    def compute(dst: SSAValue, tiles: list[SSAValue]) -> None:
        lowering.builder.emit(nisa.TensorTensorOp(dst, alu, tiles[0], tiles[1]))

    return compute


def lower_binary(lowering: FunctionLowering, op: shlo.ElementwiseOp) -> None:
    alu = _BINARY_ALU[type(op)]
    element = element_type_of(op.result)
    kind = element_kind(element)
    allowed = {
        nisa.AluOp.ADD: ("float", "signed", "unsigned"),
        nisa.AluOp.SUBTRACT: ("float", "signed", "unsigned"),
        nisa.AluOp.MULTIPLY: ("float", "signed", "unsigned"),
        nisa.AluOp.DIVIDE: ("float",),
        nisa.AluOp.MAXIMUM: ("float", "signed", "unsigned"),
        nisa.AluOp.MINIMUM: ("float", "signed", "unsigned"),
        nisa.AluOp.BITWISE_AND: ("signed", "unsigned", "i1"),
        nisa.AluOp.BITWISE_OR: ("signed", "unsigned", "i1"),
        nisa.AluOp.BITWISE_XOR: ("signed", "unsigned", "i1"),
        nisa.AluOp.LEFT_SHIFT: ("signed", "unsigned"),
        nisa.AluOp.RIGHT_SHIFT: (
            ("unsigned",) if isinstance(op, shlo.ShrLogicalOp) else ("signed",)
        ),
    }[alu]
    if kind not in allowed:
        raise Refusal(
            f"{op.name} on {element}: lowered on {' / '.join(allowed)} element types "
            "(float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers), where "
            "the ISA's f32 or exact integer arithmetic gives StableHLO's bits"
        )
    if alu in (nisa.AluOp.LEFT_SHIFT, nisa.AluOp.RIGHT_SHIFT):
        amount = lowering.splats.get(op.args[1])
        if amount is None or op.args[1] in lowering.values or not 0 <= amount.value < 64:
            raise Refusal(
                f"{op.name}: the shift amount must be a constant in [0, 64) (JAX shifts "
                "by constants); a shift by a tensor has no exact ISA form here"
            )
    elementwise(lowering, op.result, list(op.args), alu_op(lowering, alu))


def lower_unary(lowering: FunctionLowering, op: shlo.ElementwiseOp) -> None:
    """abs: abs_max with 0 (clears the sign of NaN too); negate: floats xor the sign
    bit (a view_cast of the bits), integers multiply by -1 (wrapping); not: xor with 1
    (i1) or with all ones."""
    element = element_type_of(op.result)
    kind = element_kind(element)
    tile_element = buffer_element(element)
    if isinstance(op, shlo.NotOp):
        if kind not in ("signed", "unsigned", "i1"):
            raise Refusal(f"not on {element}: integers and i1 only")
        width = element.width.data if isinstance(element, IntegerType) else 8
        ones = 1 if kind == "i1" else -1 if kind == "signed" else (1 << width) - 1
        elementwise(
            lowering,
            op.result,
            [op.args[0], Splat(ones, tile_element)],
            alu_op(lowering, nisa.AluOp.BITWISE_XOR),
        )
        return
    if kind not in ("float", "signed", "unsigned"):
        raise Refusal(
            f"{op.name} on {element}: floats of at most 32 bits and 8 / 16 / 32-bit integers only"
        )
    if isinstance(op, shlo.AbsOp):
        elementwise(
            lowering,
            op.result,
            [op.args[0], Splat(0, tile_element)],
            alu_op(lowering, nisa.AluOp.ABS_MAX),
        )
        return
    if kind == "float":  # flip the sign bit (NaN too, as StableHLO's negate does)
        assert isinstance(element, AnyFloat)
        bits = IntegerType(element.bitwidth, Signedness.UNSIGNED)
        source = lowering.builder.emit(nisa.ViewCastOp(lowering.value(op.args[0]), bits)).results[0]
        sign = Splat(1 << (element.bitwidth - 1), bits)
        elementwise(
            lowering,
            op.result,
            [source, sign],
            alu_op(lowering, nisa.AluOp.BITWISE_XOR),
            result_element=bits,
        )
        out = lowering.value(op.result)
        lowering.values[op.result] = lowering.builder.emit(nisa.ViewCastOp(out, element)).results[0]
        return
    elementwise(
        lowering,
        op.result,
        [op.args[0], Splat(-1, tile_element)],
        alu_op(lowering, nisa.AluOp.MULTIPLY),
    )


def lower_compare(lowering: FunctionLowering, op: shlo.CompareOp) -> None:
    direction = op.comparison_direction.data
    element = element_type_of(op.lhs)
    kind = element_kind(element)
    expected = {"float": "FLOAT", "signed": "SIGNED", "unsigned": "UNSIGNED", "i1": "UNSIGNED"}
    compare_type = op.compare_type.data if op.compare_type is not None else None
    if kind not in expected or compare_type not in (None, expected[kind]):
        raise Refusal(
            f"compare {direction} {compare_type or ''} on {element}: lowered as FLOAT on "
            "floats of at most 32 bits, SIGNED / UNSIGNED on integers of their "
            "signedness (TOTALORDER has no ISA form here)"
        )
    alu = _COMPARE_ALU[direction]
    elementwise(lowering, op.result, [op.lhs, op.rhs], alu_op(lowering, alu))


def lower_select(lowering: FunctionLowering, op: shlo.SelectOp) -> None:
    """``dst = on_false``, then ``tensor_copy_predicated`` of on_true where pred."""
    pred = lowering.splats.get(op.pred) if op.pred not in lowering.values else None
    if pred is not None:
        chosen = op.on_true if pred.value else op.on_false
        if chosen in lowering.splats and chosen not in lowering.values:
            lowering.splats[op.result] = lowering.splats[chosen]
            return
        lowering.values[op.result] = lowering.alias(op.result, lowering.value(chosen))
        return
    if shape_of(op.pred) != shape_of(op.result):
        raise Refusal("a scalar predicate that is not a constant is not lowered")
    e = lowering.builder

    def compute(dst: SSAValue, tiles: list[SSAValue]) -> None:
        on_false, on_true, predicate = tiles
        e.emit(nisa.TensorCopyOp(dst, on_false))
        e.emit(nisa.TensorCopyPredicatedOp(dst, on_true, predicate))

    elementwise(lowering, op.result, [op.on_false, op.on_true, op.pred], compute)


_BINARY_ALU: dict[type[Operation], nisa.AluOp] = {
    shlo.AddOp: nisa.AluOp.ADD,
    shlo.SubOp: nisa.AluOp.SUBTRACT,
    shlo.MulOp: nisa.AluOp.MULTIPLY,
    shlo.DivOp: nisa.AluOp.DIVIDE,
    shlo.MaxOp: nisa.AluOp.MAXIMUM,
    shlo.MinOp: nisa.AluOp.MINIMUM,
    shlo.AndOp: nisa.AluOp.BITWISE_AND,
    shlo.OrOp: nisa.AluOp.BITWISE_OR,
    shlo.XorOp: nisa.AluOp.BITWISE_XOR,
    shlo.ShlOp: nisa.AluOp.LEFT_SHIFT,
    shlo.ShrLogicalOp: nisa.AluOp.RIGHT_SHIFT,
    shlo.ShrArithOp: nisa.AluOp.RIGHT_SHIFT,
}


_COMPARE_ALU = {
    "EQ": nisa.AluOp.EQUAL,
    "NE": nisa.AluOp.NOT_EQUAL,
    "GE": nisa.AluOp.GREATER_EQUAL,
    "GT": nisa.AluOp.GREATER,
    "LE": nisa.AluOp.LESS_EQUAL,
    "LT": nisa.AluOp.LESS,
}


def register(lowerings: Lowerings) -> None:
    for op_type in _BINARY_ALU:
        lowerings.op(op_type, lower_binary)
    for op_type in (shlo.AbsOp, shlo.NegOp, shlo.NotOp):
        lowerings.op(op_type, lower_unary)
    lowerings.op(shlo.CompareOp, lower_compare)
    lowerings.op(shlo.SelectOp, lower_select)

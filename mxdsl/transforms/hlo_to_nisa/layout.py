"""Data movement: ``convert`` (one HBM -> HBM DMA through f32, where that gives convert's
bits) and the StableHLO layout ops import-stablehlo keeps around the block-scaled dot
(``docs/stablehlo.md``): the FP8 packing pair and JAX's reshape / transpose /
broadcast_in_dim. HBM buffers are row-major and contiguous, so a reshape is a view and
the packing is ``nisa.view_cast`` (NKI's ``view(dtype)``); a transpose is one strided DMA
per tile from a ``nisa.permute`` view of its source, and a broadcast moves data with
DMAs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerType,
    NoneAttr,
    TensorType,
    f8E4M3FN,
    f8E5M2,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue

from mxdsl.builder import Dims, Offset, element_type_of, memref_type_of, shape_of
from mxdsl.contract.mx import (
    X4_PACK,
)
from mxdsl.dialects import nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.dialects.hlo import ConvertOp
from mxdsl.interpreters import numpy_dtype, round_to
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    ELEMENTWISE_FREE_TILE,
    PMAX,
    Refusal,
    Splat,
    buffer_element,
    element_kind,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


def lower_convert(lowering: FunctionLowering, op: ConvertOp) -> None:
    if (splat := _converted_splat(lowering, op)) is not None:
        lowering.splats[op.result] = splat
        return
    kinds = BFloat16Type | Float16Type | Float32Type
    source = lowering.value(op.operand)
    target = op.result.type
    assert isinstance(target, TensorType)
    operand_type = op.operand.type
    assert isinstance(operand_type, TensorType)
    if any(_unpacked_fp4(t) for t in (operand_type.get_element_type(), target.get_element_type())):
        raise Refusal(
            f"convert {operand_type} -> {target}: an unpacked fp4 (f4E2M1FN) tensor has no "
            "buffer below hlo (bir holds fp4 only as the x4 words of QuantizeMX's data); "
            "convert to or from fp4 outside the kernel, or quantize with QuantizeMX"
        )
    if _dma_converts_exactly(operand_type.get_element_type(), target.get_element_type()):
        out = lowering.result_buffer(op.result)
        lowering.builder.dma(out, source)
        lowering.values[op.result] = out
        return
    if not isinstance(element_type_of(source), kinds) or not isinstance(
        target.get_element_type(), kinds
    ):
        raise Refusal(
            f"convert {op.operand.type} -> {target}: lowered where one DMA (through f32) "
            "gives convert's bits: from floats of at most 32 bits, i1 and integers of at "
            "most 16 bits to floats and integers, from 32-bit integers to f32 and integers "
            "(not to i1, not rounding twice)"
        )
    out = lowering.result_buffer(op.result)
    lowering.builder.dma(out, source)
    lowering.values[op.result] = out


def _dma_converts_exactly(source: Attribute, target: Attribute) -> bool:
    """Whether a DMA (source -> f32 -> target, or integer -> integer wrapping) gives
    ``convert``'s bits: the source reaches f32 exactly (floats of at most 32 bits, i1,
    integers of at most 16 bits; a wider integer only into f32 or an integer) and the
    target is not i1 (convert's ``x != 0``)."""
    if target == i1 or not (
        _narrow_float(target) or element_kind(target) in ("signed", "unsigned")
    ):
        return False
    if _narrow_float(source) or element_kind(source) == "i1":
        return True
    if element_kind(source) in ("signed", "unsigned"):
        narrow = isinstance(source, IntegerType) and source.width.data <= 16
        return narrow or not _narrow_float(target) or isinstance(target, Float32Type)
    return False


def _converted_splat(lowering: FunctionLowering, op: ConvertOp) -> Splat | None:
    """A splat converted is the splat of the converted value (convert's rounding,
    ``round_to``), filled where it is used: JAX's ``-inf`` mask constant converted to
    the activation type stays a memset instead of becoming a buffer."""
    splat = lowering.splats.get(op.operand)
    source, target = element_type_of(op.operand), element_type_of(op.result)
    if splat is None or op.operand in lowering.values or _unpacked_fp4(source):
        return None
    if _unpacked_fp4(target) or element_kind(target) == "other" and not _narrow_float(target):
        return None
    value = np.asarray(splat.value).astype(numpy_dtype(source)).reshape(1)
    converted = round_to(value, numpy_dtype(target))[0]
    return Splat(int(converted) if target == i1 else converted, buffer_element(target))


def _unpacked_fp4(t: Attribute) -> bool:
    """A 4-bit float element (f4E2M1FN), which has no unpacked bir dtype."""
    return isinstance(t, AnyFloat) and t.bitwidth == 4


def _narrow_float(t: Attribute) -> bool:
    """A float type of at most 32 bits (f32 holds each of its values exactly)."""
    return isinstance(t, AnyFloat) and t.bitwidth <= 32


def lower_reshape(lowering: FunctionLowering, op: shlo.ReshapeOp) -> None:
    if lowering.splat_through(op):
        return
    source = lowering.value(op.operand)
    shape = shape_of(op.result)
    lowering.values[op.result] = lowering.alias(op.result, lowering.builder.reshaped(source, shape))


def lower_reshape_like(
    lowering: FunctionLowering, op: Operation, source: SSAValue, shape: Sequence[int]
) -> None:
    result = op.results[0]
    lowering.values[result] = lowering.alias(result, lowering.builder.reshaped(source, shape))


def lower_bitcast_convert(lowering: FunctionLowering, op: shlo.BitcastConvertOp) -> None:
    """Four FP8 lanes ``[.., n, 4]`` as one 32-bit word ``[.., n]``: the x4 packing
    import-stablehlo emits (element ``4 k + j`` in byte ``j`` of word ``k``); a
    same-width bitcast (JAX's f32 <-> ui32, ui8 -> E8M0) is a view_cast as well."""
    source_type, result_type = op.operand.type, op.result.type
    assert isinstance(source_type, TensorType)
    assert isinstance(result_type, TensorType)
    lane, word = source_type.get_element_type(), result_type.get_element_type()
    shape = shape_of(op.operand)
    if shape == shape_of(op.result) and i1 not in (lane, word):
        cast = lowering.builder.emit(nisa.ViewCastOp(lowering.value(op.operand), word))
        cast.results[0].name_hint = op.result.name_hint
        lowering.values[op.result] = lowering.alias(op.result, cast.results[0])
        return
    x4 = {f8E4M3FN: nisa.float8_e4m3fn_x4, f8E5M2: nisa.float8_e5m2_x4}.get(lane)
    if (
        x4 is None
        or not (isinstance(word, IntegerType) and word.width.data == 32)
        or len(shape) < 2
        or shape[-1] != X4_PACK
    ):
        raise Refusal(
            f"bitcast_convert {source_type} -> {result_type}: only same-width bitcasts "
            "and the x4 packing of FP8 lanes (f8E4M3FN / f8E5M2 [.., n, 4] -> 32-bit "
            "integer [.., n]) are lowered (nisa.view_cast)"
        )
    e = lowering.builder
    source = lowering.value(op.operand)
    if not isinstance(memref_type_of(source).layout, NoneAttr):
        source = lowering.builder.reshaped(source, shape)  # copied to a contiguous buffer
    cast = e.emit(nisa.ViewCastOp(source, x4))
    cast.results[0].name_hint = f"{op.result.name_hint or 'packed'}_x4"
    groups = [[d] for d in range(len(shape) - 2)] + [[len(shape) - 2, len(shape) - 1]]
    words = e.reshape(cast.results[0], groups, shape[:-1], op.result.name_hint)
    lowering.values[op.result] = lowering.alias(op.result, words)


def lower_transpose(lowering: FunctionLowering, op: shlo.TransposeOp) -> None:
    """A permutation that keeps the order of the non-unit dims is a reshape; otherwise
    the source seen through ``nisa.permute`` (the result's shape, the source's strides)
    is copied into the result one strided DMA per tile: tiles of at most 128 x 512 over
    the two innermost non-unit result dims, in loops over the others."""
    if lowering.splat_through(op):
        return
    perm = op.dims
    source = lowering.value(op.operand)
    in_shape, out_shape = shape_of(op.operand), shape_of(op.result)
    moved = [d for d in perm if in_shape[d] != 1]
    if moved == sorted(moved):
        lower_reshape_like(lowering, op, source, out_shape)
        return
    e = lowering.builder
    out = lowering.result_buffer(op.result, buffer_element(element_type_of(op.result)))
    lowering.values[op.result] = out
    permuted = e.emit(nisa.PermuteOp(source, list(perm))).results[0]
    *loops, rows, cols = [d for d in range(len(out_shape)) if out_shape[d] != 1]

    def copy(ivs: dict[int, Offset]) -> None:
        def tile(r0: Offset, rt: int, c0: Offset, ct: int) -> None:
            dims: Dims = [(ivs.get(d, 0), 1, 1, False) for d in range(len(out_shape))]
            dims[rows] = (r0, rt, 1, True)
            dims[cols] = (c0, ct, 1, True)
            e.dma(e.view(out, dims), e.view(permuted, dims))

        e.tiled(
            out_shape[rows],
            PMAX,
            "r",
            lambda r0, rt: e.tiled(
                out_shape[cols], ELEMENTWISE_FREE_TILE, "c", lambda c0, ct: tile(r0, rt, c0, ct)
            ),
        )

    lowering.builder.nest(loops, out_shape, {}, copy)


def lower_broadcast_in_dim(lowering: FunctionLowering, op: shlo.BroadcastInDimOp) -> None:
    """Inserting unit dims is a reshape; otherwise one DMA copies the operand into the
    result at index 0 of every broadcast dim, then each broadcast dim in turn is filled
    by doubling: the part written so far (indices ``[0, n)``) is copied to ``[n, 2n)``,
    so a dim of size ``s`` takes ``ceil(log2 s)`` DMAs (pure data movement, the
    operand's bits)."""
    if lowering.splat_through(op):
        return
    dims = op.dims
    source = lowering.value(op.operand)
    in_shape, out_shape = shape_of(op.operand), shape_of(op.result)
    if list(dims) != sorted(dims):
        raise Refusal(
            f"broadcast_in_dim dims {list(dims)} reorder the operand dims; transpose first"
        )
    broadcast = [
        d
        for d in range(len(out_shape))
        if out_shape[d] != 1 and (d not in dims or in_shape[dims.index(d)] != out_shape[d])
    ]
    if not broadcast:
        lower_reshape_like(lowering, op, source, out_shape)
        return
    e = lowering.builder
    out = lowering.result_buffer(op.result, buffer_element(element_type_of(op.result)))
    lowering.values[op.result] = out

    def part(filled: Sequence[int], d: int | None, start: int, size: int) -> SSAValue:
        """The result at index 0 of the broadcast dims not yet ``filled``, and along
        ``d`` (if given) the indices ``[start, start + size)``."""
        view: Dims = []
        for k in range(len(out_shape)):
            if k == d:
                view.append((start, size, 1, True))
            elif k in broadcast and k not in filled:
                view.append((0, 1, 1, True))
            else:
                view.append((0, out_shape[k], 1, True))
        return e.view(out, view)

    e.dma(part([], None, 0, 1), source)
    for i, d in enumerate(broadcast):
        done = 1
        while done < out_shape[d]:
            size = min(done, out_shape[d] - done)
            e.dma(part(broadcast[:i], d, done, size), part(broadcast[:i], d, 0, size))
            done += size


def register(lowerings: Lowerings) -> None:
    lowerings.op(ConvertOp, lower_convert)
    lowerings.op(shlo.ReshapeOp, lower_reshape)
    lowerings.op(shlo.BitcastConvertOp, lower_bitcast_convert)
    lowerings.op(shlo.TransposeOp, lower_transpose)
    lowerings.op(shlo.BroadcastInDimOp, lower_broadcast_in_dim)

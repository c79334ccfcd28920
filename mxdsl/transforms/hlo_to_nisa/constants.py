"""Constants: the MX metadata constants disappear; dense literals become constant
``memref.global`` s in HBM (their bytes as written: NaN, infinities and signed zeros
included); StableHLO splats are filled where they are used (``FunctionLowering.fill``:
a memset, or for a value a memset literal cannot carry, such as ``-inf``, its bit
pattern written through an integer view of the tile)."""

from __future__ import annotations

import itertools
import math

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
)
from xdsl.rewriter import InsertPoint, Rewriter

from mxdsl.builder import Offset, element_type_of
from mxdsl.contract.mx import (
    QUANTIZE_MX_TARGETS,
    SCALED_MATMUL_TARGETS,
)
from mxdsl.dialects import nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.dialects.hlo import ConstantOp, CustomCallOp
from mxdsl.interpreters import dense_literal_value
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    ELEMENTWISE_FREE_TILE,
    PMAX,
    Refusal,
    Splat,
    buffer_element,
    element_kind,
    hbm_type,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


def lower_constant(lowering: FunctionLowering, op: ConstantOp | shlo.ConstantOp) -> None:
    """Metadata constants disappear; a dense tensor literal becomes a constant
    ``memref.global`` in hbm (next to the function) read with ``memref.get_global``."""
    data_uses = [
        use
        for use in op.output.uses
        if not (
            isinstance(use.operation, CustomCallOp)
            and (
                (use.operation.target in QUANTIZE_MX_TARGETS and use.index == 0)
                or (use.operation.target in SCALED_MATMUL_TARGETS and use.index == 4)
            )
        )
    ]
    if not data_uses:
        lowering.values[op.output] = ()
        return
    literal = op.value
    t = op.output.type
    if not isinstance(literal, DenseIntOrFPElementsAttr) or not isinstance(t, TensorType):
        raise Refusal(
            "only dense tensor literals and the metadata constants of QuantizeMX_* / "
            "ScaledMatmul_* are lowered; pass other constants as function arguments"
        )
    hbm = hbm_type(t)  # pyright: ignore[reportUnknownArgumentType]
    module = lowering.function.parent_op()
    assert module is not None
    taken = {o.sym_name.data for o in module.walk() if isinstance(o, memref.GlobalOp | func.FuncOp)}
    base = f"{lowering.function.sym_name.data}_{op.output.name_hint or 'const'}"
    name = next(n for i in itertools.count() if (n := f"{base}{i or ''}") not in taken)
    glob = memref.GlobalOp.get(StringAttr(name), hbm, literal, constant=UnitAttr())
    glob.location = op.location
    Rewriter.insert_op(glob, InsertPoint.before(lowering.function))
    read = lowering.builder.emit(memref.GetGlobalOp(name, hbm))
    read.results[0].name_hint = op.output.name_hint
    lowering.values[op.output] = read.results[0]


def lower_stablehlo_constant(lowering: FunctionLowering, op: shlo.ConstantOp) -> None:
    """A literal whose elements have one bit pattern is a splat (a memset or iota where
    it is used; its value a numpy scalar of the element type, so a NaN keeps its
    payload); any other literal is a constant ``memref.global`` (:func:`lower_constant`),
    special values included, bit for bit."""
    literal = op.value
    element = element_type_of(op.output)
    if (
        isinstance(literal, DenseIntOrFPElementsAttr)
        and (array := dense_literal_value(literal)).size
    ):
        flat = array.reshape(-1)
        bits = flat.view(f"u{flat.itemsize}") if flat.dtype != np.bool_ else flat
        if (bits == bits[0]).all():
            value = flat[0]
            if element == i1:
                value = 1 if value else 0
            lowering.splats[op.output] = Splat(value, buffer_element(element))
            return
    lower_constant(lowering, op)


IOTA_FREE_ELEMENTS = 4096
"""Free elements per partition of one iota tile along the free axis (16 KiB of i32)."""


def lower_iota(lowering: FunctionLowering, op: shlo.IotaOp) -> None:
    """``stablehlo.iota`` as ``nisa.iota`` tiles (int32 arithmetic, then one rounding
    to the element type, as StableHLO converts the index) DMAed into an HBM buffer seen
    as ``[A, n, B]`` (``n`` the iota dim). Along the last dim (B = 1) the index runs
    over the free axis (chunks of 4096, the rows of A on the partitions); otherwise over
    the partitions (``channel_multiplier`` 1, chunks of 128), the tile copied to every
    index of A and every 512-column chunk of B. Index offsets are static, so the chunks
    along ``n`` are unrolled (``n / 4096`` or ``n / 128`` of them)."""
    result = op.result
    t = result.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    element = t.get_element_type()
    kind = element_kind(element)
    if kind in ("i1", "other") and not (isinstance(element, AnyFloat) and element.bitwidth <= 32):
        raise Refusal(
            f"iota of {element}: lowered for 8 / 16 / 32-bit integers and floats of at most "
            "32 bits (nisa.iota computes in int32)"
        )
    dim = op.iota_dimension.value.data
    if 0 in shape:
        raise Refusal(f"{t}: empty tensors are not lowered")
    if shape[dim] > 1 << 31:
        raise Refusal(f"iota dim {dim} has {shape[dim]} indices; int32 holds at most 2^31")
    outer, n, inner = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :])
    e = lowering.builder
    out = lowering.result_buffer(result)
    lowering.values[result] = out
    out3 = e.reshaped(out, (outer, n, inner))
    if inner == 1:
        p_alloc, f_alloc = min(PMAX, outer), min(IOTA_FREE_ELEMENTS, n)
        tile = e.alloc([p_alloc, f_alloc], element, nisa.MemorySpace.SBUF, "iota")
        for i0 in range(0, n, f_alloc):
            nt = min(f_alloc, n - i0)
            chunk = e.rows(tile, p_alloc, nt)
            e.emit(nisa.IotaOp(chunk, [(1, nt)], offset=i0))
            e.tiled(
                outer,
                PMAX,
                "a",
                lambda a0, at, i0=i0, nt=nt: e.dma(
                    e.view(out3, [(a0, at, 1, True), (i0, nt, 1, True), (0, 1, 1, False)]),
                    e.rows(tile, at, nt),
                ),
            )
        return
    p_alloc, f_alloc = min(PMAX, n), min(ELEMENTWISE_FREE_TILE, inner)
    tile = e.alloc([p_alloc, f_alloc], element, nisa.MemorySpace.SBUF, "iota")
    for i0 in range(0, n, p_alloc):
        pt = min(p_alloc, n - i0)
        e.emit(nisa.IotaOp(e.rows(tile, pt, f_alloc), [(0, f_alloc)], i0, channel_multiplier=1))

        def copy(a: Offset, i0: int = i0, pt: int = pt) -> None:
            e.tiled(
                inner,
                ELEMENTWISE_FREE_TILE,
                "b",
                lambda b0, bt: e.dma(
                    e.view(out3, [(a, 1, 1, False), (i0, pt, 1, True), (b0, bt, 1, True)]),
                    e.rows(tile, pt, bt),
                ),
            )

        if outer == 1:
            copy(0)
        else:
            e.loop(0, outer, 1, "a", copy)


def register(lowerings: Lowerings) -> None:
    lowerings.op(ConstantOp, lower_constant)
    lowerings.op(shlo.ConstantOp, lower_stablehlo_constant)
    lowerings.op(shlo.IotaOp, lower_iota)

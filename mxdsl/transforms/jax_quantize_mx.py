"""The opt-in quantize rewrite of ``import-stablehlo{quantize-mx=true}``.

``jax.nn.scaled_dot_general`` with an MXFP8 config quantizes each operand with plain
StableHLO ops (``docs/stablehlo.md``, "Quantization"): per 32-element block along the
contracting (last) dim, ``amax / 448`` is rounded *up* to a power of two (JAX's
``cast_to_e8m0_with_rounding_up``; an all-zero block gets E8M0 byte 0), the block is
divided by it, clipped and converted to FP8. The Neuron ``QuantizeMX`` uses the EMAX
rule instead (Spec "MX Microscaling: Quantize, Block-Scaling and E8M0"): ``E8M0 = max(1, maxExp -
emax)``, a
*floor*, then saturates. The two scales differ in blocks whose amax has a significand above
1.75 (and in all-zero blocks), so the rewrite changes results and is never done
by default. Each rewritten site gets a located remark saying so.

The match, per operand of an imported ``hlo.custom_call @__op$block_scaled_dot``:
``words = bitcast_convert(reshape(D))`` (the import's packing), ``D = reshape(convert_fp8(
clip(divide(R, ...))))`` with ``R = reshape(X) : [.., K] -> [.., K/32, 32]``, and the
matching scale operand ``bitcast_convert(reshape(u8))`` whose producers include
``reduce(abs(R))``. ``X`` (bf16 / f16) is then quantized by one ``QuantizeMX`` along its
last dim and JAX's ops, now unused, are erased.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BFloat16Type,
    FileLineColLoc,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    ModuleOp,
    TensorType,
    TupleType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mxdsl.contract.mx import BLOCK_SCALED_DOT, MX_BLOCK_SIZE, QUANTIZE_MX, X4_PACK
from mxdsl.dialects import hlo
from mxdsl.dialects import stablehlo as shlo

_FP8 = {Float8E4M3FNType: "float8_e4m3fn", Float8E5M2Type: "float8_e5m2"}

REMARK = (
    "JAX's MXFP8 quantization of {what} was replaced by QuantizeMX (opt-in "
    "quantize-mx): the E8M0 block scale now follows the Neuron EMAX floor rule "
    "(max(1, maxExp - emax), then saturate) instead of JAX's round-up rule "
    "(ceil(log2(amax / {fmax}))), so blocks whose amax has a significand above 1.75 get "
    "half JAX's scale and all-zero blocks get E8M0 1, not 0; results can differ from "
    "JAX's (docs/stablehlo.md)"
)


_Op = TypeVar("_Op", bound=Operation)


def _defining(value: SSAValue | None, kind: type[_Op]) -> _Op | None:
    owner = value.owner if value is not None else None
    return owner if isinstance(owner, kind) else None


def _shape(value: SSAValue) -> tuple[int, ...]:
    return shlo.tensor_shape(value)


def _element(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def _producers(value: SSAValue, limit: int = 400) -> Iterator[Operation]:
    """Ops ``value`` depends on, breadth first (bounded)."""
    seen: set[Operation] = set()
    queue = [value]
    while queue and len(seen) < limit:
        owner = queue.pop(0).owner
        if not isinstance(owner, Operation) or owner in seen:
            continue
        seen.add(owner)
        yield owner
        queue.extend(owner.operands)


@dataclass(frozen=True)
class JaxQuantize:
    """One matched operand: its source ``x``, FP8 dtype, the blocked reshape ``r``."""

    x: SSAValue
    dtype: str
    r: shlo.ReshapeOp


def match_data(words: SSAValue) -> JaxQuantize | None:
    bitcast = _defining(words, shlo.BitcastConvertOp)
    pack = _defining(bitcast.operand if bitcast else None, shlo.ReshapeOp)
    data = _defining(pack.operand if pack else None, shlo.ReshapeOp)
    if data is None or len(list(data.result.uses)) != 1:
        return None
    convert = _defining(data.operand, shlo.ConvertOp) or _defining(data.operand, hlo.ConvertOp)
    if convert is None or type(_element(data.operand)) not in _FP8:
        return None
    value = convert.operands[0]
    while True:
        if (clamp := _defining(value, shlo.ClampOp)) is not None:
            value = clamp.operands[1]
            continue
        clip = _defining(value, shlo.MaxOp) or _defining(value, shlo.MinOp)
        if clip is None:
            break
        # JAX's clip: minimum(broadcast(hi), maximum(broadcast(lo), x))
        candidates = [v for v in clip.operands if not _defining(v, shlo.BroadcastInDimOp)]
        if len(candidates) != 1:
            return None
        value = candidates[0]
    divide = _defining(value, shlo.DivOp)
    blocked = divide and _defining(divide.args[0], shlo.ReshapeOp)
    if blocked is None:
        return None
    x = blocked.operand
    shape = _shape(x)
    if not shape or _shape(blocked.result) != (
        *shape[:-1],
        shape[-1] // MX_BLOCK_SIZE,
        MX_BLOCK_SIZE,
    ):
        return None
    return JaxQuantize(x, _FP8[type(_element(data.operand))], blocked)


def match_scale(scale: SSAValue, data: JaxQuantize) -> bool:
    bitcast = _defining(scale, shlo.BitcastConvertOp)
    if bitcast is None or not isinstance(_element(scale), Float8E8M0FNUType):
        return False
    for op in _producers(bitcast.operand):
        if isinstance(op, shlo.ReduceOp) and op.compact_body() == "stablehlo.maximum":
            source = _defining(op.inputs[0], shlo.AbsOp)
            if source is not None and source.args[0] is data.r.result:
                return True
    return False


def _location_text(op: Operation) -> str:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
    return ""


def _erase_dead(function: func.FuncOp) -> None:
    changed = True
    while changed:
        changed = False
        for op in reversed(list(function.body.walk())):
            if op.dialect_name() not in ("stablehlo", "hlo") or isinstance(
                op, hlo.CustomCallOp | shlo.CustomCallOp | shlo.CompositeOp
            ):
                continue
            if op.results and all(not r.uses for r in op.results):
                Rewriter.erase_op(op)
                changed = True


def rewrite_jax_quantize(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Replace JAX's quantization of every matched block-scaled dot operand by
    ``QuantizeMX``; returns the number of operands rewritten. Remarks go to
    ``remarks`` (or stderr)."""
    count = 0
    for dot in [o for o in module.walk() if isinstance(o, hlo.CustomCallOp)]:
        if dot.target != BLOCK_SCALED_DOT:
            continue
        for side, data_index, scale_index in (("lhs", 0, 2), ("rhs", 1, 3)):
            matched = match_data(dot.inputs[data_index])
            if matched is None or not match_scale(dot.inputs[scale_index], matched):
                continue
            if not isinstance(_element(matched.x), BFloat16Type | Float16Type):
                continue  # QuantizeMX takes bf16 / f16 (MXQ03): keep JAX's ops
            shape = _shape(matched.x)
            k = shape[-1]
            result = TupleType(
                (
                    TensorType(_element(dot.inputs[data_index]), [*shape[:-1], k // X4_PACK]),
                    TensorType(_element(dot.inputs[scale_index]), [*shape[:-1], k // 32]),
                )
            )
            config = {"dtype": matched.dtype, "dim": -1, "block_size": 32, "scale_method": "EMAX"}
            quantize = hlo.CustomCallOp(
                QUANTIZE_MX, [matched.x], result, backend_config=json.dumps(config)
            )
            quantize.location = matched.r.location
            quantize.result.name_hint = f"{side}_mx"
            data = hlo.GetTupleElementOp(quantize.result, 0)
            scale = hlo.GetTupleElementOp(quantize.result, 1)
            Rewriter.insert_op([quantize, data, scale], InsertPoint.after(matched.r))
            operands = list(dot.operands)
            operands[data_index], operands[scale_index] = data.result, scale.result
            dot.operands = operands
            fmax = 448 if matched.dtype == "float8_e4m3fn" else 57344
            message = (
                f"{_location_text(quantize)}remark: 'hlo.custom_call' op import-stablehlo: "
                + REMARK.format(what=f"the {side} of the block-scaled dot", fmax=fmax)
            )
            if remarks is None:
                print(message, file=sys.stderr)
            else:
                remarks.append(message)
            count += 1
    for function in [o for o in module.walk() if isinstance(o, func.FuncOp)]:
        _erase_dead(function)
    return count

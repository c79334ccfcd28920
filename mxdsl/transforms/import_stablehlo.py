"""``import-stablehlo``: StableHLO as JAX writes it onto ``hlo`` and the Neuron MX contract.

``docs/stablehlo.md`` has the mapping; in short, in this order:

1. JAX's private helper functions (``_where``, ``clip``, ``_scaled_matmul``, ...) are
   inlined into their callers, so each public function is one body (``lower-hlo-to-nisa``
   lowers function by function and has no calls).
2. Every ``stablehlo.custom_call @__op$block_scaled_dot`` and every
   ``stablehlo.composite "xla.scaled_dot"`` becomes the contract's
   ``hlo.custom_call @__op$block_scaled_dot`` (Spec "MX-FP8 Microscaling Legalization" §3, §4.2):
   each typed FP8 operand ``[.., K]`` is packed into ``ui32`` x4 lane words by a real
   packing op in the IR, ``stablehlo.reshape`` to ``[.., K/4, 4]`` then
   ``stablehlo.bitcast_convert`` to ``[.., K/4] x ui32`` (element ``4k + j`` in byte ``j``
   of word ``k``, the contract's x4 container); the E8M0 scales ``[.., K/32]`` are
   already the contract's layout and pass through; batch and contracting dims come from
   the backend_config (the contracting dims are the last ones, JAX's convention) or the
   composite's ``dimension_numbers``; the FP8 type becomes ``element_dtype`` and
   ``dequantize_type`` / ``preferred_element_type`` the result type.
3. Private functions nothing refers to any more (the composites' decompositions, the
   inlined helpers) are erased.
4. ``stablehlo.convert`` and ``dot_general`` (default precision) become their ``hlo``
   namesakes; every other op stays a ``stablehlo`` op and runs as written (constants
   too: ``hlo.constant`` would print a non-finite splat as ``dense<0xff80>``, which xDSL
   0.75 reads back as 65408.0).

What the contract cannot express is a located diagnostic with an ``MXS`` code, cause and
resolution (``IMPORT_CATALOG``). With ``packed-arguments=true`` an FP8 function
argument that only feeds a packing op is passed packed instead (the function then takes
``ui32`` words: the caller packs), so the result lowers with ``lower-hlo-to-nisa``,
which has no lowering for the packing op.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float32Type,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from mxdsl.contract.mx import BLOCK_SCALED_DOT, MX_BLOCK_SIZE, X4_PACK
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects import hlo
from mxdsl.dialects import stablehlo as shlo
from mxdsl.remarks import emit_remark

PASS_NAME = "import-stablehlo"
SCALED_DOT_COMPOSITE = "xla.scaled_dot"
UI32 = IntegerType(32, Signedness.UNSIGNED)
MAX_INLINE_DEPTH = 64

_FP8_NAMES: dict[type[Attribute], str] = {
    Float8E4M3FNType: "float8_e4m3fn",
    Float8E5M2Type: "float8_e5m2",
}
_RESULT_NAMES: dict[type[Attribute], str] = {Float32Type: "F32", BFloat16Type: "BF16"}


class ImportError_(Enum):
    """What a JAX block-scaled dot can say that the Neuron MX contract cannot."""

    ELEMENT_TYPE = "MXS01"
    SCALE_TYPE = "MXS02"
    BLOCK_SIZE = "MXS03"
    CONTRACTION = "MXS04"
    CONFIG = "MXS05"
    RESULT_TYPE = "MXS06"


IMPORT_CATALOG: dict[ImportError_, tuple[str, str]] = {
    ImportError_.ELEMENT_TYPE: (
        "The Neuron MX contract takes lhs and rhs of one FP8 format, float8_e4m3fn or "
        "float8_e5m2 (spec §4.2 element_dtype).",
        "Quantize both operands to f8E4M3FN or both to f8E5M2 (jax.nn "
        "get_scaled_dot_general_config('mxfp8'), with data_type set for e5m2).",
    ),
    ImportError_.SCALE_TYPE: (
        "The Neuron MX contract scales each 32-element block by one E8M0 exponent "
        "(f8E8M0FNU); other scale types (nvfp4's f8E4M3FN scales) have no MX form.",
        "Use MXFP8 block scaling (E8M0 scales), not NVFP4.",
    ),
    ImportError_.BLOCK_SIZE: (
        "The Neuron MX contract has block_size 32 only (the OCP MX block; spec §4.1): a "
        "scale's last dim must be the data's last dim / 32.",
        "Quantize with block_size = 32.",
    ),
    ImportError_.CONTRACTION: (
        "The imported scaled dot must contract exactly one dim per side, the minor (last) "
        "dim, along which the FP8 data is packed four per ui32 word and its scales run.",
        "Transpose each operand (and its scales) so the contracting dim is last before "
        "quantizing, as jax.nn.scaled_matmul's [B, M, K] x [B, N, K] layout does.",
    ),
    ImportError_.CONFIG: (
        "The block-scaled dot's configuration cannot be read (backend_config JSON with "
        "a scaled_dot_backend_config object, or the composite's dimension_numbers).",
        'Keep the backend_config JAX wrote: {"scaled_dot_backend_config": '
        '{"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], '
        '"dequantize_type": "F32"}}.',
    ),
    ImportError_.RESULT_TYPE: (
        "The Neuron MX contract outputs F32 or BF16 only, as the dot's dequantize_type / "
        "preferred_element_type and result type (spec §4.2).",
        "Use preferred_element_type=jnp.float32 or jnp.bfloat16.",
    ),
}


def import_error(op: Operation, code: ImportError_, what: str, detail: str) -> OpDiagnostic:
    cause, resolution = IMPORT_CATALOG[code]
    return OpDiagnostic(
        op,
        f"{PASS_NAME}: [{code.value}] {what}: {detail}\n  cause: {cause}\n"
        f"  resolution: {resolution}",
    )


# ----------------------------------------------------------------------- inlining


def _private_callee(module: ModuleOp, call: func.CallOp) -> func.FuncOp | None:
    callee = SymbolTable.lookup_symbol(module, call.callee)
    if not isinstance(callee, func.FuncOp) or callee.is_declaration:
        return None
    visibility = callee.sym_visibility
    if visibility is None or visibility.data != "private" or len(callee.body.blocks) != 1:
        return None
    return callee


def inline_private_calls(module: ModuleOp) -> None:
    """Inline every ``func.call`` of a private single-block function, to a fixed point."""
    rewriter = Rewriter()
    for _ in range(MAX_INLINE_DEPTH):
        calls = [
            (op, callee)
            for op in module.walk()
            if isinstance(op, func.CallOp) and (callee := _private_callee(module, op))
        ]
        if not calls:
            return
        for call, callee in calls:
            body = callee.body.clone()
            block = body.blocks[0]
            terminator = block.last_op
            assert isinstance(terminator, func.ReturnOp)
            returned = list(terminator.arguments)
            for arg in block.args:  # their names would pass to the values they become
                arg.name_hint = None
            rewriter.inline_block(block, InsertPoint.before(call), call.arguments)
            for old, new in zip(call.results, returned, strict=True):
                old.replace_all_uses_with(new)
            rewriter.erase_op(terminator)
            rewriter.erase_op(call)
    raise OpDiagnostic(module, f"{PASS_NAME}: calls nest deeper than {MAX_INLINE_DEPTH}")


def _referenced_symbols(module: ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.walk():
        for attr in (*op.attributes.values(), *op.properties.values()):
            if isinstance(attr, SymbolRefAttr) and not isinstance(op, func.FuncOp):
                names.add(attr.root_reference.data)
    return names


def erase_unreferenced_private_functions(module: ModuleOp) -> None:
    while True:
        used = _referenced_symbols(module)
        dead = [
            op
            for op in module.body.block.ops
            if isinstance(op, func.FuncOp)
            and op.sym_visibility is not None
            and op.sym_visibility.data == "private"
            and op.sym_name.data not in used
        ]
        if not dead:
            return
        for op in dead:
            Rewriter.erase_op(op)


# ------------------------------------------------------------ the scaled dot


@dataclass(frozen=True)
class _ScaledDot:
    """A JAX block-scaled dot read and checked against what the contract can express."""

    op: Operation
    what: str
    batch: tuple[list[int], list[int]]
    element_dtype: str

    def config_json(self, lhs_rank: int, rhs_rank: int) -> str:
        return json.dumps(
            {
                "scaled_dot_backend_config": {
                    "lhs_batch_dimensions": self.batch[0],
                    "rhs_batch_dimensions": self.batch[1],
                    "lhs_contracting_dimensions": [lhs_rank - 1],
                    "rhs_contracting_dimensions": [rhs_rank - 1],
                    "element_dtype": self.element_dtype,
                }
            }
        )


def _element(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def _int_list(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    ):
        return list(value)
    return None


def _check_operands(op: Operation, what: str) -> str:
    """Element types, scale types, block size; returns the element_dtype."""
    if len(op.operands) != 4 or len(op.results) != 1:
        raise import_error(
            op,
            ImportError_.CONFIG,
            what,
            f"expected 4 operands (lhs, rhs, lhs_scale, rhs_scale) and 1 result, got "
            f"{len(op.operands)} and {len(op.results)}",
        )
    lhs, rhs, lhs_scale, rhs_scale = op.operands
    names = [_FP8_NAMES.get(type(_element(v))) for v in (lhs, rhs)]
    if names[0] is None or names[0] != names[1]:
        raise import_error(
            op,
            ImportError_.ELEMENT_TYPE,
            what,
            f"lhs is {_element(lhs)} and rhs is {_element(rhs)}",
        )
    for side, data, scale in (("lhs", lhs, lhs_scale), ("rhs", rhs, rhs_scale)):
        if not isinstance(_element(scale), Float8E8M0FNUType):
            raise import_error(op, ImportError_.SCALE_TYPE, what, f"{side} scale is {scale.type}")
        data_shape, scale_shape = shlo.tensor_shape(data), shlo.tensor_shape(scale)
        k = data_shape[-1] if data_shape else 0
        blocks = scale_shape[-1] if scale_shape else 0
        if (
            len(scale_shape) != len(data_shape)
            or scale_shape[:-1] != data_shape[:-1]
            or blocks == 0
            or k % blocks
        ):
            raise import_error(
                op,
                ImportError_.BLOCK_SIZE,
                what,
                f"{side} scale {scale.type} does not block {data.type} along its last dim",
            )
        if k // blocks != MX_BLOCK_SIZE:
            raise import_error(
                op,
                ImportError_.BLOCK_SIZE,
                what,
                f"{side} has a block size of {k // blocks} ({k} elements, {blocks} scales)",
            )
    names_ok = names[0]
    assert names_ok is not None
    return names_ok


def _check_result(op: Operation, what: str, declared: str | None) -> None:
    result = _element(op.results[0])
    name = _RESULT_NAMES.get(type(result))
    if name is None:
        raise import_error(
            op, ImportError_.RESULT_TYPE, what, f"the result is {op.results[0].type}"
        )
    if declared is not None and declared.upper() != name:
        raise import_error(
            op,
            ImportError_.RESULT_TYPE,
            what,
            f"the dot dequantizes to {declared} but its result is {op.results[0].type}",
        )


def read_custom_call(op: shlo.CustomCallOp) -> _ScaledDot:
    what = f"stablehlo.custom_call @{BLOCK_SCALED_DOT}"
    element_dtype = _check_operands(op, what)
    text = op.backend_config()
    try:
        config = json.loads(text) if text is not None else None
    except json.JSONDecodeError as err:
        raise import_error(
            op, ImportError_.CONFIG, what, f"backend_config is not JSON ({err.msg})"
        ) from None
    inner = config.get("scaled_dot_backend_config") if isinstance(config, dict) else None
    if not isinstance(inner, dict):
        raise import_error(
            op, ImportError_.CONFIG, what, "backend_config has no scaled_dot_backend_config object"
        )
    batch = [_int_list(inner.get(f"{side}_batch_dimensions", [])) for side in ("lhs", "rhs")]
    if batch[0] is None or batch[1] is None:
        raise import_error(
            op, ImportError_.CONFIG, what, "a batch dimension list is not a list of integers"
        )
    declared = inner.get("dequantize_type")
    if declared is not None and not isinstance(declared, str):
        raise import_error(op, ImportError_.CONFIG, what, "dequantize_type is not a string")
    _check_result(op, what, declared)
    return _ScaledDot(op, what, (batch[0], batch[1]), element_dtype)


def _composite_dims(op: shlo.CompositeOp, what: str) -> tuple[list[list[int]], list[list[int]]]:
    attrs = op.attributes.get("composite_attributes")
    dims = attrs.data.get("dimension_numbers") if isinstance(attrs, DictionaryAttr) else None

    def ints(value: Attribute) -> list[int] | None:
        if not isinstance(value, ArrayAttr):
            return None
        out = [v.value.data for v in value.data if isinstance(v, IntegerAttr)]
        return out if len(out) == len(value.data) else None

    try:
        assert isinstance(dims, ArrayAttr)
        contract, batch = dims.data
        assert isinstance(contract, ArrayAttr)
        assert isinstance(batch, ArrayAttr)
        parsed = [[ints(v) for v in pair.data] for pair in (contract, batch)]  # pyright: ignore
        assert all(len(p) == 2 and all(x is not None for x in p) for p in parsed)
    except (AssertionError, ValueError):
        raise import_error(
            op,
            ImportError_.CONFIG,
            what,
            "composite_attributes has no dimension_numbers = [[[lhs contract], [rhs contract]], "
            "[[lhs batch], [rhs batch]]]",
        ) from None
    return parsed[0], parsed[1]  # pyright: ignore[reportReturnType]


def read_composite(op: shlo.CompositeOp) -> _ScaledDot:
    what = f'stablehlo.composite "{SCALED_DOT_COMPOSITE}"'
    element_dtype = _check_operands(op, what)
    contract, batch = _composite_dims(op, what)
    for side, value, dims in (
        ("lhs", op.operands[0], contract[0]),
        ("rhs", op.operands[1], contract[1]),
    ):
        rank = len(shlo.tensor_shape(value))
        if dims != [rank - 1]:
            raise import_error(
                op,
                ImportError_.CONTRACTION,
                what,
                f"{side} contracts dims {dims} of a rank-{rank} operand (the minor dim is "
                f"{rank - 1})",
            )
    attrs = op.attributes.get("composite_attributes")
    preferred = (
        attrs.data.get("preferred_element_type") if isinstance(attrs, DictionaryAttr) else None
    )
    declared = _RESULT_NAMES.get(type(preferred), str(preferred)) if preferred is not None else None
    _check_result(op, what, declared)
    return _ScaledDot(op, what, (batch[0], batch[1]), element_dtype)


def _pack(rewriter: Rewriter, where: Operation, value: SSAValue) -> SSAValue:
    """``[.., K] x fp8`` -> ``[.., K/4] x ui32``: reshape then bitcast_convert."""
    t = value.type
    assert isinstance(t, TensorType)
    shape = shlo.tensor_shape(t)
    split = TensorType(t.get_element_type(), [*shape[:-1], shape[-1] // X4_PACK, X4_PACK])
    reshape = shlo.ReshapeOp(value, split)
    words = shlo.BitcastConvertOp(
        reshape.result, TensorType(UI32, [*shape[:-1], shape[-1] // X4_PACK])
    )
    for new in (reshape, words):
        new.location = where.location
    hint = value.name_hint
    if hint:
        reshape.result.name_hint = f"{hint}_x4"
        words.result.name_hint = f"{hint}_packed"
    rewriter.insert_op([reshape, words], InsertPoint.before(where))
    return words.result


def rewrite_scaled_dot(rewriter: Rewriter, dot: _ScaledDot) -> hlo.CustomCallOp:
    op = dot.op
    lhs, rhs, lhs_scale, rhs_scale = op.operands
    words = [_pack(rewriter, op, v) for v in (lhs, rhs)]
    ranks = [len(shlo.tensor_shape(v)) for v in (lhs, rhs)]
    call = hlo.CustomCallOp(
        BLOCK_SCALED_DOT,
        [words[0], words[1], lhs_scale, rhs_scale],
        op.results[0].type,
        backend_config=dot.config_json(*ranks),
        api_version=1,
    )
    call.location = op.location
    rewriter.replace_op(op, call)
    call.result.name_hint = op.results[0].name_hint
    k = shlo.tensor_shape(lhs)[-1]
    if isinstance(op, shlo.CompositeOp) and k > NC_MATMUL_K:
        emit_remark(call, composite_remark(k))
    return call


NC_MATMUL_K = 128
"""K elements of one bf16 PE pass (the decomposition's dot_general); an MX pass takes 512."""


def composite_remark(k: int) -> str:
    """What importing an ``xla.scaled_dot`` composite with K > 128 changes."""
    return (
        f"{PASS_NAME}: the xla.scaled_dot composite (K = {k}) becomes the MX dot, whose PE "
        "passes take 512 K elements (128 partitions x 4 lanes) where its decomposition's "
        "bf16 dot_general takes 128: the exact sum of each pass is rounded to fp32 once "
        "per 512 elements instead of once per 128, so results can differ from the "
        "decomposition's in the last bits (docs/stablehlo.md)"
    )


# ------------------------------------------------------------------- plain ops


def _to_hlo(rewriter: Rewriter, op: Operation) -> None:
    new: Operation | None = None
    if isinstance(op, shlo.ConvertOp):
        new = hlo.ConvertOp(op.operand, op.result.type)
    elif isinstance(op, shlo.DotGeneralOp):
        precision = op.precision_config
        if precision is not None and any(p.data != "DEFAULT" for p in precision.data):
            return
        new = hlo.DotGeneralOp(
            op.lhs,
            op.rhs,
            op.result.type,
            batching_dims=op.batching_dims,
            contracting_dims=op.contracting_dims,
        )
    if new is None:
        return
    new.location = op.location
    new.attributes.update(op.attributes)
    rewriter.replace_op(op, new)


def pass_packed_arguments(module: ModuleOp) -> None:
    """A function argument whose only use is a packing reshape -> bitcast_convert is
    passed packed: the argument takes the ``ui32`` type and the two ops go."""
    for function in [o for o in module.walk() if isinstance(o, func.FuncOp)]:
        if function.is_declaration:
            continue
        block = function.body.blocks[0]
        changed = False
        for arg in list(block.args):
            uses = list(arg.uses)
            if len(uses) != 1 or not isinstance(reshape := uses[0].operation, shlo.ReshapeOp):
                continue
            reshape_uses = list(reshape.result.uses)
            if len(reshape_uses) != 1:
                continue
            bitcast = reshape_uses[0].operation
            if not isinstance(bitcast, shlo.BitcastConvertOp) or _element(bitcast.result) != UI32:
                continue
            packed_type = bitcast.result.type
            name = arg.name_hint
            bitcast.result.replace_all_uses_with(arg)
            Rewriter.erase_op(bitcast)
            Rewriter.erase_op(reshape)
            new_arg = Rewriter.replace_value_with_new_type(arg, packed_type)
            new_arg.name_hint = name
            changed = True
        if changed:
            outputs = function.function_type.outputs.data
            function.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)


@dataclass(frozen=True)
class ImportStableHloPass(ModulePass):
    """StableHLO from JAX onto ``hlo`` and the Neuron MX contract (module docstring).

    * ``packed-arguments`` (default false): FP8 arguments that feed a block-scaled dot
      are taken already packed into ``ui32`` words (the function's signature changes).
    * ``quantize-mx`` (default false, opt-in): JAX's MXFP8 quantization of a dot operand
      becomes ``QuantizeMX``, which changes the block-scale rule (round-up -> Neuron's
      EMAX floor) and so the results; a remark on each rewritten site says so
      (:mod:`mxdsl.transforms.jax_quantize_mx`).
    """

    name = PASS_NAME

    packed_arguments: bool = False
    quantize_mx: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_private_calls(op)
        erase_unreferenced_private_functions(op)  # the inlined helpers: rewrite each dot once
        rewriter = Rewriter()
        dots: list[_ScaledDot] = []
        for inner in op.walk():
            if isinstance(inner, shlo.CustomCallOp) and inner.target == BLOCK_SCALED_DOT:
                dots.append(read_custom_call(inner))
            elif (
                isinstance(inner, shlo.CompositeOp)
                and inner.composite_name.data == SCALED_DOT_COMPOSITE
            ):
                dots.append(read_composite(inner))
        for dot in dots:
            rewrite_scaled_dot(rewriter, dot)
        erase_unreferenced_private_functions(op)
        if self.quantize_mx:
            from mxdsl.transforms.jax_quantize_mx import rewrite_jax_quantize

            rewrite_jax_quantize(op)
        for inner in list(op.walk()):
            if isinstance(inner, shlo.ConvertOp | shlo.DotGeneralOp):
                _to_hlo(rewriter, inner)
        if self.packed_arguments:
            pass_packed_arguments(op)

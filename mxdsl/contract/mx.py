"""The MX contract: QuantizeMX, ``__op$block_scaled_dot`` and their legalized targets.

Spec "MX-FP8 Microscaling Legalization" §4 (the backend_config schemas and constraints) and §6
(the validators fire where the custom call is built, not in the passes). The config
readers, target names and metadata literals here are shared with the legalization passes,
so the pass and the verifier cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
    TensorType,
    TupleType,
    i64,
)
from xdsl.ir import Attribute

from mxdsl.contract.errors import ErrorCode, MxContractError
from mxdsl.contract.registry import CustomCallSignature, register_contract

QUANTIZE_MX = "QuantizeMX"
BLOCK_SCALED_DOT = "__op$block_scaled_dot"
QUANTIZE_MX_LEGALIZED_PREFIX = "QuantizeMX_"
SCALED_MATMUL_LEGALIZED_PREFIX = "ScaledMatmul_"

MX_BLOCK_SIZE = 32
X4_PACK = 4
FP8_ELEMENT_DTYPES = ("float8_e4m3fn", "float8_e5m2")
QUANTIZE_MX_REQUIRED_FIELDS = ("dtype", "dim", "block_size", "scale_method")
SCALED_DOT_DIMENSION_KEYS = (
    "lhs_batch_dimensions",
    "rhs_batch_dimensions",
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
)
NO_BATCH_DIM = -1
"""Batch slot value in the ScaledMatmul metadata when there is no batch dimension."""


# --------------------------------------------------------------------------- configs


@dataclass(frozen=True)
class QuantizeMXConfig:
    """The flat QuantizeMX backend_config (spec §4.1, §6 ``QuantizeMXConfig``).

    ``block_size`` and ``scale_method`` are None when absent: the contract requires them,
    the legalization defaults an absent block_size to 32 (spec §2.2)."""

    dtype: str
    dim: int
    block_size: int | None
    scale_method: str | None

    @staticmethod
    def parse(text: str, target: str = QUANTIZE_MX) -> QuantizeMXConfig:
        fields = _parse_json_object(text, ErrorCode.QMX_BACKEND_CONFIG, target)
        dtype = _field(fields, "dtype", str, ErrorCode.QMX_BACKEND_CONFIG, target)
        dim = _field(fields, "dim", int, ErrorCode.QMX_BACKEND_CONFIG, target)
        block_size = _optional_field(
            fields, "block_size", int, ErrorCode.QMX_BACKEND_CONFIG, target
        )
        scale_method = _optional_field(
            fields, "scale_method", str, ErrorCode.QMX_BACKEND_CONFIG, target
        )
        return QuantizeMXConfig(dtype, dim, block_size, scale_method)

    def to_json(self) -> str:
        fields: dict[str, Any] = {"dtype": self.dtype, "dim": self.dim}
        if self.block_size is not None:
            fields["block_size"] = self.block_size
        if self.scale_method is not None:
            fields["scale_method"] = self.scale_method
        return json.dumps(fields)


@dataclass(frozen=True)
class ScaledDotConfig:
    """The ``scaled_dot_backend_config`` object (spec §4.2, §6 ``ScaledDotConfig``).
    Absent batch lists read as empty; the contracting lists and element_dtype are required."""

    lhs_batch_dimensions: tuple[int, ...]
    rhs_batch_dimensions: tuple[int, ...]
    lhs_contracting_dimensions: tuple[int, ...]
    rhs_contracting_dimensions: tuple[int, ...]
    element_dtype: str

    @staticmethod
    def parse(text: str, target: str = BLOCK_SCALED_DOT) -> ScaledDotConfig:
        code = ErrorCode.SD_BACKEND_CONFIG
        outer = _parse_json_object(text, code, target)
        inner = _field(outer, "scaled_dot_backend_config", dict, code, target)
        lists: list[tuple[int, ...]] = []
        for key in SCALED_DOT_DIMENSION_KEYS:
            required = "contracting" in key
            value = (
                _field(inner, key, list, code, target)
                if required
                else _optional_field(inner, key, list, code, target) or []
            )
            if not all(isinstance(d, int) and not isinstance(d, bool) for d in value):
                raise MxContractError(
                    code,
                    target,
                    f"field {key!r} must be a list of integers, got {json.dumps(value)}",
                )
            lists.append(tuple(value))
        element_dtype = _field(inner, "element_dtype", str, code, target)
        return ScaledDotConfig(*lists, element_dtype=element_dtype)


def _parse_json_object(text: str, code: ErrorCode, target: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise MxContractError(
            code, target, f"backend_config is not valid JSON ({err.msg} at character {err.pos})"
        ) from None
    if not isinstance(value, dict):
        raise MxContractError(
            code,
            target,
            f"backend_config must be a JSON object, got {_json_kind(value)} {json.dumps(value)}",
        )
    return value


_JSON_TYPE_NAMES = {str: "a string", int: "an integer", list: "a list", dict: "an object"}


def _json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type (``json.loads`` yields no other types)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def _optional_field(
    fields: dict[str, Any], key: str, kind: type, code: ErrorCode, target: str
) -> Any:
    if key not in fields:
        return None
    value = fields[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MxContractError(
            code, target, f"field {key!r} must be {_JSON_TYPE_NAMES[kind]}, got {json.dumps(value)}"
        )
    return value


def _field(fields: dict[str, Any], key: str, kind: type, code: ErrorCode, target: str) -> Any:
    if key not in fields:
        raise MxContractError(code, target, f"missing required field {key!r}")
    return _optional_field(fields, key, kind, code, target)


# ------------------------------------------------------------------ target names


def quantize_mx_target(input_element_type: Attribute, dtype: str) -> str:
    """``QuantizeMX_{f16|bf16}_{e5m2|e4m3fn}`` (spec §2.4: BF16 is tested, F16 is the
    fall-through; e5m2 is tested, e4m3fn is the fall-through)."""
    prefix = "bf16" if isinstance(input_element_type, BFloat16Type) else "f16"
    suffix = "e5m2" if dtype == "float8_e5m2" else "e4m3fn"
    return f"{QUANTIZE_MX_LEGALIZED_PREFIX}{prefix}_{suffix}"


def scaled_matmul_target(element_dtype: str, result_element_type: Attribute) -> str:
    """``ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}`` (spec §3.3)."""
    inputs = "e4m3fn_e4m3fn" if element_dtype == "float8_e4m3fn" else "e5m2_e5m2"
    output = "f32" if isinstance(result_element_type, Float32Type) else "bf16"
    return f"{SCALED_MATMUL_LEGALIZED_PREFIX}{inputs}_{output}"


QUANTIZE_MX_TARGETS: dict[str, tuple[type[Attribute], str]] = {
    f"{QUANTIZE_MX_LEGALIZED_PREFIX}{src}_{dst}": (src_type, f"float8_{dst}")
    for src, src_type in (("f16", Float16Type), ("bf16", BFloat16Type))
    for dst in ("e5m2", "e4m3fn")
}
"""The four legalized quantize targets: name -> (input element type, FP8 dtype)."""

SCALED_MATMUL_TARGETS: dict[str, tuple[str, type[Attribute]]] = {
    f"{SCALED_MATMUL_LEGALIZED_PREFIX}{fmt}_{fmt}_{out}": (f"float8_{fmt}", out_type)
    for fmt in ("e4m3fn", "e5m2")
    for out, out_type in (("f32", Float32Type), ("bf16", BFloat16Type))
}
"""The four legalized matmul targets: name -> (element dtype, result element type)."""


# -------------------------------------------------------------------- metadata


def _i64_literal(values: Sequence[int] | int) -> DenseIntOrFPElementsAttr:
    if isinstance(values, int):
        return DenseIntOrFPElementsAttr.from_list(TensorType(i64, []), [values])
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), list(values))


def quantize_mx_metadata(shape: Sequence[int], dim: int, block_size: int) -> ArrayAttr:
    """The QuantizeMX_* metadata tuple literal (spec §2.3): the s64 shape list of the
    input, the normalized dim, the block size and a trailing 0."""
    return ArrayAttr(
        [_i64_literal(list(shape)), _i64_literal(dim), _i64_literal(block_size), _i64_literal(0)]
    )


def scaled_matmul_metadata(config: ScaledDotConfig, lhs_rank: int, rhs_rank: int) -> ArrayAttr:
    """The ScaledMatmul_* dims metadata literal: a tuple of 7 s64 scalars (spec §3.2,
    slot order STRONG, chosen and documented in docs/passes.md): lhs batch dim, rhs batch
    dim (-1 when there is none), lhs contracting dim, rhs contracting dim, lhs rank,
    rhs rank, block size. Only one batch dimension fits the 7 slots."""
    for side, dims in (
        ("lhs", config.lhs_batch_dimensions),
        ("rhs", config.rhs_batch_dimensions),
    ):
        if len(dims) > 1:
            raise ValueError(
                f"the ScaledMatmul metadata holds at most one batch dimension, {side} has "
                f"{list(dims)}"
            )
    for side, dims in (
        ("lhs", config.lhs_contracting_dimensions),
        ("rhs", config.rhs_contracting_dimensions),
    ):
        if len(dims) != 1:
            raise ValueError(
                f"the ScaledMatmul metadata holds exactly one contracting dimension, {side} "
                f"has {list(dims)}"
            )
    lhs_batch = config.lhs_batch_dimensions[0] if config.lhs_batch_dimensions else NO_BATCH_DIM
    rhs_batch = config.rhs_batch_dimensions[0] if config.rhs_batch_dimensions else NO_BATCH_DIM
    slots = (
        lhs_batch,
        rhs_batch,
        config.lhs_contracting_dimensions[0],
        config.rhs_contracting_dimensions[0],
        lhs_rank,
        rhs_rank,
        MX_BLOCK_SIZE,
    )
    return ArrayAttr([_i64_literal(s) for s in slots])


def literal_type(literal: Attribute) -> Attribute:
    if isinstance(literal, ArrayAttr):
        # a tuple, not a list: xDSL's TupleType keeps a list as is, and a list-backed
        # ArrayAttr never equals the tuple-backed one the parser builds
        return TupleType(tuple(literal_type(e) for e in literal.data))
    assert isinstance(literal, DenseIntOrFPElementsAttr)
    return literal.get_type()


# ---------------------------------------------------------------- shape helpers


def _is_ui32(t: Attribute) -> bool:
    return (
        isinstance(t, IntegerType)
        and t.width.data == 32
        and t.signedness.data == Signedness.UNSIGNED
    )


def _tensor(t: Attribute) -> TensorType[Attribute] | None:
    return t if isinstance(t, TensorType) else None


def _shape(t: TensorType[Attribute]) -> tuple[int, ...]:
    return tuple(t.get_shape())


def _with_dim(shape: Sequence[int], dim: int, size: int) -> tuple[int, ...]:
    return tuple(size if d == dim else s for d, s in enumerate(shape))


def _canonical_type(t: Attribute) -> Attribute:
    """``t`` with every tuple type rebuilt over a Python tuple. ``TupleType([...])`` keeps
    a list in its ArrayAttr, which never equals the tuple-backed ArrayAttr the parser
    builds; comparing canonical forms makes the check independent of who built the type."""
    if isinstance(t, TupleType):
        return TupleType(tuple(_canonical_type(e) for e in t.types.data))
    return t


def _type_str(t: Attribute) -> str:
    return str(t)


def normalize_quantize_dim(dim: int, rank: int) -> int | None:
    """The dim the contract accepts, normalized (spec §2.3: dim < 0 -> dim + rank);
    None unless it names the last or second-to-last dimension (a rank-0 input has
    neither)."""
    if rank < 1:
        return None
    allowed = {rank - 1, -1} | ({rank - 2, -2} if rank >= 2 else set())
    if dim not in allowed:
        return None
    return dim + rank if dim < 0 else dim


# ------------------------------------------------------------------- QuantizeMX


def _check_quantize(
    target: str, input_type: Attribute, result_type: Attribute, dtype: str, dim: int
) -> None:
    """The type and shape part of the QuantizeMX contract, shared by the frontend call
    and its legalized targets."""
    tensor = _tensor(input_type)
    if tensor is None or not isinstance(tensor.element_type, BFloat16Type | Float16Type):
        raise MxContractError(
            ErrorCode.QMX_INPUT_TYPE, target, f"input type is {_type_str(input_type)}"
        )
    if dtype not in FP8_ELEMENT_DTYPES:
        raise MxContractError(ErrorCode.QMX_DTYPE, target, f"dtype is {dtype!r}")
    shape = _shape(tensor)
    rank = len(shape)
    axis = normalize_quantize_dim(dim, rank)
    if axis is None:
        raise MxContractError(
            ErrorCode.QMX_DIM,
            target,
            f"dim is {dim} for a rank-{rank} input; "
            + (
                "it has no dim to quantize"
                if rank == 0
                else f"supported: last dim ({rank - 1} or -1)"
                + (f" or second-to-last dim ({rank - 2} or -2)" if rank >= 2 else "")
            ),
        )
    elements = result_type.types.data if isinstance(result_type, TupleType) else ()
    if len(elements) != 2:
        raise MxContractError(
            ErrorCode.QMX_RESULT_TUPLE, target, f"result type is {_type_str(result_type)}"
        )
    size = shape[axis]
    if size % X4_PACK:
        raise MxContractError(
            ErrorCode.QMX_X4_DIVISIBILITY,
            target,
            f"quantized dim {axis} has size {size}, not divisible by {X4_PACK}",
        )
    if size % MX_BLOCK_SIZE:
        raise MxContractError(
            ErrorCode.QMX_BLOCK_DIVISIBILITY,
            target,
            f"quantized dim {axis} has size {size}, not divisible by {MX_BLOCK_SIZE}",
        )
    data, scale = elements
    data_shape = _with_dim(shape, axis, size // X4_PACK)
    data_tensor = _tensor(data)
    if (
        data_tensor is None
        or not _is_ui32(data_tensor.element_type)
        or _shape(data_tensor) != data_shape
    ):
        raise MxContractError(
            ErrorCode.QMX_DATA_TYPE,
            target,
            f"data output is {_type_str(data)}, expected {_tensor_str(data_shape, 'ui32')}",
        )
    scale_shape = _with_dim(shape, axis, size // MX_BLOCK_SIZE)
    scale_tensor = _tensor(scale)
    if (
        scale_tensor is None
        or not isinstance(scale_tensor.element_type, Float8E8M0FNUType)
        or _shape(scale_tensor) != scale_shape
    ):
        raise MxContractError(
            ErrorCode.QMX_SCALE_TYPE,
            target,
            f"scale output is {_type_str(scale)}, expected {_tensor_str(scale_shape, 'f8E8M0FNU')}",
        )


def _operands(count: int) -> str:
    return f"{count} operand" + ("" if count == 1 else "s")


def _tensor_str(shape: Sequence[int], element: str) -> str:
    return f"tensor<{''.join(f'{s}x' for s in shape)}{element}>"


def check_quantize_mx(call: CustomCallSignature) -> None:
    """The frontend ``QuantizeMX`` call (spec §4.1)."""
    target = call.target
    if len(call.operand_types) != 1:
        raise MxContractError(
            ErrorCode.QMX_OPERAND_COUNT, target, f"got {_operands(len(call.operand_types))}"
        )
    config = QuantizeMXConfig.parse(call.backend_config, target)
    for field in ("block_size", "scale_method"):
        if getattr(config, field) is None:
            raise MxContractError(
                ErrorCode.QMX_BACKEND_CONFIG, target, f"missing required field {field!r}"
            )
    if config.dtype not in FP8_ELEMENT_DTYPES:
        raise MxContractError(ErrorCode.QMX_DTYPE, target, f"dtype is {config.dtype!r}")
    if config.block_size != MX_BLOCK_SIZE:
        raise MxContractError(
            ErrorCode.QMX_BLOCK_SIZE, target, f"block_size is {config.block_size}"
        )
    if config.scale_method != "EMAX":
        raise MxContractError(
            ErrorCode.QMX_SCALE_METHOD, target, f"scale_method is {config.scale_method!r}"
        )
    _check_quantize(target, call.operand_types[0], call.result_type, config.dtype, config.dim)


def check_quantize_mx_legalized(call: CustomCallSignature) -> None:
    """``QuantizeMX_*``: operands (metadata, input), dtypes from the target name
    (spec §2.3-§2.5)."""
    target = call.target
    if (tags := QUANTIZE_MX_TARGETS.get(target)) is None:
        raise MxContractError(ErrorCode.LEG_UNKNOWN_TARGET, target, "not a legalized target")
    input_class, dtype = tags
    if len(call.operand_types) != 2:
        raise MxContractError(
            ErrorCode.QMX_OPERAND_COUNT,
            target,
            f"got {_operands(len(call.operand_types))}, expected 2 (metadata, input)",
        )
    metadata_type, input_type = call.operand_types
    tensor = _tensor(input_type)
    if (
        tensor is not None
        and isinstance(tensor.element_type, BFloat16Type | Float16Type)
        and not isinstance(tensor.element_type, input_class)
    ):
        raise MxContractError(
            ErrorCode.LEG_TARGET_MISMATCH,
            target,
            f"target name says {target.split('_')[1]} input but the input is "
            f"{_type_str(input_type)}",
        )
    rank = len(_shape(tensor)) if tensor is not None else 0
    expected_metadata_type = TupleType(
        (TensorType(i64, [rank]), TensorType(i64, []), TensorType(i64, []), TensorType(i64, []))
    )
    if _canonical_type(metadata_type) != expected_metadata_type:
        raise MxContractError(
            ErrorCode.LEG_METADATA,
            target,
            f"metadata operand is {_type_str(metadata_type)}, expected "
            f"{_type_str(expected_metadata_type)}",
        )
    literal = call.operand_literals[0] if call.operand_literals else None
    if literal is None:
        dim = _dim_from_result(_shape(tensor) if tensor is not None else (), call.result_type)
    else:
        dim = _metadata_dim(target, literal)
    _check_quantize(target, input_type, call.result_type, dtype, dim)
    if literal is not None and tensor is not None:
        expected = quantize_mx_metadata(_shape(tensor), dim, MX_BLOCK_SIZE)
        if literal != expected:
            raise MxContractError(
                ErrorCode.LEG_METADATA,
                target,
                f"metadata is {_literal_str(literal)}, expected {_literal_str(expected)}",
            )


def _dim_from_result(shape: tuple[int, ...], result_type: Attribute) -> int:
    """The quantized dim of a QuantizeMX_* call whose metadata is not a literal: the last
    or second-to-last dim, whichever the packed data output's shape says (the last when
    neither fits, so the shape check then reports against the last dim)."""
    rank = len(shape)
    elements = result_type.types.data if isinstance(result_type, TupleType) else ()
    data = _tensor(elements[0]) if elements else None
    if data is not None and rank >= 2:
        for axis in (rank - 1, rank - 2):
            if _shape(data) == _with_dim(shape, axis, shape[axis] // X4_PACK):
                return axis
    return rank - 1


def _metadata_dim(target: str, literal: Attribute) -> int:
    """The quantized dim recorded in a QuantizeMX_* metadata literal (slot 1)."""
    assert isinstance(literal, ArrayAttr)
    dim_literal = literal.data[1]
    assert isinstance(dim_literal, DenseIntOrFPElementsAttr)
    (dim,) = (int(v) for v in dim_literal.get_values())
    if dim < 0:
        raise MxContractError(
            ErrorCode.LEG_METADATA, target, f"metadata dim {dim} is not normalized"
        )
    return dim


def _literal_str(literal: Attribute) -> str:
    if isinstance(literal, ArrayAttr):
        return "(" + ", ".join(_literal_str(e) for e in literal.data) + ")"
    assert isinstance(literal, DenseIntOrFPElementsAttr)
    values = [int(v) for v in literal.get_values()]
    literal_tensor = literal.get_type()
    assert isinstance(literal_tensor, TensorType)
    return str(values) if literal_tensor.get_shape() else str(values[0])


# ------------------------------------------------------------ block scaled dot


def _check_scaled_dot(
    target: str, data_types: Sequence[Attribute], result_type: Attribute, config: ScaledDotConfig
) -> None:
    """The operand, shape and dimension-number part of the scaled-dot contract (spec
    §4.2), shared by ``__op$block_scaled_dot`` and ``ScaledMatmul_*``."""
    lhs_t, rhs_t, lhs_scale_t, rhs_scale_t = data_types
    if config.element_dtype not in FP8_ELEMENT_DTYPES:
        raise MxContractError(
            ErrorCode.SD_ELEMENT_DTYPE, target, f"element_dtype is {config.element_dtype!r}"
        )
    shapes: list[tuple[int, ...]] = []
    for side, t in (("lhs", lhs_t), ("rhs", rhs_t)):
        tensor = _tensor(t)
        if tensor is None or not _is_ui32(tensor.element_type):
            raise MxContractError(ErrorCode.SD_DATA_TYPE, target, f"{side} is {_type_str(t)}")
        if tensor.get_num_dims() < 2:
            raise MxContractError(
                ErrorCode.SD_RANK, target, f"{side} has rank {tensor.get_num_dims()}"
            )
        shapes.append(_shape(tensor))
    lhs_shape, rhs_shape = shapes
    result = _tensor(result_type)
    if result is None or not isinstance(result.element_type, Float32Type | BFloat16Type):
        raise MxContractError(
            ErrorCode.SD_RESULT_TYPE, target, f"result is {_type_str(result_type)}"
        )
    sides = (
        ("lhs", lhs_shape, config.lhs_batch_dimensions, config.lhs_contracting_dimensions),
        ("rhs", rhs_shape, config.rhs_batch_dimensions, config.rhs_contracting_dimensions),
    )
    for side, shape, batch, contract in sides:
        for kind, dims in (("batch", batch), ("contracting", contract)):
            if bad := [d for d in dims if not 0 <= d < len(shape)]:
                raise MxContractError(
                    ErrorCode.SD_DIM_OUT_OF_BOUNDS,
                    target,
                    f"{side} {kind} dimension {bad[0]} is out of bounds for rank {len(shape)}",
                )
        if overlap := sorted(set(batch) & set(contract)):
            raise MxContractError(
                ErrorCode.SD_DIMS_OVERLAP,
                target,
                f"{side} dimension {overlap[0]} is both a batch and a contracting dimension",
            )
    if len(config.lhs_batch_dimensions) != len(config.rhs_batch_dimensions):
        raise MxContractError(
            ErrorCode.SD_BATCH_COUNT,
            target,
            f"lhs_batch_dimensions {list(config.lhs_batch_dimensions)} and "
            f"rhs_batch_dimensions {list(config.rhs_batch_dimensions)} differ in length",
        )
    for lhs_dim, rhs_dim in zip(
        config.lhs_batch_dimensions, config.rhs_batch_dimensions, strict=True
    ):
        if lhs_shape[lhs_dim] != rhs_shape[rhs_dim]:
            raise MxContractError(
                ErrorCode.SD_BATCH_COUNT,
                target,
                f"lhs batch dim {lhs_dim} has size {lhs_shape[lhs_dim]}, rhs batch dim "
                f"{rhs_dim} has size {rhs_shape[rhs_dim]}",
            )
    lhs_contract, rhs_contract = (
        config.lhs_contracting_dimensions,
        config.rhs_contracting_dimensions,
    )
    if len(lhs_contract) != 1 or len(rhs_contract) != 1:
        raise MxContractError(
            ErrorCode.SD_CONTRACT_MISMATCH,
            target,
            f"contracting dimensions are {list(lhs_contract)} x {list(rhs_contract)}; "
            "exactly one per side is supported",
        )
    (lhs_c,), (rhs_c,) = lhs_contract, rhs_contract
    if lhs_shape[lhs_c] != rhs_shape[rhs_c]:
        raise MxContractError(
            ErrorCode.SD_CONTRACT_MISMATCH,
            target,
            f"lhs contracts {lhs_shape[lhs_c] * X4_PACK} elements (dim {lhs_c}), rhs "
            f"{rhs_shape[rhs_c] * X4_PACK} (dim {rhs_c})",
        )
    for side, shape, c, scale_t in (
        ("lhs", lhs_shape, lhs_c, lhs_scale_t),
        ("rhs", rhs_shape, rhs_c, rhs_scale_t),
    ):
        _check_scale(target, side, shape, c, scale_t)
    expected = (
        *(lhs_shape[d] for d in config.lhs_batch_dimensions),
        *(s for d, s in enumerate(lhs_shape) if d not in (*config.lhs_batch_dimensions, lhs_c)),
        *(s for d, s in enumerate(rhs_shape) if d not in (*config.rhs_batch_dimensions, rhs_c)),
    )
    if _shape(result) != expected:
        raise MxContractError(
            ErrorCode.SD_RESULT_SHAPE,
            target,
            f"result shape is {list(_shape(result))}, expected {list(expected)}",
        )


def _check_scale(
    target: str, side: str, data_shape: tuple[int, ...], contract_dim: int, scale_t: Attribute
) -> None:
    words_per_scale = MX_BLOCK_SIZE // X4_PACK
    packed = data_shape[contract_dim]
    if packed % words_per_scale:
        raise MxContractError(
            ErrorCode.SD_SCALE_SHAPE,
            target,
            f"{side} contracts {packed * X4_PACK} elements, not a multiple of {MX_BLOCK_SIZE}",
        )
    expected_shape = _with_dim(data_shape, contract_dim, packed // words_per_scale)
    scale = _tensor(scale_t)
    if (
        scale is None
        or not isinstance(scale.element_type, Float8E8M0FNUType)
        or _shape(scale) != expected_shape
    ):
        raise MxContractError(
            ErrorCode.SD_SCALE_SHAPE,
            target,
            f"{side}_scale is {_type_str(scale_t)}, expected "
            f"{_tensor_str(expected_shape, 'f8E8M0FNU')}",
        )


def check_block_scaled_dot(call: CustomCallSignature) -> None:
    """The frontend ``__op$block_scaled_dot`` call (spec §3.2, §4.2)."""
    target = call.target
    if len(call.operand_types) != 4:
        raise MxContractError(
            ErrorCode.SD_OPERAND_COUNT, target, f"got {_operands(len(call.operand_types))}"
        )
    config = ScaledDotConfig.parse(call.backend_config, target)
    _check_scaled_dot(target, call.operand_types, call.result_type, config)


def check_scaled_matmul_legalized(call: CustomCallSignature) -> None:
    """``ScaledMatmul_*``: operands (lhs, rhs, lhs_scale, rhs_scale, dims metadata), the
    backend_config passed through, dtype tags matching it (spec §3.3, §3.4)."""
    target = call.target
    if (tags := SCALED_MATMUL_TARGETS.get(target)) is None:
        raise MxContractError(ErrorCode.LEG_UNKNOWN_TARGET, target, "not a legalized target")
    element_dtype, result_class = tags
    if len(call.operand_types) != 5:
        raise MxContractError(
            ErrorCode.SD_OPERAND_COUNT,
            target,
            f"got {_operands(len(call.operand_types))}, expected 5 "
            "(lhs, rhs, lhs_scale, rhs_scale, metadata)",
        )
    config = ScaledDotConfig.parse(call.backend_config, target)
    if config.element_dtype != element_dtype:
        raise MxContractError(
            ErrorCode.LEG_TARGET_MISMATCH,
            target,
            f"target name says {element_dtype} but backend_config element_dtype is "
            f"{config.element_dtype!r}",
        )
    result = _tensor(call.result_type)
    if (
        result is not None
        and isinstance(result.element_type, Float32Type | BFloat16Type)
        and not isinstance(result.element_type, result_class)
    ):
        raise MxContractError(
            ErrorCode.LEG_TARGET_MISMATCH,
            target,
            f"target name and result type {_type_str(call.result_type)} disagree",
        )
    _check_scaled_dot(target, call.operand_types[:4], call.result_type, config)
    if len(config.lhs_batch_dimensions) > 1:
        raise MxContractError(
            ErrorCode.LEG_METADATA,
            target,
            f"{len(config.lhs_batch_dimensions)} batch dimensions; the metadata holds one",
        )
    lhs, rhs = (_tensor(t) for t in call.operand_types[:2])
    assert lhs is not None
    assert rhs is not None
    expected = scaled_matmul_metadata(config, lhs.get_num_dims(), rhs.get_num_dims())
    metadata_type = call.operand_types[4]
    if _canonical_type(metadata_type) != literal_type(expected):
        raise MxContractError(
            ErrorCode.LEG_METADATA,
            target,
            f"metadata operand is {_type_str(metadata_type)}, expected "
            f"{_type_str(literal_type(expected))}",
        )
    literal = call.operand_literals[4] if len(call.operand_literals) == 5 else None
    if literal is not None and literal != expected:
        raise MxContractError(
            ErrorCode.LEG_METADATA,
            target,
            f"metadata is {_literal_str(literal)}, expected {_literal_str(expected)}",
        )


def register_mx_contracts() -> None:
    register_contract(QUANTIZE_MX, check_quantize_mx)
    register_contract(BLOCK_SCALED_DOT, check_block_scaled_dot)
    register_contract(QUANTIZE_MX_LEGALIZED_PREFIX, check_quantize_mx_legalized, prefix=True)
    register_contract(SCALED_MATMUL_LEGALIZED_PREFIX, check_scaled_matmul_legalized, prefix=True)

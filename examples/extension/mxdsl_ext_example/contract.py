"""The contracts of the custom-call targets ``ExtSoftCap`` and ``ExtScaleAdd``.

``ExtSoftCap``: ``cap * tanh(x / cap)``.

The call takes one tensor of ``f32``, ``bf16`` or ``f16`` and returns a tensor of the same
type; its backend_config is a JSON object with a positive number ``cap``::

    %y = hlo.custom_call @ExtSoftCap(%x) {backend_config = "{\\22cap\\22: 30.0}"}
        : (tensor<8xf32>) -> tensor<8xf32>

Each violation is one code with one cause and one resolution, in the MX contract's layout
(:class:`mxdsl.contract.ContractError`). The ``mxdsl.contracts`` entry point ``ExtSoftCap``
names :func:`check_softcap`, so ``hlo.custom_call`` checks every ``@ExtSoftCap`` call, in
any file, without this package's dialect being loaded.

``ExtScaleAdd``: the fused ``x * scale + y`` (``docs/extending.md``, "A lowering"). It
takes two tensors of one type (``f32`` or ``bf16``, rank >= 1) and returns that type; its
backend_config is a JSON object with a finite number ``scale``::

    %z = hlo.custom_call @ExtScaleAdd(%x, %y) {backend_config = "{\22scale\22: 0.5}"}
        : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
"""

from __future__ import annotations

import json
from typing import Any

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, TensorType

from mxdsl.contract import ContractError, CustomCallSignature

TARGET = "ExtSoftCap"

CATALOG: dict[str, tuple[str, str]] = {
    "EXT01": (
        "ExtSoftCap takes exactly one operand (the tensor to cap).",
        "Pass the logits tensor as the only operand.",
    ),
    "EXT02": (
        "The ExtSoftCap backend_config is not a JSON object with a number field cap.",
        'Set backend_config to {"cap": C} with C a JSON number.',
    ),
    "EXT03": (
        "ExtSoftCap cap must be a positive finite number.",
        "Use the model's soft-capping constant, e.g. 30.0 or 50.0.",
    ),
    "EXT04": (
        "ExtSoftCap takes and returns one tensor type of f32, bf16 or f16.",
        "Declare the result type equal to the operand type; convert other element types "
        "first (hlo.convert).",
    ),
}
"""code -> (cause, resolution)."""

FLOAT_TYPES = (Float32Type, BFloat16Type, Float16Type)

SCALE_ADD = "ExtScaleAdd"

SCALE_ADD_CATALOG: dict[str, tuple[str, str]] = {
    "EXT11": (
        "ExtScaleAdd takes exactly two operands (x and y of x * scale + y).",
        "Pass the scaled tensor, then the added tensor.",
    ),
    "EXT12": (
        "The ExtScaleAdd backend_config is not a JSON object with a finite number scale.",
        'Set backend_config to {"scale": S} with S a finite JSON number.',
    ),
    "EXT13": (
        "ExtScaleAdd takes two tensors of one type, f32 or bf16 of rank 1 or more, and "
        "returns that type.",
        "Declare both operands and the result with the same tensor type; convert other "
        "element types first (hlo.convert).",
    ),
}
"""code -> (cause, resolution) of ExtScaleAdd."""

SCALE_ADD_TYPES = (Float32Type, BFloat16Type)


def fail(code: str, detail: str) -> ContractError:
    cause, resolution = CATALOG[code]
    return ContractError(code, TARGET, detail, cause, resolution)


def read_cap(backend_config: str) -> float:
    """The ``cap`` of a backend_config (raises the EXT02/EXT03 errors)."""
    try:
        fields: Any = json.loads(backend_config)
    except json.JSONDecodeError as err:
        raise fail("EXT02", f"backend_config is not JSON ({err.msg})") from None
    if not isinstance(fields, dict) or "cap" not in fields:
        raise fail("EXT02", f"backend_config {backend_config!r} has no field cap")
    cap = fields["cap"]
    if isinstance(cap, bool) or not isinstance(cap, int | float):
        raise fail("EXT02", f"cap is {json.dumps(cap)}, not a number")
    if not 0 < cap < float("inf"):
        raise fail("EXT03", f"cap is {cap}")
    return float(cap)


def check_softcap(call: CustomCallSignature) -> None:
    """Check one ``@ExtSoftCap`` call: EXT01, EXT02, EXT03, then EXT04."""
    if len(call.operand_types) != 1:
        raise fail("EXT01", f"{len(call.operand_types)} operands")
    read_cap(call.backend_config)
    (operand,) = call.operand_types
    if not isinstance(operand, TensorType) or not isinstance(
        operand.get_element_type(), FLOAT_TYPES
    ):
        raise fail("EXT04", f"the operand is {operand}")
    if call.result_type != operand:
        raise fail("EXT04", f"the result is {call.result_type}, the operand {operand}")


def scale_add_fail(code: str, detail: str) -> ContractError:
    cause, resolution = SCALE_ADD_CATALOG[code]
    return ContractError(code, SCALE_ADD, detail, cause, resolution)


def read_scale(backend_config: str) -> float:
    """The ``scale`` of an ExtScaleAdd backend_config (raises EXT12)."""
    try:
        fields: Any = json.loads(backend_config)
    except json.JSONDecodeError as err:
        raise scale_add_fail("EXT12", f"backend_config is not JSON ({err.msg})") from None
    scale = fields.get("scale") if isinstance(fields, dict) else None
    if isinstance(scale, bool) or not isinstance(scale, int | float):
        raise scale_add_fail("EXT12", f"backend_config {backend_config!r} has no number scale")
    if not abs(scale) < float("inf"):
        raise scale_add_fail("EXT12", f"scale is {scale}")
    return float(scale)


def check_scale_add(call: CustomCallSignature) -> None:
    """Check one ``@ExtScaleAdd`` call: EXT11, EXT12, then EXT13."""
    if len(call.operand_types) != 2:
        raise scale_add_fail("EXT11", f"{len(call.operand_types)} operands")
    read_scale(call.backend_config)
    x, y = call.operand_types
    if (
        not isinstance(x, TensorType)
        or not isinstance(x.get_element_type(), SCALE_ADD_TYPES)
        or not x.get_shape()
    ):
        raise scale_add_fail("EXT13", f"x is {x}")
    if y != x or call.result_type != x:
        raise scale_add_fail("EXT13", f"x is {x}, y {y}, the result {call.result_type}")

"""Interpreter functions for the ``ext`` ops and the ``ExtSoftCap`` / ``ExtScaleAdd``
custom calls.

``mx-run`` loads :class:`ExtFunctions` through the ``mxdsl.interpreters`` entry point;
importing this module also registers the ``ExtSoftCap`` implementation with
:func:`mxdsl.interpreters.hlo.custom_call_impl` (custom calls are one op, ``hlo.custom_call``,
so their targets have a registry of their own, filled when this module is imported).
Every op is one vectorised numpy computation, rounded once with
:func:`mxdsl.interpreters.round_to`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from mxdsl.dialects.hlo import CustomCallOp
from mxdsl.interpreters import numpy_dtype, round_to
from mxdsl.interpreters.hlo import custom_call_impl
from mxdsl_ext_example.contract import SCALE_ADD, TARGET, read_cap, read_scale
from mxdsl_ext_example.dialect import ClampOp, ScaleOp


def _element_dtype(op: ScaleOp | ClampOp) -> np.dtype[Any]:
    result_type = op.result.type
    assert hasattr(result_type, "get_element_type")
    return numpy_dtype(result_type.get_element_type())  # pyright: ignore[reportAttributeAccessIssue]


@register_impls
class ExtFunctions(InterpreterFunctions):
    @impl(ScaleOp)
    def run_scale(
        self, interpreter: Interpreter, op: ScaleOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        """x * 2^k in float64 (exact for every format up to f32: |k| <= 64 keeps it in
        range), rounded once to the element type."""
        (x,) = args
        exact = np.ldexp(np.asarray(x, dtype=np.float64), op.exponent.value.data)
        return (round_to(exact, _element_dtype(op)),)

    @impl(ClampOp)
    def run_clamp(
        self, interpreter: Interpreter, op: ClampOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        """min(max(x, lo), hi) with lo and hi rounded to the element type; NaN stays."""
        (x,) = args
        dtype = _element_dtype(op)
        bounds = round_to(np.array([op.lo.value.data, op.hi.value.data]), dtype)
        wide = np.asarray(x).astype(np.float64)
        clamped = np.minimum(np.maximum(wide, float(bounds[0])), float(bounds[1]))
        return (np.where(np.isnan(wide), wide, clamped).astype(dtype),)


@custom_call_impl(TARGET)
def run_softcap(interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]) -> Any:
    """cap * tanh(x / cap) in float64, rounded once to the element type."""
    (x,) = args
    cap = read_cap(op.backend_config.data)
    wide = np.asarray(x).astype(np.float64)
    return round_to(cap * np.tanh(wide / cap), x.dtype)


@custom_call_impl(SCALE_ADD)
def run_scale_add(interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]) -> Any:
    """``x * scale + y`` as the Vector engine computes it: x, y and scale in float32, the
    product rounded to float32, the sum rounded to float32, then rounded once to the
    element type (so the hlo, nisa and bir levels agree bit for bit)."""
    x, y = args
    scale = np.float32(read_scale(op.backend_config.data))
    with np.errstate(all="ignore"):
        product = np.asarray(x).astype(np.float32) * scale
        total = product + np.asarray(y).astype(np.float32)
    return round_to(total, x.dtype)

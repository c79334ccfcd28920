"""Every use mxdsl's interpreters make of xDSL interpreter internals, in one place.

xDSL is pinned (0.75); the nisa loop engine (:mod:`mxdsl.interpreters.nisa_engine`) and
the interpreter discovery (:mod:`mxdsl.interpreters`) need a few things xDSL's
:class:`~xdsl.interpreter.Interpreter` and :class:`~xdsl.interpreter.InterpreterFunctions`
keep private: the current value scope, the table of registered implementations, the
per-op step that reports a missing implementation, and the op types a functions class
implements. They are read and written here only, so a version bump of xDSL is checked
against (and, if need be, changes) this one module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImplResult,
    PythonValues,
)
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Operation, SSAValue
from xdsl.utils.scoped_dict import ScopedDict

Scope = ScopedDict[SSAValue, Any]
"""The interpreter's map from SSA values to their Python values (nested per region)."""

Implementation = tuple[InterpreterFunctions, Callable[..., OpImplResult]]
"""A registered implementation: the functions instance and xDSL's ``impl`` wrapper,
called as ``wrapper(functions, interpreter, op, args)``."""


def scope(interpreter: Interpreter) -> Scope:
    """The interpreter's current value scope (``Interpreter._ctx``)."""
    return interpreter._ctx  # pyright: ignore[reportPrivateUsage]


def set_scope(interpreter: Interpreter, values: Scope) -> None:
    """Make ``values`` the interpreter's current value scope."""
    interpreter._ctx = values  # pyright: ignore[reportPrivateUsage]


def region_scope(parent: Scope, local: dict[SSAValue, Any]) -> Scope:
    """A scope for one iteration of an ``scf.for`` body over ``parent`` holding
    ``local``, as ``Interpreter.run_ssacfg_region`` names it."""
    return ScopedDict(parent, name="for_loop", local_scope=local)


def implementations(interpreter: Interpreter) -> dict[type[Operation], Implementation]:
    """The interpreter's registered implementations by op type
    (``Interpreter._impls._impl_dict``)."""
    return interpreter._impls._impl_dict  # pyright: ignore[reportPrivateUsage]


def run_op(interpreter: Interpreter, op: Operation, inputs: PythonValues) -> OpImplResult:
    """``Interpreter._run_op``: runs ``op`` as the interpreter would, its listeners told,
    a missing implementation reported against the op."""
    return interpreter._run_op(op, inputs)  # pyright: ignore[reportPrivateUsage]


UPSTREAM_YIELD: Callable[..., Any] = ScfFunctions.run_br  # pyright: ignore[reportUnknownMemberType]
"""xDSL's registered ``scf.yield`` implementation (``ReturnedValues`` of its operands)."""


def implemented_op_types(functions: InterpreterFunctions) -> set[type[Operation]]:
    """The op types ``functions`` implements, ``@impl`` and ``@impl_callable`` alike
    (``InterpreterFunctions._impls`` / ``_callable_impls``)."""
    cls = type(functions)
    impls = cls._impls()  # pyright: ignore[reportPrivateUsage]
    callables = cls._callable_impls()  # pyright: ignore[reportPrivateUsage]
    return {op_type for op_type, _ in impls} | {op_type for op_type, _ in callables}


__all__ = [
    "UPSTREAM_YIELD",
    "Implementation",
    "Scope",
    "implementations",
    "implemented_op_types",
    "region_scope",
    "run_op",
    "scope",
    "set_scope",
]

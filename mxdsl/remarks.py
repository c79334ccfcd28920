"""Warnings and remarks about ops: diagnostics that do not stop compilation.

A pass (mxdsl's or an extension's) calls :func:`emit_warning` or :func:`emit_remark` with
the op the note is about. By default the note goes to stderr as
``file:line:col: warning: 'op' op message`` (the op's location in the input); ``mx-opt
--verify-diagnostics`` installs its own handler with :func:`capture`, so a lit file can
assert them with ``// expected-warning`` / ``// expected-remark`` (docs/verify-diagnostics.md).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation

Handler = Callable[[Operation, str, str], None]
"""``handler(op, severity, message)``; severity is ``"warning"`` or ``"remark"``."""

_handlers: list[Handler] = []


def _print_to_stderr(op: Operation, severity: str, message: str) -> None:
    location = op.location
    where = ""
    if isinstance(location, FileLineColLoc):
        where = f"{location.filename.data}:{location.line.data}:{location.column.data}: "
    print(f"{where}{severity}: '{op.name}' op {message}", file=sys.stderr)


def _emit(op: Operation, severity: str, message: str) -> None:
    handler = _handlers[-1] if _handlers else _print_to_stderr
    handler(op, severity, message)


def emit_warning(op: Operation, message: str) -> None:
    """Report a warning about ``op`` (compilation goes on)."""
    _emit(op, "warning", message)


def emit_remark(op: Operation, message: str) -> None:
    """Report a remark about ``op``: what a pass did, for the curious and for tests."""
    _emit(op, "remark", message)


@contextmanager
def capture(handler: Handler) -> Iterator[None]:
    """Send every warning and remark emitted inside the ``with`` block to ``handler``."""
    _handlers.append(handler)
    try:
        yield
    finally:
        _handlers.pop()

"""What passes need of diagnostics: :class:`OpDiagnostic`, a located error about one op.

A leaf module (it imports nothing of mxdsl), so every pass, dialect and interpreter can
raise one without importing the tools. The tools (``mxdsl.tools.diagnostics``) print it
with the op's place in the input (``file:line:col: error: 'op' op message``) and exit 1.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class OpDiagnostic(DiagnosticException):
    """An error about one op: printed with the op's source location when known."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


__all__ = ["OpDiagnostic"]

"""Source locations and diagnostics shared by the mxdsl tools.

xDSL's parser keeps no source position on the ops it builds, so a verifier error can only
be shown against a dump of the IR. :class:`LocatingParser` records where every op starts
(and gives it a ``loc("file":line:col)`` when the input named none, as MLIR does), and
:func:`verify_located` verifies op by op, so an error names the op's place in the input:

    examples/bad.mlir:7:9: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is 0 ...
      cause: ...
      resolution: ...
      %q = hlo.custom_call @QuantizeMX(%x) ...
           ^
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import (
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Span

from mxdsl.extensions import Culprit, extension_at_fault


class OpDiagnostic(DiagnosticException):
    """An error about one op: printed with the op's source location when known."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


class LocatingParser(Parser):
    """A parser that remembers where each op begins in the input."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.line_offset = line_offset
        self.op_spans: dict[Operation, Span[str]] = {}

    def parse_operation(self) -> Operation:
        span = dataclasses.replace(self._current_token.span, line_offset=self.line_offset)
        op = super().parse_operation()
        self.op_spans[op] = span
        if isinstance(op.location, UnknownLoc):
            where = span.get_location()
            op.location = FileLineColLoc(
                StringAttr(where.file), IntAttr(where.line), IntAttr(where.col)
            )
        return op


def parse_located(
    ctx: Context, text: str, name: str, line_offset: int = 0, implicit_module: bool = True
) -> tuple[ModuleOp, dict[Operation, Span[str]]]:
    parser = LocatingParser(ctx, text, name, line_offset)
    module = parser.parse_module(implicit_module)
    return module, parser.op_spans


def verify_located(module: ModuleOp) -> None:
    """Verify ``module`` exactly as ``module.verify()`` does, in its order (an op's
    regions before the op itself; a block's ops, then the block: an empty block in a
    single-block region that needs a terminator is an error of the region's op), so the
    first failure is the one xdsl-opt reports; it becomes an :class:`OpDiagnostic` on
    the failing op."""
    _verify_op_located(module)


def _verify_op_located(op: Operation) -> None:
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                _verify_op_located(child)
            if (
                block.first_op is None
                and len(region.blocks) == 1
                and not op.has_trait(NoTerminator)
            ):
                raise OpDiagnostic(
                    op,
                    "contains empty block in single-block region that expects at least "
                    "a terminator",
                )
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as err:
        raise OpDiagnostic(op, str(err)) from None


def format_op_diagnostic(
    diagnostic: OpDiagnostic, op_spans: dict[Operation, Span[str]] | None = None
) -> str:
    """``file:line:col: error: 'op' op message``, then the source line and a caret."""
    op = diagnostic.op
    headline = f"error: '{op.name}' op {diagnostic.message}"
    if op_spans and (span := op_spans.get(op)) is not None:
        where = span.get_location()
        line_start = span.input.get_start_of_line(span.start)
        source_line = span.input.content[line_start : span.input.get_end_of_line(span.start)]
        caret = " " * (span.start - line_start) + "^"
        return f"{where.file}:{where.line}:{where.col}: {headline}\n{source_line}\n{caret}"
    location = op.location
    if isinstance(location, FileLineColLoc):
        return f"{location.filename.data}:{location.line.data}:{location.column.data}: {headline}"
    return headline


def format_parse_error(err: ParseError) -> str:
    """``file:line:col: error: message``, then the source line and carets (left out when
    the error is on an empty line, e.g. at the end of the input), then the error's notes
    (``dangling block references:``, each reference located). A plain error at the end
    of the input gets a hint about a missing closing bracket."""
    where = err.span.get_location()
    message = err.msg.strip()
    refs = err.refs if isinstance(err, MultipleSpansParseError) else []
    if not refs and not err.span.input.content[err.span.start :].strip():
        message = f"{message} (at the end of the input: is a closing '}}' or ')' missing?)"
    headline = f"{where.file}:{where.line}:{where.col}: error: {message}"
    parts = [headline]
    context = err.span.print_with_context().split("\n", 1)[1].rstrip("\n")
    if context.split("\n", 1)[0].strip():
        parts.append(context)
    if isinstance(err, MultipleSpansParseError) and err.ref_text:
        parts.append(err.ref_text.rstrip())
    for span, note in refs:
        span = dataclasses.replace(span, line_offset=err.span.line_offset)
        at = span.get_location()
        located = f"{at.file}:{at.line}:{at.col}: note: {note or ''}".rstrip()
        parts.append(f"{located}\n{span.print_with_context().split(chr(10), 1)[1].rstrip()}")
    return "\n".join(parts)


_LOCATED_ERROR = re.compile(r"^.+?:\d+:\d+: error: ")


def report(tool: str, message: str, stream: IO[str] | None = None) -> None:
    """Print a diagnostic to stderr: ``tool: error: message``, or the message as it is
    when it already starts with its own location (``file:line:col: error: ...``)."""
    stream = sys.stderr if stream is None else stream
    prefix = "" if _LOCATED_ERROR.match(message) else f"{tool}: error: "
    print(f"{prefix}{message}", file=stream)


TRACEBACK_ENV = "MXDSL_TRACEBACK"
"""Set to a non-empty value to let an internal error raise with its Python traceback."""


def run_tool(
    tool: str,
    parser: argparse.ArgumentParser,
    run: Callable[[argparse.Namespace, IO[str]], None],
    failure: type[Exception],
    argv: Sequence[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """The ``main`` of a command: parse ``argv`` (a bad command line exits 2, argparse
    has said why), ``run`` it, and turn a ``failure`` (bad input) or an ``OSError`` into
    ``tool: error: ...`` and exit 1, anything else into an internal-error report (exit 2).
    """
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        run(args, stdout if stdout is not None else sys.stdout)
    except failure as err:
        report(tool, str(err))
        return 1
    except OSError as err:
        report(tool, f"cannot access {err.filename!r}: {err.strerror or err}")
        return 1
    except Exception as err:
        return report_internal_error(tool, err)
    return 0


def report_internal_error(tool: str, err: Exception) -> int:
    """An unexpected exception (a bug, not bad input): one line naming it, exit code 2.
    A bug in an installed extension's code is named as that extension's. With
    ``MXDSL_TRACEBACK`` set the exception propagates instead."""
    if os.environ.get(TRACEBACK_ENV):
        raise err
    if (culprit := extension_at_fault(err)) is not None:
        report(tool, extension_fault_message(err, culprit))
        return 2
    report(
        tool,
        f"internal error: {type(err).__name__}: {err} "
        f"(set {TRACEBACK_ENV}=1 for the traceback, and please report it)",
    )
    return 2


def extension_fault_message(err: BaseException, culprit: Culprit) -> str:
    """A bug in an extension, named as the extension's (mxdsl/extensions.py)."""
    return (
        f"error in {culprit}: {type(err).__name__}: {err} (raised in {culprit.module}; "
        f"set {TRACEBACK_ENV}=1 for the traceback, and report it to the maintainers of "
        f"'{culprit.distribution}')"
    )

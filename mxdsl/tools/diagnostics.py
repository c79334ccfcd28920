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
import bisect
import dataclasses
import os
import re
import stat
import struct
import sys
import tempfile
import textwrap
import threading
from collections.abc import Callable, Sequence
from typing import IO

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FileLineColLoc,
    IntAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Operation
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import (
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Input, Span

from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects.hex_floats import HexFloatParser
from mxdsl.extensions import Culprit, extension_at_fault
from mxdsl.tools.signals import (
    INTERRUPTED_EXIT,
    TERMINATED_EXIT,
    Terminated,
    exit_signalled,
    install_signal_handlers,
    signal_cause,
    signals_deferred,
)


class LineTable:
    """Where each line of a text starts, so an offset's line and column cost a bisection
    (not a count of the newlines before it, which made parsing quadratic)."""

    def __init__(self, content: str):
        self.starts = [0, *(m.end() for m in re.finditer("\n", content))]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset``."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1


_STRING_OR_COMMENT = re.compile(r'//[^\n]*|"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*("?)')
"""A comment, or a string literal as xDSL lexes it (its escapes: ``\\" \\n \\t \\\\ \\XX``),
closed (group 1 is ``"``) or not. The closing quote is optional, so a match never fails
and never backtracks (xDSL's own pattern, with the quote required, backtracks
exponentially when it is missing)."""


def check_string_literals(text: str, name: str, line_offset: int = 0) -> None:
    """Raise a located ``ParseError`` at the first string literal that is not closed on
    its line or holds an invalid escape. xDSL 0.75's lexer backtracks exponentially on
    such a literal (a typo would hang the tool), so this linear scan runs first."""
    for match in _STRING_OR_COMMENT.finditer(text):
        if match.group(1) != "":  # a comment (no group) or a closed string
            continue
        stop = match.end()
        next_char = text[stop : stop + 1]
        if next_char == "\\":
            at = stop
            message = (
                'invalid escape sequence in string literal (use \\", \\n, \\t, \\\\ or '
                "\\XX with two hex digits)"
            )
        elif next_char in ("\v", "\f"):
            at, message = stop, "a string literal cannot hold a vertical tab or form feed"
        else:
            at = match.start()
            message = "string literal is not closed: add the closing '\"' on this line"
        span = Span(at, at + 1, Input(text, name), line_offset)
        raise ParseError(span, message)


class ParseVerifyError(ParseError):
    """A verifier error raised while parsing (an attribute or type refused), located at
    its op: a verifier diagnostic for ``--verify-diagnostics``."""


NESTING_LIMIT = 1024
"""The deepest nesting of ops (an op in a region of an op in a region ...) the tools take:
a deeper op is a located parse error naming this bound. The tools run on a thread whose
stack and recursion limit (:func:`with_deep_stack`) parse, verify, print, lower and
interpret this deep; plain ``xdsl-opt`` stops near 200."""

DEEP_STACK_BYTES = 1 << 30
"""The stack of the thread the tools run on (virtual memory: pages are used as touched)."""

DEEP_RECURSION_LIMIT = 250_000
"""Python frames the tools may nest (:data:`NESTING_LIMIT` levels of about 50 frames each
through the parser, verifier, printer, passes and interpreters, with room to spare)."""


def with_deep_stack(main: Callable[[], int]) -> Callable[[], int]:
    """``main`` run on a thread with a :data:`DEEP_STACK_BYTES` stack and the recursion
    limit raised to :data:`DEEP_RECURSION_LIMIT`, so deeply nested IR does not overflow
    Python's default limits; its result or exception is the caller's. Where the address
    space is capped (``ulimit -v``) and no such stack can be had, a quarter and then a
    sixteenth of it is tried (the recursion limit scaled down alike), and failing those
    ``main`` runs on the calling thread with Python's defaults."""

    def run() -> int:
        outcome: list[int] = []
        failure: list[BaseException] = []

        def target() -> None:
            try:
                outcome.append(main())
            except BaseException as err:  # handed to the calling thread
                failure.append(err)

        limit = sys.getrecursionlimit()
        for share in (1, 4, 16):
            sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT // share))
            worker = _started(target, DEEP_STACK_BYTES // share)
            if worker is None:
                sys.setrecursionlimit(limit)
                continue
            try:
                worker.join()
            finally:
                sys.setrecursionlimit(limit)
            if failure:
                raise failure[0]
            return outcome[0]
        return main()

    return run


def _started(target: Callable[[], None], stack: int) -> threading.Thread | None:
    """A daemon thread running ``target`` on a ``stack``-byte stack, started; ``None``
    when the system cannot give one that large."""
    size = threading.stack_size(stack)
    try:
        worker = threading.Thread(target=target, name="mx-tool", daemon=True)
        worker.start()
    except RuntimeError:  # can't start new thread: the address space is capped
        return None
    finally:
        threading.stack_size(size)  # threads the tool starts get the default
    return worker


class LocatingParser(HexFloatParser):
    """A parser that remembers where each op begins in the input (a span per op: a line
    and column are worked out only when wanted, see :func:`assign_locations`), refuses
    ops nested deeper than :data:`NESTING_LIMIT`, and reads hex elements of float
    ``dense<...>`` literals as bit patterns (``HexFloatParser``)."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        check_string_literals(text, name, line_offset)
        super().__init__(ctx, text, name)
        self.line_offset = line_offset
        self.op_spans: dict[Operation, Span[str]] = {}
        self.depth = 0

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        if self.line_offset:
            span = dataclasses.replace(span, line_offset=self.line_offset)
        top_module = self.depth == 0 and self._current_token.text.strip('"') == "builtin.module"
        if self.depth >= NESTING_LIMIT:
            raise ParseError(
                span,
                f"this op is nested {self.depth + 1} levels deep; the mxdsl tools take at "
                f"most {NESTING_LIMIT} levels of nested regions (move the inner loops into "
                "a function of their own, or flatten them)",
            )
        nesting = 0 if top_module else 1  # the module around the input is not a level
        self.depth += nesting
        try:
            op = super().parse_operation()
        except VerifyException as err:  # an attribute or type refused while parsed
            raise ParseVerifyError(span, f"invalid op: {err}") from None
        except (struct.error, OverflowError, ValueError) as err:  # e.g. a value too wide
            raise ParseError(span, f"cannot parse this op: {err}") from None
        except MemoryError:
            raise ParseError(
                span,
                "out of memory while parsing this op: a literal or a shape too large for "
                "this machine",
            ) from None
        finally:
            self.depth -= nesting
        self.op_spans[op] = span
        return op

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """As xDSL's, but a value used and never defined is reported at its first use."""
        try:
            return super().parse_module(allow_implicit_module)
        except VerifyException as err:  # outside any op: an alias definition
            raise ParseVerifyError(self._current_token.span, f"invalid: {err}") from None
        except ParseError as err:
            if "used but not defined" not in err.msg:
                raise
            uses = sorted(filter(None, map(self._first_use, self.forward_ssa_references)))
            if not uses:
                raise
            (_, first, span), *others = uses
            names = ", ".join(f"%{name}" for _, name, _ in others)
            also = f" (also never defined: {names})" if others else ""
            raise ParseError(span, f"use of undefined value %{first}{also}") from None

    def _first_use(self, name: str) -> tuple[int, str, Span[str]] | None:
        """(offset, name, span) of the first use of the undefined ``%name`` in the input:
        the first ``%name`` in the text of the first op that uses it."""
        starts = [
            self.op_spans[use.operation].start
            for value in self.forward_ssa_references[name].values()
            for use in value.uses
            if use.operation in self.op_spans
        ]
        if not starts:
            return None
        text = self.lexer.input.content
        pattern = re.compile(rf"%{re.escape(name)}(?![\w$.-])")
        match = pattern.search(text, min(starts))
        if match is None:
            return None
        span = Span(match.start(), match.end(), self.lexer.input, self.line_offset)
        return match.start(), name, span


def assign_locations(op_spans: dict[Operation, Span[str]]) -> None:
    """Give every op without a location the ``loc("file":line:col)`` of its span (as
    MLIR does), so the ops passes make from it inherit a place in the input. One table of
    line starts and a bisection per op: linear in the input."""
    if not op_spans:
        return
    first = next(iter(op_spans.values()))
    lines = LineTable(first.input.content)
    file = StringAttr(first.input.name)
    for op, span in op_spans.items():
        if isinstance(op.location, UnknownLoc):
            line, col = lines.line_col(span.start)
            op.location = FileLineColLoc(file, IntAttr(line + span.line_offset), IntAttr(col))


def parse_located(
    ctx: Context,
    text: str,
    name: str,
    line_offset: int = 0,
    implicit_module: bool = True,
    locations: bool = True,
) -> tuple[ModuleOp, dict[Operation, Span[str]]]:
    """Parse ``text``: the module and each op's span. With ``locations`` every op also
    gets its ``loc`` (:func:`assign_locations`); without, the spans alone locate the
    verifier's diagnostics."""
    parser = LocatingParser(ctx, text, name, line_offset)
    module = parser.parse_module(implicit_module)
    if locations:
        assign_locations(parser.op_spans)
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
    if isinstance(op, memref.SubviewOp) and (problem := subview_problem(op)):
        raise OpDiagnostic(op, problem)


def subview_problem(op: memref.SubviewOp) -> str | None:
    """What is wrong with the static parts of a subview of a ``#nisa.mem`` buffer, or
    None: every static window ``offset + (size - 1) * stride`` must lie inside its source
    dim, and the result shape must be the sizes with only unit dims dropped (as MLIR's
    verifier requires). Only views of nisa buffers (which ``lower-nisa-to-bir`` lowers)
    are checked: any other subview is verified as xdsl-opt verifies it, so mx-opt stays
    a drop-in xdsl-opt (upstream's stencil lowering makes views past their source)."""
    source_type = op.source.type
    if not isinstance(source_type, MemRefType) or not _in_nisa_memory(source_type):
        return None
    shape = source_type.get_shape()
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    if not len(shape) == len(offsets) == len(sizes) == len(strides):
        return None  # xDSL's verifier speaks about ranks
    for dim, (extent, offset, size, stride) in enumerate(
        zip(shape, offsets, sizes, strides, strict=True)
    ):
        dynamic = [v == DYNAMIC_INDEX for v in (offset, size, stride)]
        if not dynamic[0] and offset < 0:
            return f"dim {dim}: offset {offset} is negative"
        if not dynamic[1] and size < 0:
            return f"dim {dim}: size {size} is negative"
        if any(dynamic[1:]) or extent < 0 or size == 0:
            continue
        first = 0 if dynamic[0] else offset
        last = first + (size - 1) * stride
        if not 0 <= last < extent:
            where = "" if dynamic[0] or offset == 0 else f"offset {offset} + "
            return (
                f"dim {dim}: {where}{size} elements at stride {stride} reach index {last}, "
                f"outside the source's {extent} (memref {source_type})"
            )
    result_type = op.result.type
    if isinstance(result_type, MemRefType) and DYNAMIC_INDEX not in sizes:
        result_shape = list(result_type.get_shape())
        kept = [n for n in sizes if n != 1]
        if [n for n in result_shape if n != 1] != kept or len(result_shape) > len(sizes):
            return (
                f"sizes {list(sizes)} do not give the result shape {result_shape} "
                "(a subview may drop only unit dims)"
            )
    return None


def _in_nisa_memory(memref_type: MemRefType) -> bool:
    return memref_type.memory_space.name == "nisa.mem"


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
    content = err.span.input.content
    if not refs and not content[err.span.start :].strip() and _unbalanced(str(content)):
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


def _unbalanced(text: str) -> bool:
    """Whether ``text`` (comments and strings left out) opens more braces or parentheses
    than it closes."""
    code = _STRING_OR_COMMENT.sub("", text)
    return code.count("{") > code.count("}") or code.count("(") > code.count(")")


_LOCATED_ERROR = re.compile(r"^.+?:\d+:\d+: error: ")


def report(tool: str, message: str, stream: IO[str] | None = None, kind: str = "error") -> None:
    """Print a diagnostic to stderr: ``tool: error: message``, or the message as it is
    when it already starts with its own location (``file:line:col: error: ...``)."""
    stream = sys.stderr if stream is None else stream
    prefix = "" if _LOCATED_ERROR.match(message) else f"{tool}: {kind}: "
    print(f"{prefix}{message}", file=stream)


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` that never breaks a name (a pass, an option) at a hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(
            " ".join(text.split()), width, break_on_hyphens=False, break_long_words=False
        )


class DefaultsHelpFormatter(HelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """As :class:`HelpFormatter`, with each option's default (when it has one)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return super()._get_help_string(action)


def unknown_pass_message(name: str) -> str:
    """The error for a ``-p`` pass nobody registered, naming mxdsl's passes."""
    from mxdsl.universe import get_all_passes

    return (
        f"unknown pass '{name}'; mxdsl passes: {', '.join(sorted(get_all_passes()))} "
        "(and every xdsl-opt pass; see mx-opt --help)"
    )


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
    if (code := environment_problem_exit(tool)) is not None:
        return code
    try:
        run(args, stdout if stdout is not None else sys.stdout)
    except (failure, ToolInputError) as err:
        report(tool, str(err))
        return 1
    except BrokenPipeError:
        raise  # the reader of stdout went away: console_exit ends quietly
    except MemoryError as err:
        report(tool, out_of_memory_message(err))
        return 1
    except OSError as err:
        report(tool, f"cannot access {err.filename!r}: {err.strerror or err}")
        return 1
    except Exception as err:
        return report_internal_error(tool, err)
    return 0


def out_of_memory_message(err: MemoryError) -> str:
    detail = f" ({err})" if str(err) else ""
    return (
        f"out of memory{detail}: the input's tensors or the requested sizes need more "
        "memory than this machine has; use smaller shapes"
    )


def console_exit(main: Callable[[], int], tool: str | None = None) -> None:
    """Run a tool's ``main`` as a command: exit with its code; when the reader of stdout
    goes away (``tool ... | head``) stop quietly with exit 0: the reader took what it
    wanted. SIGINT
    (Ctrl-C) ends the run with one line, ``tool: interrupted``, and exit 130; SIGTERM
    with ``tool: terminated`` and exit 143. Either way the outputs' temporary files are
    removed and no output is left partial (:func:`write_atomically`)."""
    install_signal_handlers()
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # keep Python's exit-time flush of stdout from failing again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except KeyboardInterrupt:
        code = exit_signalled(tool, "interrupted", INTERRUPTED_EXIT)
    except Terminated:
        code = exit_signalled(tool, "terminated", TERMINATED_EXIT)
    sys.exit(code)


def report_internal_error(tool: str, err: Exception) -> int:
    """An unexpected exception (a bug, not bad input): one line naming it, exit code 2.
    A bug in an installed extension's code is named as that extension's. With
    ``MXDSL_TRACEBACK`` set the exception propagates instead."""
    if (signalled := signal_cause(err)) is not None:
        raise signalled from None  # a signal wrapped in another error: still a signal
    if traceback_wanted():
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


# ------------------------------------------------------------------ inputs and outputs


class ToolInputError(Exception):
    """Bad input to a tool, found before any work (unreadable source, unwritable output,
    an output that would not fit): printed as ``tool: error: message``, exit 1."""


def decode_source(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text, or a ``ToolInputError`` at the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ToolInputError(
            f"{name}:{line}:{col}: error: not UTF-8 text (byte 0x{data[err.start]:02x}: "
            f"{err.reason}); mlir files are UTF-8"
        ) from None


def check_writable(path: str, what: str = "output") -> None:
    """Refuse, before any work, an output ``path`` that cannot be written: a directory,
    a missing or read-only directory, a read-only file, an empty name."""
    if (problem := empty_name_problem(path, what)) is not None:
        raise ToolInputError(problem)
    if os.path.isdir(path):
        raise ToolInputError(f"cannot write {what} {path!r}: it is a directory; name a file")
    if os.path.exists(path) and not os.path.isfile(path):  # a device or a pipe
        if not os.access(path, os.W_OK):
            raise ToolInputError(f"cannot write {what} {path!r}: permission denied")
        return
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise ToolInputError(f"cannot write {what} {path!r}: no directory {directory!r}")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ToolInputError(f"cannot write {what} {path!r}: the file is read-only")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ToolInputError(f"cannot write {what} {path!r}: {directory!r} is not writable")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(path: str, write: Callable[[IO[bytes]], object], what: str = "output") -> None:
    """Write ``path`` whole or not at all: ``write`` fills a temporary file beside it,
    which then replaces ``path`` (mode 0666 less the umask, as ``open`` would make it).
    On any failure ``path`` is left as it was and the temporary file removed. A symbolic
    link is followed (its target is replaced); a path that is not a regular file (a
    device such as ``/dev/null``, a pipe) is written in place, never replaced."""
    path = os.path.realpath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        try:
            with open(path, "wb") as stream:
                write(stream)
        except OSError as err:
            raise ToolInputError(f"cannot write {what} {path!r}: {err.strerror or err}") from None
        return
    directory = os.path.dirname(path)
    base = os.path.basename(path)
    tmp: str | None = None
    try:
        with signals_deferred():  # the name is known before a signal can stop the run
            fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as stream:
            write(stream)
        with signals_deferred():  # renamed whole, or not at all
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
            tmp = None
    except OSError as err:
        raise ToolInputError(f"cannot write {what} {path!r}: {err.strerror or err}") from None
    finally:
        if tmp is not None:
            with signals_deferred():
                if os.path.exists(tmp):
                    os.unlink(tmp)


def empty_name_problem(path: str, what: str = "output") -> str | None:
    """The error for an empty file name (``-o ""`` would name the current directory)."""
    if path == "":
        return f"cannot write {what} '': an empty file name; name a file"
    return None


# ------------------------------------------------------------ bounded program text


MAX_SOURCE_BYTES = 256 << 20
"""The most program text (``.mlir``) ``mx-opt`` and ``mx-run`` read: 256 MiB. A larger
file (or a stream such as ``/dev/zero``) is refused before it is parsed; the bound is
checked on a regular file's size before any byte is read, on a stream as it is read."""

_READ_CHUNK = 1 << 20


def size_text(size: int) -> str:
    """Bytes as the tools print them: ``256 MiB``, ``1.5 GiB``, ``300 B``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.4g} {unit}"
    return f"{size} B"


def read_bounded(stream: IO[bytes], name: str, limit: int, bound: str) -> bytes:
    """At most ``limit`` bytes of ``stream`` (a program text), or a ``ToolInputError``
    saying the input is larger than ``bound`` (the limit as the user knows it). A regular
    file's size is checked before it is read; any other stream (stdin, a pipe, a device)
    is read in chunks and refused as soon as it passes the limit."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):
        info = None  # an in-memory stream
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise ToolInputError(_too_large(name, f"is {size_text(info.st_size)}, more than", bound))
    data = bytearray()
    while len(data) <= limit:
        chunk = stream.read(min(_READ_CHUNK, limit + 1 - len(data)))
        if not chunk:
            return bytes(data)
        data += chunk
    raise ToolInputError(_too_large(name, "holds more than", bound))


def _too_large(name: str, size: str, bound: str) -> str:
    return f"cannot read {name!r}: it {size} {bound}; is it the right file?"


# ------------------------------------------------------- outputs that name inputs


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


def check_distinct_files(
    inputs: Sequence[tuple[str, str | None]], outputs: Sequence[tuple[str, str | None]]
) -> None:
    """Refuse, before any work, an output that names the same file as an input or as
    another output (symbolic and hard links resolved): ``(flag, path)`` pairs, ``None``
    and ``-`` (stdin / stdout) skipped. Nothing is read or written."""
    named_outputs = [(flag, path) for flag, path in outputs if path not in (None, "-", "")]
    named_inputs = [(flag, path) for flag, path in inputs if path not in (None, "-", "")]
    for index, (flag, path) in enumerate(named_outputs):
        assert path is not None
        for in_flag, in_path in named_inputs:
            assert in_path is not None
            if _same_file(path, in_path):
                raise ToolInputError(
                    f"{flag} {path!r} names the {in_flag} {in_path!r}: the output would "
                    "overwrite the input; name another file"
                )
        for other_flag, other in named_outputs[:index]:
            assert other is not None
            if _same_file(path, other):
                raise ToolInputError(
                    f"{other_flag} {other!r} and {flag} {path!r} name the same file: each "
                    "output needs its own; name another file"
                )


# ------------------------------------------------------------ environment variables


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def traceback_wanted() -> bool:
    """Whether ``MXDSL_TRACEBACK`` asks for tracebacks: ``1`` / ``true`` / ``yes`` /
    ``on`` do, unset, empty, ``0`` / ``false`` / ``no`` / ``off`` do not (any other
    value is refused by :func:`environment_problem` before a tool runs)."""
    return os.environ.get(TRACEBACK_ENV, "").strip().lower() in _TRUE


def environment_problem() -> str | None:
    """The error for a documented ``MXDSL_*`` variable with a value the tools do not
    take (``MXDSL_TRACEBACK``, ``MXDSL_QUANTIZE_THREADS``), or None."""
    setting = os.environ.get(TRACEBACK_ENV)
    if setting is not None and setting.strip().lower() not in _TRUE | _FALSE:
        return (
            f"{TRACEBACK_ENV}={setting!r}: expected 1 (show the Python traceback of a bug) "
            "or 0 (do not); unset it or set one of those"
        )
    from mxdsl.numerics.fast import THREADS_ENV

    setting = os.environ.get(THREADS_ENV)
    if setting is not None and setting.strip():
        text = setting.strip()
        if not (text.isdecimal() and int(text) >= 1):
            return (
                f"{THREADS_ENV}={setting!r}: expected a positive integer, the threads of "
                "the bf16 quantize (1: no threads); unset it to use every available CPU"
            )
    return None


def environment_problem_exit(tool: str | None) -> int | None:
    """Report :func:`environment_problem` (one line) and return exit code 2, or None."""
    problem = environment_problem()
    if problem is None:
        return None
    report(tool or "mxdsl", problem)
    return 2

"""``mx-opt --verify-diagnostics`` with MLIR's meaning: check ``expected-*`` annotations.

When the input carries annotations such as::

    // expected-error@+1 {{'hlo.tuple' op result type}}
    %t = "hlo.tuple"(%a) : (tensor<2xf32>) -> tuple<tensor<2xf16>>

every diagnostic the run emits (parse errors, verifier errors, pass errors, warnings and
remarks from :mod:`mxdsl.remarks`) must be expected by an annotation of its severity on
its line whose text it contains, and every annotation must be met, chunk by chunk under
``--split-input-file``. Any mismatch is reported (MLIR's wording: ``unexpected error:``,
``expected error "..." was not produced``) and the run exits 1. The syntax (MLIR's
``-verify-diagnostics``, docs/verify-diagnostics.md):

* ``expected-error``, ``expected-warning``, ``expected-remark``, ``expected-note``;
  with ``-re`` the text is literal except ``{{regex}}`` parts (Python ``re``; ``^`` and
  ``$`` match at the ends of each line of the message);
* ``@+N`` / ``@-N`` (N lines below / above the annotation), ``@below`` / ``@above``
  (``@+1`` / ``@-1``); without one, the annotation's own line;
* ``{{text}}``: a substring of the message (``'op.name' op ...`` for an op error); the
  text runs to the last ``}}`` on the line.

Without annotations ``--verify-diagnostics`` keeps xdsl-opt's meaning (print and exit 0).
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from io import BytesIO
from typing import IO, Protocol

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span

from mxdsl import remarks
from mxdsl.tools.diagnostics import OpDiagnostic

SEVERITIES = ("error", "warning", "remark", "note")

_DIRECTIVE = re.compile(
    r"expected-(?P<severity>error|warning|remark|note)(?P<re>-re)?"
    r"(?:\s*@(?P<offset>above|below|[+-]\d+))?\s*(?P<rest>\{\{.*)$"
)
"""An annotation: as in MLIR, ``expected-<severity>`` followed by ``{{`` (so prose that
mentions ``expected-error`` is not one)."""
_ANY_ANNOTATION = re.compile(
    rb"expected-(?:error|warning|remark|note)(?:-re)?(?:\s*@(?:above|below|[+-]\d+))?\s*\{\{"
)


def has_annotations(text: bytes) -> bool:
    """Whether the input carries any ``expected-*`` annotation."""
    return _ANY_ANNOTATION.search(text) is not None


@dataclass
class Expectation:
    """One ``expected-*`` annotation: a diagnostic of ``severity`` on ``line`` whose
    message contains ``text`` (or matches it, for ``-re``)."""

    severity: str
    line: int
    text: str
    pattern: re.Pattern[str] | None
    annotation_line: int
    annotation_column: int
    matched: bool = False

    def matches_message(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


@dataclass(frozen=True)
class Emitted:
    """A diagnostic the run produced; ``line`` is ``None`` when it has no location."""

    severity: str
    line: int | None
    column: int | None
    message: str


@dataclass
class ChunkResult:
    expectations: list[Expectation]
    emitted: list[Emitted] = field(default_factory=list[Emitted])


def _regex_of(text: str) -> re.Pattern[str]:
    """MLIR's ``-re`` form: literal text with ``{{regex}}`` parts."""
    parts: list[str] = []
    position = 0
    for match in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[position : match.start()]))
        parts.append(f"(?:{match.group(1)})")
        position = match.end()
    parts.append(re.escape(text[position:]))
    return re.compile("".join(parts), re.MULTILINE)


class AnnotationError(Exception):
    """A malformed ``expected-*`` annotation (reported like a missing diagnostic)."""


def parse_expectations(text: str, name: str, first_line: int) -> list[Expectation]:
    """The annotations in ``text``, whose first line is line ``first_line`` of the file."""
    expectations: list[Expectation] = []
    for index, line in enumerate(text.split("\n")):
        line_number = first_line + index
        for start in (m.start() for m in re.finditer(r"expected-", line)):
            match = _DIRECTIVE.match(line, start)
            if match is None:
                continue
            expectations.append(_expectation(match, name, line_number, start + 1))
    return expectations


def _expectation(match: re.Match[str], name: str, line: int, column: int) -> Expectation:
    rest = match.group("rest")
    end = rest.rfind("}}")
    if end < 2:
        raise AnnotationError(
            f"{name}:{line}:{column}: error: expected-{match.group('severity')}: the text "
            "has no closing }} (write // expected-error@+1 {{message}})"
        )
    text = rest[2:end]
    offset = match.group("offset")
    target = line
    if offset == "above":
        target = line - 1
    elif offset == "below":
        target = line + 1
    elif offset is not None:
        target = line + int(offset)
    pattern = None
    if match.group("re"):
        try:
            pattern = _regex_of(text)
        except re.error as err:
            raise AnnotationError(
                f"{name}:{line}:{column}: error: invalid regex in expected-"
                f"{match.group('severity')}-re: {err}"
            ) from None
    return Expectation(match.group("severity"), target, text, pattern, line, column)


# --------------------------------------------------------------------- diagnostics


def parse_error_diagnostic(err: ParseError, line_offset: int) -> Emitted:
    span = (
        err.span if err.span.line_offset else dataclasses.replace(err.span, line_offset=line_offset)
    )
    where = span.get_location()
    return Emitted("error", where.line, where.col, err.msg.strip())


def op_diagnostic(
    op: Operation, severity: str, message: str, op_spans: dict[Operation, Span[str]]
) -> Emitted:
    """The diagnostic for ``op``: at its place in the input (or its ``loc``), with the
    message as MLIR words it, ``'op.name' op message``."""
    text = f"'{op.name}' op {message}"
    if (span := op_spans.get(op)) is not None:
        where = span.get_location()
        return Emitted(severity, where.line, where.col, text)
    location = op.location
    if isinstance(location, FileLineColLoc):
        return Emitted(severity, location.line.data, location.column.data, text)
    return Emitted(severity, None, None, text)


def _match(result: ChunkResult) -> tuple[list[Emitted], list[tuple[Emitted, Expectation]]]:
    """Pair each emitted diagnostic with the first unmet expectation on its line with its
    severity and text. Returns the unexpected ones, and those that match an expectation's
    line and text but not its severity (reported as such)."""
    unexpected: list[Emitted] = []
    wrong_severity: list[tuple[Emitted, Expectation]] = []
    for diagnostic in result.emitted:
        candidates = [
            e
            for e in result.expectations
            if not e.matched and e.line == diagnostic.line and e.matches_message(diagnostic.message)
        ]
        exact = [e for e in candidates if e.severity == diagnostic.severity]
        if exact:
            exact[0].matched = True
        elif candidates:
            candidates[0].matched = True
            wrong_severity.append((diagnostic, candidates[0]))
        else:
            unexpected.append(diagnostic)
    return unexpected, wrong_severity


def check(results: Iterable[ChunkResult], name: str) -> list[str]:
    """The report lines (empty when every diagnostic was expected and every expectation
    met), in MLIR's wording, each located in the input."""
    problems: list[str] = []
    for result in results:
        unexpected, wrong_severity = _match(result)
        for diagnostic in unexpected:
            where = f"{name}:{diagnostic.line}:{diagnostic.column}: " if diagnostic.line else ""
            problems.append(f"{where}error: unexpected {diagnostic.severity}: {diagnostic.message}")
        for diagnostic, expectation in wrong_severity:
            problems.append(
                f"{name}:{diagnostic.line}:{diagnostic.column}: error: '{diagnostic.severity}' "
                f"diagnostic emitted when expecting a '{expectation.severity}': "
                f"{diagnostic.message}"
            )
        for expectation in result.expectations:
            if expectation.matched:
                continue
            problems.append(
                f"{name}:{expectation.annotation_line}:{expectation.annotation_column}: "
                f'error: expected {expectation.severity} "{expectation.text}" was not '
                f"produced (on line {expectation.line})"
            )
    return problems


class VerifyDiagnosticsFailed(Exception):
    """``--verify-diagnostics`` found unexpected or missing diagnostics (or a malformed
    annotation); ``str()`` is the report, one located line per problem."""


ParseChunk = Callable[[IO[bytes], str, int], ModuleOp | None]


def run_chunk(
    text: bytes,
    line_offset: int,
    file_extension: str,
    name: str,
    parse_chunk: ParseChunk,
    apply_passes: Callable[[ModuleOp], None],
    op_spans: Callable[[], dict[Operation, Span[str]]],
) -> tuple[ChunkResult, ModuleOp | None]:
    """Parse and transform one chunk, collecting its diagnostics instead of raising
    them. Returns the module when no error stopped the chunk."""
    decoded = text.decode("utf-8", errors="replace")
    result = ChunkResult(parse_expectations(decoded, name, line_offset + 1))
    module: ModuleOp | None = None

    def on_remark(op: Operation, severity: str, message: str) -> None:
        result.emitted.append(op_diagnostic(op, severity, message, op_spans()))

    with remarks.capture(on_remark):
        try:
            module = parse_chunk(BytesIO(text), file_extension, line_offset)
            if module is not None:
                apply_passes(module)
        except ParseError as err:
            result.emitted.append(parse_error_diagnostic(err, line_offset))
            module = None
        except OpDiagnostic as err:
            result.emitted.append(op_diagnostic(err.op, "error", err.message, op_spans()))
            module = None
        except DiagnosticException as err:
            result.emitted.append(Emitted("error", None, None, str(err).strip()))
            module = None
    return result, module


class _Tool(Protocol):
    """What :func:`run_verifying` needs of ``MxOptMain``."""

    op_spans: dict[Operation, Span[str]]
    pipeline: PassPipeline

    @property
    def ctx(self) -> Context: ...

    def get_input_name(self) -> str: ...

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None: ...

    def prepare_output(self) -> IO[str]: ...

    def output_resulting_program(self, prog: ModuleOp) -> str: ...


def run_verifying(tool: _Tool, chunks: list[tuple[bytes, int]], file_extension: str) -> None:
    """Run every chunk, print the IR of those no error stopped (``// -----`` between
    chunks, as xdsl-opt does), then check the diagnostics against the annotations.
    Raises :class:`VerifyDiagnosticsFailed` with the report on any mismatch."""
    name = tool.get_input_name()
    output = tool.prepare_output()
    problems: list[str] = []
    try:
        for index, (text, line_offset) in enumerate(chunks):
            if index > 0:
                output.write("// -----\n")
            try:
                result, module = run_chunk(
                    text,
                    line_offset,
                    file_extension,
                    name,
                    tool.parse_chunk,
                    lambda module: tool.pipeline.apply(tool.ctx, module),
                    lambda: tool.op_spans,
                )
            except AnnotationError as err:
                problems.append(str(err))
                continue
            problems.extend(check([result], name))
            if module is not None:
                output.write(tool.output_resulting_program(module))
            output.flush()
    finally:
        if output is not sys.stdout:
            output.close()
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
        summary = f"--verify-diagnostics: {count} with the expected-* annotations of {name}"
        raise VerifyDiagnosticsFailed("\n".join([*problems, summary]))

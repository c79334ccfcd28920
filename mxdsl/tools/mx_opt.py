"""``mx-opt``: the mxdsl modular optimizer driver.

An ``xDSLOptMain`` with its own name and version. Every upstream xDSL dialect and pass
is available, and mxdsl's come in through the ``xdsl.universe`` entry point (see
``mxdsl/universe.py``), like any out-of-tree extension's.

What it adds to ``xdsl-opt``:

* errors are diagnostics, never tracebacks: a malformed input, an unknown pass or pass
  option, a missing file or a violated contract prints ``file:line:col: error: ...``
  (the op's place in the input, the code, cause and resolution) and exits 1;
* ``-o FILE`` is written only when the whole run succeeds.

``--verify-diagnostics`` and ``--parsing-diagnostics`` keep their xdsl-opt meaning (print
the error and exit 0) for lit tests, with the located message. Set
``MXDSL_TRACEBACK=1`` to see the Python traceback of an internal error.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain

from mxdsl import __version__
from mxdsl.tools.diagnostics import (
    OpDiagnostic,
    format_op_diagnostic,
    format_parse_error,
    parse_located,
    report,
    verify_located,
)

TOOL = "mx-opt"


class _DeferredOutput(StringIO):
    """Collects the output for ``-o``; the file is written only after a clean run."""

    def close(self) -> None:
        """Keep the text: xDSLOptMain closes its output stream when the run ends."""


class MxOptMain(xDSLOptMain):
    version_format = f"{TOOL} {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        self.op_spans: dict[Operation, Span[str]] = {}
        self._deferred: _DeferredOutput | None = None
        super().__init__(description="mxdsl modular optimizer driver", args=args)

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        """Parse MLIR with source locations; other frontends as xdsl-opt does."""
        if (self.args.frontend or file_extension) != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        module, self.op_spans = parse_located(
            self.ctx,
            chunk.read().decode("utf-8"),
            self.get_input_name(),
            start_offset,
            implicit_module=not self.args.no_implicit_module,
        )
        return module

    def setup_pipeline(self) -> None:
        """xDSLOptMain's pipeline, verifying op by op so errors carry locations."""
        started = time.perf_counter()

        def between_passes(
            previous: ModulePass | None, module: ModuleOp, upcoming: ModulePass | None
        ) -> None:
            nonlocal started
            if self.args.time_passes and previous is not None:
                print(f"Pass {previous.name} took {time.perf_counter() - started} seconds")
            if not self.args.disable_verify:
                verify_located(module)
            if previous and upcoming and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            started = time.perf_counter()

        self.pipeline = PassPipeline.parse_spec(
            self.available_passes, self.args.passes, between_passes
        )

    def prepare_output(self) -> IO[str]:
        if self.args.output_file is None:
            return sys.stdout
        self._deferred = _DeferredOutput()
        return self._deferred

    def run(self) -> None:
        super().run()
        if self._deferred is not None:
            with open(self.args.output_file, "w") as output:
                output.write(self._deferred.getvalue())

    def apply_passes(self, prog: ModuleOp) -> None:
        """Apply the pipeline; an op-level error becomes a located diagnostic (which
        ``--verify-diagnostics`` prints as xdsl-opt does)."""
        try:
            super().apply_passes(prog)
        except OpDiagnostic as err:
            raise DiagnosticException(format_op_diagnostic(err, self.op_spans)) from None


def _unknown_pass_message(err: Exception, available: Sequence[str]) -> str:
    text = str(err)
    if "Unrecognized passes" not in text:
        return f"invalid pass pipeline: {text}"
    return f"{text.replace('Unrecognized passes', 'unknown pass')}; available mxdsl passes: " + (
        ", ".join(sorted(p for p in available if p.startswith(("legalize-", "lower-"))))
        + " (and every xdsl-opt pass; see --help)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (0 on success, 1 on any error)."""
    try:
        tool = MxOptMain(args=argv)
    except (ValueError, ArgSpecParseError) as err:
        report(TOOL, _unknown_pass_message(err, _mxdsl_pass_names()))
        return 1
    try:
        tool.run()
    except ParseError as err:
        report(TOOL, format_parse_error(err))
        return 1
    except DiagnosticException as err:
        report(TOOL, str(err))
        return 1
    except OSError as err:
        report(TOOL, f"cannot open {err.filename!r}: {err.strerror}")
        return 1
    except Exception as err:
        if os.environ.get("MXDSL_TRACEBACK"):
            raise
        report(
            TOOL,
            f"internal error: {type(err).__name__}: {err} "
            "(set MXDSL_TRACEBACK=1 for the traceback, and please report it)",
        )
        return 2
    return 0


def _mxdsl_pass_names() -> list[str]:
    from mxdsl.universe import get_all_passes

    return list(get_all_passes())


def console_main() -> None:
    sys.exit(main())



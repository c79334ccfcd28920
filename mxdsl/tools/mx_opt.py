"""``mx-opt``: the mxdsl modular optimizer driver.

An ``xDSLOptMain`` with its own name and version. Every upstream xDSL dialect and pass
is available, and mxdsl's come in through the ``xdsl.universe`` entry point (see
``mxdsl/universe.py``), like any out-of-tree extension's.

What it adds to ``xdsl-opt``:

* errors are diagnostics, never tracebacks: a malformed input, an unknown pass or pass
  option, a missing file or a violated contract prints ``file:line:col: error: ...``
  (the op's place in the input, the code, cause and resolution) and exits 1; a
  command-line usage error exits 2 (argparse), an internal error exits 2 with a hint;
* ``-o FILE`` is written only when the whole run succeeds (an existing file is kept);
* :func:`main` can be called in-process: it returns the exit code, and undoes the
  process-wide switch-off of attribute verification that ``--disable-verify`` makes.

``--verify-diagnostics`` checks the input's ``expected-*`` annotations with MLIR's meaning
(mxdsl/tools/verify_diagnostics.py, docs/verify-diagnostics.md). Without annotations, it,
``--parsing-diagnostics`` and ``--print-debuginfo`` make mx-opt answer exactly as
xdsl-opt does (print the error in xdsl-opt's layout and exit 0), unless
``--located-diagnostics`` keeps the located layout. A broken extension entry point is
skipped with a warning; a bug in an extension is reported as the extension's
(mxdsl/extensions.py). Set
``MXDSL_TRACEBACK=1`` to see the Python traceback of an internal error.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from io import BytesIO, StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass, PassPipeline, get_pass_option_infos
from xdsl.printer import Printer
from xdsl.universe import Universe
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
)
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain

from mxdsl import __version__
from mxdsl.dialects.hex_floats import HexFloatMLIRFrontend
from mxdsl.extensions import load_multiverse
from mxdsl.targets import DEFAULT_TARGET, TARGETS, use_target
from mxdsl.tools import verify_diagnostics
from mxdsl.tools.diagnostics import (
    MAX_SOURCE_BYTES,
    HelpFormatter,
    OpDiagnostic,
    ParseVerifyError,
    ToolInputError,
    check_distinct_files,
    check_writable,
    console_exit,
    decode_source,
    environment_problem_exit,
    format_op_diagnostic,
    format_parse_error,
    out_of_memory_message,
    parse_located,
    read_bounded,
    report,
    report_internal_error,
    size_text,
    unknown_pass_message,
    verify_located,
    with_deep_stack,
    write_atomically,
)

TOOL = "mx-opt"


class PipelineError(Exception):
    """A ``-p`` pipeline that names an unknown pass or a bad pass option."""


class LocatedParseError(ParseError):
    """A parse error printed as ``file:line:col: error: message`` with its source line,
    also under ``--parsing-diagnostics``."""

    def __str__(self) -> str:
        return format_parse_error(self)


class LocatedMultipleSpansParseError(MultipleSpansParseError):
    """A parse error with notes (``dangling block references:``), located likewise."""

    def __str__(self) -> str:
        return format_parse_error(self)


class _DeferredOutput(StringIO):
    """Collects the output for ``-o``; the file is written only after a clean run."""

    def close(self) -> None:
        """Keep the text: xDSLOptMain closes its output stream when the run ends."""


class MxOptMain(xDSLOptMain):
    version_format = f"{TOOL} {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        self.op_spans: dict[Operation, Span[str]] = {}
        self._deferred: _DeferredOutput | None = None
        self._replay: tuple[list[tuple[bytes, int]], str] | None = None
        self._universe: Universe | None = None
        self.xdsl_mode = False
        self.checking_annotations = False
        super().__init__(description="mxdsl modular optimizer driver", args=args)
        self.xdsl_mode = self.answers_as_xdsl_opt()

    def answers_as_xdsl_opt(self) -> bool:
        """Whether to answer exactly as xdsl-opt: under xdsl-opt's diagnostic flags
        (``--verify-diagnostics``, ``--parsing-diagnostics``, ``--print-debuginfo``)
        unless ``--located-diagnostics`` keeps mx-opt's own. Then parsing, verification
        (children before parents, empty blocks), the error text and the printed
        locations are xdsl-opt's. ``--verify-diagnostics`` with ``expected-*``
        annotations has MLIR's meaning instead (:meth:`run`)."""
        args = self.args
        if args.located_diagnostics:
            return False
        return bool(args.verify_diagnostics or args.parsing_diagnostics or args.print_debuginfo)

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        """Parse MLIR with source locations; other frontends, and everything in
        xdsl-opt's diagnostic mode (:meth:`answers_as_xdsl_opt`), as xdsl-opt does."""
        if self.xdsl_mode or (self.args.frontend or file_extension) != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        try:
            module, self.op_spans = parse_located(
                self.ctx,
                decode_source(chunk.read(), self.get_input_name()),
                self.get_input_name(),
                start_offset,
                implicit_module=not self.args.no_implicit_module,
                # an op's loc is wanted by the ops passes make from it, or to be printed;
                # the verifier's diagnostics need only the spans
                locations=bool(self.args.passes) or self.args.print_debuginfo,
            )
        except ParseVerifyError as err:
            if self.checking_annotations:  # a located diagnostic, met by an annotation
                raise
            if self.args.verify_diagnostics:  # a verifier error, though found while parsing
                raise DiagnosticException(format_parse_error(err)) from None
            raise LocatedParseError(err.span, err.msg) from None
        except ParseError as err:
            if isinstance(err, MultipleSpansParseError):
                raise LocatedMultipleSpansParseError(
                    err.span, err.msg, err.ref_text, err.refs
                ) from None
            raise LocatedParseError(err.span, err.msg) from None
        return module

    def setup_pipeline(self) -> None:
        """xDSLOptMain's pipeline, verifying op by op so errors carry locations, and
        naming the pass in every pipeline error."""
        started = time.perf_counter()

        def between_passes(
            previous: ModulePass | None, module: ModuleOp, upcoming: ModulePass | None
        ) -> None:
            nonlocal started
            if self.args.time_passes and previous is not None:
                print(f"Pass {previous.name} took {time.perf_counter() - started} seconds")
            if not self.args.disable_verify:
                if self.xdsl_mode:
                    module.verify()
                else:
                    verify_located(module)
            if previous and upcoming and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            started = time.perf_counter()

        self.pipeline = PassPipeline(
            tuple(self._make_pass(spec) for spec in parse_pipeline(self.args.passes)),
            between_passes,
        )

    def _make_pass(self, spec: ArgSpec) -> ModulePass:
        """One ``-p`` entry: a known pass with known options of the right type."""
        if (factory := self.available_passes.get(spec.name)) is None:
            raise PipelineError(_unknown_pass_message(spec.name))
        pass_class = factory()
        options = [info.name for info in get_pass_option_infos(pass_class)]
        spelled = {name.replace("-", "_"): name for name in spec.parameters}
        known = f"its options are: {', '.join(options)}" if options else "it takes no options"
        if unknown := [written for name, written in spelled.items() if name not in options]:
            raise PipelineError(
                f"pass '{spec.name}' has no option {', '.join(map(repr, unknown))} ({known})"
            )
        try:
            return pass_class.from_pass_spec(spec)
        except (ValueError, TypeError) as err:
            raise PipelineError(f"invalid options for pass '{spec.name}': {err}") from None

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """stdin for no file or ``-``; any other file is read as MLIR unless its extension
        names another frontend (``-f`` chooses explicitly).
        The text is read here, at most ``MAX_SOURCE_BYTES`` of it (a larger file is
        refused before it is read, a longer stream as soon as it passes the bound)."""
        bound = f"{size_text(MAX_SOURCE_BYTES)}, the most program text {TOOL} reads"
        if self.args.input_file in (None, "-"):
            text = read_bounded(sys.stdin.buffer, "<stdin>", MAX_SOURCE_BYTES, bound)
            return BytesIO(text), "mlir"
        stream, extension = super().get_input_stream()
        with stream:
            text = read_bounded(stream, self.args.input_file, MAX_SOURCE_BYTES, bound)
        return BytesIO(text), extension if extension in self.available_frontends else "mlir"

    def get_input_name(self) -> str:
        return "<stdin>" if self.args.input_file in (None, "-") else self.args.input_file

    # An extension whose universe cannot be loaded is skipped with a warning naming it
    # (mxdsl/extensions.py), instead of stopping every run as xdsl-opt does.

    def _multiverse(self) -> Universe:
        if self._universe is None:
            self._universe = load_multiverse()
        return self._universe

    def register_all_dialects(self) -> None:
        for name, factory in self._multiverse().all_dialects.items():
            self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        for name, factory in self._multiverse().all_frontends.items():
            self.available_frontends.setdefault(name, factory)
        self.available_frontends["mlir"] = _hex_float_mlir_frontend

    def register_all_passes(self) -> None:
        for name, factory in self._multiverse().all_passes.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        for name, factory in self._multiverse().all_targets.items():
            self.available_targets.setdefault(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--located-diagnostics",
            action="store_true",
            help="keep mx-opt's located diagnostics (file:line:col: error: ...) under "
            "--verify-diagnostics, --parsing-diagnostics and --print-debuginfo, where "
            "mx-opt otherwise answers exactly as xdsl-opt does",
        )
        _share_target_flag(arg_parser, list(self.available_targets))
        arg_parser.prog = TOOL  # also when main() runs in-process
        arg_parser.formatter_class = HelpFormatter
        # an unambiguous prefix of an option is accepted, as by xdsl-opt (upstream's
        # suite writes --verify-diagnostic): mx-opt parses xdsl-opt's command lines
        for action in arg_parser._actions:  # pyright: ignore[reportPrivateUsage]
            if action.dest == "input_file":
                action.help = "the input file; without one (or with '-') stdin is read"
            if action.dest == "passes":  # a list the help can wrap between names
                passes = ", ".join(sorted(self.available_passes))
                action.help = f"a comma-separated pipeline of passes; available: {passes}"

    def prepare_output(self) -> IO[str]:
        if self.args.output_file is None:
            return sys.stdout
        check_writable(self.args.output_file)  # before the run, not after it
        self._deferred = _DeferredOutput()
        return self._deferred

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        """The input chunks; read once (see :meth:`run`), then replayed from memory."""
        if self._replay is None:
            return super().prepare_input()
        chunks, file_extension = self._replay
        self._replay = None
        return [(BytesIO(text), offset) for text, offset in chunks], file_extension

    def run(self) -> None:
        """xdsl-opt's run; under ``--verify-diagnostics`` (without xdsl-opt's
        ``--parsing-diagnostics``) with ``expected-*`` annotations in the input, MLIR's
        check of them instead (mxdsl/tools/verify_diagnostics.py)."""
        args = self.args
        # before anything is read: -o may not name the input
        check_distinct_files([("input file", args.input_file)], [("-o", args.output_file)])
        # --parsing-diagnostics is xdsl-opt's own flag (MLIR has none): with it, the run
        # is an xdsl-opt one, whose --verify-diagnostics ignores annotations
        checking = args.verify_diagnostics and not args.parsing_diagnostics
        if checking and self._run_verifying_annotations():
            return
        super().run()
        self._write_deferred()

    def _run_verifying_annotations(self) -> bool:
        """Check the input's annotations, or (when it has none) keep it for the plain
        run and return False."""
        chunks, file_extension = self.prepare_input()
        texts = [(chunk.read(), offset) for chunk, offset in chunks]
        for chunk, _ in chunks:
            chunk.close()
        if not any(verify_diagnostics.has_annotations(text) for text, _ in texts):
            self._replay = (texts, file_extension)
            return False
        self.xdsl_mode = False  # annotations are checked against located diagnostics
        self.checking_annotations = True
        verify_diagnostics.run_verifying(self, texts, file_extension)
        self._write_deferred()
        return True

    def _write_deferred(self) -> None:
        if self._deferred is not None:
            text = self._deferred.getvalue().encode("utf-8")
            write_atomically(self.args.output_file, lambda stream: stream.write(text))

    def apply_passes(self, prog: ModuleOp) -> None:
        """Apply the pipeline; an op-level error becomes a located diagnostic (in
        xdsl-opt's diagnostic mode, xdsl-opt's bare message)."""
        if self.xdsl_mode:
            super().apply_passes(prog)
            return
        try:
            super().apply_passes(prog)
        except OpDiagnostic as err:
            raise DiagnosticException(format_op_diagnostic(err, self.op_spans)) from None


class _TargetAction(argparse.Action):
    """``-t/--target NAME``: a modelled NeuronCore (``trn3``, ``trn2``: mxdsl/targets.py)
    sets ``neuron_target``; any other name is xdsl-opt's output target. Given twice, it
    sets one of each (``--target trn2 --target mlir``). A name that is neither is a usage
    error listing both kinds."""

    def __init__(self, *args, output_targets: Sequence[str] = (), **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.output_targets = output_targets

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[str] | None,
        option_string: str | None = None,
    ) -> None:
        name = str(values)
        if name in TARGETS:
            namespace.neuron_target = name
            return
        if name.split("{", 1)[0] not in self.output_targets:
            parser.error(
                f"argument -t/--target: invalid choice: '{name}' (a modelled NeuronCore: "
                f"{', '.join(TARGETS)}; or an output target: {', '.join(self.output_targets)})"
            )
        namespace.target = name


def _hex_float_mlir_frontend() -> type[HexFloatMLIRFrontend]:
    """xdsl-opt's MLIR frontend with hex float literals read as bit patterns."""
    return HexFloatMLIRFrontend


def _share_target_flag(parser: argparse.ArgumentParser, output_targets: Sequence[str]) -> None:
    """Make xdsl-opt's ``-t/--target`` also select the modelled NeuronCore
    (:class:`_TargetAction`); ``neuron_target`` defaults to trn3."""
    for action in list(parser._actions):  # pyright: ignore[reportPrivateUsage]
        if action.dest != "target":
            continue
        parser._handle_conflict_resolve(  # pyright: ignore[reportPrivateUsage]
            action, [(option, action) for option in action.option_strings]
        )
        break
    parser.add_argument(
        "-t",
        "--target",
        action=_TargetAction,
        output_targets=list(output_targets),
        default="mlir",
        metavar="TARGET",
        help=f"the modelled NeuronCore: {' or '.join(TARGETS)} (default "
        f"{DEFAULT_TARGET.name}; mxdsl/targets.py): the capacities the nisa and bir verifiers "
        "check, and lower-nisa-to-bir's target unless its target option is given; or the "
        f"output target: {', '.join(output_targets)} (default mlir). Give it twice to set "
        "both (--target trn2 --target mlir)",
    )
    parser.set_defaults(neuron_target=DEFAULT_TARGET.name)


def _unknown_pass_message(name: str) -> str:
    return unknown_pass_message(name)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code: 0 on success, 1 on bad input (an
    error diagnostic), 2 on a command-line usage error or an internal error."""
    post_init = Attribute.__post_init__  # --disable-verify replaces it process-wide
    try:
        return _run(argv)
    except SystemExit as exit_:  # argparse: --help, --version, usage errors
        return exit_.code if isinstance(exit_.code, int) else 2
    finally:
        Attribute.__post_init__ = post_init


def _run(argv: Sequence[str] | None) -> int:
    if (code := environment_problem_exit(TOOL)) is not None:
        return code
    try:
        tool = MxOptMain(args=argv)
    except ArgSpecParseError as err:
        report(TOOL, f"invalid pass pipeline: {str(err).rstrip()}")
        return 1
    except PipelineError as err:
        report(TOOL, str(err))
        return 1
    try:
        with use_target(tool.args.neuron_target):  # verifiers and passes read it
            tool.run()
    except ParseError as err:
        report(TOOL, format_parse_error(err))
        return 1
    except verify_diagnostics.VerifyDiagnosticsFailed as err:
        report(TOOL, str(err))
        return 1
    except DiagnosticException as err:
        report(TOOL, str(err))
        return 1
    except ToolInputError as err:
        report(TOOL, str(err))
        return 1
    except MemoryError as err:
        report(TOOL, out_of_memory_message(err))
        return 1
    except BrokenPipeError:
        raise  # the reader of stdout went away: console_main exits quietly
    except OSError as err:
        where = f"cannot open {err.filename!r}" if err.filename else "I/O error"
        report(TOOL, f"{where}: {err.strerror or err}")
        return 1
    except Exception as err:
        return report_internal_error(TOOL, err)
    return 0


def console_main() -> None:
    warnings.filterwarnings("default", category=DeprecationWarning)  # as xdsl-opt
    console_exit(with_deep_stack(main), TOOL)  # e.g. `mx-opt big.mlir | head`: stops quietly

"""``mx-run``: run a function of an ``.mlir`` file with the mxdsl interpreters.

::

    mx-run FILE.mlir [--symbol main] [--inputs IN.npz | --random-inputs SEED]
                     [-p PASSES] [-o OUT.npz] [--print-values] [--max-memory SIZE]
                     [--max-steps N]

Inputs come from an ``.npz`` (keys ``arg0``, ``arg1``, ...; a tuple argument's elements as
``arg0.0``, ``arg0.1``, ...) or are drawn from a seeded generator; results are summarised
on stdout and written to ``-o`` (keys ``result0``, ... / ``result0.0``, ...). Element
types ``.npz`` cannot store (bf16, fp8, fp4, E8M0) travel as unsigned-integer bit
patterns. The full convention is in ``docs/mx-run.md``.

Every error is a diagnostic, never a traceback: a missing file, malformed IR, a verifier
error (``file:line:col`` of the op, from :mod:`mxdsl.tools.diagnostics`, as in
``mx-opt``), a failing pass, a missing symbol, wrong inputs, or an op the interpreters do
not implement; the exit code is then 1 and ``-o`` is not written. ``--inputs`` is read
header first (:mod:`mxdsl.tools.npz`), the program text within a bound, ``-o`` may not
name an input, and ``--max-steps`` bounds the ops interpreted (:mod:`mxdsl.tools.steps`).
Set ``MXDSL_TRACEBACK=1`` to see the traceback of an internal error (exit code 2).
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import IO, Any

import ml_dtypes
import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    TupleType,
)
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.traits import CallableOpInterface, SymbolOpInterface, SymbolTable
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    InterpretationError,
    ParseError,
)
from xdsl.utils.lexer import Span

from mxdsl import __version__
from mxdsl.extensions import extension_at_fault, load_multiverse
from mxdsl.interpreters import (
    InterpreterDiscoveryError,
    OpInterpretationError,
    make_interpreter,
    numpy_dtype,
    round_to,
)
from mxdsl.interpreters.fast_path import NO_FAST_PATH_ENV, fast_path_option
from mxdsl.interpreters.trace import (
    Trace,
    TraceFilter,
    TraceRecord,
    bind_recorders,
    estimate_trace_bytes,
)
from mxdsl.targets import DEFAULT_TARGET, TARGETS, use_target
from mxdsl.tools.diagnostics import (
    MAX_SOURCE_BYTES,
    HelpFormatter,
    LineTable,
    OpDiagnostic,
    check_distinct_files,
    check_writable,
    console_exit,
    decode_source,
    format_op_diagnostic,
    format_parse_error,
    parse_located,
    read_bounded,
    report,
    run_tool,
    size_text,
    traceback_wanted,
    unknown_pass_message,
    verify_located,
    with_deep_stack,
    write_atomically,
)
from mxdsl.tools.npz import NpzArchive, NpzError, open_npz
from mxdsl.tools.signals import signal_cause
from mxdsl.tools.steps import (
    DEFAULT_MAX_STEPS,
    NOTE_STEPS,
    StepLimit,
    estimate_steps,
    where,
)

TOOL = "mx-run"


class RunFailure(Exception):
    """A diagnostic that ends the run (already formatted, ``error:`` included or not)."""


# ------------------------------------------------------------- bit-pattern I/O

_BIT_PATTERN_TYPES = {
    np.dtype(t): np.dtype(f"u{np.dtype(t).itemsize}")
    for t in (
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e8m0fnu,
        ml_dtypes.float4_e2m1fn,
    )
}
"""Element dtypes ``.npz`` cannot store -> the unsigned integers carrying their bits."""

_FP4 = np.dtype(ml_dtypes.float4_e2m1fn)


def _type_str(t: Attribute) -> str:
    return str(t)


def _expected_str(dtype: np.dtype[Any], shape: tuple[int, ...]) -> str:
    carrier = _BIT_PATTERN_TYPES.get(dtype)
    what = f"{dtype} values" + (f" (or {carrier} bit patterns)" if carrier else "")
    return f"{what} of shape {shape}"


def check_header(
    shape: tuple[int, ...], dtype: np.dtype[Any], tensor_type: TensorType, name: str
) -> None:
    """Refuse an input whose shape or dtype (as an ``.npz`` header states them) cannot
    be the value of ``tensor_type`` (see :func:`input_value`), before its data is read."""
    expected_shape = tuple(tensor_type.get_shape())
    expected = numpy_dtype(tensor_type.get_element_type())
    problem = (
        f"{name}: expected {_expected_str(expected, expected_shape)} for {_type_str(tensor_type)}"
    )
    if shape != expected_shape:
        raise RunFailure(f"{problem}, got shape {shape} ({dtype})")
    if dtype.names is not None or dtype.hasobject:
        raise RunFailure(f"{problem}, got the structured dtype {dtype.descr}")
    if dtype == expected or {dtype, expected} == {np.dtype(np.bool_), np.dtype(np.uint8)}:
        return  # the same dtype, or a truth value in the other spelling (_truth_value)
    carrier = _BIT_PATTERN_TYPES.get(expected)
    if carrier is not None and (
        dtype == carrier or (dtype.kind == "V" and dtype.itemsize == expected.itemsize)
    ):
        return
    raise RunFailure(f"{problem}, got {dtype}")


def input_value(array: np.ndarray, tensor_type: TensorType, name: str) -> np.ndarray:
    """An input array as the interpreter value of ``tensor_type``: the same dtype, or
    (for bf16/fp8/fp4/E8M0) the bit patterns as unsigned integers of the element's width,
    or the raw ``|V`` bytes numpy hands back for a saved ml_dtypes array. A structured
    dtype is refused, whatever its width."""
    check_header(tuple(array.shape), array.dtype, tensor_type, name)
    dtype = numpy_dtype(tensor_type.get_element_type())
    if array.dtype == dtype:
        return array
    if (truth := _truth_value(array, dtype, name)) is not None:
        return truth
    carrier = _BIT_PATTERN_TYPES[dtype]
    bits = _contiguous(array).view(carrier)
    if dtype == _FP4 and bits.size and int(bits.max()) > 0xF:
        raise RunFailure(
            f"{name}: f4E2M1FN bit patterns are 0..15 (one uint8 per element), got "
            f"{int(bits.max())}"
        )
    return bits.view(dtype)


def _truth_value(array: np.ndarray, dtype: np.dtype[Any], name: str) -> np.ndarray | None:
    """The one i1 convention (``docs/mx-run.md``): a truth value is a bool or a uint8
    byte 0 / 1 at every level, so an ``i1`` argument takes 0 / 1 bytes and a ``ui8``
    argument (what ``i1`` becomes at nisa and bir) takes bools."""
    if dtype == np.bool_ and array.dtype == np.uint8:
        if array.size and int(array.max()) > 1:
            raise RunFailure(
                f"{name}: an i1 value given as uint8 is 0 or 1, got {int(array.max())}"
            )
        return array != 0
    if dtype == np.uint8 and array.dtype == np.bool_:
        return array.astype(np.uint8)
    return None


def output_arrays(name: str, value: Any) -> Iterator[tuple[str, np.ndarray]]:
    """``(key, array)`` for ``-o``: tuples flatten to ``name.0``, ``name.1``, ...; bf16,
    fp8, fp4 and E8M0 become their bit patterns (fp4: one uint8 per element)."""
    if isinstance(value, tuple):
        for index, element in enumerate(value):
            yield from output_arrays(f"{name}.{index}", element)
        return
    array = np.asarray(value)
    carrier = _BIT_PATTERN_TYPES.get(array.dtype)
    yield name, (_contiguous(array).view(carrier) if carrier is not None else array)


def _contiguous(array: np.ndarray) -> np.ndarray:
    """A C-contiguous ``array`` of the same shape (``np.ascontiguousarray`` makes a 0-d
    array 1-d)."""
    return np.ascontiguousarray(array).reshape(array.shape)


def _leaves(name: str, value_type: Attribute) -> Iterator[tuple[str, Attribute]]:
    if isinstance(value_type, TupleType):
        for index, element in enumerate(value_type.types.data):
            yield from _leaves(f"{name}.{index}", element)
    else:
        yield name, value_type


def _assemble(name: str, value_type: Attribute, leaves: dict[str, np.ndarray]) -> Any:
    if isinstance(value_type, TupleType):
        return tuple(
            _assemble(f"{name}.{i}", t, leaves) for i, t in enumerate(value_type.types.data)
        )
    return leaves[name]


# ---------------------------------------------------------------------- inputs


def boundary_names(func: Operation, kind: str, count: int) -> list[str]:
    """The mx-run keys of a function's arguments (``kind`` = ``arg``) or results
    (``result``): ``arg0``, ``arg1``, ... unless the function lists them in
    ``mx.arg_names`` / ``mx.result_names`` (a kernel whose hlo function took or returned
    tuples: lower-hlo-to-nisa flattens them and records ``arg0.0``, ``result0.1``, ...)."""
    names = func.attributes.get(f"mx.{kind}_names")
    if isinstance(names, ArrayAttr):
        keys = [n.data for n in names.data if isinstance(n, StringAttr)]
        if len(keys) == count:
            return keys
    return [f"{kind}{i}" for i in range(count)]


def truth_keys(func: Operation) -> frozenset[str]:
    """The mx-run keys of a kernel's arguments that were ``i1`` tensors
    (``mx.i1_args``, set by lower-hlo-to-nisa): ``ui8`` 0 / 1 buffers."""
    names = func.attributes.get("mx.i1_args")
    if not isinstance(names, ArrayAttr):
        return frozenset()
    return frozenset(n.data for n in names.data if isinstance(n, StringAttr))


def _names(arg_types: Sequence[Attribute], names: Sequence[str] | None) -> list[str]:
    return list(names) if names is not None else [f"arg{i}" for i in range(len(arg_types))]


def _check_argument_types(
    arg_types: Sequence[Attribute], func_name: str, names: Sequence[str] | None = None
) -> None:
    for key, arg_type in zip(_names(arg_types, names), arg_types, strict=True):
        for name, leaf in _leaves(key, arg_type):
            try:
                ok = isinstance(leaf, TensorType | MemRefType) and bool(
                    numpy_dtype(leaf.get_element_type())
                )
            except TypeError:
                ok = False
            if not ok:
                raise RunFailure(
                    f"@{func_name} {name} has type {_type_str(leaf)}; mx-run passes tensors "
                    "(and tuples of tensors) and memrefs of float, integer, bf16, fp8, fp4 "
                    "or E8M0 elements only"
                )


def load_inputs(
    path: str,
    arg_types: Sequence[Attribute],
    func_name: str,
    names: Sequence[str] | None = None,
    budget: int | None = None,
    budget_source: str = "--max-memory allows",
) -> tuple[Any, ...]:
    """The arguments of ``@func_name`` from an ``.npz`` (see :func:`input_value`); keys
    ``arg0``, ... or ``names`` (:func:`boundary_names`). Every array's header is read
    and checked first (keys, shapes, dtypes, and their bytes against ``budget`` when
    given); then the data, exactly the bytes the headers declare
    (:mod:`mxdsl.tools.npz`)."""
    keys_of = _names(arg_types, names)
    expected = {
        name: leaf
        for key, t in zip(keys_of, arg_types, strict=True)
        for name, leaf in _leaves(key, t)
    }
    try:
        limit = f"{budget_source} {_gib(budget)}" if budget is not None else ""
        with open_npz(path, max_bytes=budget, bound=limit) as npz:
            _check_headers(npz, expected, path, func_name, len(arg_types), budget, budget_source)
            leaves: dict[str, np.ndarray] = {}
            for name, leaf in expected.items():
                assert isinstance(leaf, TensorType | MemRefType)
                leaves[name] = input_value(npz.read(name), leaf, name)  # pyright: ignore[reportArgumentType]
    except NpzError as err:
        raise RunFailure(str(err)) from None
    return tuple(_assemble(k, t, leaves) for k, t in zip(keys_of, arg_types, strict=True))


def _check_headers(
    npz: NpzArchive,
    expected: dict[str, Attribute],
    path: str,
    func_name: str,
    count: int,
    budget: int | None,
    budget_source: str,
) -> None:
    """Keys, shapes and dtypes against the signature, then the bytes against ``budget``:
    from the headers alone."""
    signature = f"@{func_name} takes {count} argument(s)" + (
        f" ({', '.join(expected)})" if expected else ""
    )
    keys = set(npz.members)
    if missing := [k for k in expected if k not in keys]:
        raise RunFailure(
            f"{signature}; {path!r} has no {', '.join(missing)} "
            f"(it has {', '.join(sorted(keys)) or 'no arrays'})"
        )
    if unexpected := sorted(keys - set(expected)):
        raise RunFailure(f"{signature}; {path!r} has unexpected {', '.join(unexpected)}")
    for name, leaf in expected.items():
        member = npz.members[name]
        assert isinstance(leaf, TensorType | MemRefType)
        check_header(member.shape, member.value_dtype, leaf, name)  # pyright: ignore[reportArgumentType]
    total = sum(member.nbytes for member in npz.members.values())
    if budget is not None and total > budget:
        raise RunFailure(
            f"the arrays of {path!r} need {_gib(total)} but {budget_source} "
            f"{_gib(budget)}; use smaller inputs, or --max-memory SIZE (0: no limit)"
        )


def random_value(rng: np.random.Generator, tensor_type: TensorType) -> np.ndarray:
    """One random input (the distributions are documented in ``docs/mx-run.md``):
    float types: standard normal rounded (RNE) to the type; E8M0: uniform scales
    2^-4 .. 2^4; i1: fair coin; signed/signless integers: uniform in [-8, 8];
    unsigned integers: uniform in [0, 16]."""
    shape = tuple(tensor_type.get_shape())
    dtype = numpy_dtype(tensor_type.get_element_type())
    if dtype == np.dtype(ml_dtypes.float8_e8m0fnu):
        return rng.integers(127 - 4, 127 + 5, size=shape, dtype=np.uint8).view(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "i":
        return rng.integers(-8, 9, size=shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 17, size=shape).astype(dtype)
    return round_to(rng.standard_normal(shape), dtype)


def random_inputs(
    seed: int,
    arg_types: Sequence[Attribute],
    names: Sequence[str] | None = None,
    truth: Collection[str] = (),
) -> tuple[Any, ...]:
    """Arguments drawn from ``numpy.random.default_rng(seed)``, arg0 first (tuple
    elements in order, so a kernel with flattened tuple arguments draws the same
    values as its hlo function). The ``ui8`` buffers keyed in ``truth`` (a kernel's
    ``mx.i1_args``: what were ``i1`` tensors) are drawn as ``i1`` is, 0 / 1 from the same
    draws, so every level runs on the same values."""
    rng = np.random.default_rng(seed)
    keys_of = _names(arg_types, names)
    leaves: dict[str, np.ndarray] = {}
    for key, t in zip(keys_of, arg_types, strict=True):
        for name, leaf in _leaves(key, t):
            assert isinstance(leaf, TensorType | MemRefType)
            if name in truth and numpy_dtype(leaf.get_element_type()) == np.uint8:
                shape = tuple(leaf.get_shape())
                leaves[name] = rng.integers(0, 2, size=shape).astype(np.uint8)
                continue
            leaves[name] = random_value(rng, leaf)  # pyright: ignore[reportArgumentType]
    return tuple(_assemble(k, t, leaves) for k, t in zip(keys_of, arg_types, strict=True))


# --------------------------------------------------------------------- outputs


def _stats_values(array: np.ndarray) -> np.ndarray:
    if array.dtype in _BIT_PATTERN_TYPES or array.dtype == np.float16:
        return array.astype(np.float64)
    return array


def summary_line(name: str, array: np.ndarray, value_type: Attribute | None = None) -> str:
    """``name: TYPE shape=(..) dtype=.. min=.. max=.. mean=.. nan=N``."""
    type_text = f"{_type_str(value_type)} " if value_type is not None else ""
    head = f"{name}: {type_text}shape={tuple(array.shape)} dtype={array.dtype}"
    values = _stats_values(array)
    if values.size == 0:
        return f"{head} (empty)"
    if values.dtype == np.bool_:
        values = values.astype(np.int64)
    if np.issubdtype(values.dtype, np.floating):
        nan = int(np.isnan(values).sum())
        finite = values[~np.isnan(values)]
        if finite.size == 0:
            return f"{head} min=nan max=nan mean=nan nan={nan}"
        with np.errstate(over="ignore", invalid="ignore"):
            mean = float(np.mean(finite, dtype=np.float64))
        return (
            f"{head} min={float(finite.min()):.6g} max={float(finite.max()):.6g} "
            f"mean={mean:.6g} nan={nan}"
        )
    return (
        f"{head} min={int(values.min())} max={int(values.max())} "
        f"mean={float(np.mean(values, dtype=np.float64)):.6g} nan=0"
    )


def format_values(array: np.ndarray) -> str:
    """Every element, unpadded: numpy floats in their shortest round-trip form, bf16 /
    fp8 / fp4 by their exact value, unsigned integers in hex (they are mostly packed bit
    patterns), E8M0 as its exponent bytes."""
    options: dict[str, Any] = {
        "separator": ", ",
        "threshold": sys.maxsize,
        "max_line_width": sys.maxsize,
    }
    if array.dtype == np.dtype(ml_dtypes.float8_e8m0fnu):
        bits = array.view(np.uint8)
        return "e8m0 bytes " + np.array2string(
            bits, formatter={"int": lambda v: str(int(v))}, **options
        )
    if array.dtype.kind == "u":
        width = 2 * array.dtype.itemsize
        return np.array2string(
            array, formatter={"int": lambda v: f"0x{int(v):0{width}x}"}, **options
        )
    if array.dtype in _BIT_PATTERN_TYPES:
        return np.array2string(
            array.astype(np.float64), formatter={"float_kind": lambda v: str(float(v))}, **options
        )
    if np.issubdtype(array.dtype, np.floating):
        return np.array2string(array, formatter={"float_kind": str}, **options)
    return np.array2string(array, formatter={"int": lambda v: str(int(v))}, **options)


def write_outputs(path: str, arrays: dict[str, np.ndarray]) -> None:
    """Write the ``.npz`` to exactly ``path``, whole or not at all (a temporary file
    beside it, then renamed; the mode follows the umask)."""
    savez: Callable[..., None] = np.savez  # keys are result names, never options
    write_atomically(path, lambda stream: savez(stream, **arrays))


# ----------------------------------------------------------------------- run


class _OpTracker(Interpreter.Listener):
    """Keeps the stack of ops being interpreted: after a failure its top is the op
    that failed (``func.call`` nests)."""

    def __init__(self) -> None:
        self.stack: list[Operation] = []

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        self.stack.append(op)

    def did_interpret_op(self, op: Operation, results: tuple[Any, ...]) -> None:
        self.stack.pop()


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=TOOL,
        description="Run a function of an .mlir file with the mxdsl interpreters "
        "(inputs and outputs as .npz; see docs/mx-run.md).",
        formatter_class=HelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("input_file", help="the .mlir file ('-' for stdin)")
    parser.add_argument("--symbol", default="main", help="function to run (default: main)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--inputs", metavar="IN.npz", help="arguments as arrays arg0, arg1, ... (see docs)"
    )
    source.add_argument(
        "--random-inputs",
        metavar="SEED",
        type=non_negative_int,
        help="draw the arguments from numpy.random.default_rng(SEED): standard normal "
        "rounded to float types, small integers for integer types",
    )
    parser.add_argument(
        "-p", "--passes", default="", help="pass pipeline to run before interpreting"
    )
    parser.add_argument(
        "-o", "--output", metavar="OUT.npz", help="write the results (result0, ...) here"
    )
    parser.add_argument(
        "--print-values", action="store_true", help="print every element of every result"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no per-result summary (errors still print)"
    )
    parser.add_argument(
        "--cores",
        type=core_count,
        default=1,
        metavar="N",
        help=f"run N (1..{MAX_CORES}) SPMD programs over shared arguments (HBM); memref "
        "arguments are printed and written as argI after the run (docs/nisa-interpreter.md)",
    )
    parser.add_argument(
        "--max-memory",
        type=memory_size,
        default=None,
        metavar="SIZE",
        help="refuse a run whose arguments, results and buffers need more than SIZE bytes "
        "(suffix K, M, G; 0: no limit; default: the memory available on this machine)",
    )
    parser.add_argument(
        "--target",
        choices=list(TARGETS),
        default=DEFAULT_TARGET.name,
        help="the modelled NeuronCore (mxdsl/targets.py): the capacities the nisa and bir "
        "verifiers check, the bir interpreter's SBUF / PSUM, and lower-nisa-to-bir's "
        f"target unless its target option is given (default: {DEFAULT_TARGET.name}; trn2 "
        "has no MX instructions)",
    )
    parser.add_argument(
        "--no-fast-path",
        action="store_true",
        help="the reference mode: every op one at a time, no loop plans, operand caches or "
        f"batched matmul passes (also {NO_FAST_PATH_ENV}=1); the same bits, slower "
        "(docs/interpreter.md)",
    )
    parser.add_argument(
        "--max-steps",
        type=non_negative_int,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help="end a run that interprets more than N ops (all cores together; a loop body "
        "counts once per iteration), located at the op it stops at; a run whose constant "
        f"loops alone exceed N is refused before it starts (default: {DEFAULT_MAX_STEPS:,}; "
        "0: no limit)",
    )
    parser.add_argument(
        "--trace",
        metavar="FILE.npz",
        help="record every op's value in program order (the destination after an op that "
        "writes one) with its op name, locations and core, in the reference mode; compare "
        "traces with mx-diff (docs/debugging.md)",
    )
    parser.add_argument(
        "--trace-filter",
        action="append",
        default=[],
        metavar="ITEMS",
        help="record only these ops: comma-separated op names (nisa.activation, nisa.*) "
        "and source line ranges ([FILE:]FIRST-LAST); repeatable",
    )
    parser.add_argument(
        "--schedule",
        choices=["parallel", "in-turn"],
        default="parallel",
        help="how --cores N programs run: at once between their sendrecv / core_barrier "
        "(parallel, the default) or one at a time in rank order (in-turn, for debugging); "
        "the same bits, HBM races and deadlocks reported in both (docs/nisa-interpreter.md)",
    )
    parser.add_argument("--version", action="version", version=f"{TOOL} {__version__}")
    return parser


MAX_CORES = 64
"""The most programs ``--cores`` runs (each is a thread with its own interpreter)."""


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0 (a seed of ``numpy.random.default_rng``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def core_count(text: str) -> int:
    """An argparse type: a number of cores, 1..MAX_CORES."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 1 <= value <= MAX_CORES:
        raise argparse.ArgumentTypeError(f"expected 1..{MAX_CORES} cores, got {value}")
    return value


_SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_size(text: str) -> int:
    """An argparse type: bytes, with an optional K/M/G/T suffix (binary: K = 1024)."""
    number, suffix = text.strip().upper().rstrip("B"), ""
    if number[-1:] in _SIZE_SUFFIXES:
        number, suffix = number[:-1], number[-1]
    try:
        value = float(number) * _SIZE_SUFFIXES[suffix]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 8G or 512M, got {text!r}"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a size >= 0 such as 8G or 512M, got {text!r}")
    return int(value)


def available_memory() -> int | None:
    """Bytes this machine can still give (``MemAvailable``), or None when unknown."""
    try:
        with open("/proc/meminfo") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _type_bytes(t: Attribute) -> int:
    """Bytes of a value of type ``t`` as the interpreter holds it (tuples summed; 0 for
    a type without a static shape or a numpy dtype)."""
    if isinstance(t, TupleType):
        return sum(_type_bytes(element) for element in t.types.data)
    if not isinstance(t, TensorType | MemRefType):
        return 0
    shape = t.get_shape()
    if any(size < 0 for size in shape):
        return 0
    try:
        itemsize = numpy_dtype(t.get_element_type()).itemsize
    except TypeError:
        return 0
    return math.prod(shape) * itemsize


def estimate_memory(
    module: ModuleOp, arg_types: Sequence[Attribute], result_types: Sequence[Attribute], cores: int
) -> int:
    """A lower bound of the bytes a run needs: the arguments and results, the largest
    tensor any op makes, and every ``memref.alloc`` once per core."""
    allocs = largest = 0
    for op in module.walk():
        if op.name == "memref.alloc":
            allocs += sum(_type_bytes(r.type) for r in op.results)
        else:
            tensors = (r.type for r in op.results if isinstance(r.type, TensorType | TupleType))
            largest = max([largest, *map(_type_bytes, tensors)])  # memrefs here are views
    values = sum(map(_type_bytes, arg_types)) + sum(map(_type_bytes, result_types))
    return values + largest + allocs * cores


def _gib(size: int) -> str:
    return f"{size / (1 << 30):.3g} GiB"


def _budget(max_memory: int | None) -> tuple[int | None, str]:
    """The bytes inputs may take (None: no limit) and how to name that bound."""
    if max_memory is None:
        return available_memory(), "this machine has available"
    return (max_memory or None), "--max-memory allows"


def check_memory(needed: int, limit: int | None, func: Operation, spans) -> None:  # noqa: ANN001
    """Refuse a run that needs more than ``limit`` bytes (None: the available memory)."""
    if limit == 0:
        return
    budget = available_memory() if limit is None else limit
    if budget is None or needed <= budget:
        return
    where = "this machine has available" if limit is None else "--max-memory allows"
    raise RunFailure(
        _located(
            func,
            f"the run needs at least {_gib(needed)} (arguments, results, buffers) but "
            f"{where} {_gib(budget)}; use smaller shapes, or --max-memory SIZE (0: no "
            "limit) to try anyway",
            spans,
        )
    )


def check_steps(
    module: ModuleOp,
    func: Operation,
    cores: int,
    max_steps: int,
    spans: dict[Operation, Span[str]],
    stderr: IO[str] | None = None,
) -> None:
    """Before the run: refuse it when its constant loops alone make it interpret more
    than ``max_steps`` ops (0: no limit); say so when they make it long (above
    ``NOTE_STEPS``). See :mod:`mxdsl.tools.steps`."""
    estimate = estimate_steps(module, func)
    total = estimate.steps * cores
    cores_text = f" on each of {cores} cores" if cores > 1 else ""
    loop = estimate.loop
    heaviest = (
        f"; this {loop.name} runs {estimate.trips:,} times{cores_text}" if loop is not None else ""
    )
    if max_steps and total > max_steps:
        at = loop if loop is not None else func
        raise RunFailure(
            _located(
                at,
                f"the run would interpret at least {total:,} ops{heaviest}, more than "
                f"--max-steps {max_steps:,}; make the loop shorter, or raise --max-steps "
                "(0: no limit)",
                spans,
            )
        )
    if total > NOTE_STEPS:
        place = f" ({where(loop)})" if loop is not None and where(loop) else ""
        report(
            TOOL,
            f"the run will interpret at least {total:,} ops{heaviest}{place}; it may take "
            "a long time (Ctrl-C stops it)",
            stderr,
            kind="note",
        )


SPMD_OPS = frozenset({"nisa.program_id", "nisa.num_programs", "nisa.sendrecv", "nisa.core_barrier"})
"""The ops through which a program can tell the cores apart: without one of them every
core does the same work."""


def _context() -> Context:
    ctx = Context()
    for name, factory in load_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def source_limit(max_memory: int | None) -> tuple[int, str]:
    """The most program text mx-run reads, and how to say it: ``MAX_SOURCE_BYTES``, or
    ``--max-memory`` when that is smaller (and not 0)."""
    if max_memory and max_memory < MAX_SOURCE_BYTES:
        return max_memory, f"--max-memory ({size_text(max_memory)})"
    return MAX_SOURCE_BYTES, f"{size_text(MAX_SOURCE_BYTES)}, the most program text {TOOL} reads"


def _read_source(path: str, max_memory: int | None = None) -> tuple[str, str]:
    limit, bound = source_limit(max_memory)
    if path == "-":
        binary = getattr(sys.stdin, "buffer", None)
        if binary is None:  # a StringIO in tests: limit + 1 characters are enough bytes
            binary = io.BytesIO(sys.stdin.read(limit + 1).encode("utf-8"))
        return decode_source(read_bounded(binary, "<stdin>", limit, bound), "<stdin>"), "<stdin>"
    try:
        with open(path, "rb") as stream:
            return decode_source(read_bounded(stream, path, limit, bound), path), path
    except OSError as err:
        raise RunFailure(f"cannot open {path!r}: {err.strerror or err}") from None


def _located(op: Operation, message: str, spans: dict[Operation, Span[str]]) -> str:
    return format_op_diagnostic(OpDiagnostic(op, message), spans)


def _run_passes(
    ctx: Context, module: ModuleOp, spec: str, spans: dict[Operation, Span[str]]
) -> None:
    available = load_multiverse(warn=lambda _: None).all_passes  # _context warned

    def between(previous: ModulePass | None, module: ModuleOp, upcoming: ModulePass | None):
        verify_located(module)

    try:
        unknown = [p.name for p in parse_pipeline(spec) if p.name not in available]
        if unknown:
            raise RunFailure(unknown_pass_message(unknown[0]))
        pipeline = PassPipeline.parse_spec(available, spec, between)
    except (ValueError, TypeError, ArgSpecParseError) as err:
        raise RunFailure(f"invalid pass pipeline: {str(err).rstrip()}") from None
    try:
        pipeline.apply(ctx, module)
    except OpDiagnostic as err:
        raise RunFailure(format_op_diagnostic(err, spans)) from None
    except DiagnosticException as err:
        raise RunFailure(f"pass pipeline failed: {err}") from None


def _function(
    module: ModuleOp, symbol: str, path: str, spans: dict[Operation, Span[str]]
) -> Operation:
    """The function to run, with a body."""
    op = SymbolTable.lookup_symbol(module, symbol)
    trait = op.get_trait(CallableOpInterface) if op is not None else None
    if op is not None and trait is not None:
        if not trait.get_callable_region(op).blocks:
            raise RunFailure(
                _located(op, f"@{symbol} is a declaration without a body; nothing to run", spans)
            )
        return op
    names: list[str] = []
    for candidate in module.walk():
        symbol_trait = candidate.get_trait(SymbolOpInterface)
        if candidate.get_trait(CallableOpInterface) is None or symbol_trait is None:
            continue
        if (sym_name := symbol_trait.get_sym_attr_name(candidate)) is not None:
            names.append(f"@{sym_name.data}")
    listing = f"; functions: {', '.join(names)}" if names else "; it defines no functions"
    if op is None:
        raise RunFailure(f"no function @{symbol} in {path}{listing}")
    raise RunFailure(_located(op, f"@{symbol} is a {op.name}, not a function{listing}", spans))


def _interpretation_failure(
    err: Exception, tracker: _OpTracker, spans: dict[Operation, Span[str]]
) -> RunFailure:
    """The located diagnostic for an exception raised while interpreting."""
    if isinstance(err, OpInterpretationError):
        op: Operation | None = err.op
        message = err.message
    elif isinstance(err, RecursionError):
        calls = [o for o in tracker.stack if o.name == "func.call"]
        op = calls[-1] if calls else (tracker.stack[-1] if tracker.stack else None)
        callee = getattr(op, "callee", None)
        name = f"{callee} " if callee is not None else ""
        message = (
            f"calls nest deeper than the interpreter can follow ({len(calls)} func.call "
            f"frames): the function {name}calls itself (directly or through others) without "
            "reaching a return; give the recursion an end, or write it as a loop"
        )
    else:
        op = tracker.stack[-1] if tracker.stack else None
        text = str(err)
        if isinstance(err, InterpretationError) and "Could not find interpretation" in text:
            message = (
                "no interpreter implementation for this op (interpreter functions come from "
                "xDSL and from the mxdsl.interpreters entry points)"
            )
        else:
            message = f"interpreting it failed: {type(err).__name__}" + (
                f": {text}" if text else ""
            )
            if (culprit := extension_at_fault(err, "mxdsl.interpreters")) is not None:
                message = f"{message} (a bug in {culprit}, raised in {culprit.module})"
            if op is not None and type(op).__module__.startswith("xdsl."):
                message += (
                    f" (the upstream xDSL implementation of {op.name} may not take mxdsl's "
                    "values, which are numpy arrays)"
                )
    if op is None:
        return RunFailure(message)
    return RunFailure(_located(op, message, spans))


def run(args: argparse.Namespace, stdout: IO[str]) -> None:
    """Verify, transform and run under ``--target`` (``mxdsl.targets.use_target``)."""
    with use_target(args.target):
        _run(args, stdout)


def _run(args: argparse.Namespace, stdout: IO[str]) -> None:
    try:
        fast = fast_path_option(args.no_fast_path)
    except ValueError as err:
        raise RunFailure(str(err)) from None
    check_distinct_files(
        [("input file", args.input_file), ("--inputs", args.inputs)], [("-o", args.output)]
    )
    if args.output is not None:
        check_writable(args.output)  # before the run, not after it
    trace = _trace_option(args)
    if trace is not None:
        fast = False  # a trace sees every op one at a time: the reference mode
    text, name = _read_source(args.input_file, args.max_memory)
    ctx = _context()
    try:
        module, spans = parse_located(ctx, text, name)
    except ParseError as err:
        raise RunFailure(format_parse_error(err)) from None
    try:
        verify_located(module)
    except OpDiagnostic as err:
        raise RunFailure(format_op_diagnostic(err, spans)) from None
    if args.passes:
        _run_passes(ctx, module, args.passes, spans)

    func = _function(module, args.symbol, name, spans)
    callable_trait = func.get_trait(CallableOpInterface)
    assert callable_trait is not None
    arg_types = list(callable_trait.get_argument_types(func))
    result_types = list(callable_trait.get_result_types(func))
    arg_names = boundary_names(func, "arg", len(arg_types))
    try:
        _check_argument_types(arg_types, args.symbol, arg_names)
    except RunFailure as err:
        raise RunFailure(_located(func, str(err), spans)) from None
    if args.cores > 1 and not any(op.name in SPMD_OPS for op in module.walk()):
        raise RunFailure(
            _located(
                func,
                f"--cores {args.cores}: the program uses none of {', '.join(sorted(SPMD_OPS))}, "
                "so every core would do the same work; run it with --cores 1",
                spans,
            )
        )
    needed = estimate_memory(module, arg_types, result_types, args.cores)
    if trace is not None:
        needed += _trace_budget(trace, module, needed, args, func, spans)
    check_memory(needed, args.max_memory, func, spans)
    check_steps(module, func, args.cores, args.max_steps, spans)
    listeners = _trace_listeners(trace, spans)
    if args.inputs is not None:
        try:
            inputs = load_inputs(
                args.inputs, arg_types, args.symbol, arg_names, *_budget(args.max_memory)
            )
        except RunFailure as err:
            message = str(err)
            if message.startswith(("cannot open", "cannot read", "inputs ")):
                raise
            raise RunFailure(_located(func, message, spans)) from None
    elif args.random_inputs is not None:
        inputs = random_inputs(args.random_inputs, arg_types, arg_names, truth_keys(func))
    elif arg_types:
        raise RunFailure(
            _located(
                func,
                f"@{args.symbol} takes {len(arg_types)} argument(s); give --inputs IN.npz "
                "or --random-inputs SEED",
                spans,
            )
        )
    else:
        inputs = ()

    tracker = _OpTracker()
    limit: list[Interpreter.Listener] = [StepLimit(args.max_steps)] if args.max_steps else []
    memref_args = [i for i, t in enumerate(arg_types) if isinstance(t, MemRefType)]
    try:
        if args.cores > 1 or memref_args:
            from mxdsl.interpreters.spmd import SpmdError, run_spmd

            try:
                results = run_spmd(
                    lambda ls: bind_recorders(
                        make_interpreter(
                            module,
                            ctx,
                            listeners=[
                                *limit,
                                *([tracker] if args.cores == 1 else []),
                                *ls,
                                *listeners(),
                            ],
                            fast_path=fast,
                        )
                    ),
                    func,
                    inputs,
                    args.cores,
                    schedule=args.schedule,
                )[0]
            except SpmdError as err:
                raise RunFailure(str(err)) from None
        else:
            interpreter = bind_recorders(
                make_interpreter(
                    module, ctx, listeners=[*limit, tracker, *listeners()], fast_path=fast
                )
            )
            results = interpreter.call_op(func, inputs)
    except (RunFailure, InterpreterDiscoveryError) as err:
        raise RunFailure(str(err)) from None
    except Exception as err:
        if (signalled := signal_cause(err)) is not None:
            raise signalled from None
        if traceback_wanted():
            raise
        raise _interpretation_failure(err, tracker, spans) from None

    arrays: dict[str, np.ndarray] = {}
    values: dict[str, np.ndarray] = {}  # the outputs as their dtypes (for --trace)
    # a nisa kernel that returns nothing writes its results into HBM arguments; one that
    # returns HBM buffers (lower-hlo-to-nisa keeps the results) reports those only
    for index in memref_args if not result_types else ():
        key = f"arg{index}"
        if not args.quiet:
            print(summary_line(key, inputs[index], arg_types[index]), file=stdout)
        if args.print_values:
            print(f"{key} = {format_values(inputs[index])}", file=stdout)
        arrays.update(output_arrays(key, inputs[index]))
        values[key] = inputs[index]
    types = result_types if len(result_types) == len(results) else [None] * len(results)
    result_names = boundary_names(func, "result", len(results))
    for name, value, value_type in zip(result_names, results, types, strict=True):
        leaf_types = dict(_leaves(name, value_type)) if value_type else {}
        for key, array in _flatten(name, value):
            if not args.quiet:
                print(summary_line(key, array, leaf_types.get(key)), file=stdout)
            if args.print_values:
                print(f"{key} = {format_values(array)}", file=stdout)
            arrays.update(output_arrays(key, array))
            values[key] = array
    if args.output is not None:
        write_outputs(args.output, arrays)
    if trace is not None:
        _write_trace(args.trace, trace, values)


def _trace_option(args: argparse.Namespace) -> Trace | None:
    """The trace ``--trace`` asks for (its filter parsed, its file checked), or None."""
    if args.trace is None:
        if args.trace_filter:
            raise RunFailure("--trace-filter without --trace: give --trace FILE.npz")
        return None
    check_writable(args.trace)
    try:
        return Trace(filter=TraceFilter.parse(args.trace_filter))
    except ValueError as err:
        raise RunFailure(str(err)) from None


def _trace_budget(
    trace: Trace,
    module: ModuleOp,
    needed: int,
    args: argparse.Namespace,
    func: Operation,
    spans: dict[Operation, Span[str]],
) -> int:
    """The trace's estimated size (refused past ``--max-memory`` before the run); what
    the run may keep of it is the rest of that budget."""
    estimate, _ = estimate_trace_bytes(module, trace.filter)
    limit = args.max_memory if args.max_memory is not None else available_memory()
    if limit and needed + estimate > limit:
        raise RunFailure(
            _located(
                func,
                f"the trace needs at least {_gib(estimate)} besides the run's "
                f"{_gib(needed)}, more than {_gib(limit)}; narrow it with --trace-filter "
                "(op names, a line range) or raise --max-memory",
                spans,
            )
        )
    trace.budget = (limit - needed) if limit else None
    return estimate


def _trace_listeners(
    trace: Trace | None, spans: dict[Operation, Span[str]]
) -> Callable[[], list[Interpreter.Listener]]:
    """A factory of one trace recorder per core (cores are built in rank order)."""
    if trace is None:
        return list
    lines = LineTable(next(iter(spans.values())).input.content) if spans else None
    cores = iter(range(MAX_CORES))

    def locate(op: Operation) -> str:
        span = spans.get(op)
        if span is None or lines is None:
            return ""
        line, col = lines.line_col(span.start)
        return f"{span.input.name}:{line + span.line_offset}:{col}"

    return lambda: [trace.recorder(next(cores), locate)]


def _write_trace(path: str, trace: Trace, outputs: dict[str, np.ndarray]) -> None:
    """The trace and the outputs (named records ``result0``, ...), whole or not at all."""
    trace.finish()  # the buffers the last run of each core completed
    if trace.overflowed:
        raise RunFailure(
            f"the trace outgrew the memory budget after {len(trace.records)} records "
            f"({_gib(trace.size)}); narrow it with --trace-filter or raise --max-memory "
            f"({path} not written)"
        )
    trace.budget = None
    for key, array in outputs.items():
        trace.add(TraceRecord("output", "", "", 0, key, array.copy(), name=key))
    write_atomically(path, trace.save)


def _flatten(name: str, value: Any) -> Iterator[tuple[str, np.ndarray]]:
    """``(key, array)`` of a result: tuples element by element; a scalar (the
    ``IntegerAttr`` / ``FloatAttr`` the scalar interpreters return) as a 0-d array."""
    if isinstance(value, tuple):
        for index, element in enumerate(value):
            yield from _flatten(f"{name}.{index}", element)
    elif isinstance(value, IntegerAttr | FloatAttr):
        yield name, np.asarray(value.value.data)
    else:
        yield name, np.asarray(value)


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Entry point; returns the exit code (0 success, 1 error, 2 bad command line or
    internal error)."""
    return run_tool(TOOL, build_arg_parser(), run, RunFailure, argv, stdout)


def console_main() -> None:
    console_exit(with_deep_stack(main), TOOL)  # `mx-run ... | head` stops quietly


__all__ = [
    "input_value",
    "load_inputs",
    "main",
    "output_arrays",
    "random_inputs",
    "random_value",
    "summary_line",
]

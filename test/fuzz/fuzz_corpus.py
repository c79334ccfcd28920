"""A fuzz corpus for the tools (issue 19, "And systematically").

Mutations of every shipped ``.mlir`` (``examples/`` and the lit tests under ``test/``) —
truncation, byte flips, token swaps, huge/zero/negative numbers in shapes and attributes,
wrong types, deleted or doubled lines and brackets — run through ``mx-opt`` and
``mx-run``; mutations of an ``.npz`` input run through ``mx-run``; and bad command lines
of all three tools. Every case must end with exit code 0 (a mutant can still be a valid
program) or with a diagnostic and exit code 1 (2 for a command-line usage error): never
a traceback, never "internal error", never a partial ``-o`` file, and within
``TIME_BOUND`` seconds. The cases come from ``random.Random(seed)``, so a failure is
reproduced by its seed and index.

    python test/fuzz/fuzz_corpus.py [--seed 19] [--cases 2000] [--tools mx-opt,mx-run]

prints every failing case (the pytest in this directory runs the CI-sized corpus).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TIME_BOUND = 20.0
"""Seconds one case may take (generous: CI machines are shared)."""
MAX_MEMORY = "512M"
"""mx-run's --max-memory in the corpus: a mutated shape must be refused, not tried."""


def sources() -> list[Path]:
    """Every shipped ``.mlir``: the examples and the lit tests (not lit's outputs)."""
    found = [*ROOT.glob("examples/*.mlir"), *ROOT.glob("test/**/*.mlir")]
    return sorted(p for p in found if "Output" not in p.parts)


# ------------------------------------------------------------------- mutations

_TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|\"(?:[^\"\\\n]|\\.)*\"|[\w.]+|[^\s\w]")
_INTEGER = re.compile(r"(?<![\w.])-?\d+(?![\w.])")
_DIM = re.compile(r"(?<=[<x])\d+(?=x)")
_TYPE = re.compile(r"\b(?:f32|f16|bf16|i1|i8|i32|i64|index|f8E4M3FN|f8E5M2|f8E8M0FNU)\b")
NUMBERS = ["0", "-1", "-7", "99999999999", "1099511627776", "9223372036854775808", "100000"]
TYPES = ["f32", "bf16", "i1", "i64", "index", "f8E4M3FN", "f4E2M1FN", "tensor<2xf32>",
         "memref<2xf32>", "none", "tuple<>", "!nisa.float8_e4m3fn_x4"]  # fmt: skip
INSERTS = ["}", "{", "(", ")", "%0", '"', ":", ",", "<", ">", "[", "]", "->", "loc(", "#"]


def _replace(text: str, match: re.Match[str], new: str) -> str:
    return text[: match.start()] + new + text[match.end() :]


def _pick(rng: random.Random, pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return rng.choice(matches) if matches else None


def mutate(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """One mutation of ``data``: (what was done, the mutant)."""
    text = data.decode("utf-8")
    kind = rng.choice(
        [
            "truncate",
            "flip",
            "swap",
            "number",
            "dim",
            "type",
            "delete-line",
            "double-line",
            "delete-char",
            "insert",
        ]  # fmt: skip
    )
    if kind == "truncate":
        cut = rng.randrange(len(data))
        return f"truncate at {cut}", data[:cut]
    if kind == "flip":
        at, value = rng.randrange(len(data)), rng.randrange(256)
        return f"byte {at} := {value:#x}", data[:at] + bytes([value]) + data[at + 1 :]
    if kind == "swap":
        tokens = list(_TOKEN.finditer(text))
        if len(tokens) < 2:
            return "unchanged", data
        a, b = sorted(rng.sample(tokens, 2), key=lambda m: m.start())
        swapped = (
            text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]
        )
        return f"swap {a.group()!r} {b.group()!r}", swapped.encode()
    pattern = {"number": _INTEGER, "dim": _DIM, "type": _TYPE}.get(kind)
    if pattern is not None:
        match = _pick(rng, pattern, text)
        if match is None:
            return "unchanged", data
        new = rng.choice(TYPES if kind == "type" else NUMBERS)
        return f"{kind} {match.group()!r} -> {new!r}", _replace(text, match, new).encode()
    lines = text.splitlines(keepends=True)
    if kind in ("delete-line", "double-line"):
        index = rng.randrange(len(lines))
        copies = 0 if kind == "delete-line" else 2
        mutant = "".join(lines[:index] + [lines[index]] * copies + lines[index + 1 :])
        return f"{kind} {index + 1}", mutant.encode()
    if kind == "delete-char":
        match = _pick(rng, re.compile(r"[{}()<>\[\]\"]"), text)
        if match is None:
            return "unchanged", data
        return f"delete {match.group()!r} at {match.start()}", _replace(text, match, "").encode()
    at, token = rng.randrange(len(text)), rng.choice(INSERTS)
    return f"insert {token!r} at {at}", (text[:at] + token + text[at:]).encode()


def mutate_npz(rng: random.Random, valid: dict[str, np.ndarray], path: Path) -> str:
    """Write a broken variant of the ``.npz`` of ``valid`` to ``path``; say which."""
    kind = rng.choice(["truncate", "flip", "dtype", "shape", "extra", "missing", "object",
                       "npy", "empty"])  # fmt: skip
    arrays = dict(valid)
    name = rng.choice(sorted(arrays))
    if kind in ("truncate", "flip"):
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        data = buffer.getvalue()
        at = rng.randrange(len(data))
        data = (
            data[:at]
            if kind == "truncate"
            else data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
        )
        path.write_bytes(data)
        return f"{kind} at {at}"
    if kind == "npy":
        with open(path, "wb") as stream:
            np.save(stream, arrays[name])
        return "a single .npy"
    if kind == "empty":
        path.write_bytes(b"")
        return "empty file"
    if kind == "dtype":
        arrays[name] = arrays[name].astype(
            rng.choice([np.float64, np.int8, np.complex64, np.bool_])
        )
    elif kind == "shape":
        arrays[name] = arrays[name].reshape(-1)[: max(1, arrays[name].size // 2)]
    elif kind == "extra":
        arrays["arg99"] = np.zeros(3)
    elif kind == "missing":
        del arrays[name]
    else:  # an object array: only readable with pickles
        arrays[name] = np.array([{"x": 1}, None], dtype=object)
    with open(path, "wb") as stream:
        np.savez(stream, **arrays)  # pyright: ignore[reportArgumentType]
    return f"{kind} {name}"


# ------------------------------------------------------------------------ runs


class CaseTimeout(Exception):
    """A case ran past TIME_BOUND."""


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float


def run_in_process(main: Callable[..., int], argv: list[str], stdin: bytes = b"") -> Outcome:
    """``main(argv)`` with stdout/stderr captured and stdin given, under a SIGALRM bound."""

    def expire(signum: int, frame: object) -> None:
        raise CaseTimeout

    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, TIME_BOUND)
    saved_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except CaseTimeout:
        code = -1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin = saved_stdin
    return Outcome(code, out.getvalue(), err.getvalue(), time.perf_counter() - start)


def problem(outcome: Outcome, output: Path | None, usage_ok: bool = False) -> str | None:
    """What is wrong with a case's outcome, or None."""
    if outcome.code == -1:
        return f"no answer within {TIME_BOUND:g} s"
    # (the exact forms: a diagnostic may quote a source line that mentions either)
    if "Traceback (most recent call last)" in outcome.stderr:
        return "a traceback"
    if "error: internal error: " in outcome.stderr:
        return "an internal error"
    if outcome.code not in ((0, 1, 2) if usage_ok else (0, 1)):
        return f"exit code {outcome.code}"
    if outcome.code != 0 and not outcome.stderr.strip():
        return "a failure without a diagnostic"
    if outcome.code != 0 and output is not None and output.exists():
        return f"{output.name} written by a failing run"
    return None


@dataclass(frozen=True)
class Case:
    """One corpus case: a description and how to run and judge it."""

    label: str
    run: Callable[[Path], str | None]  # a scratch directory -> the problem, or None


def _source_case(tool: str, path: Path, what: str, mutant: bytes) -> Case:
    from mxdsl.tools import mx_opt, mx_run

    def run(scratch: Path) -> str | None:
        output = scratch / ("out.mlir" if tool == "mx-opt" else "out.npz")
        output.unlink(missing_ok=True)
        if tool == "mx-opt":
            outcome = run_in_process(mx_opt.main, ["-", "-o", str(output)], mutant)
        else:
            argv = ["-", "--random-inputs", "0", "--max-memory", MAX_MEMORY, "-o", str(output)]
            outcome = run_in_process(lambda a: mx_run.main(a, sys.stdout), argv, mutant)
        return problem(outcome, output)

    return Case(f"{tool} {path.relative_to(ROOT)}: {what}", run)


NPZ_PROGRAM = """func.func @main(%x: tensor<4x32xbf16>, %s: tensor<4x1xf8E8M0FNU>,
                 %t: tuple<tensor<2xf32>, tensor<3xi32>>) -> (tensor<4x32xbf16>, tensor<2xf32>) {
  %a = hlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tensor<3xi32>>) -> tensor<2xf32>
  func.return %x, %a : tensor<4x32xbf16>, tensor<2xf32>
}
"""
"""The program the ``.npz`` mutants are fed to: bit-pattern dtypes and a tuple."""


def _npz_case(rng: random.Random, index: int) -> Case:
    from mxdsl.tools import mx_run

    seed = rng.randrange(1 << 30)

    def run(scratch: Path) -> str | None:
        program = scratch / "npz_program.mlir"
        program.write_text(NPZ_PROGRAM)
        bad = scratch / f"bad{index}.npz"
        what = mutate_npz(random.Random(seed), _inputs_of(program), bad)
        output = scratch / "out.npz"
        output.unlink(missing_ok=True)
        argv = [str(program), "--inputs", str(bad), "-o", str(output)]
        found = problem(run_in_process(lambda a: mx_run.main(a, sys.stdout), argv), output)
        return None if found is None else f"{what}: {found}"

    return Case(f"mx-run --inputs <an .npz mutant, seed {seed}>", run)


def _inputs_of(program: Path) -> dict[str, np.ndarray]:
    """Valid inputs of ``program`` (random, in mx-run's .npz convention)."""
    from mxdsl.tools.mx_run import _context, output_arrays, parse_located, random_inputs

    module, _ = parse_located(_context(), program.read_text(), str(program))
    func = next(op for op in module.walk() if op.name == "func.func")
    types = list(func.function_type.inputs.data)  # pyright: ignore[reportAttributeAccessIssue]
    arrays: dict[str, np.ndarray] = {}
    for index, value in enumerate(random_inputs(0, types)):
        arrays.update(output_arrays(f"arg{index}", value))
    return arrays


BAD_COMMANDS: list[tuple[str, list[str]]] = [
    ("mx-opt", ["-p", "foo"]),
    ("mx-opt", ["-p", "lower-nisa-to-bir{bogus=1}"]),
    ("mx-opt", ["-p", "legalize-quantize-mx,"]),
    ("mx-opt", ["/nonexistent.mlir"]),
    ("mx-opt", ["examples/quantize_mx.mlir", "-o", "/nonexistent/out.mlir"]),
    ("mx-opt", ["examples/quantize_mx.mlir", "-f", "nofrontend"]),
    ("mx-opt", ["examples/quantize_mx.mlir", "-t", "notarget"]),
    ("mx-run", ["examples/quantize_mx.mlir", "--symbol", "e5m2"]),
    ("mx-run", ["examples/quantize_mx.mlir", "-p", "foo"]),
    ("mx-run", ["examples/mx_matmul.mlir"]),
    ("mx-run", ["examples/mx_matmul.mlir", "--random-inputs", "-1"]),
    ("mx-run", ["examples/mx_matmul.mlir", "--random-inputs", "x"]),
    ("mx-run", ["examples/mx_matmul.mlir", "--inputs", "/nonexistent.npz"]),
    ("mx-run", ["examples/nisa_exchange_2core.mlir", "--cores", "100000"]),
    ("mx-run", ["examples/nisa_exchange_2core.mlir", "--cores", "0"]),
    ("mx-run", ["examples/nisa_exchange_2core.mlir", "--cores", "3", "--random-inputs", "0"]),
    ("mx-run", ["examples/mx_matmul.mlir", "--random-inputs", "0", "--max-memory", "1K"]),
    ("mx-run", ["examples/mx_matmul.mlir", "--random-inputs", "0", "-o", "/nonexistent/o"]),
    ("mx-moe", ["run", "--block-size", "0"]),
    ("mx-moe", ["emit", "--seed", "-1"]),
    ("mx-moe", ["grid", "--dtype", "bf16"]),
    ("mx-moe", ["run", "--mx-weights", "fp4_e2m1"]),
    ("mx-moe", ["run", "--hidden", "65536", "--tokens", "10"]),
    ("mx-moe", ["run", "--experts", "100000", "--tokens", "10"]),
    ("mx-moe", ["grid", "--experts", "100000", "--tokens", "10"]),
    ("mx-moe", ["emit", "--implementation", "shard_on_block_mx", "--intermediate", "320"]),
    ("mx-moe", ["emit", "--write-inputs", "/nonexistent/in.npz"]),
    ("mx-moe", ["run", "--hidden", "768"]),
    ("mx-moe", ["run", "--top-k", "9"]),
    ("mx-moe", ["emit", "--implementation", "nope"]),
]
"""Command lines that must fail cleanly (exit 1, or 2 for a usage error)."""


def _command_case(name: str, argv: list[str]) -> Case:
    from mxdsl.tools import mx_moe, mx_opt, mx_run

    def run(scratch: Path) -> str | None:
        full = [str(ROOT / a) if a.startswith("examples/") else a for a in argv]
        main: Callable[[list[str]], int] = {
            "mx-opt": mx_opt.main,
            "mx-run": lambda a: mx_run.main(a, sys.stdout),
            "mx-moe": lambda a: mx_moe.main(a, sys.stdout),
        }[name]
        outcome = run_in_process(main, full)
        if outcome.code == 0:
            return "exit code 0 for a bad command line"
        return problem(outcome, None, usage_ok=True)

    return Case(f"{name} {' '.join(argv)}", run)


def corpus(seed: int, cases: int, tools: Sequence[str] = ("mx-opt", "mx-run")) -> Iterator[Case]:
    """``cases`` source mutants (split between ``tools``), a tenth as many npz mutants,
    then every bad command line."""
    rng = random.Random(seed)
    files = sources()
    contents = {path: path.read_bytes() for path in files}
    for index in range(cases):
        tool = tools[index % len(tools)]
        path = rng.choice(files)
        what, mutant = mutate(rng, contents[path])
        yield _source_case(tool, path, what, mutant)
    if "mx-run" in tools:
        for index in range(max(1, cases // 10)):
            yield _npz_case(rng, index)
    for name, argv in BAD_COMMANDS:
        yield _command_case(name, argv)


def run_corpus(seed: int, cases: int, tools: Sequence[str], scratch: Path) -> list[str]:
    """Every failing case as ``index: label: problem``."""
    failures = []
    for index, case in enumerate(corpus(seed, cases, tools)):
        found = case.run(scratch)
        if found is not None:
            failures.append(f"{index}: {case.label}: {found}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the tools' fuzz corpus.")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--cases", type=int, default=2000, help="source mutants")
    parser.add_argument("--tools", default="mx-opt,mx-run")
    args = parser.parse_args(argv)
    os.environ.pop("MXDSL_TRACEBACK", None)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        failures = run_corpus(args.seed, args.cases, args.tools.split(","), Path(scratch))
    for failure in failures:
        print(failure)
    print(f"{len(failures)} failing case(s), {time.perf_counter() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

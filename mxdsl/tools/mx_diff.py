"""``mx-diff``: where two runs part: the first op whose values differ.

::

    mx-diff A.npz B.npz [--align auto|op|source] [--atol X] [--rtol X] [--plot OUT.png]
    mx-diff --pipeline PASSES FILE.mlir [--inputs IN.npz | --random-inputs SEED]

``A`` is a trace (``mx-run --trace``, ``mx-moe run --trace``); ``B`` a trace or a plain
``.npz`` of reference arrays (matched by key to ``A``'s named records: ``result0``,
``block0.gate``, ...). The traces are aligned (op by op in program order, or by source
location across levels) and the first aligned value that differs is reported: the op
and its location in both, how many elements differ, the largest difference in ulps and
in absolute terms, and the first differing index with both bit patterns.

``--pipeline`` runs ``FILE`` after each pass of ``PASSES`` on the same inputs (traced,
through ``mx-run``) and names the first pass after which the outputs change, with the
first differing op before and after it.

Exit status as ``diff``'s: 0 nothing differs, 1 something does, 2 bad input (one line).
"""

from __future__ import annotations

import argparse
import difflib
import io
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import IO, Any

import numpy as np

from mxdsl import __version__
from mxdsl.interpreters import is_float_dtype
from mxdsl.interpreters.trace import (
    BUFFER,
    TRACE_KEY,
    LoadedTrace,
    TraceError,
    TraceRecord,
    load_trace,
)
from mxdsl.tools.diagnostics import HelpFormatter, console_exit, report, report_internal_error

TOOL = "mx-diff"


class DiffInputError(Exception):
    """Bad input: the message is one line; exit 2."""


# ---------------------------------------------------------------- comparison


@dataclass
class Difference:
    """How two values differ (:func:`compare`)."""

    count: int
    total: int
    max_ulps: int | None
    max_abs: float
    first: tuple[int, ...]
    mask: np.ndarray


def _bits(value: np.ndarray) -> np.ndarray:
    return np.array(value, order="C").view(f"u{value.dtype.itemsize}")


def _width(dtype: np.dtype[Any]) -> int:
    import ml_dtypes

    if dtype == np.dtype(ml_dtypes.float4_e2m1fn):
        return 4
    return dtype.itemsize * 8


def ordered_bits(value: np.ndarray) -> np.ndarray | None:
    """Float bit patterns as integers in value order (adjacent floats differ by 1), so a
    difference of two is a distance in ulps; None for a dtype without a sign bit (E8M0,
    whose bits are already in order) or a non-float."""
    import ml_dtypes

    if value.dtype == np.dtype(ml_dtypes.float8_e8m0fnu):
        return _bits(value).astype(np.int64)
    if not is_float_dtype(value.dtype):
        return None
    width = _width(value.dtype)
    bits = _bits(value).astype(np.int64)
    sign = (bits >> (width - 1)) & 1
    magnitude = bits & ((1 << (width - 1)) - 1)
    return np.where(sign == 1, -magnitude, magnitude)


def compare(
    a: np.ndarray, b: np.ndarray, atol: float = 0.0, rtol: float = 0.0
) -> Difference | None:
    """None when ``a`` and ``b`` agree: bit for bit for one dtype and no tolerance,
    else by value within ``atol + rtol * |b|`` (NaN equals NaN)."""
    exact = a.dtype == b.dtype and atol == 0 and rtol == 0
    wa = a.astype(np.float64) if a.dtype.kind != "b" else a.astype(np.int64)
    wb = b.astype(np.float64) if b.dtype.kind != "b" else b.astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore"):
        if exact:
            mask = _bits(a) != _bits(b)
        else:
            mask = ~np.isclose(wa, wb, rtol=rtol, atol=atol, equal_nan=True)
        if not mask.any():
            return None
        absolute = np.abs(wa - wb)[mask]
    finite = absolute[np.isfinite(absolute)]
    max_abs = float(finite.max()) if finite.size else float("nan")
    max_ulps = None
    if a.dtype == b.dtype:
        oa, ob = ordered_bits(a), ordered_bits(b)
        if oa is not None and ob is not None:
            max_ulps = int(np.abs(oa - ob)[mask].max())
        elif a.dtype.kind in "iu":
            max_ulps = int(np.abs(a.astype(np.int64) - b.astype(np.int64))[mask].max())
    first = tuple(int(i) for i in np.argwhere(mask)[0]) if mask.ndim else ()
    return Difference(int(mask.sum()), int(mask.size), max_ulps, max_abs, first, mask)


# ---------------------------------------------------------------- alignment


def _dialects(records: list[TraceRecord]) -> set[str]:
    return {r.op.split(".")[0] for r in records}


def _op_key(record: TraceRecord) -> tuple[object, ...]:
    value = record.value
    return (record.op, record.what, value.shape, value.dtype.name)


def align(a: list[TraceRecord], b: list[TraceRecord], mode: str) -> list[tuple[int, int]]:
    """Pairs of indices into ``a`` and ``b``, in ``a``'s program order.

    * named records pair by name;
    * ``op``: each core's op records in program order, matched as ``difflib`` matches
      lines, a line being the op name, which value, shape and dtype (an inserted or
      removed op shifts nothing else);
    * ``source``: by source location: for each (core, source location) the last record,
      the value that completes that source op (a lowered op's tiles write it piece by
      piece; at nisa and bir the last record of a run of one source location is the
      ``buffer`` record of the whole HBM buffer they filled, see
      :mod:`mxdsl.interpreters.trace`);
    * ``auto``: ``op`` when both traces hold the same dialects, else ``source``."""
    pairs: dict[int, int] = {}
    named_b = {r.name: j for j, r in enumerate(b) if r.name}
    for i, r in enumerate(a):
        if r.name and r.name in named_b:
            pairs[i] = named_b[r.name]
    ua = [(i, r) for i, r in enumerate(a) if not r.name]
    ub = [(j, r) for j, r in enumerate(b) if not r.name]
    if mode == "auto":
        same = _dialects([r for _, r in ua]) == _dialects([r for _, r in ub])
        mode = "op" if same else "source"
    if mode == "op":
        for core in sorted({r.core for _, r in ua}):
            ca = [(i, r) for i, r in ua if r.core == core]
            cb = [(j, r) for j, r in ub if r.core == core]
            keys_a = [_op_key(r) for _, r in ca]
            keys_b = [_op_key(r) for _, r in cb]
            matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
            for block in matcher.get_matching_blocks():
                for k in range(block.size):
                    pairs[ca[block.a + k][0]] = cb[block.b + k][0]
    else:
        last_b = {(r.core, r.source): j for j, r in ub if r.source}
        last_a = {(r.core, r.source): i for i, r in ua if r.source}
        for key, i in last_a.items():
            if key in last_b:
                pairs[i] = last_b[key]
    return sorted(pairs.items())


# ---------------------------------------------------------------- reports


def _describe(record: TraceRecord) -> str:
    if record.name and record.op == "output":
        return f"output {record.name}"
    where = f" at {record.location}" if record.location else ""
    source = (
        f" (source {record.source})" if record.source and record.source != record.location else ""
    )
    label = f" [{record.name}]" if record.name else ""
    return f"{record.op}{label} {record.what}{where}{source} core {record.core}"


def _element(value: np.ndarray, index: tuple[int, ...]) -> str:
    element = value[index]
    bits = int(_bits(np.asarray(element).reshape(1))[0])
    digits = max(1, _width(value.dtype) // 4)
    if value.dtype.kind in "iub":
        return f"{element!r} (0x{bits:0{digits}x})"
    return f"{float(element)!r} (0x{bits:0{digits}x})"


@dataclass
class Finding:
    """The first aligned pair that differs."""

    a: TraceRecord
    b: TraceRecord
    difference: Difference | None  # None: the shapes differ
    position: int

    def lines(self, name_a: str, name_b: str) -> list[str]:
        out = [
            f"first difference: value {self.position} of {name_a} in program order",
            f"  {name_a}: {_describe(self.a)}",
            f"  {name_b}: {_describe(self.b)}",
        ]
        d = self.difference
        if d is None:
            out.append(f"  shapes differ: {self.a.value.shape} and {self.b.value.shape}")
            return out
        kind = self.a.value.dtype.name
        if self.b.value.dtype != self.a.value.dtype:
            kind = f"{kind} and {self.b.value.dtype.name}"
        ulps = (
            f"{d.max_ulps} ulp{'s' if d.max_ulps != 1 else ''}, " if d.max_ulps is not None else ""
        )
        out.append(
            f"  {d.count} of {d.total} elements differ ({kind}); largest difference "
            f"{ulps}{d.max_abs:.6g} absolute"
        )
        out.append(
            f"  first at index {d.first}: {_element(self.a.value, d.first)} and "
            f"{_element(self.b.value, d.first)}"
        )
        if self.a.name.startswith("block") and d.first:
            out.append(f"  in {block_tile(self.a.name, d.first)}")
        return out


BLOCK_COLUMN_TILES = {"gate": ("I", 128), "up": ("I", 128), "act": ("I", 128)}
"""The column tile of a MoE block value (``[B, I]``: 128-column I tiles, as the kernels'
gate / up passes; ``[B, H]``, down and rows: 512-column H chunks, one PSUM bank)."""


def block_tile(name: str, index: tuple[int, ...]) -> str:
    """Where ``index`` of the MoE block value ``name`` (``block3.down``) lies in the
    kernels' tiling: ``block3, 128-row tile 1, 512-column H chunk 0``."""
    block, _, value = name.partition(".")
    where = f"{block}, 128-row tile {index[0] // 128}"
    if len(index) < 2:
        return where
    dim, width = BLOCK_COLUMN_TILES.get(value, ("H", 512))
    noun = "chunk" if dim == "H" else "tile"
    return f"{where}, {width}-column {dim} {noun} {index[1] // width}"


def _boundaries(shape: tuple[int, ...]) -> set[int]:
    """The element counts at which the dims of ``shape`` end, row-major, unit dims
    ignored (``(1, 8, 1, 32)``: ``{32, 256}``)."""
    ends: set[int] = set()
    count = 1
    for dim in reversed(shape):
        count *= dim
        ends.add(count)
    return ends


def same_layout(a: TraceRecord, b: TraceRecord) -> bool:
    """Whether two values of one op in other shapes hold the same elements in the same
    row-major order: the same element count, and the dims of one are dims of the other
    merged (``[128, 4, 32]`` and a bir pattern's ``[128, 128]``; ``[1, 8, 1,
    32]`` and ``[8, 32]``), never dims cut elsewhere (``[64, 32]`` and ``[32, 64]``)."""
    sa, sb = a.value.shape, b.value.shape
    if a.value.size != b.value.size:
        return False
    ea, eb = _boundaries(sa), _boundaries(sb)
    return ea <= eb or eb <= ea


def _words_as_floats(record: TraceRecord, other: TraceRecord) -> TraceRecord:
    """A ``buffer`` record of integer words paired with floats of the same width, its
    words viewed as those floats (bit for bit): the buffer of a lowering that works on
    the bits (a negate as an XOR of the sign bit, made as ``ui32`` and handed on through
    a ``view_cast``)."""
    value, want = record.value, other.value.dtype
    if (
        record.what != BUFFER
        or value.dtype == want
        or value.dtype.kind not in "iu"
        or not is_float_dtype(want)
        or value.dtype.itemsize != want.itemsize
    ):
        return record
    return replace(record, what=f"{BUFFER} (bits as {want.name})", value=value.view(want))


def first_difference(
    a: list[TraceRecord],
    b: list[TraceRecord],
    mode: str = "auto",
    atol: float = 0.0,
    rtol: float = 0.0,
) -> tuple[Finding | None, int]:
    """The first aligned pair (in ``a``'s program order) whose values differ, and how
    many pairs were aligned. Raises :class:`DiffInputError` when nothing aligns, or when
    two named values (outputs, reference arrays) differ in shape."""
    pairs = align(a, b, mode)
    if not pairs:
        raise DiffInputError(
            "nothing to compare: no record of the first matches one of the second (no "
            "common output names, ops or source locations); are these traces of one program?"
        )
    for i, j in pairs:
        ra, rb = a[i], b[j]
        if ra.value.shape != rb.value.shape and not ra.name and same_layout(ra, rb):
            # one tile as two levels lay it out (a nisa tile, a bir access pattern's
            # [partitions, elements]): the same elements in the same row-major order
            rb = replace(rb, value=rb.value.reshape(ra.value.shape))
        ra, rb = _words_as_floats(ra, rb), _words_as_floats(rb, ra)
        if ra.value.shape != rb.value.shape:
            if ra.name and rb.name:
                raise DiffInputError(
                    f"{ra.name} has shape {ra.value.shape} in the first and "
                    f"{rb.value.shape} in the second: not runs of one program on one input"
                )
            return Finding(ra, rb, None, i), len(pairs)
        difference = compare(ra.value, rb.value, atol, rtol)
        if difference is not None:
            return Finding(ra, rb, difference, i), len(pairs)
    return None, len(pairs)


# ---------------------------------------------------------------- inputs


def read_side(path: str) -> LoadedTrace:
    """A trace, or a plain ``.npz`` as named records (key -> array)."""
    if not os.path.exists(path):
        raise DiffInputError(f"cannot open {path!r}: no such file")
    try:
        npz = np.load(path, allow_pickle=False)
    except Exception as err:
        raise DiffInputError(f"cannot read {path!r}: not an .npz file ({err})") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise DiffInputError(f"{path!r} is a single .npy array; give an .npz")
    with npz:
        if TRACE_KEY in npz.files:
            try:
                return load_trace(path, npz)
            except TraceError as err:
                raise DiffInputError(str(err)) from None
        records = [TraceRecord("output", "", "", 0, key, npz[key], name=key) for key in npz.files]
    return LoadedTrace(path, records)


def _reference_view(a: LoadedTrace, b: LoadedTrace) -> None:
    """Plain reference arrays saved as bit patterns (``mx-run -o``) take the dtype of
    the named record they pair with."""
    dtypes = {r.name: r.value.dtype for r in a.records if r.name}
    for r in b.records:
        want = dtypes.get(r.name)
        if (
            want is not None
            and r.op == "output"
            and r.value.dtype != want
            and r.value.dtype.kind == "u"
            and r.value.dtype.itemsize == want.itemsize
            and is_float_dtype(want)
        ):
            r.value = r.value.view(want)


# ---------------------------------------------------------------- plot


def plot(finding: Finding, path: str) -> None:
    """A heat map of ``|a - b|`` where they differ (blank where equal)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise DiffInputError(
            "--plot needs matplotlib: pip install matplotlib (or mxdsl[plot])"
        ) from None
    d = finding.difference
    if d is None:
        raise DiffInputError("--plot: the shapes differ, there is no element map to draw")
    a = finding.a.value.astype(np.float64)
    b = finding.b.value.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(d.mask, np.abs(a - b), np.nan)
    grid = diff.reshape(-1, diff.shape[-1]) if diff.ndim >= 2 else diff.reshape(1, -1)
    figure, axes = plt.subplots(figsize=(8, 6))
    image = axes.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis")
    figure.colorbar(image, ax=axes, label="|difference|")
    axes.set_title(f"{finding.a.op} {finding.a.what}: {d.count} of {d.total} differ")
    axes.set_xlabel("last axis")
    axes.set_ylabel("rows (leading axes flattened)")
    from mxdsl.tools.diagnostics import write_atomically

    write_atomically(path, lambda stream: figure.savefig(stream, format="png"), "plot")
    plt.close(figure)


# ---------------------------------------------------------------- pipeline


def _run_traced(file: str, spec: str, inputs: list[str], symbol: str, out: str) -> None:
    from mxdsl.tools import mx_run

    argv = [file, "--quiet", "--symbol", symbol, "--trace", out, *inputs]
    if spec:
        argv += ["-p", spec]
    errors = io.StringIO()
    saved = sys.stderr
    sys.stderr = errors
    try:
        code = mx_run.main(argv, io.StringIO())
    finally:
        sys.stderr = saved
    if code != 0:
        message = errors.getvalue().strip().splitlines()
        detail = message[0] if message else f"exit {code}"
        after = f"after {spec!r}" if spec else "before any pass"
        raise DiffInputError(f"running {file} {after} failed: {detail}")


def bisect_pipeline(
    file: str, spec: str, inputs: list[str], symbol: str, stdout: IO[str], args: Any
) -> int:
    """Run ``file`` before any pass and after each pass of ``spec``; report the first
    pass after which the outputs change. Returns the exit status."""
    from xdsl.utils.arg_spec import parse_pipeline

    try:
        passes = [str(p) for p in parse_pipeline(spec)]
    except Exception as err:
        raise DiffInputError(f"invalid pass pipeline: {str(err).strip()}") from None
    if not passes:
        raise DiffInputError("--pipeline names no pass")
    with tempfile.TemporaryDirectory(prefix="mx-diff-") as tmp:
        paths = [os.path.join(tmp, f"after{k}.npz") for k in range(len(passes) + 1)]
        _run_traced(file, "", inputs, symbol, paths[0])
        base = read_side(paths[0])
        outputs = [r for r in base.records if r.name]
        previous = base
        for k, name in enumerate(passes, start=1):
            _run_traced(file, ",".join(passes[:k]), inputs, symbol, paths[k])
            current = read_side(paths[k])
            named = [r for r in current.records if r.name]
            changed, _ = first_difference(outputs, named, "op", args.atol, args.rtol)
            if changed is None:
                previous = current
                continue
            print(f"the outputs change after pass {k}: {name}", file=stdout)
            finding, _ = first_difference(
                previous.records, current.records, args.align, args.atol, args.rtol
            )
            before = "before any pass" if k == 1 else f"after {passes[k - 2]}"
            shown = finding if finding is not None else changed
            for line in shown.lines(before, f"after {name}"):
                print(line, file=stdout)
            if finding is not None and finding is not changed:
                print("the outputs:", file=stdout)
                for line in changed.lines("before", "after")[1:]:
                    print(line, file=stdout)
            if args.plot:
                plot(shown, args.plot)
            return 1
    print(f"the outputs are the same after each of the {len(passes)} passes", file=stdout)
    return 0


# ---------------------------------------------------------------- command


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=TOOL,
        description="Where two runs part: the first op whose values differ between two "
        "traces (mx-run --trace), a trace and a reference .npz, or the runs after each "
        "pass of a pipeline (docs/debugging.md). Exit 0: no difference; 1: a "
        "difference; 2: bad input.",
        formatter_class=HelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("first", metavar="A", help="a trace (or, with --pipeline, the .mlir)")
    parser.add_argument("second", metavar="B", nargs="?", help="a trace or a reference .npz")
    parser.add_argument(
        "--pipeline",
        metavar="PASSES",
        help="run A (an .mlir file) after each pass of PASSES and name the first pass after "
        "which the outputs change",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", metavar="IN.npz", help="with --pipeline: the arguments")
    source.add_argument(
        "--random-inputs", metavar="SEED", help="with --pipeline: seeded arguments (default 0)"
    )
    parser.add_argument("--symbol", default="main", help="with --pipeline: the function")
    parser.add_argument(
        "--align",
        choices=["auto", "op", "source"],
        default="auto",
        help="op: op by op in program order (one level); source: by source location "
        "(across levels); auto: op when both traces hold the same dialects",
    )
    parser.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (0: bits)")
    parser.add_argument("--rtol", type=float, default=0.0, help="relative tolerance (0: bits)")
    parser.add_argument(
        "--plot", metavar="OUT.png", help="draw the differing elements as a heat map"
    )
    parser.add_argument("--version", action="version", version=f"{TOOL} {__version__}")
    return parser


def run(args: argparse.Namespace, stdout: IO[str]) -> int:
    if args.atol < 0 or args.rtol < 0:
        raise DiffInputError("--atol and --rtol are tolerances: give values >= 0")
    if args.pipeline is not None:
        if args.second is not None:
            raise DiffInputError("--pipeline takes one .mlir file, not two")
        if args.inputs is not None:
            inputs = ["--inputs", args.inputs]
        else:
            inputs = ["--random-inputs", args.random_inputs or "0"]
        if not os.path.exists(args.first):
            raise DiffInputError(f"cannot open {args.first!r}: no such file")
        return bisect_pipeline(args.first, args.pipeline, inputs, args.symbol, stdout, args)
    if args.second is None:
        raise DiffInputError("give two files to compare (A B), or --pipeline PASSES FILE")
    a, b = read_side(args.first), read_side(args.second)
    _reference_view(a, b)
    finding, aligned = first_difference(a.records, b.records, args.align, args.atol, args.rtol)
    if finding is None:
        print(f"no difference in {aligned} aligned values", file=stdout)
        return 0
    for line in finding.lines(args.first, args.second):
        print(line, file=stdout)
    if args.plot:
        plot(finding, args.plot)
    return 1


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Entry point; returns the exit status (0 same, 1 different, 2 bad input)."""
    parser = build_arg_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        return run(args, stdout if stdout is not None else sys.stdout)
    except DiffInputError as err:
        report(TOOL, str(err))
        return 2
    except Exception as err:
        return report_internal_error(TOOL, err)


def console_main() -> None:
    console_exit(main)


__all__ = ["Difference", "compare", "first_difference", "main", "ordered_bits", "same_layout"]

"""mx-moe: build, emit and run the MoE-CTE nisa kernels (see docs/moe-cte.md).

::

    mx-moe emit [options] [-o KERNEL.mlir] [--write-inputs IN.npz]
    mx-moe run  [options] [-o RESULT.npz]
    mx-moe grid [options] [--implementations A,B] [--activations ...] [--scalings ...]
                [--top-ks 1,2] [--dtypes bf16,f32] [--scheduler tcp://HOST:PORT]
                [--workers N] [--results FILE.db] [--summary FILE.png]
    mx-moe grid --nkilib [--implementations A,B] [--sample-tokens T] [the same]

``emit`` writes one variant's nisa IR (a ``func.func @main`` whose arguments are listed
in a comment header); ``--write-inputs`` also writes seeded routed inputs for
``mx-run KERNEL.mlir --cores 2 --inputs IN.npz -o OUT.npz``. ``run`` builds the kernel,
runs it on 2 simulated cores with a progress bar over blocks on stderr, compares it with
the dense numpy golden and prints the relative Frobenius error, the kernel's and the
golden's time. ``grid`` runs every combination of the listed variants, activations,
scaling modes, TopK values and IO dtypes at one set of sizes, each case a Dask task on a
local cluster or ``--scheduler``'s, and prints one row per case (exit 1 if any disagrees
with its golden or gives no verdict; ``--results`` keeps the rows and resumes);
``grid --nkilib`` builds nkilib's LNC2 grid instead (mxdsl/tools/moe_grid.py).
``--target trn3|trn2`` (default trn3) selects the modelled NeuronCore whose SBUF / PSUM
the kernel must fit; ``emit`` states the kernel's peak bytes per partition against it in
its header. Invalid sizes or combinations are
reported before any work (exit 1).
"""

from __future__ import annotations

# First: the case module sets the BLAS thread count before numpy loads (see there).
from mxdsl.tools.moe_case import (  # isort: skip
    ACTIVATIONS,
    PROGRESS_INTERVAL,
    SCALINGS,
    TOLERANCE,
    USER_CHOSE_BLAS_THREADS,
    Checked,
    ToolError,
    build,
    check,
    check_memory,
    cpu_seconds,
    fast_path_setting,
    gib_text,
    peak_resident_bytes,
    problem,
    run_memory,
    seeded_inputs,
)

import argparse  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import IO  # noqa: E402

import numpy as np  # noqa: E402

from mxdsl import __version__  # noqa: E402
from mxdsl.interpreters.fast_path import NO_FAST_PATH_ENV  # noqa: E402
from mxdsl.interpreters.trace import Trace, TraceRecord  # noqa: E402
from mxdsl.kernels.moe_cte import (  # noqa: E402
    MoECTEImplementation,
    progress_bar,
    signature_text,
)
from mxdsl.kernels.moe_cte.dispatch import clock_text  # noqa: E402
from mxdsl.kernels.moe_cte.interface import PROBES  # noqa: E402
from mxdsl.kernels.moe_cte.reference import block_values_for, relative_error  # noqa: E402
from mxdsl.kernels.moe_cte.reference.mx import dense_golden_for, mx_block_values_for  # noqa: E402
from mxdsl.targets import DEFAULT_TARGET, TARGETS  # noqa: E402
from mxdsl.tools.diagnostics import (  # noqa: E402
    DefaultsHelpFormatter,
    check_distinct_files,
    check_writable,
    console_exit,
    report,
    run_tool,
    write_atomically,
)
from mxdsl.tools.moe_grid import (  # noqa: E402
    RUN,
    DaskSettings,
    GridCase,
    case_key,
    nkilib_cases,
    run_grid_cases,
    summary_png,
    summary_table,
)
from mxdsl.tools.mx_run import memory_size  # noqa: E402

TOOL = "mx-moe"


def clamp_limits(text: str) -> tuple[float | None, float | None]:
    """``LO,HI`` with either side optionally empty (``,7`` = no lower limit)."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected LO,HI (either may be empty), got {text!r}")
    try:
        lo, hi = (float(p) if p.strip() else None for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers LO,HI, got {text!r}") from None
    if lo is None and hi is None:
        raise argparse.ArgumentTypeError("a clamp needs at least one limit")
    if any(limit is not None and not math.isfinite(limit) for limit in (lo, hi)):
        raise argparse.ArgumentTypeError(
            f"expected finite limits LO,HI (leave a side empty for no limit), got {text!r}"
        )
    if lo is not None and hi is not None and lo > hi:
        raise argparse.ArgumentTypeError(f"expected LO <= HI, got {text!r}")
    return lo, hi


CLAMP_OPTIONS = ("--clamp-gate", "--clamp-up")


def attach_clamp_values(argv: Sequence[str]) -> list[str]:
    """``--clamp-gate -7,7`` read as ``--clamp-gate=-7,7``: argparse takes a separate value
    that starts with ``-`` (other than a plain number) for an option, and a clamp's low
    limit is usually negative. Arguments after ``--`` are left alone."""
    args = list(argv)
    joined: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return joined + args[index:]
        value = args[index + 1] if index + 1 < len(args) else ""
        if arg in CLAMP_OPTIONS and value.startswith("-") and "," in value:
            joined.append(f"{arg}={value}")
            index += 2
            continue
        joined.append(arg)
        index += 1
    return joined


def build_arg_parser() -> argparse.ArgumentParser:
    style = {"formatter_class": DefaultsHelpFormatter, "allow_abbrev": False}
    parser = argparse.ArgumentParser(
        prog=TOOL,
        description="Build, emit and run the MoE-CTE nisa kernels (docs/moe-cte.md).",
        **style,
    )
    parser.add_argument("--version", action="version", version=f"{TOOL} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    emit = sub.add_parser("emit", help="write one variant's nisa IR", **style)
    run = sub.add_parser(
        "run", help="run a variant on 2 simulated cores against the golden", **style
    )
    grid = sub.add_parser(
        "grid",
        help="run every combination of variants x activations x scalings x TopK x dtypes",
        description="Every combination of the listed values, each run on 2 simulated cores "
        "against its golden as a Dask task (a local cluster, or --scheduler's), one row per "
        "case; the other options apply to every case. Exit 1 if any case disagrees with its "
        "golden or gives no verdict.",
        **style,
    )
    for p in (emit, run):  # one case; grid takes lists of these (below)
        p.add_argument(
            "--implementation",
            default="shard_on_block",
            choices=[m.name for m in MoECTEImplementation],
            help="the variant (MoECTEImplementation member; default shard_on_block)",
        )
        p.add_argument("--top-k", type=positive, default=2, help="TopK: experts per token")
        p.add_argument("--dtype", choices=["bf16", "f32"], default="bf16", help="IO dtype")
        p.add_argument(
            "--activation",
            choices=list(ACTIVATIONS),
            default="silu",
            help="the activation applied to gate",
        )
        p.add_argument(
            "--scaling",
            choices=list(SCALINGS),
            default="post_scale",
            help="where the expert affinities multiply: no_scale (never), post_scale "
            "(each expert's output), pre_scale (the hidden states, before the experts)",
        )
    for p in (emit, run, grid):
        p.add_argument("--hidden", type=positive, default=512, help="H (multiple of 512)")
        p.add_argument(
            "--intermediate",
            type=positive,
            default=None,
            help="I (multiple of 16; MX: of 128 block shard, 1024 I shard; default 256, "
            "MX: 512 block shard, 1024 I shard)",
        )
        p.add_argument("--experts", type=positive, default=4, help="E")
        p.add_argument("--tokens", type=positive, default=100, help="T (real tokens)")
        p.add_argument(
            "--block-size",
            type=positive,
            default=None,
            help="B (default 128 block shard, 256 I shard)",
        )
        p.add_argument(
            "--blocks",
            type=positive,
            default=None,
            help="N (default ceil((T*TopK - (E-1)) / B) + E - 1; E for dropping)",
        )
        p.add_argument("--bias", action="store_true", help="gate/up and down biases")
        p.add_argument(
            "--clamp-gate",
            type=clamp_limits,
            metavar="LO,HI",
            default=None,
            help="clamp gate to [LO, HI] (either may be empty: ,7 or -7,)",
        )
        p.add_argument(
            "--clamp-up", type=clamp_limits, metavar="LO,HI", default=None, help="as above, up"
        )
        p.add_argument(
            "--fp8-weights",
            action="store_true",
            help="float8_e4m3fn weights with per-channel f32 dequant scales",
        )
        p.add_argument(
            "--mx-weights",
            choices=["fp8_e4m3fn", "fp8_e5m2", "fp4_e2m1"],
            default=None,
            help="MX variants only: the weight format (x4-packed, E8M0 block scales; "
            "default fp8_e4m3fn)",
        )
        p.add_argument(
            "--n-static-blocks",
            type=at_least(-1),
            default=-1,
            help="shard_on_block_mx: static prefix (-1: N - E)",
        )
        p.add_argument(
            "--n-dynamic-blocks",
            type=at_least(0),
            default=55,
            help="shard_on_block_mx: at most this many blocks in the dynamic loop",
        )
        p.add_argument(
            "--checkpoint", action="store_true", help="write activation checkpoints (I shard)"
        )
        p.add_argument(
            "--affinity-on-i",
            action="store_true",
            help="POST_SCALE multiplies act(gate)*up instead of the output (I shard)",
        )
        p.add_argument(
            "--num-static-block",
            type=at_least(0),
            default=None,
            help="hybrid: static prefix length",
        )
        p.add_argument(
            "--live-blocks",
            type=at_least(0),
            default=None,
            help="hybrid: sum(conditions), the blocks the dynamic loop runs to "
            "(default: the real blocks)",
        )
        p.add_argument(
            "--gate-up-chunk",
            type=positive,
            default=None,
            metavar="COLUMNS",
            help="I columns per gate/up weight load (default: the largest whose buffers "
            "fit the SBUF)",
        )
        p.add_argument(
            "--seed", type=at_least(0, None), default=0, help="seed of the random inputs"
        )
        p.add_argument(
            "--max-memory",
            type=memory_size,
            default=None,
            metavar="SIZE",
            help="refuse a case whose arguments need more than SIZE bytes (suffix K, M, G; "
            "0: no limit; default: the memory available on this machine)",
        )
        p.add_argument(
            "--level",
            choices=["nisa", "bir"],
            default="nisa",
            help="the IR to emit / run: nisa, or bir after lower-nisa-to-bir (docs/bir.md)",
        )
        p.add_argument(
            "--target",
            choices=list(TARGETS),
            default=DEFAULT_TARGET.name,
            help=f"the modelled NeuronCore whose SBUF / PSUM the kernel must fit (default "
            f"{DEFAULT_TARGET.name}; the MX variants need trn3)",
        )
    emit.add_argument("-o", "--output", metavar="FILE", help="write the IR here (default stdout)")
    emit.add_argument(
        "--debuginfo",
        action="store_true",
        help="print each op's loc(...): the builder line and named region (gate, up, act, "
        "down, scatter) it comes from",
    )
    emit.add_argument(
        "--write-inputs",
        metavar="IN.npz",
        help="also write seeded routed inputs (arg0, ...) for mx-run --inputs",
    )
    run.add_argument(
        "-o",
        "--output",
        metavar="FILE.npz",
        help="write the kernel's outputs (by name) and the golden here",
    )
    run.add_argument(
        "--trace",
        metavar="PREFIX",
        help="write PREFIX.kernel.npz and PREFIX.golden.npz: per active block the values "
        "both compute (gate, up, act, down and the scattered rows; MX variants: down and "
        "rows), the kernel's from probe outputs this build adds (no other output bit "
        "changes), and the output, for mx-diff (docs/debugging.md)",
    )
    for p in (run, grid):
        p.add_argument(
            "--no-fast-path",
            action="store_true",
            help="run the kernels in the interpreters' reference mode: every op one at a "
            f"time, no loop plans, operand caches or batched passes (also {NO_FAST_PATH_ENV}"
            "=1); the same bits, slower (docs/interpreter.md)",
        )
        p.add_argument(
            "--schedule",
            choices=["parallel", "in-turn"],
            default="parallel",
            help="the 2 simulated cores at once between their sendrecv / core_barrier "
            "(parallel) or one at a time (in-turn, for debugging); the same bits "
            "(docs/nisa-interpreter.md)",
        )
        p.add_argument(
            "--no-progress",
            action="store_true",
            help="no progress on stderr (a bar on a terminal, else a line every few seconds)",
        )
    bf16_family = [m.name for m in MoECTEImplementation if not m.is_mx]
    add_name_list(grid, "--implementations", [m.name for m in MoECTEImplementation], bf16_family)
    grid.set_defaults(implementations=None)  # the bf16 family, or all seven with --nkilib
    add_name_list(grid, "--activations", list(ACTIVATIONS))
    add_name_list(grid, "--scalings", list(SCALINGS))
    grid.add_argument(
        "--top-ks", type=int_list, default=[1, 2], metavar="K,...", help="default 1,2"
    )
    add_name_list(grid, "--dtypes", ["bf16", "f32"])
    grid.add_argument(
        "--nkilib",
        action="store_true",
        help="instead: nkilib's LNC2 test grid (H 3072/4096/7168 x B x I, TopK 8, E 64) for "
        "the listed --implementations (default all seven here), every size built with "
        "every option combination and its footprint checked on its target (trn2 for the "
        "bf16/fp8 variants, trn3 for MX); one row per size",
    )
    grid.add_argument(
        "--sample-tokens",
        type=int,
        default=0,
        metavar="T",
        help="with --nkilib: also run each size once with T tokens (E 2, TopK 2, biases) "
        "against its golden (default 0: build only)",
    )
    grid.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the cases on the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://HOST:PORT, as `dask scheduler` prints it; default: a local cluster of "
        "worker processes sized to this machine's CPUs and memory)",
    )
    grid.add_argument(
        "--workers",
        type=positive,
        default=None,
        metavar="N",
        help="the local cluster's worker processes, each with an equal share of the "
        "available memory (default: one per CPU, fewer when the largest case needs more)",
    )
    grid.add_argument(
        "--connect-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="give up on a --scheduler that does not answer, or has no worker, after this",
    )
    grid.add_argument(
        "--results",
        metavar="FILE",
        default=None,
        help="an SQLite database, one row per case written as it finishes (table 'cases'); "
        "run again with the same FILE to skip the cases it already has",
    )
    grid.add_argument(
        "--summary",
        metavar="FILE.png",
        default=None,
        help="at the end, print a table per variant and write a plot of each case's "
        "relative error and times here",
    )
    return parser


GRID_AXES = (
    ("implementations", "implementation"),
    ("activations", "activation"),
    ("scalings", "scaling"),
    ("top_ks", "top_k"),
    ("dtypes", "dtype"),
)
"""Each ``grid`` list option and the single-case option it sets."""


def choice_list(choices: Sequence[str]) -> Callable[[str], list[str]]:
    """An argparse type: comma-separated names, each one of ``choices``."""

    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in names if name not in choices]
        if unknown or not names:
            what = f"unknown {', '.join(map(repr, unknown))}" if unknown else "an empty list"
            raise argparse.ArgumentTypeError(f"{what}; choose from {', '.join(choices)}")
        return names

    return parse


def add_name_list(
    parser: argparse.ArgumentParser,
    flag: str,
    names: Sequence[str],
    default: Sequence[str] | None = None,
) -> None:
    """A ``grid`` option taking comma-separated ``names`` (default: all of them)."""
    chosen = list(names if default is None else default)
    parser.add_argument(
        flag,
        type=choice_list(names),
        default=chosen,
        metavar="NAME,...",
        help=f"of {', '.join(names)} (default {','.join(chosen)})",
    )


MAX_OPTION = (1 << 31) - 1
"""The largest value of a size or count option: the kernels' sizes and block counts
become i32 / i64 constants and products of them in the IR (2^31 - 1 tokens would need
far more memory than any machine has; the memory check says so)."""


def at_least(low: int, high: int | None = MAX_OPTION) -> Callable[[str], int]:
    """An argparse type: an integer >= ``low`` (and <= ``high`` unless None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"expected an integer in {low}..{high}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


positive = at_least(1)


def int_list(text: str) -> list[int]:
    """An argparse type: comma-separated positive integers."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers K,K,..., got {text!r}") from None
    if any(not 0 < value <= MAX_OPTION for value in values):
        raise argparse.ArgumentTypeError(f"expected integers in 1..{MAX_OPTION}, got {text!r}")
    return values


def header(kernel, args: argparse.Namespace) -> str:  # noqa: ANN001
    s = kernel.sizes
    lines = [
        f"mx-moe emit --implementation {kernel.spec.implementation.name}: H={s.hidden} "
        f"I={s.intermediate} E={s.experts} T={s.tokens} B={s.block_size} TopK={s.top_k} "
        f"N={s.blocks} dtype={kernel.options.dtype} gate_up_chunk={kernel.options.gate_up_chunk}",
        f"target: {kernel.target.describe()}",
        f"footprint: {kernel.footprint_text()}",
        "run: mx-run FILE --cores 2 --inputs IN.npz -o OUT.npz (outputs come back as argI)",
        *signature_text(kernel.arguments).splitlines(),
    ]
    return "".join(f"// {line}\n" for line in lines)


def _npz_arrays(kernel, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:  # noqa: ANN001
    from mxdsl.tools.mx_run import output_arrays

    out: dict[str, np.ndarray] = {}
    for i, a in enumerate(kernel.arguments):
        value = arrays.get(a.name)
        if value is None:
            value = np.zeros(a.shape, dtype=a.numpy_dtype)
        out.update(output_arrays(f"arg{i}", value))
    return out


def make_progress(
    total: float, stream: IO[str] | None = None, label: str = "blocks"
) -> Callable[[float], None]:
    """Progress over ``total`` blocks on ``stream`` (stderr): a bar redrawn in place on a
    terminal; otherwise a plain line every PROGRESS_INTERVAL seconds and one at the end.
    Both give the time left while the run is under way (elapsed / done x left)."""
    out = sys.stderr if stream is None else stream
    if out.isatty():
        return progress_bar(total, out)
    start = time.monotonic()
    state = {"last": start, "done": False}

    def report(done: float) -> None:
        now = time.monotonic()
        finished = done >= total
        if state["done"] or (not finished and now - state["last"] < PROGRESS_INTERVAL):
            return
        state["last"], state["done"] = now, finished
        share = f" ({100 * done / total:.0f}%)" if total else ""
        elapsed = now - start
        left = f", ETA {clock_text(elapsed / done * (total - done))}" if 0 < done < total else ""
        out.write(f"{label} {int(done)}/{int(total)}{share} after {elapsed:.1f} s{left}\n")
        out.flush()

    return report


def kernel_block_values(kernel, inputs, outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:  # noqa: ANN001
    """The kernel's per-block values from its probe outputs (a kernel built with
    ``block_probes``: ``probe_gate_up`` ``[N, 2, I, B]``, ``probe_act`` ``[N, I, B]``,
    ``probe_down`` and ``probe_rows`` ``[N, B, H]``), keyed as :func:`block_values_for`
    keys the golden's, active blocks only. A padding slot's scatter moves nothing (its
    id T is skipped), so its scattered row is recorded as zero, as the golden's is."""
    tokens = kernel.sizes.tokens
    ids = np.asarray(inputs.arrays["token_position_to_id"]).reshape(kernel.sizes.blocks, -1)
    gate_up, act = outputs.get("probe_gate_up"), outputs.get("probe_act")
    values: dict[str, np.ndarray] = {}
    for b, active in enumerate(inputs.active_blocks):
        if not active:
            continue
        if gate_up is not None and act is not None:
            values[f"block{b}.gate"] = np.ascontiguousarray(gate_up[b, 0].T)
            values[f"block{b}.up"] = np.ascontiguousarray(gate_up[b, 1].T)
            values[f"block{b}.act"] = np.ascontiguousarray(act[b].T)
        values[f"block{b}.down"] = np.asarray(outputs["probe_down"][b])
        real = (ids[b] >= 0) & (ids[b] < tokens)
        values[f"block{b}.rows"] = np.where(real[:, None], outputs["probe_rows"][b], 0)
    return values


def write_block_traces(prefix: str, kernel, inputs, checked: Checked, stdout: IO[str]) -> None:  # noqa: ANN001
    """``PREFIX.kernel.npz`` and ``PREFIX.golden.npz`` (named trace records, block by
    block, then the output), and the mx-diff command that compares them."""
    spec, sizes, options = kernel.spec, kernel.sizes, kernel.options
    is_mx = spec.implementation.is_mx
    golden = (mx_block_values_for if is_mx else block_values_for)(spec, sizes, options, inputs)
    mine = kernel_block_values(kernel, inputs, checked.outputs)
    golden = {name: value for name, value in golden.items() if name in mine}
    golden["output"] = checked.golden
    mine["output"] = checked.result
    for path, values in ((f"{prefix}.kernel.npz", mine), (f"{prefix}.golden.npz", golden)):
        trace = Trace()
        for name, value in values.items():
            trace.add(TraceRecord("moe", "", "", 0, name, np.asarray(value), name=name))
        write_atomically(path, trace.save)
    if is_mx:
        print(
            "trace: an MX kernel's gate, up and act are not traced (they live in the MX "
            "pipeline's quantized tiles); its blocks' down and scattered rows are",
            file=stdout,
        )
    tolerance = TOLERANCE["mx" if is_mx else options.dtype]
    print(
        f"trace: {prefix}.kernel.npz and {prefix}.golden.npz; the first block that leaves "
        f"the tolerance: mx-diff {prefix}.kernel.npz {prefix}.golden.npz --rtol "
        f"{tolerance:g} --atol {tolerance:g}",
        file=stdout,
    )


def run(args: argparse.Namespace, stdout: IO[str]) -> None:
    fast_path_setting(args)  # a bad environment is refused before any work
    if args.command == "grid" and args.nkilib:
        run_nkilib(args, stdout)
        return
    if args.command == "grid":
        run_grid(args, stdout)
        return
    traces = getattr(args, "trace", None)
    outputs = [args.output, getattr(args, "write_inputs", None)]
    named = [("-o", args.output), ("--write-inputs", outputs[1])]
    if traces is not None:
        outputs += [f"{traces}.kernel.npz", f"{traces}.golden.npz"]
        named += [("--trace", outputs[-2]), ("--trace", outputs[-1])]
    check_distinct_files([], named)
    for path in outputs:
        if path is not None:
            check_writable(path)  # before any work, not after it
    kernel = build(args)
    spec, sizes, options, quant = kernel.spec, kernel.sizes, kernel.options, kernel.quantization
    if args.command == "emit":
        if args.write_inputs:
            check_memory(kernel, args)
        inputs = seeded_inputs(kernel, args) if args.write_inputs else None
        text = (header(kernel, args) + kernel.text(args.debuginfo) + "\n").encode("utf-8")
        if inputs is not None:
            arrays = _npz_arrays(kernel, inputs.arrays)
            write_atomically(args.write_inputs, lambda stream: savez(stream, arrays))
        if args.output:
            write_atomically(args.output, lambda stream: stream.write(text))
        else:
            stdout.write(text.decode("utf-8"))
        return
    needed = check_memory(kernel, args)
    start, start_cpu = time.perf_counter(), cpu_seconds()
    if needed > NOTE_MEMORY:
        report(TOOL, f"this run needs about {gib_text(needed)} of memory", kind="note")
    inputs = seeded_inputs(kernel, args, dense_golden=True)  # MX: its fp32 golden made with them
    impl = spec.implementation
    print(
        f"{impl.name}: H={sizes.hidden} I={sizes.intermediate} E={sizes.experts} "
        f"T={sizes.tokens} B={sizes.block_size} TopK={sizes.top_k} N={sizes.blocks} "
        f"dtype={options.dtype} activation={args.activation} scaling={args.scaling}"
        f"{' bias' if options.bias else ''}{' fp8-weights' if quant else ''}"
        f"{f' mx-weights={options.mx_weights}' if impl.is_mx else ''}",
        file=stdout,
    )
    print(f"footprint: {kernel.footprint_text()}", file=stdout)
    progress = None if args.no_progress else make_progress(sum(inputs.active_blocks))
    checked = check(kernel, inputs, progress, fast_path_setting(args), args.schedule)
    if impl.is_mx:
        dense = dense_golden_for(spec, sizes, options, inputs)
        print(
            f"relative error vs the fp32 dense golden (unquantized weights; the "
            f"{options.mx_weights} quantization error, not judged): "
            f"{relative_error(checked.result, dense):.3e}",
            file=stdout,
        )
    verdict = "ok" if checked.ok else "FAILED"
    golden = "the MX golden (the same quantized weights)" if impl.is_mx else "the golden"
    print(
        f"relative error (Frobenius) vs {golden}: {checked.error:.3e} (tolerance "
        f"{checked.tolerance:g}: {verdict})",
        file=stdout,
    )
    print(
        f"kernel time (interpreter, 2 cores): {checked.kernel_time:.3f} s "
        f"(CPU {checked.kernel_cpu:.1f} s)",
        file=stdout,
    )
    print(
        f"golden time (numpy): {checked.golden_time:.3f} s (CPU {checked.golden_cpu:.1f} s)",
        file=stdout,
    )
    ratio = checked.kernel_time / max(checked.golden_time, 1e-9)
    print(f"ratio kernel / golden: {ratio:.2f}", file=stdout)
    wall, cpu = time.perf_counter() - start, cpu_seconds() - start_cpu
    arguments = run_memory(kernel)[1]
    peak = peak_resident_bytes()
    print(
        f"run in all (inputs, kernel, goldens): {wall:.1f} s wall, {cpu:.1f} s CPU; peak "
        f"resident memory {gib_text(peak)}, {peak / max(arguments, 1):.2f} x the HBM "
        f"arguments ({gib_text(arguments)})",
        file=stdout,
    )
    if args.output:
        arrays = {"golden": checked.golden}
        arrays.update(
            {
                k: np.asarray(v, dtype=np.float32)
                for k, v in checked.outputs.items()
                if k not in PROBES
            }
        )
        write_atomically(args.output, lambda stream: savez(stream, arrays))
    if traces is not None:
        write_block_traces(traces, kernel, inputs, checked, stdout)
    if not checked.ok:
        raise ToolError(
            f"the kernel disagrees with the golden: error {checked.error:.3e} > "
            f"{checked.tolerance:g}"
        )


GRID_NOT_CONFIG = frozenset(
    {
        "command",
        "implementations",
        "activations",
        "scalings",
        "top_ks",
        "dtypes",
        "nkilib",
        "sample_tokens",
        "no_progress",
        "max_memory",
        "scheduler",
        "workers",
        "connect_timeout",
        "results",
        "summary",
    }
)
"""``grid`` options that do not change what a case computes (left out of its key)."""


def grid_settings(args: argparse.Namespace):  # noqa: ANN201
    """Where ``grid`` runs its cases (``--scheduler``, ``--workers``), checked before any
    work, with the ``--results`` and ``--summary`` files."""
    if args.scheduler is not None and args.workers is not None:
        raise ToolError(
            "--workers sizes the local cluster; with --scheduler the cluster has its own"
        )
    if not args.connect_timeout > 0:
        raise ToolError(f"--connect-timeout must be > 0 seconds, got {args.connect_timeout:g}")
    if args.scheduler is not None and "://" not in args.scheduler:
        raise ToolError(
            f"--scheduler {args.scheduler!r}: expected an address such as tcp://HOST:8786 "
            "(as `dask scheduler` prints it)"
        )
    for path in (args.results, args.summary):
        if path is not None:
            check_writable(path)
    return DaskSettings(args.scheduler, args.workers, args.connect_timeout)


def options_text(case: argparse.Namespace) -> str:
    """The options of a case beyond the grid's axes, as a short label."""
    parts = []
    if case.bias:
        parts.append("bias")
    for name in ("clamp_gate", "clamp_up"):
        limits = getattr(case, name)
        if limits:
            lo, hi = ("" if limit is None else f"{limit:g}" for limit in limits)
            parts.append(f"{name.replace('_', '-')}={lo},{hi}")
    if case.fp8_weights:
        parts.append("fp8-weights")
    if case.mx_weights:
        parts.append(f"mx-weights={case.mx_weights}")
    return " ".join(parts)


def grid_cases(args: argparse.Namespace) -> tuple[list, list[list]]:
    """The cases of ``grid`` (every combination of its lists, each kernel built to check
    it and to estimate its memory; a refused case is a ``ToolError``) and the lists."""
    if args.implementations is None:
        args.implementations = [m.name for m in MoECTEImplementation if not m.is_mx]
    lists = [getattr(args, plural) for plural, _ in GRID_AXES]
    if args.mx_weights and not any(MoECTEImplementation[i].is_mx for i in args.implementations):
        raise ToolError("--mx-weights applies to the MX variants only; the grid has none")
    cases = []
    for combination in itertools.product(*lists):
        case = argparse.Namespace(**vars(args))
        for (_, single), value in zip(GRID_AXES, combination, strict=True):
            setattr(case, single, value)
        if not MoECTEImplementation[case.implementation].is_mx:
            case.mx_weights = None  # the grid's --mx-weights is for its MX cases
        impl, act, scaling, top_k, dtype = combination
        label = f"case {impl} {act} {scaling} TopK={top_k} {dtype}: "
        try:
            kernel = build(case)
            needed = check_memory(kernel, case)
        except ToolError as err:
            raise ToolError(f"{label}{err}") from None
        s = kernel.sizes
        config = {
            "variant": impl,
            "activation": act,
            "scaling": scaling,
            "top_k": top_k,
            "dtype": dtype,
            "hidden": s.hidden,
            "intermediate": s.intermediate,
            "experts": s.experts,
            "tokens": s.tokens,
            "block_size": s.block_size,
            "blocks": s.blocks,
            "options": options_text(case),
            "target": case.target,
            "level": case.level,
            "seed": case.seed,
        }
        whole = {k: v for k, v in sorted(vars(case).items()) if k not in GRID_NOT_CONFIG}
        key = case_key({"kind": RUN, **whole})
        cases.append(GridCase(len(cases), RUN, key, config, needed, case))
    return cases, lists


def run_grid(args: argparse.Namespace, stdout: IO[str]) -> None:
    """Every combination of the grid's lists at the given sizes and options: all the
    kernels are built first (a refused case stops the grid before any run; the build also
    gives each case's memory estimate), then every case runs as a Dask task
    (mxdsl/tools/moe_grid.py), one row per case in case order."""
    settings = grid_settings(args)
    cases, lists = grid_cases(args)

    def header() -> None:
        print(
            f"grid: H={args.hidden} E={args.experts} T={args.tokens}, "
            f"{len(cases)} cases ({' x '.join(str(len(values)) for values in lists)})",
            file=stdout,
        )
        columns = f"{'variant':22s} {'activation':17s} {'scaling':10s} {'TopK':>4s} {'dtype':5s}"
        sizes = f"{'I':>5s} {'B':>5s} {'N':>4s}"
        print(
            f"{columns} {sizes} {'rel err':>9s}  {'tol':>5s} verdict kernel s",
            file=stdout,
            flush=True,
        )

    def write_row(row: dict) -> None:
        error = "-" if row["rel_error"] is None else f"{row['rel_error']:9.2e}"
        tolerance = "-" if row["tolerance"] is None else f"{row['tolerance']:5.0e}"
        seconds = "-" if row["kernel_s"] is None else f"{row['kernel_s']:8.2f}"
        verdict = {"ok": "ok", "failed": "FAILED"}.get(row["status"], "ERROR")
        reason = f" {row['error']}" if row["status"] == "error" else ""
        print(
            f"{row['variant']:22s} {row['activation']:17s} {row['scaling']:10s} "
            f"{row['top_k']:4d} {row['dtype']:5s} {row['intermediate']:5d} "
            f"{row['block_size']:5d} {row['blocks']:4d} {error:>9s}  {tolerance:>5s} "
            f"{verdict:7s} {seconds:>8s}{reason}",
            file=stdout,
            flush=True,
        )

    rows = run_grid_cases(cases, settings, args.results, write_row, not args.no_progress, header)
    finish_grid(args, rows, "cases", stdout)


def finish_grid(args: argparse.Namespace, rows: list[dict], what: str, stdout: IO[str]) -> None:
    """The summary line, ``--summary``'s table and PNG, and exit 1 if a row failed."""
    ok = sum(row["status"] == "ok" for row in rows)
    errors = sum(row["status"] == "error" for row in rows)
    failed = len(rows) - ok - errors
    no_verdict = f", {errors} with no verdict" if errors else ""
    print(f"{len(rows)} {what}: {ok} ok, {failed} failed{no_verdict}", file=stdout, flush=True)
    if args.summary:
        print(summary_table(rows), file=stdout, flush=True)
        summary_png(rows, args.summary)
    if ok < len(rows):
        verb = "disagree with their golden or raised" if what == "cases" else "failed"
        raise ToolError(f"{len(rows) - ok} of {len(rows)} {what} {verb}")


def run_nkilib(args: argparse.Namespace, stdout: IO[str]) -> None:
    """``grid --nkilib`` (mxdsl/tools/moe_grid.py), one Dask task per (variant, size);
    exit 1 if a size is refused or a sample run disagrees with its golden."""
    if args.sample_tokens < 0:
        raise ToolError(f"--sample-tokens must be >= 0, got {args.sample_tokens}")
    settings = grid_settings(args)
    names = args.implementations or [m.name for m in MoECTEImplementation]

    def header() -> None:
        print(
            f"{'variant':21s} {'H':>5s} {'B':>5s} {'I':>5s} {'target':6s} {'builds':>6s} "
            f"{'SBUF max':>9s} {'PSUM max':>9s} {'sets':>4s} {'chunk':>5s} "
            f"{'rel err':>9s} verdict",
            file=stdout,
            flush=True,
        )

    def write_row(row: dict) -> None:
        error = "-" if row["rel_error"] is None else f"{row['rel_error']:9.2e}"
        sbuf, psum = row["sbuf_bytes"] or 0, row["psum_bytes"] or 0
        verdict = "ok" if row["status"] == "ok" else f"FAILED: {row['error']}"
        print(
            f"{row['variant']:21s} {row['hidden']:5d} {row['block_size']:5d} "
            f"{row['intermediate']:5d} {row['target']:6s} {row['builds'] or 0:6d} "
            f"{sbuf / 1024:7.1f}Ki {psum / 1024:7.1f}Ki {row['block_sets'] or '-'!s:>4s} "
            f"{row['gate_up_chunk'] or '-'!s:>5s} {error:>9s} {verdict}",
            file=stdout,
            flush=True,
        )

    cases = nkilib_cases(names, args.sample_tokens)
    rows = run_grid_cases(cases, settings, args.results, write_row, not args.no_progress, header)
    finish_grid(args, rows, "sizes", stdout)


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Entry point; returns the exit code (0 success, 1 error, 2 bad command line or
    internal error)."""
    args = attach_clamp_values(sys.argv[1:] if argv is None else argv)
    return run_tool(TOOL, build_arg_parser(), run, ToolError, args, stdout)


def savez(stream: IO[bytes], arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` as an ``.npz`` into ``stream`` (so the file is exactly the name given:
    ``np.savez`` would add ``.npz`` to a path without it)."""
    write: Callable[..., None] = np.savez  # keys are array names, never options
    write(stream, **arrays)


NOTE_MEMORY = 1 << 30
"""A run that needs more than this many bytes says so before it starts."""


def console_main() -> None:
    """Run ``mx-moe``: exit with ``main``'s code; a closed stdout (``mx-moe grid ... |
    head -1``) stops quietly with exit 0 (a grid cancels its pending cases and keeps its
    finished rows in ``--results``); Ctrl-C and SIGTERM end with one line
    (:func:`console_exit`)."""
    console_exit(main, TOOL)


__all__ = [  # with what the case module gives (tests and benchmarks reach it here)
    "TOLERANCE",
    "USER_CHOSE_BLAS_THREADS",
    "ToolError",
    "attach_clamp_values",
    "build",
    "build_arg_parser",
    "check",
    "main",
    "problem",
    "seeded_inputs",
]

"""Benchmark ``mx-opt`` against ``xdsl-opt`` on the same inputs, in the same run.

Generates straight-line modules of N ``arith.addi`` (the yardstick upstream xDSL uses)
and, optionally, the emitted MoE kernel of ``mx-moe emit`` (default sizes) and a large
hlo graph (copies of ``examples/mx_matmul.mlir``'s MX matmul), then times
``TOOL FILE -o /dev/null`` (parse + verify + print) for both tools as subprocesses,
taking turns in every round so both see the same machine load; every figure is the
median of ``--repeat`` rounds. Prints each tool's CPU time (user + system of the
process: on a shared machine far steadier than the wall time, printed beside it), the
throughput ratio (``xdsl-opt time / mx-opt time``: >= 1 means mx-opt is as fast) and how
the mx-opt CPU time grows from the first size to the others (linear: 2x ops -> ~2x).
Beside the ratio of the medians it prints two steadier estimates for a machine whose
speed drifts from minute to minute: the median of the rounds' own ratios (the two runs
of a round see the same machine) and the ratio of the two tools' best rounds.

    python benchmarks/mx_opt.py [--sizes 20000,40000] [--repeat 5] [--moe] [--hlo 1000]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def addi_module(ops: int) -> str:
    """``func.func @main`` with ``ops`` chained ``arith.addi`` on i32."""
    lines = ["func.func @main(%a: i32) -> i32 {", "  %v0 = arith.addi %a, %a : i32"]
    lines += [f"  %v{i} = arith.addi %v{i - 1}, %a : i32" for i in range(1, ops)]
    lines += [f"  func.return %v{ops - 1} : i32", "}", ""]
    return "\n".join(lines)


def hlo_graph(copies: int) -> str:
    """``copies`` times the MX matmul graph of ``examples/mx_matmul.mlir`` (two QuantizeMX
    custom calls, four tuple elements, one block-scaled dot: 7 ops with MX contracts and
    JSON backend configs each), one function, every product returned."""
    source = (ROOT / "examples" / "mx_matmul.mlir").read_text()
    body = source.split("{\n", 1)[1].rsplit("  func.return", 1)[0]
    names = re.findall(r"%(\w+) =", body)
    lines = []
    for copy in range(copies):
        text = body
        for name in sorted(names, key=len, reverse=True):
            text = re.sub(rf"%{name}\b", f"%{name}_{copy}", text)
        lines.append(text)
    results = ", ".join(f"%y_{copy}" for copy in range(copies))
    types = ", ".join(["tensor<128x64xf32>"] * copies)
    head = f"func.func @main(%x: tensor<128x256xbf16>, %w: tensor<256x64xbf16>) -> ({types}) {{\n"
    return head + "".join(lines) + f"  func.return {results} : {types}\n}}\n"


def time_tool(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def compare(label: str, path: str, repeat: int) -> float:
    """Median times of both tools on ``path``; prints a row, returns mx-opt's time."""
    tools = {"xdsl-opt": shutil.which("xdsl-opt"), "mx-opt": shutil.which("mx-opt")}
    if not all(tools.values()):
        sys.exit("xdsl-opt and mx-opt must be on PATH (pip install -e .)")
    wall: dict[str, list[float]] = {name: [] for name in tools}
    cpu: dict[str, list[float]] = {name: [] for name in tools}
    for _ in range(repeat):
        for name, exe in tools.items():
            assert exe is not None
            seconds, cpu_seconds = time_tool([exe, path, "-o", os.devnull])
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
    xdsl, mx = (statistics.median(cpu[name]) for name in tools)
    xdsl_wall, mx_wall = (statistics.median(wall[name]) for name in tools)
    paired = statistics.median(x / m for x, m in zip(cpu["xdsl-opt"], cpu["mx-opt"], strict=True))
    best = min(cpu["xdsl-opt"]) / min(cpu["mx-opt"])
    print(
        f"{label:28s} CPU: xdsl-opt {xdsl:6.2f} s  mx-opt {mx:6.2f} s  "
        f"throughput mx-opt / xdsl-opt {xdsl / mx:4.2f} "
        f"(median of the rounds' ratios {paired:4.2f}, best rounds {best:4.2f})   "
        f"(wall: {xdsl_wall:6.2f} s, {mx_wall:6.2f} s, {xdsl_wall / mx_wall:4.2f})",
        flush=True,
    )
    return mx


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--sizes", default="20000,40000", help="arith.addi counts")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (median)")
    parser.add_argument("--moe", action="store_true", help="also the emitted MoE kernel")
    parser.add_argument(
        "--hlo", type=int, default=0, metavar="N", help="also N copies of the MX matmul graph"
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, median of {args.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        mx_times = []
        for ops in sizes:
            path = os.path.join(tmp, f"addi{ops}.mlir")
            with open(path, "w") as stream:
                stream.write(addi_module(ops))
            mx_times.append(compare(f"{ops} arith.addi", path, args.repeat))
        for ops, mx in zip(sizes[1:], mx_times[1:], strict=True):
            print(
                f"mx-opt growth {sizes[0]} -> {ops} ops: x{ops / sizes[0]:.1f} ops, "
                f"x{mx / mx_times[0]:.2f} time"
            )
        if args.hlo:
            path = os.path.join(tmp, "hlo.mlir")
            with open(path, "w") as stream:
                stream.write(hlo_graph(args.hlo))
            compare(f"MX matmul graph x{args.hlo} ({7 * args.hlo} ops)", path, args.repeat)
        if args.moe:
            path = os.path.join(tmp, "moe.mlir")
            subprocess.run(["mx-moe", "emit", "-o", path], check=True)
            compare("mx-moe emit (default sizes)", path, args.repeat)


if __name__ == "__main__":
    import performance_page

    sys.exit(performance_page.run(main, "mx_opt", "mx-opt against xdsl-opt"))

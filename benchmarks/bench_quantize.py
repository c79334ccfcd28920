"""Benchmark the MX quantize / dequantize against ``np.copy`` of the same input.

Quantizes a 4096 x 8192 bfloat16 array to float8_e4m3fn x4 + E8M0 along the last axis
(the HLO QuantizeMX layout, ``quantize_mx_packed``) and separately dequantizes the
result (``dequantize_mx_packed``), on two inputs: standard normal data, and the same
data with every row scaled by its own power of two ``2**k``, ``k`` uniform in
[-100, 100] (rows of widely different magnitude: every block has its own E8M0 across
most of the exponent range). The quantize runs once per thread count of ``--threads``
(default: 1 and every available CPU; the bits are the same, checked here). Every figure
is the best of ``--repeat`` runs in this one process, all operations taking turns in
every round (so all see the same machine: on a shared machine the load drifts between
rounds); the ratio is ``copy time / operation time`` with the copy of the bf16 input
as the yardstick (the same array, so the ratio is bandwidth relative to copy).
``np.copy`` is single-threaded, so a threaded quantize is compared with a one-core copy.

Each figure is given as CPU time of this process (``time.process_time``: every thread,
user + system, page faults included, but not the time other processes hold the CPU)
and as wall time. Threads shorten the wall time, not the CPU time (two threads spend at
least what one does): read a threaded figure in wall time, next to the load average
printed with it; a single-threaded one on a loaded machine in CPU time.

    python benchmarks/bench_quantize.py [--rows 4096] [--cols 8192] [--repeat 9]
                                        [--threads 1,2] [--chunk-elements N]
                                        [--check] [--reference]

``--chunk-elements`` overrides the fast path's chunk size (``fast.CHUNK_ELEMENTS``);
``--check`` also runs the reference path on the same array and asserts bit equality;
``--reference`` times the reference (straightforward numpy) path too.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import ml_dtypes
import numpy as np

from mxdsl.numerics import (
    MxFormat,
    dequantize_mx_packed,
    dequantize_mx_reference,
    fast,
    pack_fp8_x4,
    quantize_mx_packed,
    quantize_mx_reference,
    unpack_fp8_x4,
)

FMT = MxFormat.E4M3FN
BLOCK = (1, 32)


Result = TypeVar("Result")
Times = tuple[float, float, float, float]
"""(best CPU seconds of this process, best wall seconds, and in the round with the best
wall time: the CPU seconds and the seconds its threads waited for a CPU)."""


def run_queue_wait() -> float:
    """Seconds the threads of this process have spent runnable but waiting for a CPU
    (Linux ``/proc/self/task/*/schedstat``; 0 elsewhere)."""
    total = 0
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/schedstat") as stat:
                total += int(stat.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return total / 1e9


def best_times(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, Times]:
    """Best CPU and best wall time of each run over ``repeat`` rounds, the runs taking
    turns, and how long the best-wall round waited for a CPU."""
    cpu = dict.fromkeys(runs, float("inf"))
    wall = dict.fromkeys(runs, float("inf"))
    best_round = dict.fromkeys(runs, (0.0, 0.0))
    for _ in range(repeat):
        for name, run in runs.items():
            start_wait = run_queue_wait()
            start_cpu, start = time.process_time(), time.perf_counter()
            run()
            elapsed = time.perf_counter() - start
            spent = time.process_time() - start_cpu
            cpu[name] = min(cpu[name], spent)
            if elapsed < wall[name]:
                wall[name] = elapsed
                best_round[name] = (spent, run_queue_wait() - start_wait)
    return {name: (cpu[name], wall[name], *best_round[name]) for name in runs}


def timed(call: Callable[[], Result]) -> tuple[Result, Times]:
    """One call's result and its :data:`Times`."""
    start_wait = run_queue_wait()
    start_cpu, start = time.process_time(), time.perf_counter()
    result = call()
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return result, (cpu, wall, cpu, run_queue_wait() - start_wait)


def busiest_thread(call: Callable[[], object], repeat: int) -> float:
    """Best over ``repeat`` calls of the CPU time of the call's busiest thread: the
    caller's whole call, or a pool thread's chunks (timed by wrapping the kernel's
    ``run``). With every thread on a core of its own that is the call's wall time, less
    any slowdown from the threads sharing caches and memory: a model for a loaded
    machine, where the wall time cannot show what a second core brings."""
    run = fast._Bf16Quantizer.run
    caller = threading.get_ident()
    spent: dict[int, float] = {}

    def timed(self, *args):
        if threading.get_ident() == caller:
            return run(self, *args)
        start = time.thread_time()
        try:
            return run(self, *args)
        finally:
            ident = threading.get_ident()
            spent[ident] = spent.get(ident, 0.0) + time.thread_time() - start

    best = float("inf")
    setattr(fast._Bf16Quantizer, "run", timed)  # noqa: B010 (a method swapped for timing)
    try:
        for _ in range(repeat):
            spent.clear()
            start = time.thread_time()
            call()
            best = min(best, max([time.thread_time() - start, *spent.values()]))
    finally:
        setattr(fast._Bf16Quantizer, "run", run)  # noqa: B010
    return best


def report(name: str, times: Times, input_bytes: int, copy: Times) -> None:
    (cpu, wall, round_cpu, waited), (copy_cpu, copy_wall, *_) = times, copy
    print(
        f"  {name:<40} CPU {cpu * 1e3:7.2f} ms ({input_bytes / cpu / 1e9:5.2f} GB/s of input)"
        f" ratio to copy {copy_cpu / cpu:5.3f} | wall {wall * 1e3:7.2f} ms"
        f" ratio {copy_wall / wall:5.3f} (that round: CPU {round_cpu * 1e3:5.2f} ms,"
        f" waited for a CPU {waited * 1e3:5.2f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument(
        "--threads",
        default=f"1,{fast.available_cpus()}",
        help="comma-separated quantize thread counts (default: 1 and every available CPU)",
    )
    parser.add_argument("--chunk-elements", type=int, help="override fast.CHUNK_ELEMENTS")
    parser.add_argument("--check", action="store_true", help="assert fast == reference")
    parser.add_argument("--reference", action="store_true", help="time the reference too")
    args = parser.parse_args()

    if args.chunk_elements:
        fast.CHUNK_ELEMENTS = args.chunk_elements
    args.threads = sorted({int(t) for t in args.threads.split(",")})
    print(f"CPUs available: {fast.available_cpus()}; quantize threads: {args.threads}")

    rng = np.random.default_rng(0)
    normal = rng.standard_normal((args.rows, args.cols), dtype=np.float32)
    row_scale = np.ldexp(np.float32(1), rng.integers(-100, 101, (args.rows, 1)))
    inputs = {
        "standard normal": normal.astype(ml_dtypes.bfloat16),
        "rows scaled by 2**k, k in [-100, 100]": (normal * row_scale).astype(ml_dtypes.bfloat16),
    }
    for label, x in inputs.items():
        print(f"input: {args.rows} x {args.cols} bfloat16 ({x.nbytes / 2**20:.0f} MiB), {label}")
        print(f"  load average before: {load_average()}")
        measure(x, args)
        print(f"  load average after:  {load_average()}")


def load_average() -> str:
    """The 1 / 5 / 15-minute load averages (the other processes' demand for the CPUs)."""
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


def measure(x: np.ndarray, args: argparse.Namespace) -> None:
    """Time copy / quantize / dequantize of ``x`` and print them (and check on request)."""
    data, scale = quantize_mx_packed(x, FMT)
    for threads in args.threads:
        got = quantize_mx_packed(x, FMT, threads=threads)
        np.testing.assert_array_equal(got[0], data)
        np.testing.assert_array_equal(got[1], scale)
    quantize = {
        f"quantize_mx_packed, {t} thread{'s' if t > 1 else ''}": (
            lambda t=t: quantize_mx_packed(x, FMT, threads=t)
        )
        for t in args.threads
    }
    best = best_times(
        {
            "copy": lambda: np.copy(x),
            **quantize,
            "dequantize": lambda: dequantize_mx_packed(data, scale, FMT),
        },
        args.repeat,
    )
    copy = best["copy"]
    report("np.copy (bf16 input, 1 thread)", copy, x.nbytes, copy)
    for (name, call), threads in zip(quantize.items(), args.threads, strict=True):
        report(name, best[name], x.nbytes, copy)
        if threads > 1:
            busiest = busiest_thread(call, args.repeat)
            print(
                f"  {'  its busiest thread':<40} CPU {busiest * 1e3:7.2f} ms"
                f" ratio to copy {copy[0] / busiest:5.3f} (= wall on {threads} idle cores,"
                " less memory contention: a model)"
            )
    report("dequantize_mx_packed (1 thread)", best["dequantize"], data.nbytes + scale.nbytes, copy)

    if not (args.reference or args.check):
        return
    (codes, ref_scale), reference = timed(lambda: quantize_mx_reference(x, FMT, BLOCK))
    ref_values, reference_dequantize = timed(
        lambda: dequantize_mx_reference(unpack_fp8_x4(data), scale, FMT, BLOCK)
    )
    report("reference quantize", reference, x.nbytes, copy)
    report("reference dequantize", reference_dequantize, data.nbytes + scale.nbytes, copy)
    if args.check:
        np.testing.assert_array_equal(pack_fp8_x4(codes), data)
        np.testing.assert_array_equal(ref_scale, scale)
        values = dequantize_mx_packed(data, scale, FMT)
        np.testing.assert_array_equal(values.view(np.uint32), ref_values.view(np.uint32))
        print("  fast == reference, bit for bit (every thread count)")


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(
            main, "bench_quantize", "the MX quantize and dequantize against np.copy"
        )
    )

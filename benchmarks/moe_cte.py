"""Benchmark the MoE-CTE nisa kernels in the interpreter against their PE floor.

For each variant: build the kernel, draw routed inputs, run it on 2 simulated cores
(``MoECTEKernel.run``: the SPMD interpreter, the two cores at once, each in a process
of its own) and the dense
numpy golden in the same process, and time the **PE floor**: the golden's matmuls done as
the kernel's PE passes do them, with no interpreter (a float64 ``np.matmul`` per K tile of
128, or 512 for MX, rounded to fp32 and accumulated in fp32; for the MX variants the MX
PE floor, the dequantized operands' float64 passes). Per variant it prints the kernel
time, the floor, **kernel / floor** (the target: <= 1.25; what the interpreter adds
to the arithmetic any bit-exact run does), the golden time, kernel / golden and floor /
golden (what the semantics alone cost on this machine), each from wall time and again
from CPU time (``cpu_``: this process's and its ended children's, so both cores' in
either schedule; on a shared, overloaded machine the steadier measure), the relative
Frobenius error and how many PE-pass outputs took the exact path (in the in-turn run). After
each parallel run the kernel runs again in turn (``schedule="in-turn"``: one core at a
time; its output bits must equal the parallel run's) and in turn without the HBM race
check: **par/in-turn** is the parallel ÷ in-turn kernel wall time (``cpu_par/in-turn``
the same from CPU time, which counts both cores), **race_check** the in-turn
run's CPU time over the unchecked one's, minus 1 (the check's cost, from CPU
time: steadier than wall time on a shared machine; ``--no-schedules`` skips these
runs), **cpu_core/in-turn** the CPU time of the busier core's process in the parallel
run over the in-turn run's CPU time: what par/in-turn comes to on an idle machine with a
CPU per core, from CPU time (nan when the cores ran as threads). The
machine's load averages are printed before and after. ``cpu_pe_s`` splits the in-turn
run's CPU time (its cores are threads of this process, where the PE passes can be
timed): the part spent in the PE passes (``mxdsl.numerics.matmul.pe_passes_into`` /
``pe_pass_into`` as the nisa interpreter calls them: the dgemms, the exactness
certificate and exact path, the fp32 PSUM writes), the rest being the interpreter's
(dispatch, views, operand analysis and widening, MX dequantization, DMAs, the other
engines' ops); ``cpu_pe/floor`` is that part over the floor.

Timed for the kernel: ``MoECTEKernel.run`` (read-only views of the inputs, zeroed outputs,
building the 2 per-core interpreters, the SPMD run); building the kernel's IR and drawing
the inputs are not timed, and one interpreter is built before timing so that loading the
interpreter modules is not either. Timed for the golden: the golden function on the same
inputs, once before the first kernel run and once after each (its best time counts: a
kernel run can leave the process in a state where the golden runs up to ~15 % slower, and
the other way round). Defaults are the issue's sizes:

    python benchmarks/moe_cte.py [--hidden 3072] [--intermediate 2048] [--experts 8]
        [--tokens 1024] [--block-size 512] [--top-k 4] [--dtype bf16]
        [--variants shard_on_block,shard_on_i,...] [--repeat 1] [--blas-threads N]
        [--mx-weights fp8_e4m3fn|fp8_e5m2|fp4_e2m1] [--reference]

``--reference`` also runs each kernel once in the interpreters' reference mode (every op
one at a time: ``docs/interpreter.md``, "The fast path and the reference mode") and
prints its time, its ratio to the fast path's best run (``ref/kernel``) and whether the
two gave the same output bits (``same``).

The MX variants (shard_on_block_mx, shard_on_i_mx, shard_on_i_mx_hybrid) are timed
against their MX-aware golden (weights dequantized from the MX layouts, activations
MXFP8 round-tripped: ``mxdsl.kernels.moe_cte.reference.mx.mx_golden_for``).

shard_on_i_dropping uses its own layout (N = E blocks of capacity B = T * TopK / E,
rounded up to a multiple of 256). Small sizes for a quick look:
``--hidden 512 --intermediate 256 --experts 4 --tokens 100 --block-size 256 --top-k 2``.

``--blas-threads N`` sets OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS before
numpy loads (default 1; 0 leaves the environment alone). The interpreter's tile matmuls are
small and its two cores are two threads already, so 1 compares like with like; with 2, the golden's
large matmuls use both CPUs (and, on a busy machine, OpenBLAS threads fighting over the
CPUs can slow the interpreter's small matmuls several times).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

VARIANTS = ["shard_on_block", "shard_on_i", "shard_on_i_hybrid", "shard_on_i_dropping"]
MX_VARIANTS = ["shard_on_block_mx", "shard_on_i_mx", "shard_on_i_mx_hybrid"]


def sizes_for(impl: Any, args: argparse.Namespace) -> Any:
    from mxdsl.kernels.moe_cte import MoECTEImplementation, MoECTESizes

    if impl == MoECTEImplementation.shard_on_i_dropping:
        capacity = -(-args.tokens * args.top_k // args.experts)
        block = -(-capacity // 256) * 256
        return MoECTESizes(
            args.hidden,
            args.intermediate,
            args.experts,
            args.tokens,
            block,
            args.top_k,
            n_blocks=args.experts,
        )
    return MoECTESizes(
        args.hidden, args.intermediate, args.experts, args.tokens, args.block_size, args.top_k
    )


def pe_floor(sizes: Any, inputs: Any, k_tile: int, repeat: int) -> tuple[float, float]:
    """Best time of the golden's matmuls (per expert: its routed rows times the gate/up
    and the down weights) done as bare float64 PE passes, with no interpreter around
    them: one float64 ``np.matmul`` per K tile of ``k_tile``, rounded to fp32 and
    accumulated in fp32 (operands already float64). That is the arithmetic any bit-exact
    run of the kernels performs at least; the exactness certificate and exact path of
    ``mxdsl.numerics.matmul`` are left out, so the kernel's ratio to this floor includes
    their cost. Random bf16 values stand in for the experts' (the time does not depend
    on them). Returns the best wall time and the best process CPU time (on a shared,
    overloaded machine the CPU time is the steadier measure of the same work). For the MX
    variants (``k_tile`` 512) this is the **MX PE floor**: the dequantized operands'
    float64 passes (values held in float64 whatever their format; the dequantization
    itself is left out, as the interpreter does it once per operand)."""
    import ml_dtypes
    import numpy as np

    from mxdsl.kernels.moe_cte.reference.golden import routed_pairs

    arrays = inputs.arrays
    routed = routed_pairs(
        arrays["token_position_to_id"],
        arrays["block_to_expert"],
        sizes.tokens,
        sizes.experts,
        inputs.active_blocks,
    )
    rows = [int(r) for r in routed.sum(axis=0) if r]
    rng = np.random.default_rng(0)

    def bf16_values(shape: tuple[int, int]) -> np.ndarray:
        return rng.standard_normal(shape).astype(ml_dtypes.bfloat16).astype(np.float64)

    gate_up = bf16_values((sizes.hidden, 2 * sizes.intermediate))
    down = bf16_values((sizes.intermediate, sizes.hidden))
    hidden = bf16_values((max(rows, default=0), sizes.hidden))
    intermediate = bf16_values((max(rows, default=0), sizes.intermediate))

    def passes(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        total = np.matmul(lhs[:, :k_tile], rhs[:k_tile]).astype(np.float32)
        for start in range(k_tile, lhs.shape[1], k_tile):
            total += np.matmul(lhs[:, start : start + k_tile], rhs[start : start + k_tile]).astype(
                np.float32
            )
        return total

    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        for r in rows:
            passes(hidden[:r], gate_up)
            passes(intermediate[:r], down)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu


def cpu_time() -> float:
    """CPU time of this process and of its children that ended (the simulated cores'
    processes, reaped before ``MoECTEKernel.run`` returns)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class PassClock:
    """CPU time (of the calling thread: the in-turn run's cores are threads) spent in the
    nisa interpreter's calls of the PE-pass functions, while installed (``with``)."""

    NAMES = ("pe_passes_into", "pe_pass_into")

    def __init__(self) -> None:
        self.seconds = 0.0
        self._saved: dict[str, Any] = {}

    def _timed(self, function: Any) -> Any:
        def timed(*args: Any) -> Any:
            start = time.thread_time()
            try:
                return function(*args)
            finally:
                self.seconds += time.thread_time() - start

        return timed

    def __enter__(self) -> PassClock:
        from mxdsl.interpreters import nisa_engine

        for name in self.NAMES:
            self._saved[name] = getattr(nisa_engine, name)
            setattr(nisa_engine, name, self._timed(self._saved[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        from mxdsl.interpreters import nisa_engine

        for name, function in self._saved.items():
            setattr(nisa_engine, name, function)


def bench(name: str, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from mxdsl.interpreters.spmd_processes import CORE_CPU
    from mxdsl.kernels.moe_cte import (
        MoECTEImplementation,
        MoECTEOptions,
        MoECTESpec,
        build_moe_cte,
        progress_bar,
    )
    from mxdsl.kernels.moe_cte.reference import golden_for, make_inputs, relative_error
    from mxdsl.numerics.exact import EXACT_PATH
    from mxdsl.numerics.matmul import MATMUL_K_TILE, MX_MATMUL_K_TILE

    impl = MoECTEImplementation[name]
    spec = MoECTESpec(impl)
    sizes = sizes_for(impl, args)
    options = MoECTEOptions(dtype=args.dtype, mx_weights=args.mx_weights)
    kernel = build_moe_cte(spec, sizes, options)
    reference = golden_for
    if impl.is_mx:  # checked against the MX-aware golden (docs/moe-cte-mx.md)
        from mxdsl.kernels.moe_cte.reference.mx import make_mx_inputs, mx_golden_for

        inputs = make_mx_inputs(spec, sizes, options, seed=0)
        reference = mx_golden_for
    else:
        inputs = make_inputs(spec, sizes, options, seed=0)
    # one-off costs outside the timed region (the golden pays none): loading the
    # interpreter entry points and xDSL's interpreter modules
    from mxdsl.interpreters import make_interpreter

    make_interpreter(kernel.module)
    kernel_times: list[float] = []
    kernel_cpu: list[float] = []
    outputs: dict[str, Any] = {}

    def timed_golden() -> tuple[np.ndarray, float, float]:
        start, start_cpu = time.perf_counter(), time.process_time()
        result = reference(spec, sizes, options, inputs, threads=1)  # on one CPU
        return result, time.perf_counter() - start, time.process_time() - start_cpu

    # the golden runs before the first kernel run and after each: what ran before it in
    # the process moves its time by up to ~15 %, and the best of all counts
    golden, first, first_cpu = timed_golden()
    golden_times, golden_cpu = [first], [first_cpu]
    pe_cpu: list[float] = []
    turn_times: list[float] = []
    turn_cpu: list[float] = []
    unchecked_cpu: list[float] = []
    exact, pe_outputs = -1, -1
    core_cpu: list[float] = []
    for _ in range(args.repeat):
        progress = progress_bar(sum(inputs.active_blocks)) if args.progress else None
        start, start_cpu = time.perf_counter(), cpu_time()
        outputs = kernel.run(inputs.arrays, progress)
        kernel_times.append(time.perf_counter() - start)
        kernel_cpu.append(cpu_time() - start_cpu)
        core_cpu.append(max(CORE_CPU.values(), default=float("nan")))
        golden, seconds, cpu = timed_golden()
        golden_times.append(seconds)
        golden_cpu.append(cpu)
        if args.no_schedules:
            continue
        # the in-turn schedule (one core at a time, threads of this process: its PE
        # passes are timed here), with and without the race check
        EXACT_PATH.reset()
        with PassClock() as clock:
            start, start_cpu = time.perf_counter(), cpu_time()
            in_turn = kernel.run(inputs.arrays, schedule="in-turn")
            turn_times.append(time.perf_counter() - start)
            turn_cpu.append(cpu_time() - start_cpu)
        pe_cpu.append(clock.seconds)
        exact, pe_outputs = EXACT_PATH.exact, EXACT_PATH.outputs
        for key, value in outputs.items():
            assert value.tobytes() == in_turn[key].tobytes(), f"{name}: {key} differs in turn"
        start = cpu_time()
        kernel.run(inputs.arrays, schedule="in-turn", races=False)
        unchecked_cpu.append(cpu_time() - start)
    reference_s, same = float("nan"), "-"
    if args.reference:
        start = time.perf_counter()
        slow = kernel.run(inputs.arrays, None, fast_path=False)
        reference_s = time.perf_counter() - start
        same = "yes" if _same_bits(slow, outputs) else "NO"
    out = outputs["output"]
    if out.ndim == 3:  # plane 0 holds the sum ([2, T+1, H] for the MX block shard)
        out = out[0] if impl.is_mx else out[:, 0]
    error = relative_error(out[: sizes.tokens].astype(np.float32), golden)
    k_tile = MX_MATMUL_K_TILE if impl.is_mx else MATMUL_K_TILE
    floor, floor_cpu = pe_floor(sizes, inputs, k_tile, max(2, args.repeat))
    return {
        "variant": name,
        "N": sizes.blocks,
        "B": sizes.block_size,
        "kernel_s": min(kernel_times),
        "golden_s": min(golden_times),
        "floor_s": floor,
        "kernel_cpu_s": min(kernel_cpu),
        "pe_cpu_s": min(pe_cpu, default=float("nan")),  # of the in-turn runs
        "golden_cpu_s": min(golden_cpu),
        "floor_cpu_s": floor_cpu,
        "error": error,
        "exact": exact,
        "pe_outputs": pe_outputs,
        "reference_s": reference_s,
        "same": same,
        "core_cpu_s": min(core_cpu),
        "in_turn_s": min(turn_times, default=float("nan")),
        "in_turn_cpu_s": min(turn_cpu, default=float("nan")),
        "unchecked_cpu_s": min(unchecked_cpu, default=float("nan")),
    }


def _same_bits(a: dict[str, Any], b: dict[str, Any]) -> bool:
    import numpy as np

    return a.keys() == b.keys() and all(
        np.ascontiguousarray(a[k]).view(np.uint8).tobytes()
        == np.ascontiguousarray(b[k]).view(np.uint8).tobytes()
        for k in a
    )


COLUMNS = (
    ("variant", "<22s"),
    ("N", "4d"),
    ("B", "5d"),
    ("kernel_s", "9.2f"),
    ("floor_s", "8.3f"),
    ("kernel/floor", "12.2f"),
    ("in_turn_s", "9.2f"),
    ("par/in-turn", "11.2f"),
    ("cpu_par/in-turn", "15.2f"),
    ("race_check", "10.1%"),
    ("cpu_core/in-turn", "16.2f"),
    ("golden_s", "9.3f"),
    ("kernel/golden", "13.2f"),
    ("floor/golden", "12.2f"),
    ("cpu_kernel_s", "12.2f"),
    ("cpu_floor_s", "11.3f"),
    ("cpu_kernel/floor", "16.2f"),
    ("cpu_golden_s", "12.3f"),
    ("cpu_kernel/golden", "17.2f"),
    ("cpu_pe_s", "8.2f"),
    ("cpu_pe/floor", "12.2f"),
    ("rel_err", "9.2e"),
    ("exact-path/outputs", ">24s"),
    ("ref_kernel_s", "12.2f"),
    ("ref/kernel", "10.2f"),
    ("same", ">4s"),
)
"""The printed columns: wall times (best of the runs) and their ratios, then the same
from CPU time (``cpu_``), the in-turn run's CPU time in the PE passes
(:class:`PassClock`) and its ratio to the floor, the relative error and the exact-path
count."""


def row_values(r: dict[str, Any]) -> list[Any]:
    """One variant's values in :data:`COLUMNS` order."""
    return [
        r["variant"],
        r["N"],
        r["B"],
        r["kernel_s"],
        r["floor_s"],
        r["kernel_s"] / r["floor_s"],
        r["in_turn_s"],
        r["kernel_s"] / r["in_turn_s"],
        r["kernel_cpu_s"] / r["in_turn_cpu_s"],
        r["in_turn_cpu_s"] / r["unchecked_cpu_s"] - 1,
        r["core_cpu_s"] / r["in_turn_cpu_s"],
        r["golden_s"],
        r["kernel_s"] / r["golden_s"],
        r["floor_s"] / r["golden_s"],
        r["kernel_cpu_s"],
        r["floor_cpu_s"],
        r["kernel_cpu_s"] / r["floor_cpu_s"],
        r["golden_cpu_s"],
        r["kernel_cpu_s"] / r["golden_cpu_s"],
        r["pe_cpu_s"],
        r["pe_cpu_s"] / r["floor_cpu_s"],
        r["error"],
        f"{r['exact']}/{r['pe_outputs']}",
        r["reference_s"],
        r["reference_s"] / r["kernel_s"],
        r["same"],
    ]


def _width(fmt: str) -> int:
    return int(fmt.split(".")[0].strip("<>sdfe"))


def load() -> str:
    """The machine's load averages (1, 5, 15 min), as ``uptime`` prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--hidden", type=int, default=3072)
    parser.add_argument("--intermediate", type=int, default=2048)
    parser.add_argument("--experts", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--block-size", type=int, default=512)
    parser.add_argument("--top-k", type=int, default=4)
    parser.add_argument("--dtype", choices=["bf16", "f32"], default="bf16")
    parser.add_argument("--variants", default=",".join(VARIANTS + MX_VARIANTS))
    parser.add_argument(
        "--mx-weights",
        choices=["fp8_e4m3fn", "fp8_e5m2", "fp4_e2m1"],
        default="fp8_e4m3fn",
        help="weight format of the MX variants",
    )
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--progress", action="store_true", help="progress bar on stderr")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also time one run in the interpreters' reference mode and compare its bits",
    )
    parser.add_argument(
        "--no-schedules",
        action="store_true",
        help="skip the in-turn runs (par/in-turn and race_check are then nan)",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS threads, set before numpy loads (default 1; 0 = leave the environment)",
    )
    args = parser.parse_args()
    known = VARIANTS + MX_VARIANTS
    unknown = [v.strip() for v in args.variants.split(",") if v.strip() not in known]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    if args.blas_threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.blas_threads)
    print(
        f"H={args.hidden} I={args.intermediate} E={args.experts} T={args.tokens} "
        f"B={args.block_size} TopK={args.top_k} dtype={args.dtype} (best of {args.repeat}; "
        f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}; "
        f"load average: {load()})"
    )
    print(
        " ".join(
            f"{name:{fmt[0] if fmt[0] in '<>' else '>'}{_width(fmt)}}" for name, fmt in COLUMNS
        )
    )
    for name in args.variants.split(","):
        r = bench(name.strip(), args)
        print(
            " ".join(f"{v:{fmt}}" for v, (_, fmt) in zip(row_values(r), COLUMNS, strict=True)),
            flush=True,
        )
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(
            main, "moe_cte", "the MoE-CTE kernels against their golden and the PE floor"
        )
    )

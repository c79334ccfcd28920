"""The MoE-CTE kernels on the BIR simulator twin: each variant emitted, lowered to bir
(``mx-moe --level bir``), run on 2 simulated cores at both levels on the same seeded
inputs; the outputs must be bit-identical (every output argument, raw bytes). Reports
the lowering time, the nisa and bir run times (CPU time of the process) and their ratio
(the target: the bir run at most 2x the nisa run), and the wall times.

    python benchmarks/moe_bir.py [--hidden 3072] [--variants shard_on_block,...]
        [--repeat N] [any other mx-moe run option, e.g. --tokens 100 --experts 4]

Timed: ``MoECTEKernel.run`` (the SPMD run) at each level, nisa first (so loading the
interpreter modules is in the nisa time), best of ``--repeat`` runs, and
``lower-nisa-to-bir`` on its own. CPU time is the measure: the simulated cores are
threads of this process that run one at a time, so it is the simulation's own cost,
which a loaded machine disturbs far less than the wall time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from mxdsl.tools import mx_moe
from mxdsl.transforms.lower_nisa_to_bir import lower_nisa_to_bir

VARIANTS = [
    "shard_on_block",
    "shard_on_i",
    "shard_on_i_hybrid",
    "shard_on_i_dropping",
    "shard_on_block_mx",
    "shard_on_i_mx",
    "shard_on_i_mx_hybrid",
]


def _timed(run: Callable[[Any], Any], inputs: Any, repeat: int) -> tuple[float, float, Any]:
    """``run(inputs)`` ``repeat`` times: the least wall time, the least CPU time of the
    process over one run (the cores are threads of this process, run one at a time), and
    the first run's result."""
    walls, cpus, first = [], [], None
    for i in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run(inputs)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        first = result if i == 0 else first
    return min(walls), min(cpus), first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--hidden", default="3072")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--repeat", type=int, default=1, help="runs per level (best taken)")
    known, rest = parser.parse_known_args()
    moe = mx_moe.build_arg_parser()
    print(
        f"{'variant':22s} {'H':>5s} {'I':>5s} {'lower s':>8s} {'nisa s':>7s} {'bir s':>7s} "
        f"{'bir/nisa':>8s} {'wall n/b':>11s} bit-identical"
    )
    failures = 0
    for variant in known.variants.split(","):
        argv = ["run", "--implementation", variant, "--hidden", known.hidden, *rest]
        nisa_args = moe.parse_args(argv)
        nisa_kernel = mx_moe.build(nisa_args)
        bir_kernel = mx_moe.build(nisa_args)  # lowered below, timed alone
        start = time.perf_counter()
        replaced = lower_nisa_to_bir(bir_kernel.module)
        lowering = time.perf_counter() - start
        bir_kernel.progress_ops = [replaced.get(o, o) for o in bir_kernel.progress_ops]
        inputs = mx_moe.seeded_inputs(nisa_kernel, nisa_args).arrays
        nisa_wall, nisa_time, expected = _timed(nisa_kernel.run, inputs, known.repeat)
        bir_wall, bir_time, got = _timed(bir_kernel.run, inputs, known.repeat)
        same = sorted(got) == sorted(expected) and all(
            got[k].tobytes() == v.tobytes() for k, v in expected.items()
        )
        failures += not same
        sizes = nisa_kernel.sizes
        print(
            f"{variant:22s} {sizes.hidden:5d} {sizes.intermediate:5d} {lowering:8.2f} "
            f"{nisa_time:7.2f} {bir_time:7.2f} {bir_time / nisa_time:8.2f} "
            f"{nisa_wall:5.2f}/{bir_wall:5.2f} "
            f"{'yes' if same else 'NO'} ({len(expected)} outputs)",
            flush=True,
        )
    return 1 if failures else 0


if __name__ == "__main__":
    import performance_page

    sys.exit(performance_page.run(main, "moe_bir", "the MoE-CTE kernels at bir against nisa"))

"""Cost of mxdsl's elementary functions on one activation tile, against plain numpy.

The nisa / bir interpreters evaluate ``nisa.activation`` in float64 with
``mxdsl.numerics.elementary`` (the same bits on every machine: ``docs/numerics.md``,
"Elementary functions"); before they were pinned they called numpy's SIMD ``np.exp``. This times,
on a ``[128, 512]`` float32 tile (a PSUM tile of the MoE kernels; standard normal times
3, rounded to f32 and widened to float64 as ``run_activation`` does):

* the plain-numpy baselines: ``np.exp`` (every ratio's denominator), the old-style
  ``1 / (1 + np.exp(-x))`` sigmoid and ``x / (1 + np.exp(-x))`` SiLU, ``np.tanh``;
* every function of ``mxdsl.numerics.elementary`` an activation reaches (``log`` on
  ``|x| + 1e-3``, ``log1p`` on ``|x|``).

All functions take turns within each round (so a burst of load hits every row alike);
a row's figure is its best round, one round being ``--calls`` calls. It prints
microseconds per call in CPU time of the process (the figure to read on a shared
machine) and in wall time, nanoseconds per element and the CPU-time ratio to
``np.exp`` measured in the same run.

    python benchmarks/elementary.py [--rounds 20] [--calls 5] [--rows 128] [--cols 512]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np

from mxdsl.numerics import elementary as E

Fn = Callable[[np.ndarray], np.ndarray]


def baselines() -> dict[str, Fn]:
    """Plain numpy (libm / SIMD; not bit-stable across machines)."""
    return {
        "np.exp": np.exp,
        "numpy sigmoid 1/(1+exp(-x))": lambda x: 1.0 / (1.0 + np.exp(-x)),
        "numpy SiLU x/(1+exp(-x))": lambda x: x / (1.0 + np.exp(-x)),
        "np.tanh": np.tanh,
    }


def project() -> dict[str, Fn]:
    """mxdsl.numerics.elementary, each on a valid part of its domain."""
    rows: dict[str, Fn] = {}
    for name in (
        "exp", "expm1", "sigmoid", "silu", "tanh", "softplus", "gelu_apprx_sigmoid",
        "gelu_apprx_tanh", "erf", "erfc", "gelu",
    ):  # fmt: skip
        rows[name] = getattr(E, name)
    rows["log (|x| + 1e-3)"] = lambda x: E.log(np.abs(x) + 1e-3)
    rows["log1p (|x|)"] = lambda x: E.log1p(np.abs(x))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--rows", type=int, default=128)
    parser.add_argument("--cols", type=int, default=512)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    tile = (rng.standard_normal((args.rows, args.cols)) * 3).astype(np.float32)
    x = tile.astype(np.float64)
    functions = baselines() | project()
    cpu = dict.fromkeys(functions, float("inf"))
    wall = dict.fromkeys(functions, float("inf"))
    load = os.getloadavg()
    with np.errstate(all="ignore"):
        for fn in functions.values():
            fn(x)  # warm up (erfcx's tables are built on first use)
        for _ in range(args.rounds):
            for name, fn in functions.items():
                c, w = time.process_time(), time.perf_counter()
                for _ in range(args.calls):
                    fn(x)
                cpu[name] = min(cpu[name], (time.process_time() - c) / args.calls)
                wall[name] = min(wall[name], (time.perf_counter() - w) / args.calls)
    n = x.size
    print(
        f"[{args.rows}, {args.cols}] float32 tile widened to float64 ({n} elements); best of "
        f"{args.rounds} rounds x {args.calls} calls; load average {load[0]:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after"
    )
    print(f"{'function':30s} {'CPU us':>9s} {'wall us':>9s} {'ns/elem':>8s} {'/ np.exp':>9s}")
    for name in functions:
        print(
            f"{name:30s} {cpu[name] * 1e6:9.0f} {wall[name] * 1e6:9.0f} "
            f"{cpu[name] * 1e9 / n:8.2f} {cpu[name] / cpu['np.exp']:9.2f}"
        )


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(main, "elementary", "the pinned elementary functions against np.exp")
    )

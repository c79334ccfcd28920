"""The cost of the exact PE pass (``docs/numerics.md``, "The PE pass and PSUM"): per
output, the per-product limb path and the piecewise BLAS route, and a whole pass on
realistic bf16 and f32 data against a bare float64 ``np.matmul`` of the same shape, timed
in the same process. Prints how many outputs each pass sent down the exact path."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs")
    parser.add_argument("--outputs", type=int, default=4096, help="outputs per exact-path call")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    import ml_dtypes
    import numpy as np

    from mxdsl.numerics.exact import EXACT_PATH, exact_sums
    from mxdsl.numerics.matmul import PePass, pe_operand, pe_passes_into

    rng = np.random.default_rng(0)
    print(f"{'case':44s} {'time':>10s} {'per output':>12s} {'vs bare dgemm':>14s}")
    for k in (128, 512):
        lhs = rng.standard_normal((args.outputs, k)).astype(np.float32).astype(np.float64)
        rhs = rng.standard_normal((args.outputs, k)).astype(np.float32).astype(np.float64)
        seconds = best(lambda lhs=lhs, rhs=rhs: exact_sums(lhs, rhs), args.repeat)
        print(
            f"{f'limb path, K = {k}, {args.outputs} outputs':44s} {seconds * 1e3:8.2f}ms "
            f"{seconds / args.outputs * 1e6:10.2f}us {'':>14s}"
        )
    for name, dtype in (("bf16", ml_dtypes.bfloat16), ("f32", np.float32)):
        for label, spread in (("normal data", 0), ("cancelling pairs", 1)):
            stationary = rng.standard_normal((128, 128)).astype(dtype)
            moving = rng.standard_normal((128, 512)).astype(dtype)
            if spread:
                stationary[0], stationary[-1] = 2.0**40, -(2.0**40)
                moving[-1] = moving[0]
            dst = np.empty((128, 512), dtype=np.float32)

            def exact_pass(s=stationary, m=moving, d=dst) -> None:
                pe_passes_into(pe_operand(m), [PePass(d, pe_operand(s), False)])

            wide_s, wide_m = stationary.astype(np.float64), moving.astype(np.float64)
            bare = best(
                lambda s=wide_s, m=wide_m: np.matmul(s.T, m).astype(np.float32), args.repeat
            )
            EXACT_PATH.reset()
            seconds = best(exact_pass, args.repeat)
            exact = EXACT_PATH.exact // args.repeat
            case = f"{name} pass 128x128x512, {label}"
            print(
                f"{case:44s} {seconds * 1e3:8.2f}ms {seconds / dst.size * 1e6:10.3f}us "
                f"{seconds / bare:13.2f}x  ({exact} of {dst.size} outputs exact)"
            )


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(
            main, "exact_pass", "the exact path of a PE pass against a bare float64 matmul"
        )
    )

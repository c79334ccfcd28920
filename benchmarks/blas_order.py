"""Does this machine's fp32 matmul sum in partition order? (docs/moe-cte.md, "Why not fp32
PE passes")

An fp32 PE-pass model would be bit-exact at BLAS speed only if ``np.matmul`` in float32
summed each output's K products one after the other, in K order, each step one fp32
rounding (a sequential FMA fold: the order in which a weight-stationary systolic array
accumulates). This compares ``A.T @ B`` in float32 with that fold, computed here in
numpy (each step's product exact in float64, the sum rounded to fp32), on bf16-valued
operands spread over 2^-8 .. 2^8, for the K of one ``nc_matmul`` pass (128) and of one
``nc_matmul_mx`` pass (512) and a few M x N shapes, and prints which agree bit for bit::

    python benchmarks/blas_order.py [--k 128,512] [--seed 0]

The answer depends on the BLAS kernel numpy picked for the CPU (OPENBLAS_CORETYPE
forces one). On one 2-vCPU machine OpenBLAS's SkylakeX kernels agreed for
every M, N >= 2 at K = 128 but only up to 16 x 16 at K = 512, numpy's gemv / dot paths
(M or N = 1) never, and the Haswell kernels differed at K = 128 from 16 x 16 up.
"""

from __future__ import annotations

import argparse
import os
import sys

import ml_dtypes
import numpy as np

SHAPES = [(2, 2), (3, 5), (16, 16), (100, 37), (128, 128), (128, 512), (512, 512), (1, 64)]


def bf16_values(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Random bf16 values with exponents spread over 2^-8 .. 2^8, as float32."""
    values = rng.standard_normal(shape) * np.exp2(rng.integers(-8, 9, shape))
    return values.astype(ml_dtypes.bfloat16).astype(np.float32)


def sequential_fold(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``lhs[M, K] @ rhs[K, N]`` summed in K order from +0, each step ``fl32(acc + a*b)``
    (the product exact in float64, one rounding to fp32 per step: an FMA)."""
    acc = np.zeros((lhs.shape[0], rhs.shape[1]), dtype=np.float32)
    for k in range(lhs.shape[1]):
        step = acc.astype(np.float64) + lhs[:, k, None].astype(np.float64) * rhs[None, k, :]
        acc = step.astype(np.float32)
    return acc


def agrees(k: int, m: int, n: int, rng: np.random.Generator) -> bool:
    stationary, moving = bf16_values(rng, (k, m)), bf16_values(rng, (k, n))
    blas = stationary.T @ moving
    return bool(
        np.array_equal(blas.view(np.uint32), sequential_fold(stationary.T, moving).view(np.uint32))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--k", default="128,512", help="contraction sizes (default 128,512)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        ks = [int(k) for k in args.k.split(",")]
    except ValueError:
        parser.error(f"--k takes comma-separated integers, got {args.k!r}")
    if any(k <= 0 for k in ks):
        parser.error(f"--k takes positive integers, got {args.k!r}")
    rng = np.random.default_rng(args.seed)
    coretype = os.environ.get("OPENBLAS_CORETYPE", "(unset)")
    print(f"numpy {np.__version__}; OPENBLAS_CORETYPE={coretype}")
    print(f"{'K':>5s} " + " ".join(f"{f'{m}x{n}':>8s}" for m, n in SHAPES))
    for k in ks:
        row = ["same" if agrees(k, m, n, rng) else "DIFFERS" for m, n in SHAPES]
        print(f"{k:5d} " + " ".join(f"{cell:>8s}" for cell in row))


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(
            main, "blas_order", "does this machine's fp32 matmul sum in partition order"
        )
    )

"""Benchmark the MX quantize / dequantize against ``np.copy`` of the same input.

Quantizes a 4096 x 8192 bfloat16 array to float8_e4m3fn x4 + E8M0 along the last axis
(the HLO QuantizeMX layout, ``quantize_mx_packed``) and separately dequantizes the
result (``dequantize_mx_packed``). Every figure is the best of ``--repeat`` runs in this
one process, the copy, the quantize and the dequantize taking turns in every round (so
all three see the same machine: on a shared machine the load drifts between rounds);
the ratio is ``copy time / operation time`` with the copy of the bf16 input as the
yardstick (the same array, so the ratio is bandwidth relative to copy).

    python benchmarks/bench_quantize.py [--rows 4096] [--cols 8192] [--repeat 9]
                                        [--chunk-elements N] [--check] [--reference]

``--chunk-elements`` overrides the fast path's chunk size (``fast.CHUNK_ELEMENTS``);
``--check`` also runs the reference path on the same array and asserts bit equality;
``--reference`` times the reference (straightforward numpy) path too.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

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


def best_times(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best wall time of each run over ``repeat`` rounds, the runs taking turns."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def report(name: str, seconds: float, input_bytes: int, copy_seconds: float) -> None:
    print(
        f"{name:<22} {seconds * 1e3:8.2f} ms  {input_bytes / seconds / 1e9:6.2f} GB/s of input"
        f"  ratio to copy {copy_seconds / seconds:5.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--chunk-elements", type=int, help="override fast.CHUNK_ELEMENTS")
    parser.add_argument("--check", action="store_true", help="assert fast == reference")
    parser.add_argument("--reference", action="store_true", help="time the reference too")
    args = parser.parse_args()

    if args.chunk_elements:
        fast.CHUNK_ELEMENTS = args.chunk_elements

    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.rows, args.cols), dtype=np.float32).astype(ml_dtypes.bfloat16)
    data, scale = quantize_mx_packed(x, FMT)

    best = best_times(
        {
            "copy": lambda: np.copy(x),
            "quantize": lambda: quantize_mx_packed(x, FMT),
            "dequantize": lambda: dequantize_mx_packed(data, scale, FMT),
        },
        args.repeat,
    )
    copy_seconds, quantize_seconds = best["copy"], best["quantize"]
    dequantize_seconds = best["dequantize"]

    mib = x.nbytes / 2**20
    print(f"input: {args.rows} x {args.cols} bfloat16 ({mib:.0f} MiB), {FMT.spec_name}")
    report("np.copy (bf16 input)", copy_seconds, x.nbytes, copy_seconds)
    report("quantize_mx_packed", quantize_seconds, x.nbytes, copy_seconds)
    report("dequantize_mx_packed", dequantize_seconds, data.nbytes + scale.nbytes, copy_seconds)

    if args.reference or args.check:
        start = time.perf_counter()
        codes, ref_scale = quantize_mx_reference(x, FMT, BLOCK)
        reference_seconds = time.perf_counter() - start
        start = time.perf_counter()
        ref_values = dequantize_mx_reference(unpack_fp8_x4(data), scale, FMT, BLOCK)
        reference_dequantize_seconds = time.perf_counter() - start
        report("reference quantize", reference_seconds, x.nbytes, copy_seconds)
        report(
            "reference dequantize",
            reference_dequantize_seconds,
            data.nbytes + scale.nbytes,
            copy_seconds,
        )
        if args.check:
            np.testing.assert_array_equal(pack_fp8_x4(codes), data)
            np.testing.assert_array_equal(ref_scale, scale)
            values = dequantize_mx_packed(data, scale, FMT)
            np.testing.assert_array_equal(values.view(np.uint32), ref_values.view(np.uint32))
            print("fast == reference, bit for bit")


if __name__ == "__main__":
    main()

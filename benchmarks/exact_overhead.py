"""What the exact PE-pass semantics cost a MoE kernel: the same kernel run in one process
with the exactness certificate on, and with it stubbed out (every float64 sum trusted, the
semantics before the certificate; the operands' bounds are still read, as they also give the zero
columns and finiteness), alternating, best of N each. Prints the ratio and how many
outputs took the exact path. On a shared machine read the process CPU-time figures, with
the load averages printed beside them; the median of the rounds' on/off ratios (each an
adjacent pair of runs) is less sensitive to load that drifts during the run than the
ratio of the two bests."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--variant", default="shard_on_block")
    parser.add_argument("--hidden", type=int, default=3072)
    parser.add_argument("--intermediate", type=int, default=2048)
    parser.add_argument("--experts", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--block-size", type=int, default=512)
    parser.add_argument("--top-k", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mx-weights", default="fp8_e4m3fn")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    import mxdsl.numerics.matmul as matmul
    from mxdsl.kernels.moe_cte import (
        MoECTEImplementation,
        MoECTEOptions,
        MoECTESizes,
        MoECTESpec,
        build_moe_cte,
    )
    from mxdsl.kernels.moe_cte.reference import make_inputs
    from mxdsl.numerics.exact import EXACT_PATH

    # the operands' quick bounds are read in both modes: the same read gives the zero
    # columns a pass skips and the finiteness (BufferOperands, PeOperand.finite), which
    # the kernel before the certificate found by scans of its own
    real = matmul.quick_column_bits, matmul.all_certified
    stub = matmul.quick_column_bits, lambda *_: True
    spec = MoECTESpec(MoECTEImplementation[args.variant])
    sizes = MoECTESizes(
        args.hidden, args.intermediate, args.experts, args.tokens, args.block_size, args.top_k
    )
    options = MoECTEOptions(dtype="bf16", mx_weights=args.mx_weights)
    kernel = build_moe_cte(spec, sizes, options)
    if spec.implementation.is_mx:
        from mxdsl.kernels.moe_cte.reference.mx import make_mx_inputs

        inputs = make_mx_inputs(spec, sizes, options, seed=0)
    else:
        inputs = make_inputs(spec, sizes, options, seed=0)
    load_before = os.getloadavg()
    kernel.run(inputs.arrays)  # warm up
    best = {"on": float("inf"), "off": float("inf")}
    cpu = {"on": float("inf"), "off": float("inf")}
    paired: list[float] = []
    for _ in range(args.repeat):
        round_cpu = {}
        for mode, (bits, certified) in (("on", real), ("off", stub)):
            matmul.quick_column_bits, matmul.all_certified = bits, certified
            EXACT_PATH.reset()
            start, start_cpu = time.perf_counter(), time.process_time()
            kernel.run(inputs.arrays)
            best[mode] = min(best[mode], time.perf_counter() - start)
            round_cpu[mode] = time.process_time() - start_cpu
            cpu[mode] = min(cpu[mode], round_cpu[mode])
            if mode == "on":
                exact, outputs = EXACT_PATH.exact, EXACT_PATH.outputs
        paired.append(round_cpu["on"] / round_cpu["off"])
    matmul.quick_column_bits, matmul.all_certified = real
    load_after = os.getloadavg()
    print(
        f"{args.variant}: certificate on {best['on']:.2f} s, off {best['off']:.2f} s, "
        f"ratio {best['on'] / best['off']:.3f}; process CPU time (both cores' threads) "
        f"on {cpu['on']:.2f} s, off {cpu['off']:.2f} s, ratio {cpu['on'] / cpu['off']:.3f}; "
        f"{exact} of {outputs} pass outputs took the exact path; median of the rounds' "
        f"CPU-time ratios {statistics.median(paired):.3f}; load average (1, 5, 15 min) "
        f"before {_load(load_before)}, after {_load(load_after)}"
    )


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.2f}" for x in load)


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(
            main, "exact_overhead", "a MoE kernel with the exactness certificate on and off"
        )
    )

"""Benchmark a JAX-written SwiGLU MXFP8 FFN lowered to nisa, against its PE floor.

The program is JAX's own text (``examples/stablehlo/llama_ffn_swiglu_mxfp8_cuda.mlir``:
T = 512 tokens, H = 4096, I = 14336, Llama-class; ``--small``: the corpus layer
``layer_ffn_swiglu_mxfp8_cuda.mlir``, T = 8, H = 32, I = 64). In one process it

* lowers it (``import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa``): **lower_s**;
* runs the nisa kernel in the interpreter on seeded inputs (x ~ N(0, 1), weights ~ N(0,
  1 / fan-in), as ``examples/stablehlo/generate.py`` draws them): **nisa_s**;
* times the **PE floor**: the layer's three matmuls done as its PE passes are, with no
  interpreter (one float64 ``np.matmul`` per K tile of 512, rounded to fp32 and
  accumulated in fp32, on float64 operands: the arithmetic any bit-exact run performs at
  least; the MX quantization, the exactness certificate and exact path, SiLU and the
  product are left out, so nisa / floor includes them): **floor_s**;
* times a **dense numpy golden**: the same layer in float32 numpy (``x @ W1`` etc., SiLU
  as ``g / (1 + exp(-g))``, no quantization): **golden_s**;

and prints the ratios nisa / floor, nisa / golden and floor / golden, each also from
process CPU time (``cpu_``: the steadier measure on a shared machine), the relative
Frobenius difference between the kernel and the golden (the MXFP8 quantization's error,
a sanity check, not a bound), the peak resident memory and the load averages.
``--bir`` also lowers to bir and runs it (**bir_s**) and checks its bits equal nisa's;
``--stablehlo`` also runs the program as written, at the StableHLO level (**shlo_s**),
and checks its bits equal nisa's. **ops** is the number of ops the nisa kernel
interprets (its loops' trip counts; ``benchmarks/op_counts.py`` breaks it down), and the
output's SHA-256 is printed.

    python benchmarks/ffn_layer.py [--small | --program FILE.mlir] [--bir] [--stablehlo]
        [--blas-threads 1] [--seed 25]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LLAMA = ROOT / "examples" / "stablehlo" / "llama_ffn_swiglu_mxfp8_cuda.mlir"
SMALL = ROOT / "examples" / "stablehlo" / "layer_ffn_swiglu_mxfp8_cuda.mlir"
MX_K_TILE = 512


def clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = clock()
    return wall - start[0], cpu - start[1]


def draw_inputs(shapes: list[tuple[int, ...]], seed: int) -> tuple[Any, ...]:
    """x ~ N(0, 1); W1, W3 ~ N(0, 1 / H); W2 ~ N(0, 1 / I), float32, drawn in the order
    x, W1, W2, W3 (generate.py's) and passed as (x, W1, W3, W2)."""
    import numpy as np

    (t, h), (_, i) = shapes[0], shapes[1]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((t, h)).astype(np.float32)
    w1 = (rng.standard_normal((h, i)) * h**-0.5).astype(np.float32)
    w2 = (rng.standard_normal((i, h)) * i**-0.5).astype(np.float32)
    w3 = (rng.standard_normal((h, i)) * h**-0.5).astype(np.float32)
    return x, w1, w3, w2


def pe_passes(lhs: Any, rhs: Any) -> Any:
    """``lhs @ rhs`` as PE passes: a float64 matmul per K tile, rounded to fp32, summed
    in fp32."""
    import numpy as np

    total = np.matmul(lhs[:, :MX_K_TILE], rhs[:MX_K_TILE]).astype(np.float32)
    for start in range(MX_K_TILE, lhs.shape[1], MX_K_TILE):
        part = np.matmul(lhs[:, start : start + MX_K_TILE], rhs[start : start + MX_K_TILE])
        total += part.astype(np.float32)
    return total


def pe_floor(x: Any, w1: Any, w3: Any, w2: Any) -> tuple[float, float]:
    import numpy as np

    wide = [a.astype(np.float64) for a in (x, w1, w3, w2)]
    hidden = np.zeros((x.shape[0], w1.shape[1]), np.float64)
    start = clock()
    pe_passes(wide[0], wide[1])
    pe_passes(wide[0], wide[2])
    pe_passes(hidden, wide[3])
    return since(start)


def golden(x: Any, w1: Any, w3: Any, w2: Any) -> Any:
    import numpy as np

    g = x @ w1
    with np.errstate(over="ignore"):
        silu = g / (np.float32(1) + np.exp(-g))
    return (silu * (x @ w3)) @ w2


def run_kernel(module: Any, ctx: Any, inputs: tuple[Any, ...]) -> Any:
    from mxdsl.interpreters import make_interpreter
    from mxdsl.interpreters.spmd import run_spmd

    (result,) = run_spmd(
        lambda listeners: make_interpreter(module, ctx, listeners=listeners), "main", inputs, 1
    )[0]
    return result


def lower(
    path: Path, bir: bool, keep: bool = False
) -> tuple[Any, Any, Any, Any, tuple[float, float]]:
    from mxdsl.tools.diagnostics import parse_located
    from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
    from mxdsl.transforms.import_stablehlo import ImportStableHloPass
    from mxdsl.transforms.legalize_scaled_matmul import LegalizeScaledMatmulPass
    from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass
    from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass

    ctx = _context()
    module, _ = parse_located(ctx, path.read_text(), str(path))
    source = module.clone() if keep else None
    start = clock()
    for p in (ImportStableHloPass(), LegalizeScaledMatmulPass(), LowerHloToNisaPass()):
        p.apply(ctx, module)
    took = since(start)
    bir_module = None
    if bir:
        bir_module = module.clone()
        LowerNisaToBirPass().apply(ctx, bir_module)
    return ctx, source, module, bir_module, took


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--small", action="store_true", help="the T=8, H=32, I=64 layer")
    parser.add_argument(
        "--program", type=Path, help="another JAX-written SwiGLU FFN of (x, W1, W3, W2)"
    )
    parser.add_argument("--bir", action="store_true", help="also lower to bir and run it")
    parser.add_argument(
        "--stablehlo", action="store_true", help="also run the program at the StableHLO level"
    )
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument(
        "--blas-threads", type=int, default=1, help="BLAS threads (0: leave the environment)"
    )
    args = parser.parse_args()
    if args.blas_threads:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.blas_threads)
    import resource

    import numpy as np
    from xdsl.dialects import func

    from mxdsl.tools.steps import estimate_steps

    print(f"load average: {load()}")
    path = args.program or (SMALL if args.small else LLAMA)
    if not path.is_file():
        parser.error(f"cannot open {str(path)!r}: no such file")
    ctx, source, module, bir_module, lower_s = lower(path, args.bir, args.stablehlo)
    main_op = next(
        o for o in module.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == "main"
    )
    shapes = [tuple(t.get_shape()) for t in main_op.function_type.inputs.data]
    inputs = draw_inputs(shapes, args.seed)
    start = clock()
    out = run_kernel(module, ctx, inputs)
    nisa_s = since(start)
    floor_s = pe_floor(*inputs)
    start = clock()
    want = golden(*inputs)
    golden_s = since(start)
    rel = float(np.linalg.norm(out.astype(np.float64) - want) / np.linalg.norm(want))
    row = {
        "T": shapes[0][0],
        "H": shapes[0][1],
        "I": shapes[1][1],
        "ops": estimate_steps(module, main_op).steps,
        "lower_s": lower_s[0],
        "nisa_s": nisa_s[0],
        "floor_s": floor_s[0],
        "nisa/floor": nisa_s[0] / floor_s[0],
        "golden_s": golden_s[0],
        "nisa/golden": nisa_s[0] / golden_s[0],
        "floor/golden": floor_s[0] / golden_s[0],
        "cpu_nisa_s": nisa_s[1],
        "cpu_nisa/floor": nisa_s[1] / floor_s[1],
        "cpu_nisa/golden": nisa_s[1] / golden_s[1],
        "rel_err": rel,
    }
    if bir_module is not None:
        start = clock()
        bir_out = run_kernel(bir_module, ctx, inputs)
        row["bir_s"] = since(start)[0]
        row["bir_same"] = bir_out.tobytes() == out.tobytes()
    if source is not None:
        start = clock()
        shlo_out = run_kernel(source, ctx, inputs)
        row["shlo_s"] = since(start)[0]
        row["shlo_same"] = shlo_out.tobytes() == out.tobytes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    row["peak_gib"] = peak
    print(" ".join(row))
    print(" ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row.values()))
    print(f"output sha256: {hashlib.sha256(out.tobytes()).hexdigest()}")
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    import performance_page

    sys.exit(performance_page.run(main, "ffn_layer", "a JAX SwiGLU MXFP8 FFN at nisa"))

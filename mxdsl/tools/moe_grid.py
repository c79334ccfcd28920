"""``mx-moe grid --nkilib``: nkilib's LNC2 MoE-CTE test grid, built and footprint-checked
(see docs/moe-cte.md, "Targets" and "Known limits").

Per variant, every size of H in {3072, 4096, 7168} x B in {256, 512} (and 1024 for the
bf16/fp8 variants) x I in {1024, 2048} (and 384, 3072 for the block shards; MX I tiles
are 512 rows, so shard_on_block_mx takes 1024, 2048, 3072), TopK 8, E 64, T 10240, is
built with every option combination the variant supports (biases x fp8 weights, or
biases x the three MX weight formats) on its target (trn2 for the bf16/fp8 variants,
trn3 for MX); one row per size gives the largest footprint over the combinations. With
``--sample-tokens T`` each size also runs once (biases on, E 2, TopK 2, T tokens: the
same tiling at a size that runs quickly) against its golden.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import IO

import numpy as np

from mxdsl.dialects.nisa import MemorySpace
from mxdsl.kernels.moe_cte import (
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEKernel,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    build_moe_cte,
)
from mxdsl.kernels.moe_cte.mx_formats import MX_WEIGHT_FORMATS
from mxdsl.kernels.moe_cte.reference import golden_for, make_inputs, relative_error
from mxdsl.kernels.moe_cte.reference.mx import make_mx_inputs, mx_golden_for
from mxdsl.targets import TRN2, TRN3, Target

HIDDEN = (3072, 4096, 7168)
TOLERANCE = {"bf16": 1e-2, "mx": 1e-2}


def grid_sizes(impl: MoECTEImplementation) -> Iterator[MoECTESizes]:
    """nkilib's grid for ``impl`` (module docstring)."""
    blocks = (256, 512) if impl.is_mx else (256, 512, 1024)
    inter = [1024, 2048] + ([384, 3072] if impl.shards_on_block else [])
    if impl.is_mx:
        inter = [i for i in inter if i % 512 == 0]
    n = 64 if impl == MoECTEImplementation.shard_on_i_dropping else None
    for h, b, i in itertools.product(HIDDEN, blocks, sorted(inter)):
        yield MoECTESizes(h, i, 64, 10240, b, 8, n_blocks=n)


def option_sets(
    impl: MoECTEImplementation,
) -> list[tuple[str, MoECTEOptions, QuantizationConfig | None]]:
    """Every option combination that changes the kernel's buffers, with a short label."""
    if impl.is_mx:
        return [
            (f"{'bias ' if bias else ''}{fmt}", MoECTEOptions(bias=bias, mx_weights=fmt), None)
            for bias in (False, True)
            for fmt in MX_WEIGHT_FORMATS
        ]
    fp8 = QuantizationConfig(True, True)
    return [
        (label, MoECTEOptions(bias=bias), quant)
        for bias in (False, True)
        for label, quant in ((f"{'bias ' if bias else ''}bf16", None), ("fp8", fp8))
    ]


def target_of(impl: MoECTEImplementation) -> Target:
    return TRN3 if impl.is_mx else TRN2


def sample_run(impl: MoECTEImplementation, sizes: MoECTESizes, tokens: int) -> float:
    """The relative error of one run at ``sizes`` with E 2, TopK 2, ``tokens`` tokens."""
    n = 2 if impl == MoECTEImplementation.shard_on_i_dropping else None
    small = MoECTESizes(sizes.hidden, sizes.intermediate, 2, tokens, sizes.block_size, 2, n)
    spec = MoECTESpec(impl)
    options = MoECTEOptions(bias=True)
    kernel = build_moe_cte(spec, small, options, target=target_of(impl))
    if impl.is_mx:
        inputs = make_mx_inputs(spec, small, options, seed=0)
        golden = mx_golden_for(spec, small, options, inputs)
    else:
        inputs = make_inputs(spec, small, options, seed=0)
        golden = golden_for(spec, small, options, inputs)
    out = kernel.run(inputs.arrays)["output"]
    if out.ndim == 3:
        out = out[0] if impl.is_mx else out[:, 0, :]
    return relative_error(out[:tokens].astype(np.float32), golden)


def run_nkilib_grid(
    implementations: list[str], sample_tokens: int, stdout: IO[str]
) -> tuple[int, int]:
    """Print one row per (variant, size); returns (rows, failed rows)."""
    print(
        f"{'variant':21s} {'H':>5s} {'B':>5s} {'I':>5s} {'target':6s} {'builds':>6s} "
        f"{'SBUF max':>9s} {'PSUM max':>9s} {'sets':>4s} {'chunk':>5s} "
        f"{'rel err':>9s} verdict",
        file=stdout,
    )
    rows = failed = 0
    for name in implementations:
        impl = MoECTEImplementation[name]
        target = target_of(impl)
        for sizes in grid_sizes(impl):
            rows += 1
            built: list[MoECTEKernel] = []
            problem = ""
            for label, options, quant in option_sets(impl):
                try:
                    built.append(build_moe_cte(MoECTESpec(impl), sizes, options, quant, target))
                except MoECTEConfigError as err:
                    problem = f"{label}: {err}"
                    break
            worst = max(built, key=lambda k: k.footprint[MemorySpace.SBUF], default=None)
            error = "-"
            if not problem and sample_tokens:
                err = sample_run(impl, sizes, sample_tokens)
                error = f"{err:9.2e}"
                if err > TOLERANCE["mx" if impl.is_mx else "bf16"]:
                    problem = f"error {err:.2e} above the tolerance"
            failed += bool(problem)
            sbuf = worst.footprint[MemorySpace.SBUF] if worst else 0
            psum = worst.footprint[MemorySpace.PSUM] if worst else 0
            sets = worst.options.block_sets if worst and worst.options.block_sets else "-"
            chunk = worst.options.gate_up_chunk if worst else "-"
            print(
                f"{name:21s} {sizes.hidden:5d} {sizes.block_size:5d} {sizes.intermediate:5d} "
                f"{target.name:6s} {len(built):6d} {sbuf / 1024:7.1f}Ki {psum / 1024:7.1f}Ki "
                f"{sets!s:>4s} {chunk!s:>5s} {error:>9s} "
                f"{'FAILED: ' + problem if problem else 'ok'}",
                file=stdout,
                flush=True,
            )
    return rows, failed


__all__ = ["grid_sizes", "option_sets", "run_nkilib_grid", "sample_run"]

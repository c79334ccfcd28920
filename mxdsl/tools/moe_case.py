"""One MoE-CTE case, built, run and checked: what ``mx-moe run`` and a grid task share.

A case is the ``mx-moe`` options of one run (an ``argparse.Namespace``): :func:`build`
makes its kernel (refusing bad sizes and options with :class:`ToolError`),
:func:`check_memory` estimates the memory a run needs, :func:`seeded_inputs` makes its
routed inputs and :func:`check` runs the kernel on 2 simulated cores against its golden
(docs/moe-cte.md). ``mx-moe`` (mxdsl/tools/mx_moe.py) and the grid runner
(mxdsl/tools/moe_grid.py) both import this module; it imports neither.
"""

from __future__ import annotations

import os

# The interpreter runs one simulated core at a time on tile-sized matmuls: BLAS worker
# threads only add contention there (on a busy machine, oversubscribed OpenBLAS threads
# slowed a run 20x). One thread unless the caller chose otherwise; set before numpy loads.
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
USER_CHOSE_BLAS_THREADS = any(_var in os.environ for _var in _BLAS_THREAD_VARIABLES)
for _var in _BLAS_THREAD_VARIABLES:
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402
from xdsl.utils.exceptions import VerifyException  # noqa: E402

from mxdsl.interpreters.fast_path import fast_path_option  # noqa: E402
from mxdsl.kernels.moe_cte import (  # noqa: E402
    ActFnType,
    ExpertAffinityScaleMode,
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    NotBuiltYetError,
    QuantizationConfig,
    ShardOnBlockConfig,
    ShardOnIConfig,
    build_moe_cte,
)
from mxdsl.kernels.moe_cte.reference import golden_for, make_inputs, relative_error  # noqa: E402
from mxdsl.kernels.moe_cte.reference.mx import make_mx_inputs, mx_golden_for  # noqa: E402
from mxdsl.targets import get_target  # noqa: E402
from mxdsl.tools.mx_run import available_memory  # noqa: E402

ACTIVATIONS = {
    "silu": ActFnType.SiLU,
    "gelu": ActFnType.GELU,
    "gelu_tanh_approx": ActFnType.GELU_Tanh_Approx,
    "swish": ActFnType.Swish,
}
SCALINGS = {
    "no_scale": ExpertAffinityScaleMode.NO_SCALE,
    "post_scale": ExpertAffinityScaleMode.POST_SCALE,
    "pre_scale": ExpertAffinityScaleMode.PRE_SCALE,
}
TOLERANCE = {"bf16": 1e-2, "f32": 1e-5, "mx": 1e-2}  # mx: against the MX-aware golden


class ToolError(Exception):
    pass


def problem(args: argparse.Namespace):  # noqa: ANN201
    impl = MoECTEImplementation[args.implementation]
    dropping = impl == MoECTEImplementation.shard_on_i_dropping
    block = args.block_size
    if block is None:
        block = 128 if impl.shards_on_block else 256
    blocks = args.blocks
    if blocks is None and dropping:
        blocks = args.experts
    intermediate = args.intermediate
    if intermediate is None:  # the bf16 default is too small for MX
        intermediate = (512 if impl.shards_on_block else 1024) if impl.is_mx else 256
    if args.mx_weights is not None and not impl.is_mx:
        raise ToolError(
            f"--mx-weights applies to the MX variants only; {impl.name} has bf16 weights "
            "(--fp8-weights for float8 weights)"
        )
    i_options = args.checkpoint or args.affinity_on_i or args.num_static_block is not None
    if i_options and impl.shards_on_block:
        raise ToolError(
            "--checkpoint, --affinity-on-i and --num-static-block are ShardOnIConfig "
            f"options; {impl.name} shards on blocks"
        )
    hybrids = (MoECTEImplementation.shard_on_i_hybrid, MoECTEImplementation.shard_on_i_mx_hybrid)
    if args.num_static_block is not None and impl not in hybrids:
        raise ToolError("--num-static-block applies to shard_on_i_hybrid / shard_on_i_mx_hybrid")
    if args.live_blocks is not None and impl not in (
        *hybrids,
        MoECTEImplementation.shard_on_block_mx,
    ):
        raise ToolError(
            "--live-blocks applies to shard_on_i_hybrid, shard_on_i_mx_hybrid and "
            "shard_on_block_mx only"
        )
    if impl.is_mx and args.fp8_weights:
        raise ToolError(f"--fp8-weights does not apply to {impl.name}: use --mx-weights")
    cfg = None
    if not impl.shards_on_block:
        cfg = ShardOnIConfig(
            checkpoint_activation=args.checkpoint,
            expert_affinity_multiply_on_I=args.affinity_on_i,
            num_static_block=args.num_static_block,
        )
    block_cfg = None
    if impl == MoECTEImplementation.shard_on_block_mx:
        block_cfg = ShardOnBlockConfig(
            n_static_blocks=args.n_static_blocks, n_dynamic_blocks=args.n_dynamic_blocks
        )
    spec = MoECTESpec(impl, shard_on_block=block_cfg, shard_on_I=cfg)
    sizes = MoECTESizes(
        hidden=args.hidden,
        intermediate=intermediate,
        experts=args.experts,
        tokens=args.tokens,
        block_size=block,
        top_k=args.top_k,
        n_blocks=blocks,
    )
    options = MoECTEOptions(
        dtype=args.dtype,
        activation=ACTIVATIONS[args.activation],
        scaling=SCALINGS[args.scaling],
        bias=args.bias,
        gate_clamp=args.clamp_gate or (None, None),
        up_clamp=args.clamp_up or (None, None),
        **({"mx_weights": args.mx_weights} if args.mx_weights else {}),
        gate_up_chunk=args.gate_up_chunk,
        block_probes=getattr(args, "trace", None) is not None,
    )
    quant = QuantizationConfig(True, True) if args.fp8_weights else None
    return spec, sizes, options, quant


def build(args: argparse.Namespace):  # noqa: ANN201
    """The kernel of one case (``problem(args)``); a refused size or option is a
    ``ToolError``."""
    spec, sizes, options, quant = problem(args)
    try:
        kernel = build_moe_cte(spec, sizes, options, quant, get_target(args.target))
    except (MoECTEConfigError, NotBuiltYetError) as err:
        raise ToolError(str(err)) from None
    except VerifyException as err:  # a size the kernel's ops refuse (e.g. an SBUF tile)
        message = f"{spec.implementation.name} cannot be built at these sizes: {err}"
        raise ToolError(message) from None

    if getattr(args, "level", "nisa") == "bir":
        from mxdsl.tools.diagnostics import OpDiagnostic
        from mxdsl.transforms.lower_nisa_to_bir import lower_nisa_to_bir

        try:
            replaced = lower_nisa_to_bir(kernel.module, kernel.target)
        except OpDiagnostic as err:
            raise ToolError(f"lowering to bir: {err.message}") from None
        kernel.progress_ops = [replaced.get(op, op) for op in kernel.progress_ops]
    return kernel


FIXED_MEMORY = 256 << 20
"""Python, numpy, xDSL, the IR and the interpreters (about 120 MB measured, doubled)."""


def run_memory(kernel) -> tuple[int, int]:  # noqa: ANN001
    """(the bytes a run of ``kernel`` needs, its HBM argument bytes): the arguments held
    once (the interpreter reads them in place), the reference side's working set — one
    expert's float32 weights with their unpack / packing temporaries (6 x), the float32
    ``[T, H]`` arrays of the goldens and the result (5 x) — and the fixed part
    (measured: docs/moe-cte.md, "Memory and time at nkilib's largest size")."""
    args = sum(math.prod(a.shape) * a.numpy_dtype.itemsize for a in kernel.arguments)
    sizes = kernel.sizes
    expert = 3 * sizes.hidden * sizes.intermediate * 4
    rows = (sizes.tokens + 1) * sizes.hidden * 4
    return args + 6 * expert + 5 * rows + FIXED_MEMORY, args


def check_memory(kernel, args: argparse.Namespace, label: str = "") -> int:  # noqa: ANN001
    """The bytes a run of ``kernel`` needs (an estimate, :func:`run_memory`); refuse
    beyond ``--max-memory`` (default: what this machine has available) before any input
    is made."""
    needed, arguments = run_memory(kernel)
    if args.max_memory == 0:
        return needed
    budget = available_memory() if args.max_memory is None else args.max_memory
    if budget is not None and needed > budget:
        where = "this machine has available" if args.max_memory is None else "--max-memory"
        raise ToolError(
            f"{label}a run at these sizes needs about {gib_text(needed)} (the kernel's "
            f"{len(kernel.arguments)} arguments, {gib_text(arguments)}, and the goldens' "
            f"working arrays) but {where} {gib_text(budget)}; use smaller sizes, or "
            "--max-memory SIZE (0: no limit)"
        )
    return needed


def cpu_seconds() -> float:
    """CPU time of this process and of its ended children (the simulated cores run in
    processes of their own: ``mxdsl.interpreters.spmd_processes``)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def peak_resident_bytes() -> int:
    """This process's peak resident set size so far (``getrusage``: kilobytes on Linux,
    bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def gib_text(size: int) -> str:
    """``size`` bytes in GiB, three significant digits."""
    return f"{size / (1 << 30):.3g} GiB"


PROGRESS_INTERVAL = 10.0
"""Seconds between the plain progress lines written when stderr is not a terminal."""


def seeded_inputs(kernel, args: argparse.Namespace, dense_golden: bool = False):  # noqa: ANN001, ANN201
    """The seeded routed inputs of ``kernel`` (MX layouts for the MX variants; with
    ``dense_golden`` an MX variant's fp32 dense golden is made with them, from each
    expert's dense weights as they are drawn: ``make_mx_inputs``)."""
    spec, sizes, options = kernel.spec, kernel.sizes, kernel.options
    try:
        if spec.implementation.is_mx:
            return make_mx_inputs(
                spec, sizes, options, args.seed, args.live_blocks, dense_golden=dense_golden
            )
        return make_inputs(spec, sizes, options, kernel.quantization, args.seed, args.live_blocks)
    except MoECTEConfigError as err:
        raise ToolError(str(err)) from None


@dataclass(frozen=True)
class Checked:
    """One kernel run against its golden."""

    outputs: dict[str, np.ndarray]
    golden: np.ndarray
    result: np.ndarray  # the output's [T, H] rows (plane 0 of a per-core layout)
    error: float
    tolerance: float
    kernel_time: float
    golden_time: float
    kernel_cpu: float  # process CPU time (every thread), beside the wall times above
    golden_cpu: float

    @property
    def ok(self) -> bool:
        return self.error <= self.tolerance


def check(
    kernel,  # noqa: ANN001
    inputs,  # noqa: ANN001
    progress,  # noqa: ANN001
    fast_path: bool | None = None,
    schedule: str = "parallel",
) -> Checked:
    """Run ``kernel`` on 2 simulated cores and its golden on ``inputs``, both timed
    (``fast_path=False``: the interpreters' reference mode; ``schedule``: the cores at
    once or in turn)."""
    spec, sizes, options = kernel.spec, kernel.sizes, kernel.options
    start, start_cpu = time.perf_counter(), cpu_seconds()
    outputs = kernel.run(inputs.arrays, progress, fast_path=fast_path, schedule=schedule)
    kernel_time, kernel_cpu = time.perf_counter() - start, cpu_seconds() - start_cpu
    start, start_cpu = time.perf_counter(), time.process_time()
    is_mx = spec.implementation.is_mx
    golden = (mx_golden_for if is_mx else golden_for)(spec, sizes, options, inputs)
    golden_time, golden_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    result = outputs["output"]
    if result.ndim == 3:  # plane 0 holds the sum: [T+1, 2, H] (bf16), [2, T+1, H] (MX)
        result = result[0] if is_mx else result[:, 0, :]
    result = result[: sizes.tokens].astype(np.float32)
    error = relative_error(result, golden)
    tolerance = TOLERANCE["mx" if is_mx else options.dtype]
    return Checked(
        outputs, golden, result, error, tolerance, kernel_time, golden_time, kernel_cpu, golden_cpu
    )


def fast_path_setting(args: argparse.Namespace) -> bool:
    """The interpreters' fast path for this command (``--no-fast-path``, the environment)."""
    try:
        return fast_path_option(getattr(args, "no_fast_path", False))
    except ValueError as err:
        raise ToolError(str(err)) from None

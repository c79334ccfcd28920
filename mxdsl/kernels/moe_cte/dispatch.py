"""``build_moe_cte``: the dispatch from a :class:`MoECTESpec` to a variant builder, and
:class:`MoECTEKernel`, the built kernel (its IR, its signature, how to run it)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from mxdsl.dialects.nisa import MemorySpace
from mxdsl.kernels.moe_cte.interface import ArgSpec
from mxdsl.kernels.moe_cte.ir import KernelBuilder
from mxdsl.kernels.moe_cte.spec import (
    BLOCK_SETS,
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    check_problem,
    gate_up_chunk,
    gate_up_chunks,
)
from mxdsl.targets import Target, current_target, use_target

CORES = 2  # every MoE-CTE kernel runs on an LNC2 pair


@dataclass
class MoECTEKernel:
    spec: MoECTESpec
    sizes: MoECTESizes
    options: MoECTEOptions
    quantization: QuantizationConfig | None
    module: ModuleOp
    arguments: list[ArgSpec]
    progress_ops: list[Operation] = field(default_factory=list)
    blocks_per_progress_op: float = 1.0
    target: Target = field(default_factory=current_target)
    footprint: dict[MemorySpace, int] = field(default_factory=dict)
    """Bytes per partition of all the kernel's SBUF / PSUM buffers (held together)."""

    def footprint_text(self) -> str:
        """``peak bytes per partition on trn3: SBUF 14880 of 262144 (5.7%), PSUM ...``
        (every buffer is live for the whole kernel, so the peak is their sum)."""
        parts = [
            f"{space.value.upper()} {self.footprint.get(space, 0)} of {capacity} "
            f"({100 * self.footprint.get(space, 0) / capacity:.1f}%)"
            for space, capacity in on_chip_capacity(self.target).items()
        ]
        return f"peak bytes per partition on {self.target.name}: {', '.join(parts)}"

    @property
    def function_name(self) -> str:
        return self.module.body.block.first_op.sym_name.data  # pyright: ignore[reportOptionalMemberAccess,reportAttributeAccessIssue]

    def text(self, debuginfo: bool = False) -> str:
        """The kernel's IR; with ``debuginfo`` each op's ``loc(...)``: the builder line
        and named region (gate, up, act, down, scatter) it comes from."""
        if not debuginfo:
            return str(self.module)
        import io

        from xdsl.printer import Printer

        stream = io.StringIO()
        Printer(stream=stream, print_debuginfo=True).print_op(self.module)
        return stream.getvalue()

    def run(
        self,
        inputs: Mapping[str, np.ndarray],
        progress: Callable[[float], None] | None = None,
        fast_path: bool | None = None,
        schedule: str = "parallel",
        races: bool = True,
    ) -> dict[str, np.ndarray]:
        """Run on 2 simulated cores; ``inputs`` by argument name (outputs may be
        omitted: they start as zeros). Returns the output arguments by name (copies:
        ``inputs`` are not changed; the kernel reads the other inputs through read-only
        views, so a kernel writing one fails at that op instead of copying them all).
        ``progress(blocks_done)`` is called as blocks start. ``fast_path=False`` runs
        the interpreters in the reference mode (:mod:`mxdsl.interpreters.fast_path`);
        ``schedule``: the cores at once (``parallel``) or one at a time (``in-turn``), the
        same bits (:func:`mxdsl.interpreters.spmd.run_spmd`); ``races=False``: no HBM
        race check (to measure its cost)."""
        from mxdsl.interpreters import make_interpreter
        from mxdsl.interpreters.spmd import run_spmd

        values: list[np.ndarray] = []
        for a in self.arguments:
            if a.name in inputs:
                array = np.asarray(inputs[a.name])
                if array.shape != a.shape or array.dtype != a.numpy_dtype:
                    raise MoECTEConfigError(
                        f"input {a.name}: expected {a.numpy_dtype} {a.shape}, "
                        f"got {array.dtype} {array.shape}"
                    )
                values.append(np.array(array, copy=True) if a.output else _read_only(array))
            elif a.output:
                values.append(np.zeros(a.shape, dtype=a.numpy_dtype))
            else:
                raise MoECTEConfigError(f"missing input {a.name}")
        listeners: list[Interpreter.Listener] = []
        if progress is not None and self.progress_ops:
            listeners.append(
                _Progress(set(self.progress_ops), progress, self.blocks_per_progress_op)
            )
        with use_target(self.target):  # a bir kernel's memories are its target's
            run_spmd(
                lambda ls: make_interpreter(
                    self.module, listeners=[*listeners, *ls], fast_path=fast_path
                ),
                self.function_name,
                tuple(values),
                CORES,
                schedule=schedule,
                races=races,
                names=[a.name for a in self.arguments],
            )
        return {a.name: v for a, v in zip(self.arguments, values, strict=True) if a.output}


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class _Progress(Interpreter.Listener):
    """Counts the blocks every core starts; ``report(blocks started)`` is called in the
    caller's process (a core in a process of its own forwards the count:
    :class:`~mxdsl.interpreters.spmd_processes.ForwardedCall`)."""

    spmd_process_safe = True

    def __init__(self, ops: set[Operation], report: Callable[[float], None], weight: float):
        from mxdsl.interpreters.spmd_processes import ForwardedCall

        self.ops = ops
        self.report = report
        self.weight = weight
        self.count = 0
        self.started = ForwardedCall(self._started)

    def _started(self) -> None:
        self.count += 1
        self.report(self.count * self.weight)

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if op in self.ops:
            self.started()


def build_moe_cte(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions | None = None,
    quantization_config: QuantizationConfig | None = None,
    target: Target | None = None,
) -> MoECTEKernel:
    """Check the problem and build the chosen variant for ``target`` (default: the
    current target, trn3 unless selected otherwise; see ``docs/moe-cte.md``)."""
    if not isinstance(spec, MoECTESpec):
        raise MoECTEConfigError(f"spec must be a MoECTESpec, got {type(spec).__name__}")
    target = target or current_target()
    options = options or MoECTEOptions()
    impl = spec.implementation
    check_problem(spec, sizes, options, quantization_config)
    if impl.is_mx and not target.has_mx:
        raise MoECTEConfigError(
            f"{impl.name} uses MX instructions (nc_matmul_mx, quantize_mx), which "
            f"{target.name} ({target.core}) does not have: build it for trn3, or use "
            f"the non-MX variant {impl.name.replace('_mx', '')}"
        )
    with use_target(target):  # the IR is verified against the target's capacities
        return _build(spec, sizes, options, quantization_config, target)


def _build(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization_config: QuantizationConfig | None,
    target: Target,
) -> MoECTEKernel:
    impl = spec.implementation
    builder = _BUILDERS.get(impl)
    if builder is None:  # pragma: no cover - every member has a builder
        raise MoECTEConfigError(f"no builder for {impl.name}")
    module = ffn = None
    for candidate in _layouts(impl, sizes, options):  # preferred first, until one fits
        module, ffn = builder(spec, sizes, candidate, quantization_config)
        if _fits(ffn.kb, target):
            break
    assert module is not None
    assert ffn is not None
    _check_footprint(ffn.kb, impl, target)
    options = replace(options, gate_up_chunk=ffn.g.chunk)  # what was built
    if impl.shards_on_block:
        options = replace(options, block_sets=ffn.sets)
    weight = 0.5 if not impl.shards_on_block else 1.0  # I-shard: both cores see every block
    if impl == MoECTEImplementation.shard_on_i_dropping:
        weight /= max(sizes.block_size // min(sizes.block_size, 1024), 1)
    return MoECTEKernel(
        spec,
        sizes,
        options,
        quantization_config,
        module,
        ffn.arg_specs,
        list(ffn.progress_ops),
        weight,
        target,
        {space: ffn.kb.footprint(space) for space in on_chip_capacity(target)},
    )


def _layouts(
    impl: MoECTEImplementation, sizes: MoECTESizes, options: MoECTEOptions
) -> Iterator[MoECTEOptions]:
    """The buffer layouts to try, preferred first: for each number of block sets (block
    shard: 3, 2, 1 unless ``block_sets`` is given), the gate/up weight chunks from the
    default (at most 64 KiB per partition) down (unless ``gate_up_chunk`` is given).
    Neither changes a result bit: only how many blocks are loaded ahead and how the
    weights are DMA'd."""
    sets: Sequence[int | None] = [options.block_sets]
    if impl.shards_on_block and options.block_sets is None:
        sets = BLOCK_SETS
    for n in sets:
        with_sets = replace(options, block_sets=n)
        if options.gate_up_chunk is not None:
            yield with_sets
            continue
        default = gate_up_chunk(impl, sizes, options)
        for chunk in gate_up_chunks(impl, sizes, options):
            if chunk <= default:
                yield replace(with_sets, gate_up_chunk=chunk)


def on_chip_capacity(target: Target) -> dict[MemorySpace, int]:
    """Bytes of one SBUF / PSUM partition of ``target`` (mxdsl/targets.py)."""
    return {
        MemorySpace.SBUF: target.sbuf_partition_bytes,
        MemorySpace.PSUM: target.psum_partition_bytes,
    }


def _fits(kb: KernelBuilder, target: Target) -> bool:
    return all(kb.footprint(space) <= cap for space, cap in on_chip_capacity(target).items())


def _check_footprint(kb: KernelBuilder, impl: MoECTEImplementation, target: Target) -> None:
    """The kernel's buffers must fit one SBUF / PSUM partition of the target together."""
    for space, capacity in on_chip_capacity(target).items():
        total = kb.footprint(space)
        if total <= capacity:
            continue
        buffers = sorted(
            (b for b in kb.buffers if b.space == space), key=lambda b: -b.partition_bytes
        )
        listing = "; ".join(str(b) for b in buffers[:4])
        raise MoECTEConfigError(
            f"{impl.name} needs {total / 1024:.1f} KiB per {space.value.upper()} partition for "
            f"its buffers, more than the {capacity // 1024} KiB of one {target.name} partition "
            f"(largest: {listing}): reduce H or the block size B"
            + (", or use an I-shard variant" if impl.shards_on_block else "")
        )


def _build_block(*args: Any) -> Any:
    from mxdsl.kernels.moe_cte.shard_on_block import build_shard_on_block

    return build_shard_on_block(*args)


def _build_i(*args: Any) -> Any:
    from mxdsl.kernels.moe_cte.shard_on_i import build_shard_on_i

    return build_shard_on_i(*args)


def _build_block_mx(*args: Any) -> Any:
    from mxdsl.kernels.moe_cte.mx import build_shard_on_block_mx

    return build_shard_on_block_mx(*args)


_BUILDERS: dict[MoECTEImplementation, Callable[..., Any]] = {
    MoECTEImplementation.shard_on_block: _build_block,
    MoECTEImplementation.shard_on_i: _build_i,
    MoECTEImplementation.shard_on_i_hybrid: _build_i,
    MoECTEImplementation.shard_on_i_dropping: _build_i,
    MoECTEImplementation.shard_on_block_mx: _build_block_mx,
    MoECTEImplementation.shard_on_i_mx: _build_i,
    MoECTEImplementation.shard_on_i_mx_hybrid: _build_i,
}


def progress_bar(total: float, stream: Any = None) -> Callable[[float], None]:
    """A one-line progress bar over blocks on ``stream`` (stderr), drawn by tqdm: the
    blocks done, the elapsed time and an estimate of the time left; the bar ends with a
    newline when every block is done. The callback takes the blocks done so far."""
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        file=stream or sys.stderr,
        desc="blocks",
        ascii=".#",
        bar_format="{desc} [{bar:30}] {n:.0f}/{total:.0f} {elapsed}, ETA {remaining}",
        mininterval=0,
        delay=0,
    )

    def report(done: float) -> None:
        if bar.disable or done <= bar.n:
            return
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return report


def clock_text(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``)."""
    s = int(seconds + 0.5)
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


__all__ = ["CORES", "MoECTEKernel", "build_moe_cte", "on_chip_capacity", "progress_bar"]

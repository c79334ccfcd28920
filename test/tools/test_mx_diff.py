"""mx-diff and value traces: injected faults are named (an interpreter function one ulp
off, a lowering that drops a scale), tracing changes no output bit, the ulp and bit
reports against numpy's own neighbours, and bad input is one line with exit 2."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.passes import ModulePass

from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import ConvertOp
from mxdsl.extensions import load_multiverse
from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.trace import Trace, TraceFilter, location_text
from mxdsl.tools import mx_diff, mx_run
from mxdsl.tools.diagnostics import parse_located
from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass

ROOT = Path(__file__).resolve().parents[2]
BF16 = np.dtype(ml_dtypes.bfloat16)

PROGRAM = """\
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xbf16> {
  %b = hlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %f = hlo.convert %b : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  %c = hlo.convert %f : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  func.return %c : tensor<2x3xbf16>
}
"""


def run_diff(*argv: str | Path) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    import sys

    saved, sys.stderr = sys.stderr, stderr
    try:
        code = mx_diff.main([str(a) for a in argv], stdout=stdout)
    finally:
        sys.stderr = saved
    return code, stdout.getvalue(), stderr.getvalue()


@register_impls
class OneUlpOff(InterpreterFunctions):
    """An extension's hlo.convert, off by one ulp (the bit pattern + 1) on the first
    element of a bf16 result."""

    @impl(ConvertOp)
    def run_convert(
        self, interpreter: Interpreter, op: ConvertOp, args: PythonValues
    ) -> PythonValues:
        assert isinstance(op.result.type, builtin.TensorType)
        element = op.result.type.get_element_type()
        value = np.asarray(args[0])
        if isinstance(element, builtin.BFloat16Type):
            out = value.astype(BF16)  # the inputs here are exact in bf16
            out.view(np.uint16).reshape(-1)[0] += 1
            return (out,)
        return (value.astype(np.float32),)


def trace_program(path: Path, inputs: np.ndarray, extra: list[object]) -> Trace:
    ctx = Context()
    for name, factory in load_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    module, _ = parse_located(ctx, PROGRAM, "model.mlir")
    trace = Trace()
    interpreter = make_interpreter(
        module, ctx, extra=extra, listeners=[trace.recorder()], fast_path=False
    )
    (result,) = interpreter.call_op("main", (inputs,))
    from mxdsl.interpreters.trace import TraceRecord

    trace.add(TraceRecord("output", "", "", 0, "result0", np.asarray(result), name="result0"))
    with open(path, "wb") as stream:
        trace.save(stream)
    return trace


def test_one_ulp_off_interpreter_function_is_named(tmp_path: Path) -> None:
    x = np.array([[1.5, 2.0, -3.0], [0.25, 8.0, 1.0]], np.float32)  # exact in bf16
    trace_program(tmp_path / "good.npz", x, [])
    trace_program(tmp_path / "bad.npz", x, [OneUlpOff])
    code, out, err = run_diff(tmp_path / "good.npz", tmp_path / "bad.npz")
    assert (code, err) == (1, "")
    lines = out.splitlines()
    # the first convert (line 2) is the first op whose value differs
    assert "hlo.convert result0" in lines[1]
    assert "(source model.mlir:2:3)" in lines[1] or "model.mlir:2:3" in lines[1]
    # 1.5 in bf16 is 0x3FC0; one ulp up is 0x3FC1 = 1.5078125
    assert (
        lines[3]
        == "  1 of 6 elements differ (bfloat16); largest difference 1 ulp, 0.0078125 absolute"
    )
    assert lines[4] == "  first at index (0, 0): 1.5 (0x3fc0) and 1.5078125 (0x3fc1)"


def test_identical_traces_exit_0(tmp_path: Path) -> None:
    x = np.ones((2, 3), np.float32)
    trace_program(tmp_path / "a.npz", x, [])
    trace_program(tmp_path / "b.npz", x, [])
    code, out, _ = run_diff(tmp_path / "a.npz", tmp_path / "b.npz")
    assert code == 0
    assert out == "no difference in 4 aligned values\n"  # three converts, one output


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.dtype(ml_dtypes.float8_e4m3fn)])
def test_ulps_count_numpy_neighbours(dtype: np.dtype) -> None:
    """One step of numpy's nextafter is one ulp; k steps up the bit patterns of a
    positive value are k ulps; +0 and -0 differ in bits at no distance; -min to +min
    subnormal is two ulps through zero."""
    dtype = np.dtype(dtype)
    grid = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], np.float32).astype(dtype)
    if dtype in (np.dtype(np.float32), np.dtype(np.float16)):
        one = np.nextafter(grid, np.array(np.inf, dtype))
        d1 = mx_diff.compare(grid, one)
        assert d1 is not None
        assert d1.max_ulps == 1
        assert d1.count == grid.size
    carrier = f"u{dtype.itemsize}"
    positive = np.array([0.5, 1.0, 2.0], np.float32).astype(dtype)
    up = (positive.view(carrier) + np.array([1, 2, 5], carrier)).view(dtype)
    dk = mx_diff.compare(positive, up)
    assert dk is not None
    assert dk.max_ulps == 5
    assert dk.first == (0,)
    z = np.array([0.0, -0.0], np.float32).astype(dtype)
    dz = mx_diff.compare(z[:1], z[1:])
    assert dz is not None
    assert dz.max_ulps == 0
    smallest = np.zeros(1, dtype).view(carrier) + np.array(1, carrier)
    step = smallest.view(dtype)
    ds = mx_diff.compare(-step, step)
    assert ds is not None
    assert ds.max_ulps == 2


def test_trace_changes_no_output_bit(tmp_path: Path) -> None:
    example = ROOT / "examples" / "mx_matmul_small.mlir"
    pipeline = "legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir"
    for level, passes in (("hlo", ""), ("bir", pipeline)):
        plain, traced = tmp_path / f"{level}.npz", tmp_path / f"{level}.t.npz"
        args = [str(example), "--quiet", *(["-p", passes] if passes else [])]
        assert mx_run.main([*args, "-o", str(plain)], io.StringIO()) == 0
        trace = tmp_path / f"{level}.trace.npz"
        assert mx_run.main([*args, "-o", str(traced), "--trace", str(trace)], io.StringIO()) == 0
        with np.load(plain) as a, np.load(traced) as b:
            assert a.files == b.files
            for key in a.files:
                assert a[key].tobytes() == b[key].tobytes()
    # the bir trace holds the same outputs as the hlo run's -o
    code, out, _ = run_diff(tmp_path / "bir.trace.npz", tmp_path / "hlo.npz")
    assert code == 0, out


@dataclass(frozen=True)
class LowerDroppingScale(ModulePass):
    """A faulty lower-hlo-to-nisa: lowers, then forgets to load the MX scales the
    matmuls read (erases the DMAs that fill SBUF E8M0 tiles from HBM)."""

    name = "lower-hlo-to-nisa-dropping-scale"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        LowerHloToNisaPass().apply(ctx, op)
        for candidate in list(op.walk()):
            if candidate.name != "nisa.dma_copy":
                continue
            dst = candidate.operands[0].type
            assert isinstance(dst, builtin.MemRefType)
            scale = isinstance(dst.get_element_type(), builtin.Float8E8M0FNUType)
            if scale and "sbuf" in str(dst.memory_space):
                candidate.detach()
                candidate.erase()


def test_pipeline_names_the_lowering_that_drops_a_scale(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The lowered ops carry their hlo op's location, so the hlo run before the faulty
    lowering and the nisa run after it align by source line: the scaled matmul of
    line 17 is named."""
    real = mx_run.load_multiverse

    def with_fault(*args: object, **kwargs: object):  # noqa: ANN202
        universe = real(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        universe.all_passes[LowerDroppingScale.name] = lambda: LowerDroppingScale
        return universe

    monkeypatch.setattr(mx_run, "load_multiverse", with_fault)
    example = ROOT / "examples" / "mx_matmul_small.mlir"
    legalize = "legalize-quantize-mx,legalize-scaled-matmul"
    plot = tmp_path / "diff.png"
    code, out, err = run_diff(
        "--pipeline", f"{legalize},{LowerDroppingScale.name}", example, "--plot", plot
    )
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == f"the outputs change after pass 3: {LowerDroppingScale.name}"
    assert lines[1].startswith("first difference:")
    # made by legalize-scaled-matmul from the hlo op of line 17, whose location it keeps
    assert "hlo.custom_call result0 (source " in lines[2]
    assert lines[2].endswith("mx_matmul_small.mlir:17:3) core 0")
    assert lines[3].startswith("  after lower-hlo-to-nisa-dropping-scale: nisa.")
    assert "(source " in lines[3]
    assert "mx_matmul_small.mlir:17:3) core 0" in lines[3]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    full = f"{legalize},lower-hlo-to-nisa,lower-nisa-to-bir"
    code, out, _ = run_diff("--pipeline", full, example)
    assert code == 0
    assert out == "the outputs are the same after each of the 4 passes\n"


def test_levels_align_by_source_location(tmp_path: Path) -> None:
    """An hlo run and the bir run of its lowering: the lowered instructions carry the
    hlo ops' locations, and the values that complete each aligned op agree."""
    example = str(ROOT / "examples" / "mx_matmul_small.mlir")
    legalize = "legalize-quantize-mx,legalize-scaled-matmul"
    hlo, bir = tmp_path / "hlo.npz", tmp_path / "bir.npz"
    assert mx_run.main([example, "--quiet", "-p", legalize, "--trace", str(hlo)]) == 0
    lowered = f"{legalize},lower-hlo-to-nisa,lower-nisa-to-bir"
    assert mx_run.main([example, "--quiet", "-p", lowered, "--trace", str(bir)]) == 0
    records = mx_diff.read_side(str(bir)).records
    ops = [r for r in records if not r.name]
    assert {r.op.split(".")[0] for r in ops} == {"bir"}
    assert all(r.source.endswith(("mlir:11:3", "mlir:12:3", "mlir:17:3", "mlir:18:3")) for r in ops)
    code, out, _ = run_diff(hlo, bir)
    assert code == 0
    assert out == "no difference in 8 aligned values\n"  # two matmuls, six outputs


@register_impls
class TransposeRowOneUlpOff(InterpreterFunctions):
    """mxdsl's nisa.dma_copy, except that the writes of the transpose of line 6 of
    layer_ffn_relu_mxfp8_cuda.mlir (rows of its [1, 64, 32] value, as many per DMA as
    the lowering moves at once) land one ulp high in element 3 of row 5: a fault in the
    middle of the value, whichever DMA writes it."""

    def __init__(self) -> None:
        from mxdsl.interpreters.nisa import NisaFunctions

        self.real = NisaFunctions()
        self.rows = 0

    @impl(nisa.DmaCopyOp)
    def run_dma_copy(
        self, interpreter: Interpreter, op: nisa.DmaCopyOp, args: PythonValues
    ) -> PythonValues:
        from mxdsl.interpreters.index import DIRECT_IMPLS
        from mxdsl.interpreters.nisa import NisaFunctions

        done = DIRECT_IMPLS[NisaFunctions.run_dma_copy](self.real, interpreter, op, args)
        if not location_text(op.location).endswith("layer_ffn_relu_mxfp8_cuda.mlir:6:5"):
            return done
        dst = args[0]
        rows = dst.shape[-2] if dst.ndim >= 2 else 1
        if self.rows <= 5 < self.rows + rows:
            at = (*(0,) * (dst.ndim - 2), 5 - self.rows, 3) if dst.ndim >= 2 else (3,)
            dst.view(np.uint32)[at] += 1
        self.rows += rows
        return done


def test_a_partial_tile_write_completes_the_value_it_is_compared_with(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each source op's value is compared whole (the buffer its DMAs completed), so the
    StableHLO run and its nisa lowering agree, and a one-ulp fault in row 5 of the
    transpose of line 6 is named at that op and element."""
    example = str(ROOT / "examples" / "stablehlo" / "layer_ffn_relu_mxfp8_cuda.mlir")
    inputs = tmp_path / "in.npz"
    rng = np.random.default_rng(7)
    arg1 = rng.standard_normal((32, 64)).astype(np.float32)
    np.savez(
        inputs,
        arg0=rng.standard_normal((8, 32)).astype(np.float32),
        arg1=arg1,
        arg2=rng.standard_normal((64, 32)).astype(np.float32),
    )
    run = [example, "--inputs", str(inputs), "--quiet"]
    top, bad = tmp_path / "stablehlo.npz", tmp_path / "nisa-fault.npz"
    assert mx_run.main([*run, "--trace", str(top)], io.StringIO()) == 0
    real = mx_run.make_interpreter

    def with_fault(*args: object, **kwargs: object) -> Interpreter:
        return real(*args, extra=[TransposeRowOneUlpOff()], **kwargs)  # pyright: ignore

    monkeypatch.setattr(mx_run, "make_interpreter", with_fault)
    lower = "import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa"
    assert mx_run.main([*run, "-p", lower, "--trace", str(bad)], io.StringIO()) == 0
    code, out, err = run_diff(top, bad)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[1].endswith(f"stablehlo.transpose result0 at {example}:6:5 core 0"), lines[1]
    assert lines[2].endswith("nisa.dma_copy buffer (source " + example + ":6:5) core 0"), lines[2]
    # element (0, 5, 3) of the transpose is arg1[3, 5]; one ulp up is its bits + 1
    good = arg1[3, 5]
    bits = int(good.view(np.uint32))
    high = np.array(bits + 1, np.uint32).view(np.float32)
    gap = float(abs(np.float64(high) - np.float64(good)))
    assert (
        lines[3]
        == f"  1 of 2048 elements differ (float32); largest difference 1 ulp, {gap:.6g} absolute"
    )
    assert lines[4] == (
        f"  first at index (0, 5, 3): {float(good)!r} (0x{bits:08x}) and "
        f"{float(high)!r} (0x{bits + 1:08x})"
    )


def test_a_buffer_of_words_is_compared_as_the_floats_it_holds() -> None:
    """A lowering that works on bits (a negate as an XOR of the sign bit) completes a
    ui32 buffer that the next op reads as f32: its words are compared bit for bit with
    the f32 value above; any other pair of dtypes is compared by value, as before."""
    from mxdsl.interpreters.trace import BUFFER, TraceRecord

    value = np.array([[1.5, -2.0], [0.25, 3.0]], np.float32)
    top = TraceRecord("stablehlo.negate", "", "m.py:3:5", 0, "result0", value)
    words = value.view(np.uint32).copy()
    buffer = TraceRecord("nisa.dma_copy", "", "m.py:3:5", 0, BUFFER, words)
    assert mx_diff.first_difference([top], [buffer], "source")[0] is None
    words[1, 0] += 1
    finding, _ = mx_diff.first_difference([top], [buffer], "source")
    assert finding is not None
    assert finding.difference is not None
    assert finding.b.what == "buffer (bits as float32)"
    assert (finding.difference.count, finding.difference.max_ulps) == (1, 1)
    assert finding.difference.first == (1, 0)
    tile = TraceRecord("nisa.dma_copy", "", "m.py:3:5", 0, "dst", value.view(np.uint32))
    finding, _ = mx_diff.first_difference([top], [tile], "source")
    assert finding is not None  # 1.5 and 0x3fc00000 differ as values
    assert finding.b.what == "dst"


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    x = np.ones((2, 3), np.float32)
    trace_program(tmp_path / "a.npz", x, [])
    other = tmp_path / "other.npz"
    np.savez(other, unrelated=np.zeros(3))
    shaped = tmp_path / "shaped.npz"
    np.savez(shaped, result0=np.zeros((3, 2), np.uint16))
    text = tmp_path / "text.npz"
    text.write_text("not a zip")
    cases = {
        (tmp_path / "a.npz", tmp_path / "missing.npz"): "no such file",
        (tmp_path / "a.npz", other): "nothing to compare",
        (tmp_path / "a.npz", shaped): "result0 has shape (2, 3) in the first and (3, 2)",
        (tmp_path / "a.npz", text): "not an .npz file",
    }
    for (a, b), expected in cases.items():
        code, out, err = run_diff(a, b)
        assert code == 2, (a, b, out)
        assert out == ""
        assert err.count("\n") == 1, err
        assert expected in err, err
        assert "Traceback" not in err


def test_trace_filter_items() -> None:
    f = TraceFilter.parse(["nisa.*,model.py:10-12", "20"])
    assert f.ops == ("nisa.*",)
    assert f.lines == (("model.py", 10, 12), ("", 20, 20))
    assert f.accepts("nisa.activation", "", "model.py:11:3")
    assert not f.accepts("hlo.convert", "", "model.py:11:3")
    assert not f.accepts("nisa.activation", "", "other.py:11:3")
    assert f.accepts("nisa.activation", "run.mlir:20:1", "")
    for bad in ("a b", "9-3"):
        with pytest.raises(ValueError, match="--trace-filter"):
            TraceFilter.parse([bad])


def _swap_down_tiles(kernel: object) -> None:
    """Edit the kernel's IR as a wrong tile offset would: the first two PSUM -> SBUF
    copies of the down projection (token tiles 0 and 1 of a group, each ``[128, 512]``
    f32) exchange their PSUM sources, so each token tile receives the other's rows."""
    from mxdsl.dialects import nisa

    copies = [
        op
        for op in kernel.module.walk()  # type: ignore[attr-defined]
        if isinstance(op, nisa.TensorCopyOp)
        and isinstance(op.src.type, builtin.MemRefType)
        and op.src.type.memory_space == nisa.MemorySpaceAttr(nisa.MemorySpace.PSUM)
        and list(op.src.type.get_shape()) == [128, 512]
    ]
    first, second = copies[:2]
    assert first.parent is second.parent  # one group of token tiles
    a, b = first.src, second.src
    first.operands[1], second.operands[1] = b, a


def test_moe_trace_names_the_block_and_tile_of_a_swapped_tile(tmp_path: Path) -> None:
    """mx-moe run --trace against the golden block by block; then a kernel whose IR is
    edited so that two token tiles of the down projection land in each other's place:
    its traced down values are the good kernel's with the tiles exchanged (bit for bit),
    and mx-diff names block 0's down, token tile 0, H chunk 0."""
    from mxdsl.tools import mx_moe

    argv = ["run", "--implementation", "shard_on_block", "--block-size", "256"]
    argv += ["--tokens", "20", "--experts", "2", "--no-progress"]
    traces = {}
    for label, edit in (("good", None), ("swapped", _swap_down_tiles)):
        prefix = tmp_path / label
        args = mx_moe.build_arg_parser().parse_args([*argv, "--trace", str(prefix)])
        kernel = mx_moe.build(args)
        if edit is not None:
            edit(kernel)
        inputs = mx_moe.seeded_inputs(kernel, args)
        checked = mx_moe.check(kernel, inputs, None)
        mx_moe.write_block_traces(str(prefix), kernel, inputs, checked, io.StringIO())
        traces[label] = {r.name: r.value for r in mx_diff.read_side(f"{prefix}.kernel.npz").records}
    golden = tmp_path / "good.golden.npz"
    tolerance = ["--rtol", "0.01", "--atol", "0.01"]
    code, out, _ = run_diff(tmp_path / "good.kernel.npz", golden, *tolerance)
    assert code == 0, out
    good, bad = traces["good"]["block0.down"], traces["swapped"]["block0.down"]
    assert bad[:128].tobytes() == good[128:256].tobytes()
    assert bad[128:256].tobytes() == good[:128].tobytes()
    assert traces["swapped"]["block0.act"].tobytes() == traces["good"]["block0.act"].tobytes()
    kernel_trace = tmp_path / "swapped.kernel.npz"
    code, out, _ = run_diff(kernel_trace, golden, *tolerance)
    assert code == 1
    lines = out.splitlines()
    assert lines[1].endswith("moe [block0.down] block0.down core 0")
    assert lines[-1] == "  in block0, 128-row tile 0, 512-column H chunk 0"


def test_every_variant_traces_its_blocks_and_keeps_its_output_bits(tmp_path: Path) -> None:
    """mx-moe run --trace on each variant: its blocks' values within the golden's
    tolerance (gate, up, act, down, rows; MX: down, rows) and -o's bits those of the
    run without --trace."""
    from mxdsl.kernels.moe_cte import MoECTEImplementation
    from mxdsl.tools import mx_moe

    for variant in MoECTEImplementation:
        argv = ["run", "--implementation", variant.name, "--tokens", "20", "--experts", "2"]
        argv += ["--bias", "--no-progress"]
        plain, traced = tmp_path / f"{variant.name}.npz", tmp_path / f"{variant.name}.t.npz"
        prefix = tmp_path / variant.name
        assert mx_moe.main([*argv, "-o", str(plain)], io.StringIO()) == 0
        out = io.StringIO()
        assert mx_moe.main([*argv, "-o", str(traced), "--trace", str(prefix)], out) == 0
        with np.load(plain) as a, np.load(traced) as b:
            assert a.files == b.files
            for key in a.files:
                assert a[key].tobytes() == b[key].tobytes(), (variant.name, key)
        names = {r.name for r in mx_diff.read_side(f"{prefix}.kernel.npz").records}
        values = {"down", "rows"} if variant.is_mx else {"gate", "up", "act", "down", "rows"}
        assert {n.partition(".")[2] for n in names if n.startswith("block")} == values
        tolerance = "0.01"
        code, text, _ = run_diff(
            f"{prefix}.kernel.npz", f"{prefix}.golden.npz", "--rtol", tolerance, "--atol", tolerance
        )
        assert code == 0, (variant.name, text)


def test_traced_moe_kernel_changes_no_output_bit(tmp_path: Path) -> None:
    from mxdsl.tools import mx_moe

    ir, inputs = tmp_path / "moe.mlir", tmp_path / "in.npz"
    argv = ["emit", "--implementation", "shard_on_block", "--tokens", "8", "--experts", "2"]
    assert mx_moe.main([*argv, "-o", str(ir), "--write-inputs", str(inputs)], io.StringIO()) == 0
    run = [str(ir), "--inputs", str(inputs), "--cores", "2", "--quiet"]  # the fast path
    assert mx_run.main([*run, "-o", str(tmp_path / "a.npz")], io.StringIO()) == 0
    traced = [*run, "-o", str(tmp_path / "b.npz"), "--trace", str(tmp_path / "t.npz")]
    assert mx_run.main([*traced, "--trace-filter", "nisa.activation"], io.StringIO()) == 0
    with np.load(tmp_path / "a.npz") as a, np.load(tmp_path / "b.npz") as b:
        assert a.files == b.files
        for key in a.files:
            assert a[key].tobytes() == b[key].tobytes()
    loaded = mx_diff.read_side(str(tmp_path / "t.npz"))
    ops = {r.op for r in loaded.records if not r.name}
    assert ops == {"nisa.activation"}
    assert {r.core for r in loaded.records if not r.name} == {0, 1}

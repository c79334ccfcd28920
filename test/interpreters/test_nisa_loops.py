"""The nisa interpreter's scf.for runner (a numbered frame per loop body, direct
dispatch): nested loops reading values of the enclosing body, loop-carried values,
listeners seeing every body op, and errors reported against the failing op."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from exact_reference import exact_pass
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Operation

from mxdsl.interpreters import OpInterpretationError, make_interpreter
from mxdsl.numerics.matmul import pe_pass
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

SB = "#nisa.mem<sbuf>"
ROW = f"memref<8xf32, strided<[1], offset: ?>, {SB}>"
CELL = f"memref<1xf32, strided<[1], offset: ?>, {SB}>"

PROGRAM = f"""
func.func @main(%out: memref<5x8xf32, #nisa.mem<hbm>>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<5x8xf32, {SB}>
  nisa.memset %buf, 0.000000e+00 : memref<5x8xf32, {SB}>
  %total = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {{
    %row = memref.subview %buf[%i, 0] [1, 8] [1, 1] : memref<5x8xf32, {SB}> to {ROW}
    %trips = arith.addi %i, %c1 : index
    scf.for %j = %c0 to %trips step %c1 {{
      nisa.tensor_scalar %row, %row, add %one : {ROW}, {ROW}, f32
    }}
    %next = arith.addi %acc, %trips : index
    scf.yield %next : index
  }}
  %last = memref.subview %buf[4, 0] [1, 1] [1, 1] : memref<5x8xf32, {SB}> to {CELL}
  scf.for %k = %c0 to %total step %c1 {{
    nisa.tensor_scalar %last, %last, add %one : {CELL}, {CELL}, f32
  }}
  nisa.dma_copy %out, %buf : memref<5x8xf32, #nisa.mem<hbm>>, memref<5x8xf32, {SB}>
  func.return
}}
"""


class _Recorder(Interpreter.Listener):
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def will_interpret_op(self, op: Operation, args: tuple[object, ...]) -> None:
        self.events.append(("will", op.name))

    def did_interpret_op(self, op: Operation, results: tuple[object, ...]) -> None:
        self.events.append(("did", op.name))


def _run(program: str, listener: Interpreter.Listener | None = None) -> np.ndarray:
    ctx = _context()
    module, _ = parse_located(ctx, program, "loops.mlir")
    module.verify()
    listeners = (listener,) if listener else ()
    interpreter = make_interpreter(module, ctx, listeners=listeners)
    out = np.full((5, 8), np.nan, dtype=np.float32)
    interpreter.call_op("main", (out,))
    return out


def test_nested_loops_read_the_enclosing_body_and_carry_values() -> None:
    out = _run(PROGRAM)
    want = np.zeros((5, 8), dtype=np.float32)
    want[:4] = np.arange(1, 5, dtype=np.float32)[:, None]  # row i gets i + 1 adds
    want[4, 0] = 1 + 2 + 3 + 4  # the loop-carried total of the trip counts
    np.testing.assert_array_equal(out, want)


def test_listeners_see_every_op_of_every_iteration() -> None:
    recorder = _Recorder()
    _run(PROGRAM, recorder)
    events = recorder.events
    adds = [e for e in events if e == ("will", "nisa.tensor_scalar")]
    assert len(adds) == (1 + 2 + 3 + 4) + 10
    assert events.count(("will", "memref.subview")) == 4 + 1
    assert events.count(("will", "scf.yield")) == 4 + (1 + 2 + 3 + 4) + 10
    # each op's will comes before its did, nested properly (a stack)
    stack: list[str] = []
    for kind, name in events:
        if kind == "will":
            stack.append(name)
        else:
            assert stack.pop() == name
    assert not stack


@register_impls
class _OffsetAddi(InterpreterFunctions):
    """An ``arith.addi`` that adds 100 more, and an ``scf.yield`` counting its calls:
    plain xDSL implementations overriding mxdsl's (``extra=``)."""

    yields = 0

    @impl(arith.AddiOp)
    def run_addi(self, interpreter: Interpreter, op: arith.AddiOp, args: PythonValues):
        return (IntegerAttr(args[0].value.data + args[1].value.data + 100, IndexType()),)

    @impl_terminator(scf.YieldOp)
    def run_yield(self, interpreter: Interpreter, op: scf.YieldOp, args: PythonValues):
        _OffsetAddi.yields += 1
        return ReturnedValues(args), ()


_SUM = """
func.func @main() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  func.return %r : index
}
"""


def test_loop_bodies_run_the_registered_implementations() -> None:
    """The loop runner calls mxdsl's own implementations without xDSL's wrapper and
    skips upstream's scf.yield, but an implementation registered over them (a plain
    ``@impl`` / ``@impl_terminator``) is the one that runs."""
    ctx = _context()
    module, _ = parse_located(ctx, _SUM, "sum.mlir")
    module.verify()
    (plain,) = make_interpreter(module, ctx).call_op("main", ())
    assert plain.value.data == 0 + 1 + 2
    _OffsetAddi.yields = 0
    (offset,) = make_interpreter(module, ctx, extra=[_OffsetAddi]).call_op("main", ())
    assert offset.value.data == 0 + 1 + 2 + 3 * 100
    assert _OffsetAddi.yields == 3


def test_an_error_in_a_loop_body_names_the_failing_op() -> None:
    program = PROGRAM.replace("%c4 = arith.constant 4", "%c4 = arith.constant 6")
    with pytest.raises(OpInterpretationError) as info:
        _run(program)
    assert info.value.op.name == "memref.subview"
    line = program.splitlines().index(next(x for x in program.splitlines() if "%row =" in x))
    assert str(info.value).startswith(f"loops.mlir:{line + 1}:5: subview dim 0: offset 5")


PS = "#nisa.mem<psum>"
X_T = f"memref<8x3x16xf32, {SB}>"  # [K, k tile, tokens]
W_T = f"memref<8x3x2x4xf32, {SB}>"  # [K, k tile, gate/up, M]
MV = f"memref<8x16xf32, strided<[48, 1], offset: ?>, {SB}>"
ST = f"memref<8x4xf32, strided<[24, 1], offset: ?>, {SB}>"
ACC = f"memref<4x16xf32, {PS}>"

SB_ACC = f"memref<4x16xf32, {SB}>"
OUT = "memref<2x2x4x16xf32, #nisa.mem<hbm>>"
OUT_T = "memref<4x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>"
LOAD_X_W = f"""  %x = memref.alloc() : {X_T}
  %w = memref.alloc() : {W_T}
  nisa.dma_copy %x, %x_h : {X_T}, memref<8x3x16xf32, #nisa.mem<hbm>>
  nisa.dma_copy %w, %w_h : {W_T}, memref<8x3x2x4xf32, #nisa.mem<hbm>>
"""
"""The token and weight tiles brought to SBUF (%x_h, %w_h: HBM arguments)."""
SHARED_MOVING = f"""
func.func @main(%x_h: memref<8x3x16xf32, #nisa.mem<hbm>>,
                %w_h: memref<8x3x2x4xf32, #nisa.mem<hbm>>, %out: {OUT}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f32
{LOAD_X_W}  %gate = memref.alloc() : {ACC}
  %up = memref.alloc() : {ACC}
  %staged = memref.alloc() : {SB_ACC}
  nisa.memset %gate, 0.000000e+00 : {ACC}
  nisa.memset %up, 0.000000e+00 : {ACC}
  scf.for %round = %c0 to %c2 step %c1 {{
    scf.for %k = %c0 to %c3 step %c1 {{
      %mv = memref.subview %x[0, %k, 0] [8, 1, 16] [1, 1, 1] : {X_T} to {MV}
      %sg = memref.subview %w[0, %k, 0, 0] [8, 1, 1, 4] [1, 1, 1, 1] : {W_T} to {ST}
      nisa.nc_matmul %gate, %sg, %mv accumulate : {ACC}, {ST}, {MV}
      %su = memref.subview %w[0, %k, 1, 0] [8, 1, 1, 4] [1, 1, 1, 1] : {W_T} to {ST}
      nisa.nc_matmul %up, %su, %mv accumulate : {ACC}, {ST}, {MV}
    }}
    %dg = memref.subview %out[%round, 0, 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : {OUT} to {OUT_T}
    %du = memref.subview %out[%round, 1, 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : {OUT} to {OUT_T}
    nisa.tensor_copy %staged, %gate : {SB_ACC}, {ACC}
    nisa.dma_copy %dg, %staged : {OUT_T}, {SB_ACC}
    nisa.tensor_copy %staged, %up : {SB_ACC}, {ACC}
    nisa.dma_copy %du, %staged : {OUT_T}, {SB_ACC}
    nisa.tensor_scalar %x, %x, multiply %two : {X_T}, {X_T}, f32
  }}
  func.return
}}
"""


def test_matmuls_sharing_a_moving_tile_in_a_read_only_loop() -> None:
    """The gate/up pattern: two matmuls per iteration read the same token tile (analysed
    once); between the loop's runs the tile is rewritten, and the next run sees that."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 3, 16)).astype(np.float32)
    x[:, :, 11:] = 0.0  # padding token columns
    w = rng.standard_normal((8, 3, 2, 4)).astype(np.float32)
    out = np.zeros((2, 2, 4, 16), dtype=np.float32)
    ctx = _context()
    module, _ = parse_located(ctx, SHARED_MOVING, "shared.mlir")
    module.verify()
    make_interpreter(module, ctx).call_op("main", (x.copy(), w, out))
    gate = np.zeros((4, 16), np.float32)
    up = np.zeros((4, 16), np.float32)
    tokens = x.copy()
    for round_ in range(2):
        for k in range(3):
            gate = gate + pe_pass(w[:, k, 0, :].T, tokens[:, k, :])
            up = up + pe_pass(w[:, k, 1, :].T, tokens[:, k, :])
        assert np.array_equal(out[round_, 0].view(np.uint32), gate.view(np.uint32))
        assert np.array_equal(out[round_, 1].view(np.uint32), up.view(np.uint32))
        tokens = tokens * np.float32(2.0)


HALF = f"memref<4x16xbf16, {PS}>"
SB_HALF = f"memref<4x16xbf16, {SB}>"
BATCHED = f"""
func.func @main(%x_h: memref<8x3x16xf32, #nisa.mem<hbm>>,
                %w_h: memref<8x3x2x4xf32, #nisa.mem<hbm>>,
                %out: memref<4x16xf32, #nisa.mem<hbm>>,
                %out_half: memref<4x16xbf16, #nisa.mem<hbm>>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
{LOAD_X_W}  %acc = memref.alloc() : {ACC}
  %half = memref.alloc() : {HALF}
  nisa.memset %half, 0.000000e+00 : {HALF}
  scf.for %k = %c0 to %c3 step %c1 {{
    %mv = memref.subview %x[0, %k, 0] [8, 1, 16] [1, 1, 1] : {X_T} to {MV}
    %s0 = memref.subview %w[0, %k, 0, 0] [8, 1, 1, 4] [1, 1, 1, 1] : {W_T} to {ST}
    %s1 = memref.subview %w[0, %k, 1, 0] [8, 1, 1, 4] [1, 1, 1, 1] : {W_T} to {ST}
    nisa.nc_matmul %acc, %s0, %mv : {ACC}, {ST}, {MV}
    nisa.nc_matmul %acc, %s1, %mv accumulate : {ACC}, {ST}, {MV}
    nisa.nc_matmul %half, %s0, %mv accumulate : {HALF}, {ST}, {MV}
    nisa.nc_matmul %acc, %s0, %mv accumulate : {ACC}, {ST}, {MV}
  }}
  %staged = memref.alloc() : {SB_ACC}
  nisa.tensor_copy %staged, %acc : {SB_ACC}, {ACC}
  nisa.dma_copy %out, %staged : memref<4x16xf32, #nisa.mem<hbm>>, {SB_ACC}
  %staged_half = memref.alloc() : {SB_HALF}
  nisa.tensor_copy %staged_half, %half : {SB_HALF}, {HALF}
  nisa.dma_copy %out_half, %staged_half : memref<4x16xbf16, #nisa.mem<hbm>>, {SB_HALF}
  func.return
}}
"""


def test_an_iterations_matmuls_run_together_in_program_order() -> None:
    """A read-only loop's matmuls run as a batch at the end of each iteration: one PSUM
    tile overwritten and accumulated into twice (each pass sees the one before), and a
    bf16 PSUM tile in between (rounded after every pass) — each as pe_pass in order."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 3, 16)).astype(np.float32)
    x[:, :, 12:] = 0.0
    w = rng.standard_normal((8, 3, 2, 4)).astype(np.float32)
    out = np.zeros((4, 16), np.float32)
    out_half = np.zeros((4, 16), ml_dtypes.bfloat16)
    ctx = _context()
    module, _ = parse_located(ctx, BATCHED, "batched.mlir")
    module.verify()
    make_interpreter(module, ctx).call_op("main", (x, w, out, out_half))
    half = np.zeros((4, 16), np.float32)
    for k in range(3):
        first = pe_pass(w[:, k, 0, :].T, x[:, k, :])
        acc = first + pe_pass(w[:, k, 1, :].T, x[:, k, :])
        half = (half + first).astype(ml_dtypes.bfloat16).astype(np.float32)
        acc = acc + first
    assert np.array_equal(out.view(np.uint32), acc.view(np.uint32))
    assert np.array_equal(out_half.astype(np.float32).view(np.uint32), half.view(np.uint32))


def test_batched_loop_passes_are_exact_on_adversarial_data() -> None:
    """The read-only loop's batched gate/up passes (one moving tile, stationaries stacked)
    on data a float64 sum gets wrong: +-2**60 weight pairs that cancel around small
    products, f32 values over 80 binades; every output equals exact Fraction sums added
    in fp32 (``test/numerics/exact_reference.py``), so batching cannot change a bit."""
    rng = np.random.default_rng(15)
    x = (rng.standard_normal((8, 3, 16)) * np.exp2(rng.integers(-40, 40, (8, 3, 16)))).astype(
        np.float32
    )
    x[:, :, 11:] = 0.0  # padding token columns
    x[7] = x[0]
    w = (rng.standard_normal((8, 3, 2, 4)) * np.exp2(rng.integers(-40, 40, (8, 3, 2, 4)))).astype(
        np.float32
    )
    w[0], w[7] = 2.0**60, -(2.0**60)
    out = np.zeros((2, 2, 4, 16), dtype=np.float32)
    ctx = _context()
    module, _ = parse_located(ctx, SHARED_MOVING, "shared.mlir")
    make_interpreter(module, ctx).call_op("main", (x.copy(), w, out))
    gate = np.zeros((4, 16), np.float32)
    up = np.zeros((4, 16), np.float32)
    tokens = x.astype(np.float64)
    for round_ in range(2):
        for k in range(3):
            gate = gate + exact_pass(w[:, k, 0, :].T.astype(np.float64), tokens[:, k, :])
            up = up + exact_pass(w[:, k, 1, :].T.astype(np.float64), tokens[:, k, :])
        assert np.array_equal(out[round_, 0].view(np.uint32), gate.view(np.uint32))
        assert np.array_equal(out[round_, 1].view(np.uint32), up.view(np.uint32))
        tokens = tokens * 2.0


W2 = "memref<3x8x3x2x4xf32, #nisa.mem<hbm>>"
W2_T = "memref<8x2x4xf32, strided<[24, 4, 1], offset: ?>, #nisa.mem<hbm>>"
W_K = f"memref<8x2x4xf32, strided<[24, 4, 1], offset: ?>, {SB}>"
REWRITTEN = f"""
func.func @main(%x_h: memref<8x3x16xf32, #nisa.mem<hbm>>,
                %w_h: memref<8x3x2x4xf32, #nisa.mem<hbm>>, %w2: {W2}, %out: {OUT}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %yes = arith.constant true
  %two = arith.constant 2.0 : f32
{LOAD_X_W}  %gate = memref.alloc() : {ACC}
  %staged = memref.alloc() : {SB_ACC}
  nisa.memset %gate, 0.000000e+00 : {ACC}
  scf.for %round = %c0 to %c2 step %c1 {{
    scf.for %k = %c0 to %c3 step %c1 {{
      %mv = memref.subview %x[0, %k, 0] [8, 1, 16] [1, 1, 1] : {X_T} to {MV}
      %sg = memref.subview %w[0, %k, 0, 0] [8, 1, 1, 4] [1, 1, 1, 1] : {W_T} to {ST}
      nisa.nc_matmul %gate, %sg, %mv accumulate : {ACC}, {ST}, {MV}
      %su = memref.subview %w[0, %k, 1, 0] [8, 1, 1, 4] [1, 1, 1, 1] : {W_T} to {ST}
      nisa.nc_matmul %gate, %su, %mv accumulate : {ACC}, {ST}, {MV}
    }}
    %dg = memref.subview %out[%round, 0, 0, 0] [1, 1, 4, 16] [1, 1, 1, 1] : {OUT} to {OUT_T}
    nisa.tensor_copy %staged, %gate : {SB_ACC}, {ACC}
    nisa.dma_copy %dg, %staged : {OUT_T}, {SB_ACC}
    scf.if %yes {{
      nisa.tensor_scalar %x, %x, multiply %two : {X_T}, {X_T}, f32
    }}
    scf.for %k = %c0 to %c3 step %c1 {{
      %s = memref.subview %w2[%round, 0, %k, 0, 0] [1, 8, 1, 2, 4] [1, 1, 1, 1, 1] : {W2} to {W2_T}
      %dst = memref.subview %w[0, %k, 0, 0] [8, 1, 2, 4] [1, 1, 1, 1] : {W_T} to {W_K}
      nisa.dma_copy %dst, %s : {W_K}, {W2_T}
    }}
  }}
  func.return
}}
"""


def test_tiles_rewritten_between_reads_are_read_anew() -> None:
    """PE operands are kept per buffer while it is unchanged: here the token buffer is
    rewritten inside an ``scf.if`` (a region the loop runs without tracking its ops) and
    the weight buffer by a nested loop's DMAs between the rounds' matmuls; each round
    must read the new values (checked against pe_pass on numpy copies)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((8, 3, 16)).astype(np.float32)
    x[:, :, 13:] = 0.0
    w = rng.standard_normal((8, 3, 2, 4)).astype(np.float32)
    w2 = rng.standard_normal((3, 8, 3, 2, 4)).astype(np.float32)
    out = np.zeros((2, 2, 4, 16), dtype=np.float32)
    ctx = _context()
    module, _ = parse_located(ctx, REWRITTEN, "rewritten.mlir")
    module.verify()
    make_interpreter(module, ctx).call_op("main", (x.copy(), w.copy(), w2, out))
    gate = np.zeros((4, 16), np.float32)
    tokens, weights = x.copy(), w.copy()
    for round_ in range(2):
        for k in range(3):
            gate = gate + pe_pass(weights[:, k, 0, :].T, tokens[:, k, :])
            gate = gate + pe_pass(weights[:, k, 1, :].T, tokens[:, k, :])
        assert np.array_equal(out[round_, 0].view(np.uint32), gate.view(np.uint32)), round_
        tokens = tokens * np.float32(2.0)
        weights = w2[round_].copy()


MX_P, MX_M, MX_N = 32, 4, 6
X4 = "!nisa.float8_e4m3fn_x4"
E8 = "f8E8M0FNU"
HBM = "#nisa.mem<hbm>"
DS = f"strided<[{MX_N}, 1]"
SD_T, SS_T = f"memref<{MX_P}x{MX_M}x{X4}, {SB}>", f"memref<{MX_P}x{MX_M}x{E8}, {SB}>"
D_H, S_H = f"memref<3x{MX_P}x{MX_N}x{X4}, {HBM}>", f"memref<3x{MX_P}x{MX_N}x{E8}, {HBM}>"
D_R = f"memref<{MX_P}x{MX_N}x{X4}, {DS}, offset: ?>, {HBM}>"  # one round's codes
S_R = f"memref<{MX_P}x{MX_N}x{E8}, {DS}, offset: ?>, {HBM}>"
D_T, S_T = f"memref<{MX_P}x{MX_N}x{X4}, {SB}>", f"memref<{MX_P}x{MX_N}x{E8}, {SB}>"
D_V, S_V = f"memref<{MX_P}x{MX_N}x{X4}, {DS}>, {SB}>", f"memref<{MX_P}x{MX_N}x{E8}, {DS}>, {SB}>"
ACC_MX, SB_MX = f"memref<{MX_M}x{MX_N}xf32, {PS}>", f"memref<{MX_M}x{MX_N}xf32, {SB}>"
OUT3 = f"memref<3x{MX_M}x{MX_N}xf32, {HBM}>"
OUT3_R = f"memref<{MX_M}x{MX_N}xf32, {DS}, offset: ?>, {HBM}>"
MX_REREAD = f"""
func.func @main(%sd: {SD_T}, %ss: {SS_T}, %md_h: {D_H}, %ms_h: {S_H}, %out: {OUT3}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %md = memref.alloc() : {D_T}
  %ms = memref.alloc() : {S_T}
  %acc = memref.alloc() : {ACC_MX}
  %staged = memref.alloc() : {SB_MX}
  scf.for %round = %c0 to %c3 step %c1 {{
    %d = memref.subview %md_h[%round, 0, 0] [1, {MX_P}, {MX_N}] [1, 1, 1] : {D_H} to {D_R}
    %s = memref.subview %ms_h[%round, 0, 0] [1, {MX_P}, {MX_N}] [1, 1, 1] : {S_H} to {S_R}
    nisa.dma_copy %md, %d : {D_T}, {D_R}
    nisa.dma_copy %ms, %s : {S_T}, {S_R}
    nisa.memset %acc, 0.000000e+00 : {ACC_MX}
    scf.for %k = %c0 to %c3 step %c1 {{
      %mv = memref.subview %md[0, 0] [{MX_P}, {MX_N}] [1, 1] : {D_T} to {D_V}
      %mvs = memref.subview %ms[0, 0] [{MX_P}, {MX_N}] [1, 1] : {S_T} to {S_V}
      nisa.nc_matmul_mx %acc, %sd scale %ss, %mv scale %mvs accumulate
        : {ACC_MX}, {SD_T}, {SS_T}, {D_V}, {S_V}
    }}
    %o = memref.subview %out[%round, 0, 0] [1, {MX_M}, {MX_N}] [1, 1, 1] : {OUT3} to {OUT3_R}
    nisa.tensor_copy %staged, %acc : {SB_MX}, {ACC_MX}
    nisa.dma_copy %o, %staged : {OUT3_R}, {SB_MX}
  }}
  func.return
}}
"""


def _quantized(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values [F, 4P]`` quantized along K (blocks of 32): FP8 codes and E8M0 scales."""
    from mxdsl.numerics.blocks import logical_block_shape
    from mxdsl.numerics.formats import MxFormat
    from mxdsl.numerics.reference import quantize_mx_reference

    return quantize_mx_reference(values, MxFormat.E4M3FN, logical_block_shape(2, 1))


def _mx_nisa_side(codes: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, ...]:
    """Codes ``[F, 4P]`` and scales ``[F, 4P / 32]`` as an x4 tile ``[P, F]`` and its
    scale tile (quadrant layout), and their values ``[F, 4P]`` in float64
    (``dequantize_mx_reference``)."""
    from mxdsl.numerics.formats import MxFormat
    from mxdsl.numerics.reference import dequantize_mx_reference

    free = codes.shape[0]
    data = codes.reshape(free, MX_P, 4).transpose(1, 0, 2).copy().view("<u4")[..., 0]
    tile = np.zeros((MX_P, free), np.uint8)
    tile[[(i & 3) + 32 * (i >> 2) for i in range(MX_P // 8)]] = scale.view(np.uint8).T
    values = dequantize_mx_reference(codes, scale, MxFormat.E4M3FN, (1, 32))
    return data.astype(np.uint32), tile.view(ml_dtypes.float8_e8m0fnu), values.astype(np.float64)


def test_mx_tiles_reread_in_a_loop_follow_writes_to_codes_and_scales() -> None:
    """An MX moving tile read by every iteration (its dequantized operand kept from the
    second read on) is read anew after a DMA rewrites its scales only (round 1: each
    E8M0 byte one up) and its codes only (round 2); each round's PSUM is three
    fp32-accumulated passes of the reference-dequantized operands (float64 sums of
    K = 128 products of FP8 values: exact here)."""
    rng = np.random.default_rng(21)
    bf16 = ml_dtypes.bfloat16
    sd, ss, lhs = _mx_nisa_side(*_quantized(rng.standard_normal((MX_M, 4 * MX_P)).astype(bf16)))
    codes_a, scale_a = _quantized(rng.standard_normal((MX_N, 4 * MX_P)).astype(bf16))
    codes_b, _ = _quantized(rng.standard_normal((MX_N, 4 * MX_P)).astype(bf16))
    scale_up = (scale_a.view(np.uint8) + 1).view(scale_a.dtype)
    rounds = [(codes_a, scale_a), (codes_a, scale_up), (codes_b, scale_up)]
    sides = [_mx_nisa_side(c, s) for c, s in rounds]
    assert np.array_equal(sides[0][0], sides[1][0])  # round 1 rewrites the scales only
    assert np.array_equal(sides[1][1].view(np.uint8), sides[2][1].view(np.uint8))
    md = np.stack([side[0] for side in sides])
    ms = np.stack([side[1] for side in sides])
    out = np.zeros((3, MX_M, MX_N), np.float32)
    ctx = _context()
    module, _ = parse_located(ctx, MX_REREAD, "mx.mlir")
    module.verify()
    make_interpreter(module, ctx).call_op("main", (sd, ss, md, ms, out))
    for r, (_, _, moving) in enumerate(sides):
        one = (lhs @ moving.T).astype(np.float32)
        expected = (one + one) + one
        assert np.array_equal(out[r].view(np.uint32), expected.view(np.uint32)), r


HB = "#nisa.mem<hbm>"
PS2 = "#nisa.mem<psum>"
XV = f"memref<8x16xf32, strided<[32, 1]>, {SB}>"
"""The moving tile: a view of a wider buffer (whole-buffer tiles are not tracked)."""
EXCHANGE = f"""
func.func @main(%x_h: memref<2x8x16xf32, {HB}>, %w_h: memref<8x4xf32, {HB}>,
                %out: memref<2x3x4x16xf32, {HB}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f32
  %r = nisa.program_id
  %peer = arith.subi %c1, %r : index
  %xbuf = memref.alloc() : memref<8x32xf32, {SB}>
  %x = memref.subview %xbuf[0, 0] [8, 16] [1, 1] : memref<8x32xf32, {SB}> to {XV}
  %w = memref.alloc() : memref<8x4xf32, {SB}>
  %send = memref.alloc() : memref<8x16xf32, {SB}>
  %acc = memref.alloc() : memref<4x16xf32, {PS2}>
  %staged = memref.alloc() : memref<4x16xf32, {SB}>
  %xr = memref.subview %x_h[%r, 0, 0] [1, 8, 16] [1, 1, 1]
      : memref<2x8x16xf32, {HB}> to memref<8x16xf32, strided<[16, 1], offset: ?>, {HB}>
  nisa.dma_copy %x, %xr : {XV}, memref<8x16xf32, strided<[16, 1], offset: ?>, {HB}>
  nisa.dma_copy %send, %xr
      : memref<8x16xf32, {SB}>, memref<8x16xf32, strided<[16, 1], offset: ?>, {HB}>
  nisa.dma_copy %w, %w_h : memref<8x4xf32, {SB}>, memref<8x4xf32, {HB}>
  scf.for %i = %c0 to %c3 step %c1 {{
    nisa.tensor_scalar %send, %send, multiply %two
        : memref<8x16xf32, {SB}>, memref<8x16xf32, {SB}>, f32
    nisa.nc_matmul %acc, %w, %x : memref<4x16xf32, {PS2}>, memref<8x4xf32, {SB}>, {XV}
    nisa.tensor_copy %staged, %acc : memref<4x16xf32, {SB}>, memref<4x16xf32, {PS2}>
    %o = memref.subview %out[%r, %i, 0, 0] [1, 1, 4, 16] [1, 1, 1, 1]
        : memref<2x3x4x16xf32, {HB}> to memref<4x16xf32, strided<[16, 1], offset: ?>, {HB}>
    nisa.dma_copy %o, %staged
        : memref<4x16xf32, strided<[16, 1], offset: ?>, {HB}>, memref<4x16xf32, {SB}>
    nisa.sendrecv %x, %send to %peer from %peer pipe 0 : {XV}, memref<8x16xf32, {SB}>
  }}
  func.return
}}
"""


def test_a_sendrecv_destination_read_by_a_loops_matmul_is_seen_fresh() -> None:
    """In a planned loop on 2 cores the matmul's moving tile is the destination of the
    iteration's ``sendrecv`` (the peer's tile, doubled each iteration; a view of a wider
    buffer, as the kernels' tiles are, and read by no other op): its analysis is dropped at the
    exchange, the weight tile's (which no core can write) is kept; every pass as
    ``pe_pass`` on the tile the core holds at that iteration."""
    from mxdsl.interpreters.spmd import run_spmd

    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 8, 16)).astype(np.float32)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    out = np.full((2, 3, 4, 16), np.nan, dtype=np.float32)
    ctx = _context()
    module, _ = parse_located(ctx, EXCHANGE, "exchange.mlir")
    module.verify()
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", (x, w, out), 2)
    for core in range(2):
        held = x[core]
        for i in range(3):
            want = pe_pass(w.T, held)
            assert np.array_equal(out[core, i].view(np.uint32), want.view(np.uint32))
            held = np.float32(2.0 ** (i + 1)) * x[1 - core]  # the peer's doubled tile

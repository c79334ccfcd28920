"""What the nisa loop engine reads of an op before queueing past it
(``mxdsl.interpreters.nisa_engine.waits_for_queued_passes``): the memory effects the op
declares per operand, never a table of op names. An op of an extension is planned from
its declared effects; one declaring none is taken as writing everything."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, traits_def
from xdsl.parser import Parser
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind

from mxdsl.dialects import nisa
from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.fast_path import declared_accesses
from mxdsl.interpreters.nisa_engine import waits_for_queued_passes
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]


class ReadsItsOperand(MemoryEffect):
    """A read of the op's one operand, and nothing else."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.READ, op.operands[0])}


@irdl_op_definition
class PeekOp(IRDLOperation):
    """Reads its tile (declared), writes nothing."""

    name = "test_ext.peek"
    src = operand_def(MemRefType)
    traits = traits_def(ReadsItsOperand())


@irdl_op_definition
class ScaleOp(IRDLOperation):
    """Writes dst, reads src: nisa's per-operand effects, reused."""

    name = "test_ext.scale"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    traits = traits_def(nisa.OperandEffects())


@irdl_op_definition
class OpaqueOp(IRDLOperation):
    """Declares no effects at all."""

    name = "test_ext.opaque"
    src = operand_def(MemRefType)


SEEN: list[tuple[str, float]] = []


@register_impls
class ExtFunctions(InterpreterFunctions):
    """Each op records the sum of what it reads."""

    @impl(PeekOp)
    def run_peek(self, interpreter: Interpreter, op: PeekOp, args: PythonValues):
        SEEN.append(("peek", float(np.asarray(args[0], dtype=np.float64).sum())))
        return ()

    @impl(ScaleOp)
    def run_scale(self, interpreter: Interpreter, op: ScaleOp, args: PythonValues):
        dst, src = args
        dst[...] = (np.asarray(src, dtype=np.float32) * 2).astype(dst.dtype)
        return ()

    @impl(OpaqueOp)
    def run_opaque(self, interpreter: Interpreter, op: OpaqueOp, args: PythonValues):
        SEEN.append(("opaque", float(np.asarray(args[0], dtype=np.float64).sum())))
        return ()


SB = "memref<128x8xbf16, #nisa.mem<sbuf>>"
W = "memref<128x128xbf16, #nisa.mem<sbuf>>"
PS = "memref<128x8xf32, #nisa.mem<psum>>"
HB = "memref<128x8xf32, #nisa.mem<hbm>>"
SF = "memref<128x8xf32, #nisa.mem<sbuf>>"

PROGRAM = f"""
func.func @main(%w: {W}, %s: {SB}, %out: {HB}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %p = memref.alloc() : {PS}
  %t = memref.alloc() : {SB}
  nisa.memset %p, 0.0 : {PS}
  scf.for %i = %c0 to %c3 step %c1 {{
    nisa.nc_matmul %p, %w, %s accumulate : {PS}, {W}, {SB}
    "test_ext.peek"(%s) : ({SB}) -> ()
    "test_ext.peek"(%p) : ({PS}) -> ()
    nisa.nc_matmul %p, %w, %s accumulate : {PS}, {W}, {SB}
    "test_ext.opaque"(%p) : ({PS}) -> ()
    nisa.nc_matmul %p, %w, %s accumulate : {PS}, {W}, {SB}
    "test_ext.scale"(%t, %s) : ({SB}, {SB}) -> ()
    nisa.nc_matmul %p, %w, %t accumulate : {PS}, {W}, {SB}
    "test_ext.peek"(%p) : ({PS}) -> ()
    scf.yield
  }}
  %o = memref.alloc() : {SF}
  nisa.tensor_copy %o, %p : {SF}, {PS}
  nisa.dma_copy %out, %o : {HB}, {SF}
  func.return
}}
"""


def _main_ops() -> tuple[ModuleOp, Context]:
    ctx = _context()
    for op_type in (PeekOp, ScaleOp, OpaqueOp):
        ctx.load_op(op_type)
    module = Parser(ctx, PROGRAM).parse_module()
    module.verify()
    return module, ctx


def _loop_body(module: ModuleOp) -> list[Operation]:
    main = next(iter(module.ops))
    loop = next(op for op in main.walk() if isinstance(op, scf.ForOp))
    return list(loop.body.block.ops)


def test_what_waits_is_read_from_the_declared_effects() -> None:
    module, _ = _main_ops()
    body = _loop_body(module)
    waits = [(op.name, waits_for_queued_passes(op)) for op in body]
    assert waits == [
        ("nisa.nc_matmul", False),  # queued by the engine, in order
        ("test_ext.peek", False),  # reads an SBUF tile only: no queued pass writes it
        ("test_ext.peek", True),  # reads PSUM: a queued pass may write it
        ("nisa.nc_matmul", False),
        ("test_ext.opaque", True),  # no effects declared: anything
        ("nisa.nc_matmul", False),
        ("test_ext.scale", True),  # writes an SBUF tile
        ("nisa.nc_matmul", False),
        ("test_ext.peek", True),
        ("scf.yield", False),
    ]
    accesses = [declared_accesses(op) for op in body]
    assert accesses[0] == ((0, 1, 2), (0,))  # accumulate: reads and writes dst
    assert accesses[1] == ((0,), ())
    assert accesses[4] is None
    assert accesses[6] == ((1,), (0,))


def test_built_in_ops() -> None:
    module, _ = _main_ops()
    main = next(iter(module.ops))
    ops = {op.name: op for op in main.walk()}
    assert not waits_for_queued_passes(ops["arith.constant"])
    assert not waits_for_queued_passes(ops["memref.alloc"])  # a new buffer
    assert waits_for_queued_passes(ops["nisa.memset"])
    assert waits_for_queued_passes(ops["scf.for"])  # its body runs other ops
    assert waits_for_queued_passes(ops["nisa.dma_copy"])


@pytest.mark.parametrize("fast_path", [True, False])
def test_extension_ops_see_what_the_reference_sees(fast_path: bool) -> None:
    """Run with the fast path and without: each read of PSUM by an extension's op sees
    every matmul before it, whether the op declares a PSUM read or nothing."""
    module, ctx = _main_ops()
    rng = np.random.default_rng(3)
    w = rng.integers(-3, 4, (128, 128)).astype(np.float32).astype("bfloat16")
    s = rng.integers(-3, 4, (128, 8)).astype(np.float32).astype("bfloat16")
    product = w.astype(np.float64).T @ s.astype(np.float64)
    SEEN.clear()
    out = np.zeros((128, 8), np.float32)
    make_interpreter(module, ctx, extra=[ExtFunctions()], fast_path=fast_path).call_op(
        "main", (w, s, out)
    )
    s_sum = float(s.astype(np.float64).sum())
    per_iteration = product.sum() * 5  # three matmuls on s, one on 2 s
    expected: list[tuple[str, float]] = []
    for i in range(3):
        base = per_iteration * i
        expected += [
            ("peek", s_sum),
            ("peek", base + product.sum()),
            ("opaque", base + 2 * product.sum()),
            ("peek", base + per_iteration),
        ]
    assert expected == SEEN
    np.testing.assert_array_equal(out, product * 15)

"""The nisa interpreter's scf.for runner (a numbered frame per loop body, direct
dispatch): nested loops reading values of the enclosing body, loop-carried values,
listeners seeing every body op, and errors reported against the failing op."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from mxdsl.interpreters import OpInterpretationError, make_interpreter
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


def test_an_error_in_a_loop_body_names_the_failing_op() -> None:
    program = PROGRAM.replace("%c4 = arith.constant 4", "%c4 = arith.constant 6")
    with pytest.raises(OpInterpretationError) as info:
        _run(program)
    assert info.value.op.name == "memref.subview"
    line = program.splitlines().index(next(x for x in program.splitlines() if "%row =" in x))
    assert str(info.value).startswith(f"loops.mlir:{line + 1}:5: subview dim 0: offset 5")

"""Per-op cost of scalar and index ops in mxdsl's interpreter beside xDSL's own.

Runs three ``func.func`` programs, each one ``scf.for`` loop of ``--trips`` iterations:

* ``scf.for`` bookkeeping: an empty body (``scf.yield`` only), reported per iteration;
* ``arith`` index ops: eight ``arith.addi`` / ``muli`` / ``subi`` per iteration on the
  induction variable and a loop-carried value;
* ``memref.subview`` with dynamic offsets: three index ops computing a row offset (128
  distinct tiles, cycled) and a ``memref.subview`` of a ``memref<2048x128xf32>`` at that
  offset (the address arithmetic of the MoE kernels' tile loops), per iteration.

Each is run by ``mxdsl.interpreters.make_interpreter`` (what ``mx-run`` uses: xDSL's
``Interpreter`` with every mxdsl implementation registered; ``scf.for``, the index
``arith`` ops and the ``memref`` views are ``NisaFunctions``') and by xDSL's own
``Interpreter`` with only ``xdsl.interpreters.register_implementations`` (xDSL has no
``memref.subview`` implementation, so that row has no xDSL figure). Both interpreters run
the same parsed module and must return the same result. A figure is the best of
``--repeat`` runs (the two interpreters taking turns), divided by the ops the loop body
runs (``scf.yield`` counted), or by the iterations for the empty loop. The figure to
read is the CPU time of the running thread: on a shared machine the wall time (printed
beside it) includes the time other processes hold the CPU.

    python benchmarks/interpreter_dispatch.py [--trips 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters import register_implementations
from xdsl.parser import Parser

from mxdsl.interpreters import make_interpreter
from mxdsl.universe import MXDSL_UNIVERSE  # noqa: F401  (the mxdsl dialects load with it)

EMPTY = """
func.func @main() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant TRIPS : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    scf.yield %acc : index
  }
  func.return %r : index
}
"""

ARITH = """
func.func @main() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %n = arith.constant TRIPS : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %a = arith.muli %i, %c3 : index
    %b = arith.addi %a, %acc : index
    %c = arith.subi %b, %i : index
    %d = arith.muli %c, %c7 : index
    %e = arith.subi %d, %a : index
    %f = arith.addi %e, %c1 : index
    %g = arith.subi %f, %b : index
    %h = arith.addi %g, %c : index
    scf.yield %h : index
  }
  func.return %r : index
}
"""
ARITH_OPS = 9

TILE = "memref<16x128xf32, strided<[128, 1], offset: ?>>"
SUBVIEW = """
func.func @main(%buf: memref<2048x128xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c127 = arith.constant 127 : index
  %n = arith.constant TRIPS : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %tile_index = arith.andi %i, %c127 : index
    %row = arith.muli %tile_index, %c16 : index
    %off = arith.addi %row, %acc : index
    %tile = memref.subview %buf[%off, 0] [16, 128] [1, 1] : memref<2048x128xf32> to TILE
    %next = arith.muli %i, %c0 : index
    scf.yield %next : index
  }
  func.return %r : index
}
"""
SUBVIEW_OPS = 6


def parse(source: str, trips: int) -> ModuleOp:
    ctx = Context()
    for name, factory in MXDSL_UNIVERSE.all_dialects.items():
        ctx.register_dialect(name, factory)
    from xdsl.dialects import get_all_dialects

    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    text = source.replace("TRIPS", str(trips)).replace("TILE", TILE)
    return Parser(ctx, text).parse_module()


def xdsl_interpreter(module: ModuleOp) -> Interpreter:
    interpreter = Interpreter(module)
    register_implementations(interpreter, Context())
    return interpreter


def timed(run: Callable[[], object]) -> tuple[float, float, object]:
    """(CPU seconds of this thread, wall seconds, result) of one run."""
    cpu, wall = time.thread_time(), time.perf_counter()
    result = run()
    return time.thread_time() - cpu, time.perf_counter() - wall, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("--trips", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    buf = np.zeros((2048, 128), np.float32)
    rows = [
        ("scf.for bookkeeping (empty body)", EMPTY, 1, (), True),
        ("arith index ops (8 + scf.yield)", ARITH, ARITH_OPS, (), True),
        ("memref.subview dynamic offset loop", SUBVIEW, SUBVIEW_OPS, (buf,), False),
    ]
    print(
        f"{args.trips} iterations, best of {args.repeat}; microseconds per op (per iteration "
        "for the empty loop), CPU time of the thread (wall time in parentheses)"
    )
    print(f"{'program':38s} {'mxdsl':>18s} {'xDSL':>18s} {'xDSL / mxdsl':>12s}")
    for label, source, ops, inputs, xdsl_runs in rows:
        module = parse(source, args.trips)
        runs = {"mxdsl": make_interpreter(module)}
        if xdsl_runs:
            runs["xDSL"] = xdsl_interpreter(module)
        cpu = dict.fromkeys(runs, float("inf"))
        wall = dict.fromkeys(runs, float("inf"))
        results: dict[str, object] = {}
        for _ in range(args.repeat):  # the interpreters take turns
            for name, interpreter in runs.items():
                seconds, elapsed, results[name] = timed(
                    lambda interpreter=interpreter, inputs=inputs: interpreter.call_op(
                        "main", inputs
                    )
                )
                cpu[name] = min(cpu[name], seconds)
                wall[name] = min(wall[name], elapsed)
        if len(set(map(repr, results.values()))) != 1:
            raise SystemExit(f"{label}: the interpreters disagree: {results}")
        per = args.trips * ops / 1e6
        cells = [
            f"{cpu[name] / per:8.2f} ({wall[name] / per:7.2f})" if name in runs else f"{'n/a':>18s}"
            for name in ("mxdsl", "xDSL")
        ]
        ratio = f"{cpu['xDSL'] / cpu['mxdsl']:12.1f}" if "xDSL" in runs else f"{'':12s}"
        print(f"{label:38s} {cells[0]:>18s} {cells[1]:>18s} {ratio}")


if __name__ == "__main__":
    import performance_page

    sys.exit(
        performance_page.run(
            main, "interpreter_dispatch", "the interpreter's cost per op against xDSL's"
        )
    )

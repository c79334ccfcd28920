# ruff: noqa: E501  (MLIR kernels are spelled one op per line)
"""The ``parallel`` schedule with one process per core (``docs/nisa-interpreter.md``,
"SPMD"): the cores really are processes, give the thread schedules' bits, report a
failing core, a dying core, a deadlock and a mismatched exchange as the threads do, and
fall back to threads where a listener cannot cross processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from mxdsl.interpreters import OpInterpretationError, make_interpreter
from mxdsl.interpreters.races import HbmRaceError
from mxdsl.interpreters.spmd import SpmdError, run_spmd
from mxdsl.interpreters.spmd_processes import PROCESSES_ENV, ForwardedCall, process_obstacle
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork")

HBM = "memref<4x8xf32, #nisa.mem<hbm>>"
SBUF = "memref<4x8xf32, #nisa.mem<sbuf>>"

# each core doubles its own row of arg0 into arg1; then (after a barrier) core 1 sends its
# row of arg1 to core 0, which writes it into row 2 and 3 of arg1
EXCHANGE = f"""
func.func @main(%a: {HBM}, %b: {HBM}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = nisa.program_id
  %t = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  %u = memref.alloc() : memref<1x8xf32, #nisa.mem<sbuf>>
  %src = memref.subview %a[%r, 0] [1, 8] [1, 1] : {HBM} to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  %dst = memref.subview %b[%r, 0] [1, 8] [1, 1] : {HBM} to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.dma_copy %t, %src : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  nisa.tensor_tensor %u, add %t, %t : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %dst, %u : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  nisa.core_barrier %b : {HBM}
  %other = arith.subi %c1, %r : index
  nisa.sendrecv %t, %u to %other from %other pipe 0 : memref<1x8xf32, #nisa.mem<sbuf>>, memref<1x8xf32, #nisa.mem<sbuf>>
  %is0 = arith.cmpi eq, %r, %c0 : index
  scf.if %is0 {{
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %row2 = memref.subview %b[%c2, 0] [1, 8] [1, 1] : {HBM} to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
    %row3 = memref.subview %b[%c3, 0] [1, 8] [1, 1] : {HBM} to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %row2, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
    nisa.dma_copy %row3, %t : memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>, memref<1x8xf32, #nisa.mem<sbuf>>
  }}
  func.return
}}
"""


def _module(text: str) -> Any:
    ctx = _context()
    module, _ = parse_located(ctx, text, "k.mlir")
    module.verify()
    return module, ctx


def _run(text: str, inputs: tuple[Any, ...], **kwargs: Any) -> list[tuple[Any, ...]]:
    module, ctx = _module(text)
    listeners = kwargs.pop("listeners", [])
    return run_spmd(
        lambda ls: make_interpreter(module, ctx, listeners=[*listeners, *ls]),
        "main",
        inputs,
        2,
        **kwargs,
    )


def _exchange_inputs() -> tuple[np.ndarray, np.ndarray]:
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    return a, np.full((4, 8), -1, dtype=np.float32)


class _Pids(Interpreter.Listener):
    """Reports (in the caller) the process each op runs in."""

    spmd_process_safe = True

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.report = ForwardedCall(self.seen.add)
        self.reported = False

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if not self.reported:  # the copy in each process reports once
            self.reported = True
            self.report(os.getpid())


def test_cores_are_processes_with_the_threads_bits() -> None:
    expected = _exchange_inputs()
    _run(EXCHANGE, expected, schedule="in-turn")
    # the golden, independent of the interpreter
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    golden = np.full((4, 8), -1, dtype=np.float32)
    golden[:2] = 2 * a[:2]
    golden[2] = golden[3] = 2 * a[1]  # core 1 sends its doubled row
    assert expected[1].tobytes() == golden.tobytes()
    pids = _Pids()
    got = _exchange_inputs()
    _run(EXCHANGE, got, listeners=[pids])
    assert got[1].tobytes() == golden.tobytes()
    assert len(pids.seen) == 2
    assert os.getpid() not in pids.seen
    threads = _exchange_inputs()
    _run(EXCHANGE, threads, processes=False)
    assert threads[1].tobytes() == golden.tobytes()


def test_read_only_arguments_are_inherited_and_results_view_the_arguments() -> None:
    a, b = _exchange_inputs()
    a.flags.writeable = False
    text = EXCHANGE.replace(
        f"func.func @main(%a: {HBM}, %b: {HBM}) {{",
        f"func.func @main(%a: {HBM}, %b: {HBM}) -> {HBM} {{",
    ).replace("  func.return\n}\n", f"  func.return %b : {HBM}\n}}\n")
    (first, *_), (second, *_) = _run(text, (a, b))
    assert np.shares_memory(first, b)
    assert np.shares_memory(second, b)
    assert first[2].tolist() == (2 * a[1]).tolist()


def test_a_listener_that_is_not_process_safe_means_threads() -> None:
    class Counting(Interpreter.Listener):
        def __init__(self) -> None:
            self.ops = 0

        def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
            self.ops += 1

    counting = Counting()
    module, ctx = _module(EXCHANGE)
    interpreters = [make_interpreter(module, ctx, listeners=[counting])]
    assert process_obstacle(interpreters, ()) == "listener Counting is not process-safe"
    inputs = _exchange_inputs()
    _run(EXCHANGE, inputs, listeners=[counting])
    assert counting.ops > 20  # both cores' ops, counted in this process


def test_obstacles() -> None:
    module, ctx = _module(EXCHANGE)
    interpreters = [make_interpreter(module, ctx)]
    shared = np.zeros((4, 8), np.float32)
    assert process_obstacle(interpreters, (shared, shared[1:])) == "writable arguments share memory"
    os.environ[PROCESSES_ENV] = "0"
    try:
        assert process_obstacle(interpreters, ()) == f"{PROCESSES_ENV}=0"
    finally:
        del os.environ[PROCESSES_ENV]
    assert process_obstacle(interpreters, (shared,)) is None


FAILING = f"""
func.func @main(%a: {HBM}) {{
  %c1 = arith.constant 1 : index
  %r = nisa.program_id
  %is1 = arith.cmpi eq, %r, %c1 : index
  scf.if %is1 {{
    %t = memref.alloc() : memref<2x2xf32, #nisa.mem<sbuf>>
    nisa.sendrecv %t, %t to %c1 from %c1 pipe 0 : memref<2x2xf32, #nisa.mem<sbuf>>, memref<2x2xf32, #nisa.mem<sbuf>>
  }}
  %c7 = arith.constant 7 : index
  %t2 = memref.alloc() : memref<2x2xf32, #nisa.mem<sbuf>>
  nisa.sendrecv %t2, %t2 to %c7 from %c7 pipe 1 : memref<2x2xf32, #nisa.mem<sbuf>>, memref<2x2xf32, #nisa.mem<sbuf>>
  func.return
}}
"""


@pytest.mark.parametrize("processes", [True, False])
def test_a_failing_core_is_reported_with_its_location(processes: bool) -> None:
    with pytest.raises(OpInterpretationError) as caught:
        _run(FAILING, (np.zeros((4, 8), np.float32),), processes=processes)
    assert "core 7 does not exist (2 program(s) running)" in caught.value.message
    assert caught.value.message.startswith(("core 0: ", "core 1: "))
    assert caught.value.op.name == "nisa.sendrecv"


DEADLOCK = f"""
func.func @main(%h: {HBM}) {{
  %c0 = arith.constant 0 : index
  %r = nisa.program_id
  %is0 = arith.cmpi eq, %r, %c0 : index
  %t = memref.alloc() : memref<2x2xf32, #nisa.mem<sbuf>>
  scf.if %is0 {{
    nisa.core_barrier %h : {HBM}
  }} else {{
    nisa.sendrecv %t, %t to %c0 from %c0 pipe 0 : memref<2x2xf32, #nisa.mem<sbuf>>, memref<2x2xf32, #nisa.mem<sbuf>>
  }}
  func.return
}}
"""


@pytest.mark.parametrize("schedule", ["parallel", "in-turn"])
def test_deadlock_names_every_core(schedule: str) -> None:
    with pytest.raises(SpmdError) as caught:
        _run(DEADLOCK, (np.zeros((4, 8), np.float32),), schedule=schedule)
    assert str(caught.value).splitlines() == [
        "deadlock: no core of 2 can make progress",
        "  core 0: blocked in nisa.core_barrier at k.mlir:8:5, waiting at a barrier for cores [0, 1]",
        "  core 1: blocked in nisa.sendrecv at k.mlir:10:5, waiting for a message from core 0 "
        "and core 0 to take its message on pipe 0",
    ]


class _Killer(Interpreter.Listener):
    """Kills core 1's process (the one that read row 1: 8.0, 9.0, ...) at its add."""

    spmd_process_safe = True

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if op.name == "nisa.tensor_tensor" and float(args[1][0, 0]) == 8.0:
            os.kill(os.getpid(), signal.SIGKILL)


def test_a_core_killed_is_an_error_naming_it() -> None:
    with pytest.raises(SpmdError, match=r"core 1: its process was killed by SIGKILL"):
        _run(EXCHANGE, _exchange_inputs(), listeners=[_Killer()])


RACE_THEN_FAIL = f"""
func.func @main(%a: {HBM}, %i: memref<1x1xi32, #nisa.mem<hbm>>) {{
  %c0 = arith.constant 0 : index
  %r = nisa.program_id
  %is0 = arith.cmpi eq, %r, %c0 : index
  %t = memref.alloc() : memref<1x1xi32, #nisa.mem<sbuf>>
  scf.if %is0 {{
    nisa.memset %t, 99.0 : memref<1x1xi32, #nisa.mem<sbuf>>
    nisa.dma_copy %i, %t : memref<1x1xi32, #nisa.mem<hbm>>, memref<1x1xi32, #nisa.mem<sbuf>>
  }} else {{
    nisa.dma_copy %t, %i : memref<1x1xi32, #nisa.mem<sbuf>>, memref<1x1xi32, #nisa.mem<hbm>>
  }}
  func.return
}}
"""


def test_a_race_is_an_error_in_processes() -> None:
    a = np.zeros((4, 8), np.float32)
    index = np.zeros((1, 1), np.int32)
    with pytest.raises(HbmRaceError) as caught:
        _run(RACE_THEN_FAIL, (a, index))
    assert str(caught.value).startswith(
        "HBM race on arg1[0:1, 0:1]: core 0 writes them in nisa.dma_copy at k.mlir:9:5, "
        "and core 1 reads them in nisa.dma_copy at k.mlir:11:5"
    )


def test_interrupt_kills_the_cores(tmp_path: Path) -> None:
    loop = f"""
func.func @main(%a: {HBM}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000000 : index
  %t = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  %r = nisa.program_id
  %row = memref.subview %a[%r, 0] [1, 8] [1, 1] : {HBM} to memref<1x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
  scf.for %k = %c0 to %n step %c1 {{
    nisa.memset %t, 1.0 : memref<4x8xf32, #nisa.mem<sbuf>>
  }}
  nisa.core_barrier %a : {HBM}
  func.return
}}
"""
    source = tmp_path / "loop.mlir"
    source.write_text(loop)
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("mx-run")), str(source), "--cores", "2",
         "--random-inputs", "0", "--max-steps", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    children: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(children) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            children = _children(process.pid)
        assert len(children) == 2
        os.kill(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    for pid in children:
        assert not Path(f"/proc/{pid}").exists() or _state(pid) == "Z"


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (forked by any of its threads)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        path = task / "children"
        with contextlib.suppress(OSError):
            found += [int(p) for p in path.read_text().split()]
    return found


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "gone"

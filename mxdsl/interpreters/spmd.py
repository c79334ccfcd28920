"""Running N nisa programs (SPMD) over one shared HBM (see ``docs/nisa-interpreter.md``).

Every core gets its own :class:`~xdsl.interpreter.Interpreter` (so its own SBUF / PSUM:
``memref.alloc`` makes a fresh array per interpreter) and the *same* argument arrays
(HBM). Two schedules:

* ``parallel`` (the default): the cores run at once between synchronization points
  (``sendrecv``, ``core_barrier``); a core waits only in those. Each core runs in a
  process of its own (:mod:`mxdsl.interpreters.spmd_processes`), or on a thread of its
  own where processes cannot be used (:func:`run_spmd`).
* ``in-turn``: only one core runs at a time: a token passes between them, as in a
  cooperative scheduler. A core keeps the token until it blocks (``sendrecv`` waiting
  for its partner, ``core_barrier`` waiting for the other cores) or finishes; the token
  then goes to the next runnable core in rank order (``rank + 1``, ``rank + 2``, ...
  modulo N), so the interleaving depends only on the program (for debugging). Each
  core is a thread.

What happens at ``sendrecv`` and ``core_barrier`` (:class:`Exchange`) is one piece of
code for threads and processes.

SBUF and PSUM are private, and HBM is shared only through accesses a synchronization
orders: every HBM access of a core is checked against the other cores' accesses it is
not ordered with (:mod:`mxdsl.interpreters.races`), and a write meeting a read or write
of the same bytes is an error. So a run that is not stopped by a race gives the same
bits in both schedules. In both, a deadlock is exactly "no core is running or runnable
and not every core has finished", detected under the scheduler's lock at every block
and finish, without any timeout. The error then names every core's state: the op and
location it is blocked in, or that it finished.

``sendrecv`` semantics: core ``r``'s ``sendrecv dst, src to s from f pipe p`` posts a
snapshot of ``src`` for ``(r -> s, p)`` and completes when it has received the message
``(f -> r, p)`` into ``dst`` *and* its own message has been taken by core ``s``. A
receive whose message's shape or dtype differs from ``dst`` is an error naming both
cores' ops. ``core_barrier`` completes when every core in ``cores`` waits at a barrier
with the same core list on the same HBM tensor. What a core did before a ``sendrecv``
is ordered before what its partners ``s`` and ``f`` do after theirs; what the cores of
a barrier did before it is ordered before what each does after it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from mxdsl.interpreters.nisa import install_core_context
from mxdsl.interpreters.races import HbmListener, SpmdError, describe_op
from mxdsl.interpreters.spmd_exchange import (
    Barrier,
    CoreState,
    Exchange,
    SendRecv,
    SpmdCoreContext,
    add_tensors,
    check_barrier,
    check_sendrecv,
    core_failure,
    tensor_key,
)

SCHEDULES = ("parallel", "in-turn")
"""The schedules of :func:`run_spmd`: the cores at once, or one at a time."""


class _Abort(BaseException):
    """Unwinds a core's thread when the run is aborted (another core failed)."""


class _Tracker(Interpreter.Listener):
    """Keeps the core's current op, and stops the core at its next op once the run
    failed (in ``parallel`` the other cores may be running)."""

    def __init__(self, core: CoreState, run: SpmdRun) -> None:
        self.core = core
        self.run = run

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if self.run.error is not None:
            raise _Abort()
        self.core.current.append(op)

    def did_interpret_op(self, op: Operation, results: tuple[Any, ...]) -> None:
        self.core.current.pop()


class SpmdRun(Exchange):
    """One launch of ``num_programs`` copies of a function under ``schedule``
    (:data:`SCHEDULES`), one thread per core. ``races``: whether HBM accesses are
    checked for races."""

    def __init__(self, num_programs: int, schedule: str = "parallel", races: bool = True) -> None:
        if num_programs < 1:
            raise ValueError(f"need at least 1 program, got {num_programs}")
        if schedule not in SCHEDULES:
            raise ValueError(f"schedule {schedule!r} is not one of {', '.join(SCHEDULES)}")
        super().__init__(num_programs, races)
        self.parallel = schedule == "parallel"
        self.cond = threading.Condition()
        self.turn: int | None = 0

    # ------------------------------------------------------------- scheduling

    def _wait_turn(self, rank: int) -> None:
        """Block (cond held) until ``rank`` may run; raises _Abort on failure."""
        while not self._may_run(rank) and self.error is None:
            self.cond.wait()
        if self.error is not None:
            raise _Abort()

    def _may_run(self, rank: int) -> bool:
        if self.parallel:
            return self.cores[rank].status == "runnable"
        return self.turn == rank

    def _pass_turn(self, rank: int) -> None:
        """``rank`` stopped running (blocked, done): give the token to the next runnable
        core (in turn), or report a deadlock when no core can run (cond held)."""
        if self.parallel:
            if not any(core.status == "runnable" for core in self.cores):
                self._check_deadlock()
            self.cond.notify_all()
            return
        for step in range(1, self.n + 1):
            candidate = (rank + step) % self.n
            if self.cores[candidate].status == "runnable":
                self.turn = candidate
                self.cond.notify_all()
                return
        self.turn = None
        self._check_deadlock()
        self.cond.notify_all()

    def _check_deadlock(self) -> None:
        if any(core.status == "blocked" for core in self.cores) and self.error is None:
            self.error = SpmdError(self.deadlock_message())

    def _block(self, rank: int, wait: SendRecv | Barrier) -> None:
        """Register ``wait`` for ``rank`` (cond held) and return once it completed."""
        if self.arrive(rank, wait):
            self.cond.notify_all()
        if not wait.done():
            self._pass_turn(rank)
            self.cond.notify_all()
            while not (wait.done() and self._may_run(rank)) and self.error is None:
                self.cond.wait()
            if self.error is not None:
                raise _Abort()
        self.leave(rank, wait)
        if isinstance(wait, SendRecv):
            wait.dst[...] = wait.message

    # --------------------------------------------------------------- sync ops

    def sendrecv(
        self,
        rank: int,
        op: Operation,
        dst: np.ndarray,
        src: np.ndarray,
        send_to: int,
        recv_from: int,
    ) -> None:
        check_sendrecv(op, self.n, send_to, recv_from)
        pipe = op.pipe_id.value.data  # pyright: ignore[reportAttributeAccessIssue]
        data = src.copy()
        with self.cond:
            wait = self.sendrecv_wait(rank, op, dst, data, send_to, recv_from, pipe)
            self._block(rank, wait)

    def barrier(self, rank: int, op: Operation, data: np.ndarray, cores: tuple[int, ...]) -> None:
        check_barrier(op, self.n, rank, cores)
        with self.cond:
            self._block(rank, self.barrier_wait(rank, op, cores, tensor_key(data)))

    # -------------------------------------------------------------------- run

    def run(
        self,
        make_interpreter: Callable[[Sequence[Interpreter.Listener]], Interpreter],
        function: Operation | str,
        inputs: tuple[Any, ...],
        names: Sequence[str] | None = None,
    ) -> list[tuple[Any, ...]]:
        """Run ``function`` on every core; the per-core results, core 0 first.
        ``names``: the arguments' names in race reports (default ``argI``)."""
        add_tensors(self.checker, inputs, names)
        interpreters = []
        for core in self.cores:
            listeners: list[Interpreter.Listener] = [_Tracker(core, self)]
            if self.checker is not None:
                listeners.append(HbmListener(self.checker, core.rank))
            interpreter = make_interpreter(listeners)
            install_core_context(interpreter, SpmdCoreContext(self, core.rank, self.checker))
            interpreters.append(interpreter)

        def body(core: CoreState, interpreter: Interpreter) -> None:
            try:
                with self.cond:
                    self._wait_turn(core.rank)
                core.results = tuple(interpreter.call_op(function, inputs))
                with self.cond:
                    core.status = "done"
                    self._pass_turn(core.rank)
            except _Abort:
                return
            except BaseException as err:  # noqa: BLE001 - reported by the main thread
                with self.cond:
                    core.status = "failed"
                    if self.error is None:
                        current = core.current[-1] if core.current else None
                        self.error = core_failure(core.rank, self.n, err, current)
                    self.turn = None
                    self.cond.notify_all()

        threads = [
            threading.Thread(target=body, args=(core, interp), name=f"nisa-core-{core.rank}")
            for core, interp in zip(self.cores, interpreters, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self.error is not None:
            raise self.error
        return [core.results for core in self.cores]


def run_spmd(
    make_interpreter: Callable[[Sequence[Interpreter.Listener]], Interpreter],
    function: Operation | str,
    inputs: tuple[Any, ...],
    num_programs: int,
    schedule: str = "parallel",
    names: Sequence[str] | None = None,
    races: bool = True,
    processes: bool | None = None,
) -> list[tuple[Any, ...]]:
    """Run ``function`` as ``num_programs`` programs sharing ``inputs`` (HBM) under
    ``schedule`` (``parallel`` or ``in-turn``: :data:`SCHEDULES`).

    ``make_interpreter(listeners)`` builds one core's interpreter (for example
    ``lambda ls: make_interpreter(module, ctx, listeners=ls)``). Returns each core's
    results; raises :class:`SpmdError` on a deadlock or exchange mismatch,
    :class:`~mxdsl.interpreters.races.HbmRaceError` on an HBM race (its tensors named
    ``names``, default ``argI``), and the failing core's error (prefixed
    ``core N:``) otherwise. ``races=False`` skips the race check (for measuring its
    cost: a racy program then gives whatever the interleaving gives).

    ``parallel`` with more than one core runs each core in a process of its own
    (:mod:`mxdsl.interpreters.spmd_processes`) unless ``processes=False`` or
    :func:`~mxdsl.interpreters.spmd_processes.process_obstacle` names a reason against
    it (a listener not marked ``spmd_process_safe``, say); then, and for ``in-turn``,
    each core is a thread of this process. The results are the same."""
    if schedule == "parallel" and num_programs > 1 and processes is not False:
        from mxdsl.interpreters.spmd_processes import ProcessRun, process_obstacle

        interpreters = [make_interpreter(()) for _ in range(num_programs)]
        if process_obstacle(interpreters, inputs) is None:
            return ProcessRun(num_programs, races).run(interpreters, function, inputs, names)
        built = iter(interpreters)

        def reuse(listeners: Sequence[Interpreter.Listener]) -> Interpreter:
            interpreter = next(built)
            interpreter.listeners = (*listeners, *interpreter.listeners)
            return interpreter

        return SpmdRun(num_programs, schedule, races).run(reuse, function, inputs, names)
    run = SpmdRun(num_programs, schedule, races)
    return run.run(make_interpreter, function, inputs, names)


__all__ = ["SCHEDULES", "Exchange", "SpmdError", "SpmdRun", "describe_op", "run_spmd"]

"""Running N nisa programs (SPMD) over one shared HBM (see ``docs/nisa-interpreter.md``).

Every core gets its own :class:`~xdsl.interpreter.Interpreter` (so its own SBUF / PSUM:
``memref.alloc`` makes a fresh array per interpreter) and the *same* argument arrays
(HBM). Each core runs on its own thread. Two schedules:

* ``parallel`` (the default): the cores run at once between synchronization points
  (``sendrecv``, ``core_barrier``); a core waits only in those.
* ``in-turn``: only one core runs at a time: a token passes between them, as in a
  cooperative scheduler. A core keeps the token until it blocks (``sendrecv`` waiting
  for its partner, ``core_barrier`` waiting for the other cores) or finishes; the token
  then goes to the next runnable core in rank order (``rank + 1``, ``rank + 2``, ...
  modulo N), so the interleaving depends only on the program (for debugging).

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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from mxdsl.dialects import nisa
from mxdsl.interpreters import OpInterpretationError
from mxdsl.interpreters.nisa import CoreContext, install_core_context
from mxdsl.interpreters.races import HbmListener, RaceChecker, SpmdError, describe_op

SCHEDULES = ("parallel", "in-turn")
"""The schedules of :func:`run_spmd`: the cores at once, or one at a time."""


class _Abort(BaseException):
    """Unwinds a core's thread when the run is aborted (another core failed)."""


@dataclass
class _SendRecv:
    op: Operation
    dst: np.ndarray
    send_to: int
    recv_from: int
    pipe: int
    clock: tuple[int, ...]
    received: bool = False
    delivered: bool = False
    learned: list[tuple[int, ...]] = field(default_factory=list)

    def done(self) -> bool:
        return self.received and self.delivered

    def waiting_for(self) -> str:
        parts = []
        if not self.received:
            parts.append(f"a message from core {self.recv_from}")
        if not self.delivered:
            parts.append(f"core {self.send_to} to take its message")
        return f"waiting for {' and '.join(parts)} on pipe {self.pipe}"


@dataclass
class _Barrier:
    op: Operation
    cores: tuple[int, ...]
    tensor: tuple[int, tuple[int, ...]]
    clock: tuple[int, ...]
    released: bool = False
    learned: list[tuple[int, ...]] = field(default_factory=list)

    def done(self) -> bool:
        return self.released

    def waiting_for(self) -> str:
        return f"waiting at a barrier for cores {list(self.cores)}"


@dataclass
class _Message:
    data: np.ndarray
    op: Operation
    sender: int
    clock: tuple[int, ...]


@dataclass
class _Core:
    rank: int
    status: str = "runnable"  # runnable | blocked | done | failed
    wait: _SendRecv | _Barrier | None = None
    results: tuple[Any, ...] = ()
    current: list[Operation] = field(default_factory=list)


class _Tracker(Interpreter.Listener):
    """Keeps the core's current op, and stops the core at its next op once the run
    failed (in ``parallel`` the other cores may be running)."""

    def __init__(self, core: _Core, run: SpmdRun) -> None:
        self.core = core
        self.run = run

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if self.run.error is not None:
            raise _Abort()
        self.core.current.append(op)

    def did_interpret_op(self, op: Operation, results: tuple[Any, ...]) -> None:
        self.core.current.pop()


class SpmdRun:
    """One launch of ``num_programs`` copies of a function under ``schedule``
    (:data:`SCHEDULES`). ``races``: whether HBM accesses are checked for races."""

    def __init__(self, num_programs: int, schedule: str = "parallel", races: bool = True) -> None:
        if num_programs < 1:
            raise ValueError(f"need at least 1 program, got {num_programs}")
        if schedule not in SCHEDULES:
            raise ValueError(f"schedule {schedule!r} is not one of {', '.join(SCHEDULES)}")
        self.n = num_programs
        self.parallel = schedule == "parallel"
        self.cond = threading.Condition()
        self.cores = [_Core(rank) for rank in range(num_programs)]
        self.turn: int | None = 0
        self.error: BaseException | None = None
        self.mailbox: dict[tuple[int, int, int], _Message] = {}
        self.checker = RaceChecker(num_programs) if races and num_programs > 1 else None

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
            self.error = SpmdError(self._deadlock_message())

    def _deadlock_message(self) -> str:
        lines = [f"deadlock: no core of {self.n} can make progress"]
        for core in self.cores:
            if core.status == "blocked" and core.wait is not None:
                lines.append(
                    f"  core {core.rank}: blocked in {describe_op(core.wait.op)}, "
                    f"{core.wait.waiting_for()}"
                )
            else:
                lines.append(f"  core {core.rank}: {core.status}")
        return "\n".join(lines)

    def _block(self, rank: int, wait: _SendRecv | _Barrier) -> None:
        """Register ``wait`` for ``rank`` (cond held) and return once it completed."""
        core = self.cores[rank]
        core.wait = wait
        self._resolve()
        if not wait.done():
            core.status = "blocked"
            self._pass_turn(rank)
            self.cond.notify_all()
            while not (wait.done() and self._may_run(rank)) and self.error is None:
                self.cond.wait()
            if self.error is not None:
                raise _Abort()
        core.wait = None
        if self.checker is not None:
            self.checker.complete(rank, wait.learned, [c.wait for c in self.cores])

    def _resolve(self) -> None:
        """Complete every wait that can complete; wake the cores whose wait is done."""
        for core in self.cores:
            wait = core.wait
            if isinstance(wait, _SendRecv) and not wait.received:
                message = self.mailbox.get((wait.recv_from, core.rank, wait.pipe))
                if message is None:
                    continue
                if message.data.shape != wait.dst.shape or message.data.dtype != wait.dst.dtype:
                    raise SpmdError(
                        f"sendrecv mismatch on pipe {wait.pipe}: core {message.sender} "
                        f"({describe_op(message.op)}) sends {message.data.dtype} "
                        f"{list(message.data.shape)}, core {core.rank} "
                        f"({describe_op(wait.op)}) receives into {wait.dst.dtype} "
                        f"{list(wait.dst.shape)}"
                    )
                del self.mailbox[(wait.recv_from, core.rank, wait.pipe)]
                wait.dst[...] = message.data
                wait.received = True
                wait.learned.append(message.clock)
                sender = self.cores[message.sender].wait
                if isinstance(sender, _SendRecv):
                    sender.delivered = True
                    sender.learned.append(wait.clock)
        for core in self.cores:
            wait = core.wait
            if isinstance(wait, _Barrier) and not wait.released:
                partners = [self.cores[c].wait for c in wait.cores]
                if all(
                    isinstance(p, _Barrier)
                    and not p.released
                    and p.cores == wait.cores
                    and p.tensor == wait.tensor
                    for p in partners
                ):
                    clocks = [p.clock for p in partners if isinstance(p, _Barrier)]
                    for p in partners:
                        assert isinstance(p, _Barrier)
                        p.released = True
                        p.learned.extend(clocks)
        woken = False
        for core in self.cores:
            if core.status == "blocked" and core.wait is not None and core.wait.done():
                core.status = "runnable"
                woken = True
        if woken:
            self.cond.notify_all()

    def _post_clock(self, rank: int) -> tuple[int, ...]:
        return self.checker.post(rank) if self.checker is not None else ()

    # --------------------------------------------------------------- sync ops

    def _check_rank(self, op: Operation, what: str, rank: int) -> None:
        if not 0 <= rank < self.n:
            raise OpInterpretationError(
                op, f"{what} core {rank} does not exist ({self.n} program(s) running)"
            )

    def sendrecv(
        self,
        rank: int,
        op: Operation,
        dst: np.ndarray,
        src: np.ndarray,
        send_to: int,
        recv_from: int,
    ) -> None:
        self._check_rank(op, "sendrecv to", send_to)
        self._check_rank(op, "sendrecv from", recv_from)
        pipe = op.pipe_id.value.data  # pyright: ignore[reportAttributeAccessIssue]
        data = src.copy()
        with self.cond:
            clock = self._post_clock(rank)
            self.mailbox[(rank, send_to, pipe)] = _Message(data, op, rank, clock)
            self._block(rank, _SendRecv(op, dst, send_to, recv_from, pipe, clock))

    def barrier(self, rank: int, op: Operation, data: np.ndarray, cores: tuple[int, ...]) -> None:
        for c in cores:
            self._check_rank(op, "core_barrier on", c)
        if rank not in cores:
            raise OpInterpretationError(
                op, f"core {rank} reached a core_barrier for cores {list(cores)} only"
            )
        tensor = (int(data.__array_interface__["data"][0]), tuple(data.shape))
        with self.cond:
            clock = self._post_clock(rank)
            self._block(rank, _Barrier(op, tuple(sorted(cores)), tensor, clock))

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
        if self.checker is not None:
            for index, value in enumerate(inputs):
                if isinstance(value, np.ndarray):
                    name = names[index] if names is not None else f"arg{index}"
                    self.checker.add_tensor(name, value)
        interpreters = []
        for core in self.cores:
            listeners: list[Interpreter.Listener] = [_Tracker(core, self)]
            if self.checker is not None:
                listeners.append(HbmListener(self.checker, core.rank))
            interpreter = make_interpreter(listeners)
            install_core_context(interpreter, _SpmdCoreContext(self, core.rank))
            interpreters.append(interpreter)

        def body(core: _Core, interpreter: Interpreter) -> None:
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
                        self.error = self._core_failure(core, err)
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

    def _core_failure(self, core: _Core, err: BaseException) -> BaseException:
        if self.n == 1:
            return err
        prefix = f"core {core.rank}: "
        if isinstance(err, OpInterpretationError):
            return OpInterpretationError(err.op, prefix + err.message)
        if isinstance(err, SpmdError):
            return err
        if core.current:
            return OpInterpretationError(core.current[-1], f"{prefix}{type(err).__name__}: {err}")
        return SpmdError(f"{prefix}{type(err).__name__}: {err}")


class _SpmdCoreContext(CoreContext):
    def __init__(self, run: SpmdRun, rank: int) -> None:
        super().__init__(rank, run.n)
        self.spmd = run
        self.races = run.checker

    def sendrecv(
        self, op: nisa.SendRecvOp, dst: np.ndarray, src: np.ndarray, send_to: int, recv_from: int
    ) -> None:
        if self.races is not None:
            self.races.access_array(self.rank, op, src, write=False)
        self.spmd.sendrecv(self.rank, op, dst, src, send_to, recv_from)
        if self.races is not None:
            self.races.access_array(self.rank, op, dst, write=True)

    def barrier(self, op: nisa.CoreBarrierOp, data: np.ndarray, cores: tuple[int, ...]) -> None:
        self.spmd.barrier(self.rank, op, data, cores)


def run_spmd(
    make_interpreter: Callable[[Sequence[Interpreter.Listener]], Interpreter],
    function: Operation | str,
    inputs: tuple[Any, ...],
    num_programs: int,
    schedule: str = "parallel",
    names: Sequence[str] | None = None,
    races: bool = True,
) -> list[tuple[Any, ...]]:
    """Run ``function`` as ``num_programs`` programs sharing ``inputs`` (HBM) under
    ``schedule`` (``parallel`` or ``in-turn``: :data:`SCHEDULES`).

    ``make_interpreter(listeners)`` builds one core's interpreter (for example
    ``lambda ls: make_interpreter(module, ctx, listeners=ls)``). Returns each core's
    results; raises :class:`SpmdError` on a deadlock or exchange mismatch,
    :class:`~mxdsl.interpreters.races.HbmRaceError` on an HBM race (its tensors named
    ``names``, default ``argI``), and the failing core's error (prefixed
    ``core N:``) otherwise. ``races=False`` skips the race check (for measuring its
    cost: a racy program then gives whatever the interleaving gives)."""
    run = SpmdRun(num_programs, schedule, races)
    return run.run(make_interpreter, function, inputs, names)


__all__ = ["SCHEDULES", "SpmdError", "SpmdRun", "describe_op", "run_spmd"]

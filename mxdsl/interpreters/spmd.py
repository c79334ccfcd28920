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
    dst: Any  # the receiving buffer, or anything with its shape and dtype
    send_to: int
    recv_from: int
    pipe: int
    clock: tuple[int, ...]
    received: bool = False
    delivered: bool = False
    learned: list[tuple[int, ...]] = field(default_factory=list)
    message: np.ndarray | None = None  # the data received, for the core to write to dst

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
    tensor: tuple[Any, ...]
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


def check_sendrecv(op: Operation, num_programs: int, send_to: int, recv_from: int) -> None:
    """A ``sendrecv``'s partners must exist (checked by the core itself)."""
    _check_rank(op, num_programs, "sendrecv to", send_to)
    _check_rank(op, num_programs, "sendrecv from", recv_from)


def check_barrier(op: Operation, num_programs: int, rank: int, cores: tuple[int, ...]) -> None:
    """A ``core_barrier``'s cores must exist and include ``rank``."""
    for c in cores:
        _check_rank(op, num_programs, "core_barrier on", c)
    if rank not in cores:
        raise OpInterpretationError(
            op, f"core {rank} reached a core_barrier for cores {list(cores)} only"
        )


def _check_rank(op: Operation, num_programs: int, what: str, rank: int) -> None:
    if not 0 <= rank < num_programs:
        raise OpInterpretationError(
            op, f"{what} core {rank} does not exist ({num_programs} program(s) running)"
        )


def core_failure(
    rank: int, num_programs: int, err: BaseException, current: Operation | None
) -> BaseException:
    """The error a run reports for core ``rank`` failing with ``err`` in op
    ``current``: prefixed ``core N:`` (with more than one core), at ``current``'s
    location when ``err`` has none."""
    if num_programs == 1:
        return err
    prefix = f"core {rank}: "
    if isinstance(err, OpInterpretationError):
        return OpInterpretationError(err.op, prefix + err.message)
    if isinstance(err, SpmdError):
        return err
    if current is not None:
        return OpInterpretationError(current, f"{prefix}{type(err).__name__}: {err}")
    return SpmdError(f"{prefix}{type(err).__name__}: {err}")


class Exchange:
    """What the cores of one launch do at ``sendrecv`` and ``core_barrier``, apart from
    how they run (threads here, processes in :mod:`mxdsl.interpreters.spmd_processes`):
    each core's state and wait, the messages in flight, when a wait completes (and
    what it learns for the race checker), and the deadlock report. Not locked: the
    caller serializes the calls."""

    def __init__(self, num_programs: int, races: bool) -> None:
        self.n = num_programs
        self.cores = [_Core(rank) for rank in range(num_programs)]
        self.error: BaseException | None = None
        self.mailbox: dict[tuple[int, int, int], _Message] = {}
        self.checker = RaceChecker(num_programs) if races and num_programs > 1 else None

    def sendrecv_wait(
        self,
        rank: int,
        op: Operation,
        dst: Any,
        data: np.ndarray,
        send_to: int,
        recv_from: int,
        pipe: int,
    ) -> _SendRecv:
        """``rank`` reaches ``op`` (a ``sendrecv`` sending ``data``, a snapshot of its
        src): its message is posted, its wait made (not yet registered: :meth:`arrive`)."""
        clock = self._post_clock(rank)
        self.mailbox[(rank, send_to, pipe)] = _Message(data, op, rank, clock)
        return _SendRecv(op, dst, send_to, recv_from, pipe, clock)

    def barrier_wait(
        self, rank: int, op: Operation, cores: tuple[int, ...], tensor: tuple[Any, ...]
    ) -> _Barrier:
        """``rank`` reaches ``op`` (a ``core_barrier`` of ``cores`` on ``tensor``, a key
        equal for the same HBM tensor on every core)."""
        return _Barrier(op, tuple(sorted(cores)), tensor, self._post_clock(rank))

    def arrive(self, rank: int, wait: _SendRecv | _Barrier) -> list[_Core]:
        """Register ``rank``'s ``wait`` and complete what can complete; the cores whose
        wait completed (``rank``'s own included: then it need not block)."""
        self.cores[rank].wait = wait
        done = self.resolve()
        if not wait.done():
            self.cores[rank].status = "blocked"
        return done

    def leave(self, rank: int, wait: _SendRecv | _Barrier) -> None:
        """``rank``'s completed ``wait`` ends: it learns its partners' clocks."""
        self.cores[rank].wait = None
        if self.checker is not None:
            self.checker.complete(rank, wait.learned)

    def resolve(self) -> list[_Core]:
        """Complete every wait that can complete; the cores whose wait is done (the
        blocked ones among them are runnable again)."""
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
                wait.message = message.data
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
        done = []
        for core in self.cores:
            if (
                core.wait is not None
                and core.wait.done()
                and core.status in ("blocked", "runnable")
            ):
                core.status = "runnable"
                done.append(core)
        return done

    def _post_clock(self, rank: int) -> tuple[int, ...]:
        return self.checker.post(rank) if self.checker is not None else ()

    def deadlocked(self) -> bool:
        """No core running or runnable, and some core blocked."""
        return not any(core.status == "runnable" for core in self.cores) and any(
            core.status == "blocked" for core in self.cores
        )

    def deadlock_message(self) -> str:
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


def tensor_key(data: np.ndarray) -> tuple[Any, ...]:
    """The key ``core_barrier`` compares: the tensor's address and shape."""
    return (int(data.__array_interface__["data"][0]), tuple(data.shape))


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

    def _block(self, rank: int, wait: _SendRecv | _Barrier) -> None:
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
        if isinstance(wait, _SendRecv):
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


def add_tensors(
    checker: RaceChecker | None, inputs: tuple[Any, ...], names: Sequence[str] | None
) -> None:
    """Register the array ``inputs`` (HBM) with ``checker`` as ``names`` (or ``argI``)."""
    if checker is None:
        return
    for index, value in enumerate(inputs):
        if isinstance(value, np.ndarray):
            name = names[index] if names is not None else f"arg{index}"
            checker.add_tensor(name, value)


class SpmdCoreContext(CoreContext):
    """What core ``rank`` of ``run`` sees: its ``sendrecv`` and ``core_barrier`` go to
    ``run`` (anything with the :class:`SpmdRun` methods ``sendrecv`` / ``barrier``), its
    accesses to ``races`` (a checker, or a recorder in a core's process)."""

    def __init__(self, run: Any, rank: int, races: RaceChecker | None) -> None:
        super().__init__(rank, run.n)
        self.spmd = run
        self.races = races

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

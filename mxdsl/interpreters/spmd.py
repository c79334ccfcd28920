"""Running N nisa programs (SPMD) over one shared HBM (see ``docs/nisa-interpreter.md``).

Every core gets its own :class:`~xdsl.interpreter.Interpreter` (so its own SBUF / PSUM:
``memref.alloc`` makes a fresh array per interpreter) and the *same* argument arrays
(HBM). Each core runs on its own thread, but the cores never run at the same time: a
token passes between them, as in a cooperative scheduler. A core keeps the token until
it blocks (``sendrecv`` waiting for its partner, ``core_barrier`` waiting for the other
cores) or finishes; the token then goes to the next runnable core in rank order
(``rank + 1``, ``rank + 2``, ... modulo N). So a run is deterministic (the interleaving
depends only on the program), and a deadlock is exactly "no core is runnable and not
every core has finished", detected without any timeout. The error then names every
core's state: the op and location it is blocked in, or that it finished.

``sendrecv`` semantics: core ``r``'s ``sendrecv dst, src to s from f pipe p`` posts a
snapshot of ``src`` for ``(r -> s, p)`` and completes when it has received the message
``(f -> r, p)`` into ``dst`` *and* its own message has been taken by core ``s``. A
receive whose message's shape or dtype differs from ``dst`` is an error naming both
cores' ops. ``core_barrier`` completes when every core in ``cores`` waits at a barrier
with the same core list on the same HBM tensor.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from mxdsl.dialects import nisa
from mxdsl.interpreters import OpInterpretationError, location_prefix
from mxdsl.interpreters.nisa import CoreContext, install_core_context


class SpmdError(InterpretationError):
    """A multi-core failure (deadlock, mismatched exchange, a failing core)."""


def describe_op(op: Operation) -> str:
    """``nisa.sendrecv at f.mlir:3:5`` (or without a location)."""
    where = location_prefix(op).rstrip(": ")
    return f"{op.name} at {where}" if where else f"{op.name} (no location)"


class _Abort(BaseException):
    """Unwinds a core's thread when the run is aborted (another core failed)."""


@dataclass
class _SendRecv:
    op: nisa.SendRecvOp
    dst: np.ndarray
    send_to: int
    recv_from: int
    pipe: int
    received: bool = False
    delivered: bool = False

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
    op: nisa.CoreBarrierOp
    cores: tuple[int, ...]
    tensor: tuple[int, tuple[int, ...]]
    released: bool = False

    def done(self) -> bool:
        return self.released

    def waiting_for(self) -> str:
        return f"waiting at a barrier for cores {list(self.cores)}"


@dataclass
class _Message:
    data: np.ndarray
    op: nisa.SendRecvOp
    sender: int


@dataclass
class _Core:
    rank: int
    status: str = "runnable"  # runnable | blocked | done | failed
    wait: _SendRecv | _Barrier | None = None
    results: tuple[Any, ...] = ()
    current: list[Operation] = field(default_factory=list)


class _Tracker(Interpreter.Listener):
    def __init__(self, core: _Core) -> None:
        self.core = core

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        self.core.current.append(op)

    def did_interpret_op(self, op: Operation, results: tuple[Any, ...]) -> None:
        self.core.current.pop()


class SpmdRun:
    """One launch of ``num_programs`` copies of a function."""

    def __init__(self, num_programs: int) -> None:
        if num_programs < 1:
            raise ValueError(f"need at least 1 program, got {num_programs}")
        self.n = num_programs
        self.cond = threading.Condition()
        self.cores = [_Core(rank) for rank in range(num_programs)]
        self.turn: int | None = 0
        self.error: BaseException | None = None
        self.mailbox: dict[tuple[int, int, int], _Message] = {}

    # ------------------------------------------------------------- scheduling

    def _wait_turn(self, rank: int) -> None:
        """Block (cond held) until it is ``rank``'s turn; raises _Abort on failure."""
        while self.turn != rank and self.error is None:
            self.cond.wait()
        if self.error is not None:
            raise _Abort()

    def _pass_turn(self, rank: int) -> None:
        """Give the token to the next runnable core after ``rank`` (cond held)."""
        for step in range(1, self.n + 1):
            candidate = (rank + step) % self.n
            if self.cores[candidate].status == "runnable":
                self.turn = candidate
                self.cond.notify_all()
                return
        self.turn = None
        if any(core.status == "blocked" for core in self.cores):
            self.error = SpmdError(self._deadlock_message())
        self.cond.notify_all()

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
            while not (wait.done() and self.turn == rank) and self.error is None:
                self.cond.wait()
            if self.error is not None:
                raise _Abort()
        core.wait = None

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
                sender = self.cores[message.sender].wait
                if isinstance(sender, _SendRecv):
                    sender.delivered = True
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
                    for p in partners:
                        assert isinstance(p, _Barrier)
                        p.released = True
        for core in self.cores:
            if core.status == "blocked" and core.wait is not None and core.wait.done():
                core.status = "runnable"

    # --------------------------------------------------------------- sync ops

    def _check_rank(self, op: Operation, what: str, rank: int) -> None:
        if not 0 <= rank < self.n:
            raise OpInterpretationError(
                op, f"{what} core {rank} does not exist ({self.n} program(s) running)"
            )

    def sendrecv(
        self,
        rank: int,
        op: nisa.SendRecvOp,
        dst: np.ndarray,
        src: np.ndarray,
        send_to: int,
        recv_from: int,
    ) -> None:
        self._check_rank(op, "sendrecv to", send_to)
        self._check_rank(op, "sendrecv from", recv_from)
        pipe = op.pipe_id.value.data
        with self.cond:
            self.mailbox[(rank, send_to, pipe)] = _Message(src.copy(), op, rank)
            self._block(rank, _SendRecv(op, dst, send_to, recv_from, pipe))

    def barrier(
        self, rank: int, op: nisa.CoreBarrierOp, data: np.ndarray, cores: tuple[int, ...]
    ) -> None:
        for c in cores:
            self._check_rank(op, "core_barrier on", c)
        if rank not in cores:
            raise OpInterpretationError(
                op, f"core {rank} reached a core_barrier for cores {list(cores)} only"
            )
        tensor = (int(data.__array_interface__["data"][0]), tuple(data.shape))
        with self.cond:
            self._block(rank, _Barrier(op, tuple(sorted(cores)), tensor))

    # -------------------------------------------------------------------- run

    def run(
        self,
        make_interpreter: Callable[[Sequence[Interpreter.Listener]], Interpreter],
        function: Operation | str,
        inputs: tuple[Any, ...],
    ) -> list[tuple[Any, ...]]:
        """Run ``function`` on every core; the per-core results, core 0 first."""
        interpreters = []
        for core in self.cores:
            interpreter = make_interpreter([_Tracker(core)])
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

    def sendrecv(
        self, op: nisa.SendRecvOp, dst: np.ndarray, src: np.ndarray, send_to: int, recv_from: int
    ) -> None:
        self.spmd.sendrecv(self.rank, op, dst, src, send_to, recv_from)

    def barrier(self, op: nisa.CoreBarrierOp, data: np.ndarray, cores: tuple[int, ...]) -> None:
        self.spmd.barrier(self.rank, op, data, cores)


def run_spmd(
    make_interpreter: Callable[[Sequence[Interpreter.Listener]], Interpreter],
    function: Operation | str,
    inputs: tuple[Any, ...],
    num_programs: int,
) -> list[tuple[Any, ...]]:
    """Run ``function`` as ``num_programs`` programs sharing ``inputs`` (HBM).

    ``make_interpreter(listeners)`` builds one core's interpreter (for example
    ``lambda ls: make_interpreter(module, ctx, listeners=ls)``). Returns each core's
    results; raises :class:`SpmdError` on a deadlock or exchange mismatch and the
    failing core's error (prefixed ``core N:``) otherwise."""
    return SpmdRun(num_programs).run(make_interpreter, function, inputs)


__all__ = ["SpmdError", "SpmdRun", "describe_op", "run_spmd"]

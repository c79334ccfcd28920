"""What simulated cores do when they meet (``sendrecv``, ``core_barrier``): one piece of
code for the two ways cores run (threads in :mod:`mxdsl.interpreters.spmd`, processes in
:mod:`mxdsl.interpreters.spmd_processes`); the semantics are in
:mod:`mxdsl.interpreters.spmd`'s docstring and ``docs/nisa-interpreter.md``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import Operation

from mxdsl.dialects import nisa
from mxdsl.interpreters import OpInterpretationError
from mxdsl.interpreters.nisa import CoreContext
from mxdsl.interpreters.races import RaceChecker, SpmdError, describe_op


@dataclass
class SendRecv:
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
class Barrier:
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
class Message:
    data: np.ndarray
    op: Operation
    sender: int
    clock: tuple[int, ...]


@dataclass
class CoreState:
    rank: int
    status: str = "runnable"  # runnable | blocked | done | failed
    wait: SendRecv | Barrier | None = None
    results: tuple[Any, ...] = ()
    current: list[Operation] = field(default_factory=list)


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
        self.cores = [CoreState(rank) for rank in range(num_programs)]
        self.error: BaseException | None = None
        self.mailbox: dict[tuple[int, int, int], Message] = {}
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
    ) -> SendRecv:
        """``rank`` reaches ``op`` (a ``sendrecv`` sending ``data``, a snapshot of its
        src): its message is posted, its wait made (not yet registered: :meth:`arrive`)."""
        clock = self._post_clock(rank)
        self.mailbox[(rank, send_to, pipe)] = Message(data, op, rank, clock)
        return SendRecv(op, dst, send_to, recv_from, pipe, clock)

    def barrier_wait(
        self, rank: int, op: Operation, cores: tuple[int, ...], tensor: tuple[Any, ...]
    ) -> Barrier:
        """``rank`` reaches ``op`` (a ``core_barrier`` of ``cores`` on ``tensor``, a key
        equal for the same HBM tensor on every core)."""
        return Barrier(op, tuple(sorted(cores)), tensor, self._post_clock(rank))

    def arrive(self, rank: int, wait: SendRecv | Barrier) -> list[CoreState]:
        """Register ``rank``'s ``wait`` and complete what can complete; the cores whose
        wait completed (``rank``'s own included: then it need not block)."""
        self.cores[rank].wait = wait
        done = self.resolve()
        if not wait.done():
            self.cores[rank].status = "blocked"
        return done

    def leave(self, rank: int, wait: SendRecv | Barrier) -> None:
        """``rank``'s completed ``wait`` ends: it learns its partners' clocks."""
        self.cores[rank].wait = None
        if self.checker is not None:
            self.checker.complete(rank, wait.learned)

    def resolve(self) -> list[CoreState]:
        """Complete every wait that can complete; the cores whose wait is done (the
        blocked ones among them are runnable again)."""
        for core in self.cores:
            wait = core.wait
            if isinstance(wait, SendRecv) and not wait.received:
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
                if isinstance(sender, SendRecv):
                    sender.delivered = True
                    sender.learned.append(wait.clock)
        for core in self.cores:
            wait = core.wait
            if isinstance(wait, Barrier) and not wait.released:
                partners = [self.cores[c].wait for c in wait.cores]
                if all(
                    isinstance(p, Barrier)
                    and not p.released
                    and p.cores == wait.cores
                    and p.tensor == wait.tensor
                    for p in partners
                ):
                    clocks = [p.clock for p in partners if isinstance(p, Barrier)]
                    for p in partners:
                        assert isinstance(p, Barrier)
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

"""The ``parallel`` SPMD schedule with one process per core (see
``docs/nisa-interpreter.md``, "SPMD").

The interpreter's own Python work holds the GIL, so cores on threads use little more than
one CPU. Here every core runs in a process of its own, forked from the caller after the
interpreters are built (the parsed module and the registered interpreter functions are
inherited, nothing is parsed again):

* HBM: every writable argument array is copied into memory shared with the children (an
  anonymous shared mapping made before the fork) and copied back into the caller's
  array at the end; a read-only argument is inherited as it is (copy-on-write, never
  written). SBUF, PSUM and HBM scratch are the core's own, as with threads.
* The caller's process is the coordinator. A core meets the others only at ``sendrecv``
  and ``core_barrier``: it sends the request (with its ``src`` snapshot) and waits for the
  coordinator's answer, decided by the same :class:`~mxdsl.interpreters.spmd_exchange.Exchange`
  as the thread schedules use (message matching, shape / dtype mismatch errors naming
  both ops, barriers on the same core list and tensor, the vector clocks). A deadlock is
  exactly "no core running, some core blocked", decided when a request or a finish
  arrives: no timeouts.
* HBM races: a core describes its HBM accesses as the thread version does (an
  :class:`~mxdsl.interpreters.races.AccessRecorder`) and sends them, in order, in batches
  and before each request and its finish; the coordinator's
  :class:`~mxdsl.interpreters.races.RaceChecker` checks them with the clocks the core
  had when it made them, so the verdict is the thread version's. When a core fails, the
  coordinator stops the others at their next op and checks what they did so far first:
  a race it finds is reported rather than the failure it may have caused.
* A core's failure reaches the caller as the thread version reports it (``core N:`` and
  the op's location); a core that dies (a signal, out of memory) is an error naming it.
  On any failure, and on ``KeyboardInterrupt`` / SIGTERM in the caller, every child is
  killed and reaped before the error propagates.

Used by :func:`mxdsl.interpreters.spmd.run_spmd` when :func:`process_obstacle` finds
nothing against it; otherwise the cores are threads (the same results, less speed).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import itertools
import mmap
import multiprocessing
import os
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from mxdsl.interpreters import OpInterpretationError
from mxdsl.interpreters.nisa import install_core_context
from mxdsl.interpreters.races import AccessRecorder, HbmListener, Record, SpmdError
from mxdsl.interpreters.spmd_exchange import (
    Exchange,
    SendRecv,
    SpmdCoreContext,
    add_tensors,
    check_barrier,
    check_sendrecv,
    core_failure,
    tensor_key,
)

PROCESSES_ENV = "MXDSL_SPMD_PROCESSES"
"""``0``: the ``parallel`` schedule runs the cores on threads (as ``in-turn`` does)."""

CORE_CPU: dict[int, float] = {}
"""The CPU seconds each core's process used in the last process run that finished
(for benchmarks: the longest is the run's critical path on an idle machine)."""

_BATCH = 512
"""A core sends its access records once it holds this many (and at each request)."""


def _live(obj: Any) -> bool:
    return bool(getattr(type(obj), "spmd_process_safe", False))


def process_obstacle(interpreters: Sequence[Interpreter], inputs: tuple[Any, ...]) -> str | None:
    """Why the cores of this run cannot be processes (None: they can): no ``fork``, other
    Python threads running besides the caller's and the main thread (a Dask worker: a
    lock one of them holds would stay held in the children), :data:`PROCESSES_ENV` is
    ``0``, a listener keeps state the other cores' or the caller must see (one not marked
    ``spmd_process_safe``: a trace recorder, say), or writable arguments that share
    memory with other arguments."""
    if os.environ.get(PROCESSES_ENV, "") == "0":
        return f"{PROCESSES_ENV}=0"
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return "no fork on this platform"
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    if others and others != [threading.main_thread()]:
        return "other threads are running"  # a fork copies only the calling thread
    for interpreter in interpreters:
        for listener in interpreter.listeners:
            if not _live(listener):
                return f"listener {type(listener).__name__} is not process-safe"
    arrays = [v for v in inputs if isinstance(v, np.ndarray)]
    for i, a in enumerate(arrays):
        if a.flags.writeable:
            for j, b in enumerate(arrays):
                if i != j and np.may_share_memory(a, b):
                    return "writable arguments share memory"
    return None


# ------------------------------------------------------------------ in the parent


class ForwardedCall:
    """``callback`` called in the caller's process: from a core's process the call is
    sent to the coordinator, which makes it (a progress report counting every core's
    blocks, say); elsewhere it is called directly. Arguments must pickle."""

    def __init__(self, callback: Callable[..., None]) -> None:
        self.callback = callback
        _FORWARDED[id(self)] = self

    def __call__(self, *args: Any) -> None:
        child = _Child.current
        if child is None:
            self.callback(*args)
        else:
            child.send(("call", [], id(self), args))


_FORWARDED: weakref.WeakValueDictionary[int, ForwardedCall] = weakref.WeakValueDictionary()


class SharedCounts:
    """A step count over every process forked after this is made (``mx-run
    --max-steps`` over cores in processes of their own): each process publishes its
    own count in a slot of shared memory (claimed on first use, after a fork too) and
    reads the others'. Within a process the count is exact (``itertools.count``
    advances atomically); across processes an op sees every step the others published."""

    SLOTS = 64

    def __init__(self) -> None:
        self._memory = mmap.mmap(-1, 8 * (self.SLOTS + 1))
        self._counts = memoryview(self._memory).cast("q")  # [0]: slots claimed
        self._lock = multiprocessing.get_context("fork").Lock()
        self._slot = 0
        self._own = itertools.count(1)
        _FORKED_COUNTS.add(self)

    def step(self) -> int:
        """One more step in this process: the total over all processes."""
        slot = self._slot or self._claim()
        own = next(self._own)
        counts = self._counts
        counts[slot] = own
        return own + sum(counts[1 : counts[0] + 1]) - counts[slot]

    def _claim(self) -> int:
        with self._lock:
            claimed = self._counts[0]
            if claimed >= self.SLOTS:
                raise RuntimeError(f"more than {self.SLOTS} processes count steps")
            self._counts[0] = claimed + 1
            self._slot = claimed + 1
        return self._slot

    def _forked(self) -> None:
        self._slot = 0
        self._own = itertools.count(1)


_FORKED_COUNTS: weakref.WeakSet[SharedCounts] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for counts in list(_FORKED_COUNTS):
        counts._forked()  # pyright: ignore[reportPrivateUsage]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@dataclass(frozen=True)
class _ViewOf:
    """A core's result that views argument ``index`` (rebuilt over it in the caller)."""

    index: int
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: np.dtype[Any]


@dataclass(frozen=True)
class _Failure:
    """A core's error as sent to the coordinator."""

    op: int | None
    message: str
    spmd: bool


@dataclass(frozen=True)
class _Shape:
    """A receiving buffer as the coordinator sees it."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]


class _UnknownOp:
    """An op the coordinator cannot find in the module (made while the core ran)."""

    name = "an op"
    location = None


def _shared_copy(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``array`` in an anonymous shared mapping (inherited by a
    fork and shared with it); its views all have one base (the race checker's key)."""
    memory = mmap.mmap(-1, max(array.nbytes, 1))
    root = np.frombuffer(memory, dtype=np.uint8)
    copy = root[: array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


class ProcessRun(Exchange):
    """One launch of ``num_programs`` cores in the ``parallel`` schedule, a process each."""

    def __init__(self, num_programs: int, races: bool = True) -> None:
        super().__init__(num_programs, races)
        self._abort = mmap.mmap(-1, 1)
        self._ops: dict[int, Operation] | None = None
        self._module: Any = None
        self._children: dict[int, tuple[int, Connection]] = {}  # rank -> (pid, conn)
        self._results: list[tuple[Any, ...]] = [() for _ in range(num_programs)]

    # ------------------------------------------------------------------- run

    def run(
        self,
        interpreters: Sequence[Interpreter],
        function: Operation | str,
        inputs: tuple[Any, ...],
        names: Sequence[str] | None = None,
    ) -> list[tuple[Any, ...]]:
        """Run ``function`` on every core, core ``r`` with ``interpreters[r]`` (built
        with :func:`core_listeners`'s listeners added); results as
        :meth:`mxdsl.interpreters.spmd.SpmdRun.run`. Writable array ``inputs`` hold
        the final HBM afterwards, as with threads."""
        CORE_CPU.clear()
        shared = tuple(
            _shared_copy(v) if isinstance(v, np.ndarray) and v.flags.writeable else v
            for v in inputs
        )
        add_tensors(self.checker, shared, names)
        self._module = interpreters[0].module
        arguments = [
            (int(v.__array_interface__["data"][0]), v.nbytes)
            for v in shared
            if isinstance(v, np.ndarray)
        ]
        try:
            self._start(interpreters, function, shared, arguments)
            self._coordinate()
        finally:
            self._stop()
            for original, copy in zip(inputs, shared, strict=True):
                if copy is not original:
                    original[...] = copy
        if self.error is not None:
            raise self.error
        return [self._decode(r, inputs, shared) for r in self._results]

    def _start(
        self,
        interpreters: Sequence[Interpreter],
        function: Operation | str,
        inputs: tuple[Any, ...],
        arguments: list[tuple[int, int]],
    ) -> None:
        for stream in (sys.stdout, sys.stderr):  # no buffered text written twice
            with contextlib.suppress(Exception):
                stream.flush()
        for rank, interpreter in enumerate(interpreters):
            parent_end, child_end = multiprocessing.Pipe()
            pid = os.fork()
            if pid == 0:  # the core's process: never returns
                parent_end.close()
                _Child(self, rank, child_end, arguments).main(interpreter, function, inputs)
            child_end.close()
            self._children[rank] = (pid, parent_end)
            _LIVE_CORES[pid] = os.getpid()

    def _coordinate(self) -> None:
        """Answer the cores until every one finished or the run failed."""
        try:
            while self.error is None and any(
                core.status in ("runnable", "blocked") for core in self.cores
            ):
                live = {conn: rank for rank, (_, conn) in self._children.items()}
                for conn in wait(list(live)):
                    self._receive(live[conn])  # pyright: ignore[reportArgumentType]
                    if self.error is not None:
                        break
                if self.error is None and self.deadlocked():
                    self.error = SpmdError(self.deadlock_message())
        except SpmdError as err:  # a race, a mismatched exchange
            self.error = err

    def _receive(self, rank: int) -> None:
        pid, conn = self._children[rank]
        try:
            message = conn.recv()
        except (EOFError, OSError):
            self._lost(rank, pid)
            return
        kind, records = message[0], message[1]
        self._replay(rank, records)
        core = self.cores[rank]
        if kind == "records":
            return
        if kind == "call":
            _FORWARDED[message[2]].callback(*message[3])
            return
        if kind == "sendrecv":
            _, _, op, shape, dtype, data, send_to, recv_from, pipe = message
            dst = _Shape(shape, dtype)
            wait_ = self.sendrecv_wait(rank, self._op(op), dst, data, send_to, recv_from, pipe)
            self._answer(self.arrive(rank, wait_))
        elif kind == "barrier":
            _, _, op, cores, key = message
            self._answer(self.arrive(rank, self.barrier_wait(rank, self._op(op), cores, key)))
        elif kind == "done":
            core.status = "done"
            self._results[rank] = message[2]
            self._reap(rank)
        elif kind == "failed":
            core.status = "failed"
            failure: _Failure = message[2]
            op = self._op(failure.op) if failure.op is not None else None
            if failure.spmd or op is None:
                self.error = SpmdError(failure.message)
            else:
                self.error = OpInterpretationError(op, failure.message)  # pyright: ignore[reportArgumentType]
            self._reap(rank)
            self._collect()

    def _answer(self, done: list[Any]) -> None:
        """Let every core whose wait completed go on (a receiver with its message)."""
        for core in done:
            wait_ = core.wait
            self.leave(core.rank, wait_)
            data = wait_.message if isinstance(wait_, SendRecv) else None
            self._children[core.rank][1].send(("go", data))

    def _replay(self, rank: int, records: list[Record]) -> None:
        if records and self.checker is not None:
            self.checker.replay(rank, records, self._op)

    def _op(self, key: int) -> Operation:
        if self._ops is None:
            self._ops = {id(op): op for op in self._module.walk()}
        return self._ops.get(key, _UnknownOp())  # pyright: ignore[reportReturnType]

    def _lost(self, rank: int, pid: int) -> None:
        """``rank``'s process ended without a word (a signal, out of memory)."""
        self._children.pop(rank)
        _, status = os.waitpid(pid, 0)
        _LIVE_CORES.pop(pid, None)
        self.cores[rank].status = "failed"
        if os.WIFSIGNALED(status):
            signum = os.WTERMSIG(status)
            name = (
                signal.Signals(signum).name
                if signum in {int(s) for s in signal.Signals}
                else f"signal {signum}"
            )
            how = f"was killed by {name}" + (" (out of memory?)" if signum == 9 else "")
        else:
            how = f"exited with status {os.WEXITSTATUS(status)}"
        self.error = SpmdError(f"core {rank}: its process {how}")

    def _collect(self) -> None:
        """A core failed: stop the others at their next op and check the accesses they
        made so far (a race found is the error to report: it may be the cause)."""
        self._abort[0] = 1
        try:
            for rank, core in enumerate(self.cores):
                if core.status != "runnable" or rank not in self._children:
                    continue
                _, conn = self._children[rank]
                while True:
                    try:
                        message = conn.recv()
                    except (EOFError, OSError):
                        break
                    self._replay(rank, message[1])
                    if message[0] not in ("records", "call"):
                        break
        except SpmdError as err:
            self.error = err

    def _reap(self, rank: int) -> None:
        pid, conn = self._children.pop(rank)
        conn.close()
        _, _, usage = os.wait4(pid, 0)
        _LIVE_CORES.pop(pid, None)
        CORE_CPU[rank] = usage.ru_utime + usage.ru_stime

    def _stop(self) -> None:
        """Kill and reap every child still there."""
        self._abort[0] = 1
        for rank in list(self._children):
            pid, conn = self._children.pop(rank)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            conn.close()
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            _LIVE_CORES.pop(pid, None)

    def _decode(
        self, results: tuple[Any, ...], inputs: tuple[Any, ...], shared: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        out = []
        for value in results:
            if isinstance(value, _ViewOf):
                base = inputs[value.index]
                if shared[value.index] is not base and not base.flags.c_contiguous:
                    base = shared[value.index]
                value = np.ndarray(
                    value.shape,
                    value.dtype,
                    buffer=base,
                    offset=value.offset,
                    strides=value.strides,
                )
            out.append(value)
        return tuple(out)


# ------------------------------------------------------------------- in a child


class _ChildTracker(Interpreter.Listener):
    """The core's current op; stops the core at its next op once the run failed."""

    spmd_process_safe = True

    def __init__(self, abort: mmap.mmap) -> None:
        self.abort = abort
        self.current: list[Operation] = []

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if self.abort[0]:
            raise _Stopped()
        self.current.append(op)

    def did_interpret_op(self, op: Operation, results: tuple[Any, ...]) -> None:
        self.current.pop()


class _Stopped(BaseException):
    """Unwinds a core's process once the run failed elsewhere."""


class _Child:
    """One core's process: runs its interpreter, asks the coordinator at each
    synchronization, sends its access records and its end."""

    current: _Child | None = None

    def __init__(
        self, run: ProcessRun, rank: int, conn: Connection, arguments: list[tuple[int, int]]
    ) -> None:
        self.n = run.n
        self.rank = rank
        self.conn = conn
        self.arguments = arguments
        self.abort = run._abort
        self.recorder = None if run.checker is None else _Recorder(run.checker, self)
        self.tracker = _ChildTracker(run._abort)

    def main(self, interpreter: Interpreter, function: Operation | str, inputs: tuple[Any, ...]):
        code = 0
        try:
            _Child.current = self
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles it
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _die_with_parent()
            _prepare(interpreter, self)
            try:
                results = tuple(interpreter.call_op(function, inputs))
                self.send(("done", self._take(), self._encode(results, inputs)))
            except _Stopped:
                self.send(("aborted", self._take()))
            except BaseException as err:  # noqa: BLE001 - reported by the coordinator
                self.send(("failed", self._take(), self._failure(err)))
        except BaseException:  # noqa: BLE001 - the coordinator sees the pipe close
            code = 1
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(code)

    def send(self, message: tuple[Any, ...]) -> None:
        self.conn.send(message)

    def _take(self) -> list[Record]:
        return self.recorder.take() if self.recorder is not None else []

    def _failure(self, err: BaseException) -> _Failure:
        current = self.tracker.current[-1] if self.tracker.current else None
        error = core_failure(self.rank, self.n, err, current)
        if isinstance(error, OpInterpretationError) and error.op is not None:
            return _Failure(id(error.op), error.message, False)
        return _Failure(None, str(error), True)

    def _encode(self, results: tuple[Any, ...], inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """A result viewing an argument goes as where it is (the caller's array holds
        the final data), anything else as its value."""
        out: list[Any] = []
        for value in results:
            if isinstance(value, np.ndarray):
                address = int(value.__array_interface__["data"][0])
                for index, argument in enumerate(inputs):
                    if not isinstance(argument, np.ndarray) or not argument.flags.c_contiguous:
                        continue
                    start = int(argument.__array_interface__["data"][0])
                    if start <= address < start + argument.nbytes:
                        strides = tuple(value.strides)
                        value = _ViewOf(index, address - start, value.shape, strides, value.dtype)
                        break
            out.append(value)
        return tuple(out)

    def _reply(self) -> Any:
        message = self.conn.recv()
        if message[0] != "go":
            raise _Stopped()
        return message[1]

    # what the core context asks (as SpmdRun's methods of the same names)

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
        data = np.ascontiguousarray(src).copy()
        shape = tuple(dst.shape)
        self.send(
            ("sendrecv", self._take(), id(op), shape, dst.dtype, data, send_to, recv_from, pipe)
        )
        dst[...] = self._reply()

    def barrier(self, rank: int, op: Operation, data: np.ndarray, cores: tuple[int, ...]) -> None:
        check_barrier(op, self.n, rank, cores)
        key = tensor_key(data)
        if not any(start <= key[0] < start + max(n, 1) for start, n in self.arguments):
            key = (("core", rank), *key)  # a core's own memory: no other core's tensor
        self.send(("barrier", self._take(), id(op), tuple(cores), key))
        self._reply()


class _Recorder(AccessRecorder):
    def __init__(self, checker: Any, child: _Child) -> None:
        super().__init__(checker)
        self.child = child

    def access(self, *args: Any, **kwargs: Any) -> None:
        super().access(*args, **kwargs)
        if len(self.records) >= _BATCH:
            self.child.send(("records", self.take()))


def core_listeners() -> list[Interpreter.Listener]:
    """Nothing: a process run adds its listeners in the core's process (see
    :func:`_prepare`); kept for symmetry with the thread run."""
    return []


def _prepare(interpreter: Interpreter, child: _Child) -> None:
    """Give ``interpreter`` (in the core's process) the core's tracker, HBM listener and
    context."""
    listeners: list[Interpreter.Listener] = [child.tracker]
    if child.recorder is not None:
        listeners.append(HbmListener(child.recorder, child.rank))
    interpreter.listeners = (*listeners, *interpreter.listeners)
    install_core_context(interpreter, SpmdCoreContext(child, child.rank, child.recorder))


_LIVE_CORES: dict[int, int] = {}
"""The core processes forked and not reaped yet: pid -> the pid of the process that
forked it (a forked core or worker inherits the dict; only the forker kills)."""


@atexit.register
def _kill_live_cores() -> None:
    """At exit, kill and reap the core processes still running. A Ctrl-C reaches the
    tools' main thread while the coordinator, on the deep-stack worker thread, is still
    waiting for the cores; the command then exits (130) without that thread's cleanup,
    and the cores must not outlive it (``PR_SET_PDEATHSIG`` alone acts only after the
    exit, asynchronously)."""
    for pid, owner in list(_LIVE_CORES.items()):
        if owner != os.getpid():
            continue
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        _LIVE_CORES.pop(pid, None)


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """SIGKILL this process when the coordinator dies (Linux ``prctl``)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


__all__ = [
    "CORE_CPU",
    "PROCESSES_ENV",
    "ForwardedCall",
    "ProcessRun",
    "SharedCounts",
    "process_obstacle",
]

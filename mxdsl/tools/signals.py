"""Signals for the mxdsl commands, standard library only (so a command installs them
before anything heavy is imported: :mod:`mxdsl.tools.command`).

SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated` in the main thread,
so every ``finally`` runs on the way out (an output's temporary file is removed); a
section that must not be cut short (creating, renaming, removing that file) holds them
back with :func:`signals_deferred`. The command then prints one line and exits 130
(SIGINT) or 143 (SIGTERM), as a shell reports a process ended by them.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

INTERRUPTED_EXIT = 130
"""Exit code after SIGINT (Ctrl-C): 128 + 2, as a shell reports it."""

TERMINATED_EXIT = 143
"""Exit code after SIGTERM: 128 + 15."""


class Terminated(BaseException):
    """SIGTERM, raised in the main thread (as SIGINT raises ``KeyboardInterrupt``) so
    that every ``finally`` runs: a temporary output file is removed on the way out."""


class _SignalState:
    deferring = 0
    pending: int | None = None


def _signal_exception(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _on_signal(signum: int, frame: object) -> None:
    if _SignalState.deferring:
        _SignalState.pending = signum
        return
    raise _signal_exception(signum)


def install_signal_handlers() -> None:
    """SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated` in the main
    thread, each held back inside :func:`signals_deferred`. A command installs them
    (:func:`console_exit`); a library caller keeps its own."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """A section that a SIGINT or SIGTERM may not cut short (creating, renaming or
    removing an output's temporary file): the signal is held and raised when the
    outermost such section ends. Only in the main thread, where signals arrive."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _SignalState.deferring += 1
    try:
        yield
    finally:
        _SignalState.deferring -= 1
        if not _SignalState.deferring and _SignalState.pending is not None:
            signum, _SignalState.pending = _SignalState.pending, None
            raise _signal_exception(signum)


def signal_cause(err: BaseException) -> BaseException | None:
    """The ``KeyboardInterrupt`` or :class:`Terminated` behind ``err``, if any: Python
    wraps an exception raised while a class is made (``__set_name__``) in a
    ``RuntimeError``, so a signal can arrive dressed as another error."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt | Terminated):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def exit_signalled(tool: str | None, what: str, code: int) -> int:
    """One line, then exit ``code``; without waiting for worker threads still running
    (a simulated core), which would keep the process alive."""
    print(f"{tool}: {what}" if tool else what, file=sys.stderr)
    with suppress(OSError, ValueError):
        sys.stdout.flush()
    sys.stderr.flush()
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if any(not t.daemon and t.is_alive() for t in others):
        os._exit(code)
    return code


__all__ = [
    "INTERRUPTED_EXIT",
    "TERMINATED_EXIT",
    "Terminated",
    "exit_signalled",
    "install_signal_handlers",
    "signal_cause",
    "signals_deferred",
]

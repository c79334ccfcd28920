"""The console commands (``mx-opt``, ``mx-run``, ``mx-moe``): each installs the signal
handlers (:mod:`mxdsl.tools.signals`) before it imports its tool, so a Ctrl-C or a
SIGTERM at any moment, while Python, numpy and xDSL load too, ends the command with one
line and exit 130 / 143 instead of a traceback."""

from __future__ import annotations

import importlib
import sys

from mxdsl.tools.signals import (
    INTERRUPTED_EXIT,
    TERMINATED_EXIT,
    Terminated,
    exit_signalled,
    install_signal_handlers,
    signals_deferred,
)


def _launch(tool: str, module: str) -> None:
    install_signal_handlers()
    try:
        # held while the modules load (a signal inside a class definition would surface
        # as a RuntimeError), acted on as soon as they have
        with signals_deferred():
            console_main = importlib.import_module(module).console_main
    except KeyboardInterrupt:
        sys.exit(exit_signalled(tool, "interrupted", INTERRUPTED_EXIT))
    except Terminated:
        sys.exit(exit_signalled(tool, "terminated", TERMINATED_EXIT))
    console_main()


def mx_opt() -> None:
    """The ``mx-opt`` command (:mod:`mxdsl.tools.mx_opt`)."""
    _launch("mx-opt", "mxdsl.tools.mx_opt")


def mx_run() -> None:
    """The ``mx-run`` command (:mod:`mxdsl.tools.mx_run`)."""
    _launch("mx-run", "mxdsl.tools.mx_run")


def mx_moe() -> None:
    """The ``mx-moe`` command (:mod:`mxdsl.tools.mx_moe`)."""
    _launch("mx-moe", "mxdsl.tools.mx_moe")


__all__ = ["mx_moe", "mx_opt", "mx_run"]

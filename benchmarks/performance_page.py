"""``--markdown``: a benchmark writes its section of docs/performance.md.

Every benchmark here calls :func:`add_markdown_option` on its parser and runs its
``main`` through :func:`run`. With ``--markdown`` (or ``--markdown PAGE``), what the run
printed becomes that benchmark's section of the page: the machine, the command, the date
and the figures, between ``<!-- benchmark: NAME -->`` and ``<!-- end benchmark: NAME -->``.
The section is replaced in place; the rest of the page is kept. A run that fails writes
nothing.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import re
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "performance.md"


def add_markdown_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--markdown",
        nargs="?",
        const=str(PAGE),
        metavar="PAGE",
        help="also write this run's figures as this benchmark's section of "
        "docs/performance.md (or of PAGE), replacing the section in place",
    )


def machine() -> str:
    """CPU model, CPU count, OS, Python and numpy versions."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numpy as np

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{model}, {cpus} CPUs available, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )


def section(name: str, title: str, command: str, figures: str, when: str) -> str:
    body = figures.rstrip("\n").replace("```", "'''")
    return (
        f"<!-- benchmark: {name} -->\n"
        f"## {name}: {title}\n\n"
        f"* machine: {machine()}\n"
        f"* command: `{command}`\n"
        f"* date: {when}\n\n"
        f"```text\n{body}\n```\n"
        f"<!-- end benchmark: {name} -->\n"
    )


def replace_section(page_text: str, name: str, new_section: str) -> str:
    """The page with NAME's section replaced (or appended when it has none)."""
    pattern = re.compile(
        rf"<!-- benchmark: {re.escape(name)} -->\n.*?<!-- end benchmark: {re.escape(name)} -->\n",
        re.DOTALL,
    )
    if pattern.search(page_text):
        return pattern.sub(lambda _: new_section, page_text, count=1)
    return page_text.rstrip("\n") + "\n\n" + new_section


def _page_argument(argv: list[str]) -> str | None:
    for index, arg in enumerate(argv):
        if arg == "--markdown":
            following = argv[index + 1] if index + 1 < len(argv) else ""
            return following if following and not following.startswith("-") else str(PAGE)
        if arg.startswith("--markdown="):
            return arg.split("=", 1)[1]
    return None


class _Tee(io.TextIOBase):
    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def run(main: Callable[[], int | None], name: str, title: str) -> int:
    """Run ``main``; with ``--markdown`` on the command line, write what it printed as
    NAME's section of the page once it has succeeded. Returns the exit code."""
    page = _page_argument(sys.argv[1:])
    if page is None:
        return main() or 0
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    sys.stdout = tee  # type: ignore[assignment]
    try:
        code = main() or 0
    finally:
        sys.stdout = tee.stream  # type: ignore[assignment]
    if code == 0:
        command = shlex.join(["python", f"benchmarks/{name}.py", *sys.argv[1:]])
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        path = Path(page)
        text = path.read_text(encoding="utf-8") if path.exists() else "# Performance\n"
        new = replace_section(text, name, section(name, title, command, tee.copy.getvalue(), when))
        path.write_text(new, encoding="utf-8")
        print(f"wrote the {name} section of {path}", file=sys.stderr)
    return code

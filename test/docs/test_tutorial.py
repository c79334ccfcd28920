"""docs/tutorial.md runs: every ``sh`` block, in order, in a fresh folder that sees the
repository's ``examples/`` (as a clone's root does), each exiting 0; the ``text`` block
shown right after a command is its output, checked line by line (``...`` stands for any
text). The one block marked ``<!-- tutorial: setup -->`` (create the venv, install) is
the README's set-up command, which CI runs itself; the test runs inside that
environment."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "tutorial.md"
SETUP_MARK = "<!-- tutorial: setup -->"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


@dataclass
class Step:
    commands: str
    line: int  # where the block starts in the page
    expected: list[str] = field(default_factory=list)


def tutorial_steps(text: str) -> list[Step]:
    """The page's runnable ``sh`` blocks, each with the output lines shown after it."""
    steps: list[Step] = []
    last_end = 0
    for match in FENCE.finditer(text):
        language, body = match.group(1), match.group(2)
        between = text[last_end : match.start()]
        last_end = match.end()
        if language == "sh":
            if between.rstrip().endswith(SETUP_MARK):
                continue
            steps.append(Step(body, text.count("\n", 0, match.start()) + 1))
        elif language == "text" and steps and not between.strip():
            steps[-1].expected = [line for line in body.splitlines() if line.strip()]
    return steps


def line_pattern(expected: str) -> re.Pattern[str]:
    """An expected output line as a regex: literal text, ``...`` matching anything."""
    return re.compile(".*".join(re.escape(part) for part in expected.split("...")))


def test_the_page_has_the_steps_it_promises() -> None:
    steps = tutorial_steps(TUTORIAL.read_text(encoding="utf-8"))
    text = "\n".join(step.commands for step in steps)
    for tool in ("mx-opt", "mx-run", "mx-diff", "mx-moe run"):
        assert tool in text
    for level_pass in ("import-stablehlo", "lower-hlo-to-nisa", "lower-nisa-to-bir"):
        assert level_pass in text
    assert sum(len(step.expected) for step in steps) >= 10
    # the setup block is skipped, the rest is run
    assert not any("pip install" in step.commands for step in steps)


def test_line_pattern_reads_dots_as_anything() -> None:
    assert line_pattern("a ... b (x)").search("a 1.5 s b (x)")
    assert not line_pattern("a ... b (x)").search("a 1.5 s b x")


def test_every_tutorial_command_runs(tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    steps = tutorial_steps(TUTORIAL.read_text(encoding="utf-8"))
    for step in steps:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", step.commands],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        where = f"docs/tutorial.md:{step.line}"
        assert done.returncode == 0, f"{where} exit {done.returncode}:\n{done.stderr}"
        output = (done.stdout + done.stderr).splitlines()
        for expected in step.expected:
            pattern = line_pattern(expected)
            assert any(pattern.search(line) for line in output), (
                f"{where}: no output line matches {expected!r}; got:\n" + "\n".join(output)
            )

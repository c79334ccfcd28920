"""Every nisa and bir program of the test suite and the examples, and every MoE variant
at a small size, run with the interpreters' fast path and in the reference mode
(``--no-fast-path``): the same bits, and where a run fails, the same error
(``docs/interpreter.md``, "The fast path and the reference mode").

A program is each function of each ``.mlir`` file under ``test/`` and ``examples/`` (each
``// -----`` piece on its own) that holds a nisa or bir op, run by ``mx-run`` on seeded
random inputs (on 2 cores when it uses the SPMD ops); a nisa program is also lowered with
``lower-nisa-to-bir`` and run again both ways.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from tool_runs import SMALL, run_digest

from mxdsl.kernels.moe_cte import MoECTEImplementation
from mxdsl.tools import mx_moe

ROOT = Path(__file__).resolve().parents[2]
_FUNCTION = re.compile(r"func\.func\s+(?:private\s+)?@([\w$.]+)\s*\(")
_SPMD = ("program_id", "num_programs", "sendrecv", "core_barrier")


def _pieces() -> list[tuple[str, str, str, bool]]:
    """(name, text, symbol, is nisa) of every program (module docstring)."""
    found = []
    files = sorted([*ROOT.glob("test/**/*.mlir"), *ROOT.glob("examples/*.mlir")])
    for path in files:
        if "Output" in path.relative_to(ROOT).parts:  # lit's copies of a previous run
            continue
        text = path.read_text()
        for index, piece in enumerate(text.split("\n// -----")):
            nisa = "nisa." in piece and "bir." not in piece
            if not nisa and "bir." not in piece:
                continue
            for symbol in dict.fromkeys(_FUNCTION.findall(piece)):
                name = f"{path.relative_to(ROOT)}:{index}:@{symbol}"
                found.append((name, piece, symbol, nisa))
    return found


PIECES = _pieces()


def test_the_suite_has_programs_to_compare() -> None:
    assert len(PIECES) > 50
    assert any(nisa for *_, nisa in PIECES)
    assert any(not nisa for *_, nisa in PIECES)


@pytest.mark.parametrize(
    ("piece", "symbol", "nisa"), [p[1:] for p in PIECES], ids=[p[0] for p in PIECES]
)
def test_program_same_in_both_modes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], piece: str, symbol: str, nisa: bool
) -> None:
    source = tmp_path / "program.mlir"
    source.write_text(piece)
    # in turn: a racy program's first reported race is then the same run to run
    # (parallel against in turn: test_spmd_schedules.py)
    spmd = ["--cores", "2", "--schedule", "in-turn"]
    cores = spmd if any(op in piece for op in _SPMD) else []
    base = [str(source), "--symbol", symbol, "--random-inputs", "0", *cores]
    pipelines = [[], ["-p", "lower-nisa-to-bir"]] if nisa else [[]]
    for pipeline in pipelines:
        fast = run_digest(tmp_path, [*base, *pipeline], capsys)
        reference = run_digest(tmp_path, [*base, *pipeline, "--no-fast-path"], capsys)
        assert fast == reference, (pipeline, fast, reference)


def test_every_variant_listed() -> None:
    assert set(SMALL) == {m.name for m in MoECTEImplementation}


@pytest.mark.parametrize("variant", sorted(SMALL))
def test_moe_variant_same_in_both_modes(tmp_path: Path, variant: str) -> None:
    digests = []
    for mode in ([], ["--no-fast-path"]):
        out = tmp_path / f"moe{len(digests)}.npz"
        argv = ["run", "--implementation", variant, *SMALL[variant], "--tokens", "40"]
        argv += ["--no-progress", "-o", str(out), *mode]
        assert mx_moe.main(argv, stdout=io.StringIO()) == 0
        with np.load(out) as outputs:
            digests.append(np.ascontiguousarray(outputs["output"]).view(np.uint8).tobytes())
    assert digests[0] == digests[1]

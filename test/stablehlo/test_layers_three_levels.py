"""Every JAX-written layer in ``examples/stablehlo/layer_*.mlir`` through the tools, the
way a user types them, run in this process (the tools' ``main`` with the same arguments,
so no interpreter start-up per command):

* ``mx-opt FILE`` prints a module that prints again unchanged, and its generic form
  (``--print-op-generic``) reads back to the same module;
* ``mx-run FILE`` at the StableHLO level, after
  ``-p import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa`` (nisa) and after
  ``-p lower-nisa-to-bir`` (bir), on the layer's stored inputs, writes results
  byte-identical at all three levels.

The lit suites ``layers*.mlir`` keep one such chain each through the installed commands,
and FileCheck what the lowerings emit; this file covers every layer."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from mxdsl.tools import mx_opt, mx_run

EXAMPLES = Path(__file__).parents[2] / "examples" / "stablehlo"
LAYERS = sorted(p.stem for p in EXAMPLES.glob("layer_*.mlir"))
TO_NISA = "import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa"


def opt(*argv: str) -> None:
    assert mx_opt.main(list(argv)) == 0, f"mx-opt {' '.join(argv)} failed"


def run(program: Path, inputs: Path, out: Path) -> dict[str, np.ndarray]:
    argv = [str(program), "--inputs", str(inputs), "--quiet", "-o", str(out)]
    assert mx_run.main(argv, stdout=io.StringIO()) == 0, f"mx-run {' '.join(argv)} failed"
    with np.load(out) as results:
        return {name: results[name] for name in results.files}


def test_every_layer_is_covered() -> None:
    assert len(LAYERS) >= 16
    assert all((EXAMPLES / f"{name}.inputs.npz").exists() for name in LAYERS)


@pytest.mark.parametrize("name", LAYERS)
def test_layer_prints_and_reads_back(name: str, tmp_path: Path) -> None:
    source = EXAMPLES / f"{name}.mlir"
    printed, again, generic, from_generic = (
        tmp_path / f"{step}.mlir" for step in ("printed", "again", "generic", "from-generic")
    )
    opt(str(source), "-o", str(printed))
    opt(str(printed), "-o", str(again))
    opt(str(source), "--print-op-generic", "-o", str(generic))
    opt(str(generic), "-o", str(from_generic))
    assert again.read_text() == printed.read_text()
    assert from_generic.read_text() == printed.read_text()
    assert "stablehlo." in printed.read_text()


@pytest.mark.parametrize("name", LAYERS)
def test_layer_three_levels_bit_identical(name: str, tmp_path: Path) -> None:
    source, inputs = EXAMPLES / f"{name}.mlir", EXAMPLES / f"{name}.inputs.npz"
    nisa, bir = tmp_path / "nisa.mlir", tmp_path / "bir.mlir"
    opt(str(source), "-p", TO_NISA, "-o", str(nisa))
    opt(str(nisa), "-p", "lower-nisa-to-bir", "-o", str(bir))
    assert "nisa.nc_matmul" in nisa.read_text() or "nisa.tensor_" in nisa.read_text()
    assert "bir." in bir.read_text()
    assert not re.search(r"\bnisa\.[a-z_]+ ", bir.read_text()), "a nisa op is left in bir"

    levels = {
        level: run(program, inputs, tmp_path / f"{level}.npz")
        for level, program in (("stablehlo", source), ("nisa", nisa), ("bir", bir))
    }
    expected = levels["stablehlo"]
    assert expected, "the layer has no results"
    for level in ("nisa", "bir"):
        got = levels[level]
        assert got.keys() == expected.keys(), level
        for key, want in expected.items():
            assert got[key].dtype == want.dtype, (level, key)
            assert got[key].shape == want.shape, (level, key)
            assert got[key].tobytes() == want.tobytes(), f"{level} {key} differs"

"""The SPMD schedules and the HBM race checker (``docs/nisa-interpreter.md``, "SPMD"
and "HBM races"): every SPMD program of the suite and the examples and every MoE variant
give the same bits (or the same error) with the cores at once and in turn, a racy one
an HBM race error in both; the race checker's element sets against a byte-by-byte
enumeration."""

from __future__ import annotations

import hashlib
import io
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from tool_runs import SMALL, run_digest
from xdsl.dialects import test as test_dialect

from mxdsl.interpreters.races import HbmRaceError, RaceChecker, element_starts, overlapping_bytes
from mxdsl.interpreters.spmd import SpmdRun
from mxdsl.kernels.moe_cte import MoECTEImplementation
from mxdsl.tools import mx_moe

ROOT = Path(__file__).resolve().parents[2]
_FUNCTION = re.compile(r"func\.func\s+(?:private\s+)?@([\w$.]+)\s*\(")
_SPMD = ("program_id", "num_programs", "sendrecv", "core_barrier")


def _spmd_pieces() -> list[tuple[str, str, str, bool]]:
    """(name, text, symbol, is nisa) of every program using the SPMD ops."""
    found = []
    files = sorted([*ROOT.glob("test/**/*.mlir"), *ROOT.glob("examples/*.mlir")])
    for path in files:
        if "Output" in path.relative_to(ROOT).parts:  # lit's copies of a previous run
            continue
        for index, piece in enumerate(path.read_text().split("\n// -----")):
            if not any(op in piece for op in _SPMD):
                continue
            nisa = "nisa." in piece and "bir." not in piece
            if not nisa and "bir." not in piece:
                continue
            for symbol in dict.fromkeys(_FUNCTION.findall(piece)):
                found.append((f"{path.relative_to(ROOT)}:{index}:@{symbol}", piece, symbol, nisa))
    return found


PIECES = _spmd_pieces()


def test_the_suite_has_spmd_programs() -> None:
    assert len(PIECES) >= 10
    assert any("races" in name for name, *_ in PIECES)


@pytest.mark.parametrize(
    ("piece", "symbol", "nisa"), [p[1:] for p in PIECES], ids=[p[0] for p in PIECES]
)
def test_program_same_in_both_schedules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], piece: str, symbol: str, nisa: bool
) -> None:
    source = tmp_path / "program.mlir"
    source.write_text(piece)
    base = [str(source), "--symbol", symbol, "--random-inputs", "0", "--cores", "2"]
    for pipeline in [[], ["-p", "lower-nisa-to-bir"]] if nisa else [[]]:
        parallel = run_digest(tmp_path, [*base, *pipeline, "--schedule", "parallel"], capsys)
        in_turn = run_digest(tmp_path, [*base, *pipeline, "--schedule", "in-turn"], capsys)
        if "HBM race" in parallel[1] + in_turn[1]:
            # racy: an error in both (which race, or which error a racy read leads to
            # first, may differ)
            assert parallel[0] == in_turn[0] == 1, (parallel, in_turn)
            continue
        if parallel[0] and in_turn[0]:  # both cores may fail: either may be reported
            parallel, in_turn = (
                (code, re.sub(r"core \d+:", "core N:", text)) for code, text in (parallel, in_turn)
            )
        assert parallel == in_turn, (pipeline, parallel, in_turn)


def test_every_variant_listed() -> None:
    assert set(SMALL) == {m.name for m in MoECTEImplementation}


@pytest.mark.parametrize("variant", sorted(SMALL))
def test_moe_variant_same_in_both_schedules(tmp_path: Path, variant: str) -> None:
    digests = []
    for schedule in ("parallel", "in-turn"):
        out = tmp_path / f"{schedule}.npz"
        argv = ["run", "--implementation", variant, *SMALL[variant], "--tokens", "40"]
        argv += ["--no-progress", "--schedule", schedule, "-o", str(out)]
        assert mx_moe.main(argv, stdout=io.StringIO()) == 0
        with np.load(out) as outputs:
            digests.append(
                hashlib.sha256(np.ascontiguousarray(outputs["output"]).view(np.uint8)).digest()
            )
    assert digests[0] == digests[1]


# ------------------------------------------------------------- the race checker


def _bytes_of(offset: int, shape: tuple[int, ...], strides: tuple[int, ...], size: int) -> set[int]:
    """Every byte a strided view covers, enumerated one by one (the oracle)."""
    covered = set()
    for index in itertools.product(*(range(n) for n in shape)):
        start = offset + sum(i * s for i, s in zip(index, strides, strict=True))
        covered.update(range(start, start + size))
    return covered


def test_element_starts_match_numpy_views() -> None:
    base = np.zeros((6, 10), dtype=np.float32)
    view = base[1:5:2, 9:0:-3]
    address = base.__array_interface__["data"][0]
    offset = view.__array_interface__["data"][0] - address
    starts = element_starts((offset, view.shape, view.strides))
    expected = [(np.ravel_multi_index((r, c), base.shape) * 4) for r in (1, 3) for c in (9, 6, 3)]
    assert starts.tolist() == expected


def test_overlapping_bytes_against_enumeration() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        views = []
        for _side in range(2):
            size = int(rng.choice([1, 2, 4]))
            shape = tuple(int(n) for n in rng.integers(1, 4, size=2))
            strides = tuple(int(s) for s in rng.integers(-12, 13, size=2))
            offset = int(rng.integers(30, 60))
            views.append(((offset, shape, strides), size))
        (a, a_size), (b, b_size) = views
        got = overlapping_bytes(a, a_size, b, b_size, (0, 200))
        expected = _bytes_of(*a, a_size) & _bytes_of(*b, b_size)
        assert sorted(got.tolist()) == sorted(expected)


def _op() -> test_dialect.TestOp:
    return test_dialect.TestOp()


def test_unordered_write_write_is_a_race_naming_both_cores() -> None:
    out = np.zeros((4, 8), dtype=np.float32)
    checker = RaceChecker(2)
    checker.add_tensor("out", out)
    op0, op1 = _op(), _op()
    checker.access_array(0, op0, out[:, 0::2], write=True)
    checker.access_array(1, op1, out[:, 1::2], write=True)  # interleaved: no race
    checker.access_array(1, op1, out[0::4, 1::2], write=False)  # its own elements
    with pytest.raises(HbmRaceError, match=r"out\[2:3, 4:5\]: core 0 writes .* core 1 reads"):
        checker.access_array(1, op1, out[2, 4:5], write=False)


def test_a_synchronization_orders_the_accesses() -> None:
    out = np.zeros((4, 8), dtype=np.float32)
    checker = RaceChecker(2)
    checker.add_tensor("out", out)
    checker.access_array(0, _op(), out[0], write=True)
    # a barrier: both post their clocks and learn each other's
    clocks = [checker.post(0), checker.post(1)]
    checker.complete(0, clocks)
    checker.complete(1, clocks)
    checker.access_array(1, _op(), out[0], write=True)  # ordered after core 0's write
    checker.access_array(0, _op(), out[1], write=False)
    with pytest.raises(HbmRaceError, match=r"out\[1:2, 0:8\]"):
        checker.access_array(1, _op(), out[1], write=True)


def test_the_schedules_are_checked() -> None:
    with pytest.raises(ValueError, match="schedule 'random' is not one of parallel, in-turn"):
        SpmdRun(2, "random")


def test_indirect_accesses_touch_only_their_rows() -> None:
    out = np.zeros((6, 4), dtype=np.float32)
    checker = RaceChecker(2)
    checker.add_tensor("out", out)
    rows = out[:, 1:3]
    checker.access_array(0, _op(), rows, write=True, indirect=(0, np.array([0, 2, 4])))
    checker.access_array(1, _op(), rows, write=True, indirect=(0, np.array([5, 3, 1])))
    checker.access_array(1, _op(), out[:, 0], write=True)  # another column: no race
    starts = element_starts((0, (2, 2), (16, 4), 0, np.array([3, 1])))
    assert starts.tolist() == [48, 52, 16, 20]
    with pytest.raises(HbmRaceError, match=r"out\[2:3, 1:3\]: core 0 writes .* core 1 reads"):
        checker.access_array(1, _op(), rows, write=False, indirect=(0, np.array([2])))


def test_indexed_rows_against_enumeration() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        shape = (int(rng.integers(1, 4)), int(rng.integers(1, 5)))
        step = int(rng.choice([8, 12, 16, 32]))
        strides = (step, 4)
        a_index, b_index = (rng.choice(8, size=shape[0], replace=False) for _ in range(2))
        a = (4, shape, strides, 0, a_index)
        b = (4, shape, strides, 0, b_index)
        got = overlapping_bytes(a, 4, b, 4, (0, 400))
        expected = {int(x) + k for x in element_starts(a) for k in range(4)} & {
            int(x) + k for x in element_starts(b) for k in range(4)
        }
        assert sorted(got.tolist()) == sorted(expected)

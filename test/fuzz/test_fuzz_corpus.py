"""The CI-sized fuzz corpus (issue 19): a fixed seed, 300 source mutants through mx-opt
and mx-run, 30 ``.npz`` mutants, every bad command line; zero tracebacks, zero internal
errors, no partial outputs, no hangs. A larger corpus: ``python test/fuzz/fuzz_corpus.py
--cases 3000 --seed N``."""

from __future__ import annotations

import collections
from pathlib import Path

import fuzz_corpus
import pytest
from fuzz_corpus import Outcome, corpus, problem, run_corpus

SEED = 19
CASES = 300


def test_the_corpus_is_reproducible_and_covers_every_source() -> None:
    first = [case.label for case in corpus(SEED, CASES)]
    assert first == [case.label for case in corpus(SEED, CASES)]
    assert len(first) == CASES + CASES // 10 + len(fuzz_corpus.BAD_COMMANDS)
    kinds = collections.Counter(label.split(": ", 1)[1].split()[0] for label in first[:CASES])
    assert {"truncate", "byte", "swap", "number", "dim", "type", "insert"} <= set(kinds)
    assert len(fuzz_corpus.sources()) >= 60


def test_the_judge_flags_each_kind_of_failure(tmp_path: Path) -> None:
    output = tmp_path / "out"
    assert problem(Outcome(0, "", "", 0.1), output) is None
    assert problem(Outcome(1, "", "x.mlir:1:1: error: bad\n", 0.1), output) is None
    internal = "t: error: internal error: KeyError: 'x' (set MXDSL_TRACEBACK=1 ...)"
    assert "internal error" in str(problem(Outcome(2, "", internal, 0), None))
    traceback = "Traceback (most recent call last):\n  File ..."
    assert "traceback" in str(problem(Outcome(1, "", traceback, 0), None))
    # a diagnostic that quotes a source line mentioning a traceback is fine
    quoted = "x.mlir:17:1: error: Could not parse entire input!\n/; CHECK-NOT: Traceback\n^\n"
    assert problem(Outcome(1, "", quoted, 0), None) is None
    assert "without a diagnostic" in str(problem(Outcome(1, "", "", 0), None))
    assert "no answer" in str(problem(Outcome(-1, "", "", 99), None))
    output.write_text("partial")
    assert "written by a failing run" in str(problem(Outcome(1, "", "e", 0), output))


def test_the_ci_corpus_ends_every_case_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MXDSL_TRACEBACK", raising=False)
    codes: collections.Counter[int] = collections.Counter()
    judge = fuzz_corpus.problem

    def counting(outcome: Outcome, output: Path | None, usage_ok: bool = False) -> str | None:
        codes[outcome.code] += 1
        return judge(outcome, output, usage_ok)

    monkeypatch.setattr(fuzz_corpus, "problem", counting)
    failures = run_corpus(SEED, CASES, ["mx-opt", "mx-run"], tmp_path)
    assert failures == []
    # the mutants do break things: most end in a diagnostic, some are still valid
    assert codes[1] > CASES // 2
    assert codes[0] > 0

"""docs/performance.md is written by the benchmarks (``--markdown``): each benchmark has
its section, a run replaces only its own section and keeps the rest of the page, and a
failed run writes nothing."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(p for p in (REPO / "benchmarks").glob("*.py") if p.stem != "performance_page")
PAGE = REPO / "docs" / "performance.md"

_spec = importlib.util.spec_from_file_location(
    "performance_page", REPO / "benchmarks" / "performance_page.py"
)
assert _spec is not None
assert _spec.loader is not None
performance_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(performance_page)


def test_every_benchmark_writes_its_own_section() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for benchmark in BENCHMARKS:
        source = benchmark.read_text(encoding="utf-8")
        assert "performance_page.add_markdown_option(parser)" in source, benchmark.name
        call = rf'performance_page\.run\(\s*main,\s*"{benchmark.stem}"'
        assert re.search(call, source), benchmark.name
        assert f"<!-- benchmark: {benchmark.stem} -->" in page, benchmark.name
        assert f"<!-- end benchmark: {benchmark.stem} -->" in page, benchmark.name


def test_a_section_is_replaced_in_place_and_the_rest_kept() -> None:
    page = (
        "# Performance\n\nintro\n\n"
        "<!-- benchmark: a -->\nold a\n<!-- end benchmark: a -->\n\n"
        "<!-- benchmark: b -->\nold b\n<!-- end benchmark: b -->\n\nfooter\n"
    )
    new = "<!-- benchmark: a -->\nnew a\n<!-- end benchmark: a -->\n"
    replaced = performance_page.replace_section(page, "a", new)
    assert replaced == page.replace("old a", "new a")
    appended = performance_page.replace_section(page, "c", new.replace(": a", ": c"))
    assert appended.startswith(page.rstrip("\n"))
    assert appended.endswith("<!-- end benchmark: c -->\n")


def test_a_run_writes_machine_command_date_and_figures(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    kept = (
        "# Performance\n\nkept text\n\n"
        "<!-- benchmark: blas_order -->\nold\n<!-- end benchmark: blas_order -->\n"
    )
    page.write_text(kept, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "blas_order.py"), "--k", "128",
         "--markdown", str(page)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Performance\n\nkept text\n\n<!-- benchmark: blas_order -->\n")
    assert "\nold\n" not in text
    assert "* machine: " in text
    assert f"* command: `python benchmarks/blas_order.py --k 128 --markdown {page}`" in text
    assert re.search(r"\* date: \d{4}-\d\d-\d\d \d\d:\d\d UTC", text)
    # the figures are what the run printed
    first_line = run.stdout.splitlines()[0]
    assert f"```text\n{first_line}\n" in text


def test_a_failed_run_writes_nothing(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    run = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "blas_order.py"), "--k", "notanumber",
         "--markdown", str(page)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode != 0
    assert not page.exists()

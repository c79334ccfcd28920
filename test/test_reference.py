"""docs/reference/ is generated from the definitions (mxdsl/tools/reference.py) and must
be current: regenerate with ``python -m mxdsl.tools.reference`` after changing an op, a
pass or an error code."""

from __future__ import annotations

from pathlib import Path

from mxdsl.contract.errors import CATALOG
from mxdsl.tools import reference
from mxdsl.universe import get_all_dialects, get_all_passes


def test_the_checked_in_reference_is_current() -> None:
    stale = reference.stale_pages()
    assert not stale, (
        f"docs/reference/{', '.join(stale)} out of date: run `python -m mxdsl.tools.reference`"
    )


def test_check_mode_detects_a_stale_or_missing_page(tmp_path: Path) -> None:
    assert reference.main(["--output-dir", str(tmp_path)]) == 0
    assert reference.main(["--check", "--output-dir", str(tmp_path)]) == 0
    ops = tmp_path / "ops.md"
    ops.write_text(ops.read_text().replace("nisa.nc_matmul", "nisa.nc_matmul_old"))
    (tmp_path / "errors.md").unlink()
    assert reference.stale_pages(tmp_path) == ["ops.md", "errors.md"]
    assert reference.main(["--check", "--output-dir", str(tmp_path)]) == 1


def test_the_reference_lists_every_op_pass_and_code() -> None:
    pages = reference.pages()
    for factory in get_all_dialects().values():
        for op in factory().operations:
            assert f"### `{op.name}`" in pages["ops.md"]
    for name in get_all_passes():
        assert f"## `{name}`" in pages["passes.md"]
    for code, info in CATALOG.items():
        assert f"| {code.value} | `{code.name}` |" in pages["errors.md"]
        assert info.cause.replace("|", "\\|") in pages["errors.md"]
    # the option table of a pass with options, and a verifier message of an op
    assert "| `matmul-k-tile` | int | `128` |" in pages["passes.md"]
    assert "* stationary free size {…} exceeds {…}" in pages["ops.md"]

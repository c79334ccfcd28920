"""docs/reference/ is generated from the definitions (mxdsl/tools/reference.py) and must
be current: regenerate with ``python -m mxdsl.tools.reference`` after changing an op, a
pass or an error code."""

from __future__ import annotations

import argparse
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


def test_the_tools_page_lists_every_flag_of_every_tool() -> None:
    from mxdsl.tools import mx_diff, mx_moe, mx_run

    page = reference.pages()["tools.md"]
    for title in ("mx-opt", "mx-run", "mx-moe", "mx-moe run", "mx-moe grid", "mx-diff"):
        assert f"`{title}`" in page
    parsers = [mx_run.build_arg_parser(), mx_diff.build_arg_parser()]
    moe = mx_moe.build_arg_parser()
    for action in moe._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers += list(action.choices.values())
    for parser in parsers:
        for action in parser._actions:
            for option in action.option_strings:
                assert f"`{option}`" in page, option
    # mx-opt: xdsl-opt's flags and mxdsl's own, whatever extensions are installed
    for option in ("--split-input-file", "--located-diagnostics", "--target", "--passes"):
        assert f"`{option}`" in page
    assert "| `--cores` `N` | run N (1..64) SPMD programs" in page

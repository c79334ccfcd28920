"""Nothing in README.md, benchmarks/README.md and docs/ that a user cannot open: every
relative link and every backticked repository path (`mxdsl/...`, `examples/...`,
`docs/...`, ...) exists, every named document file (``*.md``, ``*.txt``, ``*.rst``) is in
the repository, no page but docs/performance.md carries a date (figures and their dates
live there, written by the benchmarks), and no page cites an issue number (a user cannot
see the tracker)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [REPO / "README.md", REPO / "benchmarks" / "README.md", *(REPO / "docs").rglob("*.md")]
)
DATED_PAGE = REPO / "docs" / "performance.md"

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
BACKTICKED = re.compile(r"`([^`\n]+)`")
REPO_ROOTS = ("mxdsl/", "examples/", "docs/", "benchmarks/", "test/", "scripts/", ".ci/")
DOCUMENT = re.compile(r"(?<![\w/.-])([\w./-]+\.(?:md|txt|rst))\b")
DATE = re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")
ISSUE = re.compile(r"\b(?:issues?|PR|pull request)\s+#?\d+\b|(?<![\w&/#])#\d+\b", re.IGNORECASE)


FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def prose(text: str) -> str:
    """The text without code blocks and inline code (where ``[a](b)`` is not a link)."""
    return BACKTICKED.sub("", FENCED.sub("", text))


def _page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


def _exists(target: str) -> bool:
    if any(ch in target for ch in "*?["):
        return any(REPO.glob(target))
    return (REPO / target).exists()


def repository_paths(text: str) -> list[str]:
    """The repository paths a page names in backticks: the leading path of each
    backticked span that starts with a top-level folder, without a line number or a
    trailing punctuation."""
    paths = []
    for span in BACKTICKED.findall(text):
        span = span.strip()
        if not span.startswith(REPO_ROOTS) or " " in span.split("/", 1)[0]:
            continue
        path = re.split(r"[\s\"'`:(),;]", span, maxsplit=1)[0].rstrip(".")
        if "..." in path or "{" in path or "<" in path or path.endswith("/FILE"):
            continue
        paths.append(path)
    return paths


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_relative_links_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = []
    for target in LINK.findall(prose(text)):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            missing.append(target)
    assert not missing, f"{_page_id(page)}: links to nothing: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_backticked_repository_paths_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [path for path in repository_paths(text) if not _exists(path)]
    assert not missing, f"{_page_id(page)}: names paths not in the repository: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_named_documents_are_in_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = []
    for name in DOCUMENT.findall(text):
        candidates = [page.parent / name, REPO / name, REPO / "docs" / name]
        if not any(c.exists() for c in candidates) and not any(REPO.rglob(Path(name).name)):
            missing.append(name)
    assert not missing, f"{_page_id(page)}: names files outside the repository: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_no_dates_and_no_issue_numbers(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if page != DATED_PAGE:
        dates = DATE.findall(text)
        assert not dates, (
            f"{_page_id(page)}: dated ({dates[:5]}); figures go to docs/performance.md"
        )
    issues = ISSUE.findall(text)
    assert not issues, f"{_page_id(page)}: cites issue numbers {issues[:5]}"


def test_the_checks_catch_what_they_are_for() -> None:
    assert repository_paths("see `mxdsl/targets.py:12` and `examples/x.mlir`.") == [
        "mxdsl/targets.py",
        "examples/x.mlir",
    ]
    assert not _exists("mxdsl/kernels/moe_cte/independent_mx.py")
    assert DATE.search("Measured 2026-12-02, 17:53")
    assert not DATE.search("a shape of 2026-128")
    assert ISSUE.search("since issue 7")
    assert ISSUE.search("fixed in #34")
    assert not ISSUE.search("the heading ## 4 and color &#34;")
    assert DOCUMENT.findall("as design.md says") == ["design.md"]

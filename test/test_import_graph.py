"""The package's import graph: layered, acyclic, and public between modules.

Read from the source (every ``import`` statement, at module level or inside a function,
since a lazy import closes a cycle as surely as an eager one):

* no cycle between mxdsl's modules;
* nothing below the tools (transforms, interpreters, dialects, numerics, kernels,
  contract, the leaf diagnostics) imports ``mxdsl.tools``;
* no name starting with one underscore is imported from another module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mxdsl"
BELOW_TOOLS = ("transforms", "interpreters", "dialects", "numerics", "kernels", "contract")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The mxdsl module a dotted name lives in (the longest prefix that is a module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """``(imported module, imported name or None, line)`` for every mxdsl import of
    ``module``, relative imports resolved."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, str | None, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found += [(base, a.name, node.lineno) for a in node.names]
    return [entry for entry in found if entry[0].split(".")[0] == "mxdsl"]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        targets: set[str] = set()
        for base, name, _ in _imports(module):
            full = f"{base}.{name}" if name else base
            target = full if full in MODULES else _owner(base)
            if target is not None and target != module:
                targets.add(target)
        graph[module] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "mxdsl.universe" in graph
    assert "mxdsl.dialects.nisa" in graph["mxdsl.dialects.bir"]
    assert "mxdsl.diagnostics" in graph["mxdsl.tools.diagnostics"]


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


@pytest.mark.parametrize("layer", BELOW_TOOLS)
def test_no_layer_below_the_tools_imports_them(layer: str) -> None:
    offenders = [
        f"{module}:{line} imports {base}"
        for module in MODULES
        if module.startswith(f"mxdsl.{layer}")
        for base, name, line in _imports(module)
        if (f"{base}.{name}" if name else base).startswith("mxdsl.tools")
    ]
    assert offenders == []


def test_the_leaf_diagnostics_import_nothing_of_mxdsl() -> None:
    assert _imports("mxdsl.diagnostics") == []


def test_no_private_name_crosses_modules() -> None:
    offenders = [
        f"{module}:{line} imports {name} from {base}"
        for module in MODULES
        for base, name, line in _imports(module)
        if name is not None
        and name.startswith("_")
        and not name.startswith("__")
        and _owner(base) != module
    ]
    assert offenders == []

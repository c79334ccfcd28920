"""The MoE-CTE package splits kernel from reference (issue 16 item 5, design.md Layout):
no kernel builder imports the reference side (inputs, goldens, MX packing), and the
package's modules import each other without a cycle."""

import ast
import subprocess
import sys
from pathlib import Path

import mxdsl.kernels.moe_cte as pkg

ROOT = Path(pkg.__file__).parent
PREFIX = "mxdsl.kernels.moe_cte"


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join([PREFIX, *parts])


def _imports(path: Path) -> set[str]:
    """Every module of the package that ``path`` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(PREFIX):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith(PREFIX))
    return found


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in ROOT.rglob("*.py")}


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_graph_sees_every_module_and_its_imports():
    graph = _graph()
    assert f"{PREFIX}.ffn" in graph
    assert f"{PREFIX}.reference.mx" in graph
    # the reference side does depend on the kernel side (its argument table)
    assert f"{PREFIX}.interface" in graph[f"{PREFIX}.reference.inputs"]


def test_no_kernel_module_reaches_the_reference_side():
    graph = _graph()
    kernel = [m for m in graph if not m.startswith(f"{PREFIX}.reference")]
    assert len(kernel) >= 10
    for module in kernel:
        bad = {m for m in _reachable(graph, module) if m.startswith(f"{PREFIX}.reference")}
        assert not bad, f"{module} imports the reference side: {sorted(bad)}"


def test_the_package_imports_have_no_cycle():
    graph = _graph()
    for module in graph:
        assert module not in _reachable(graph, module), f"{module} is on an import cycle"


def test_building_every_variant_loads_no_reference_module():
    """In a fresh interpreter: build all seven variants, then look at sys.modules."""
    code = (
        "import sys\n"
        "from mxdsl.kernels.moe_cte import MoECTEImplementation as M, MoECTESizes, "
        "MoECTESpec, build_moe_cte\n"
        "for m in M:\n"
        "    I = 1024 if m.is_mx else 256\n"
        "    B = 128 if m.shards_on_block else 256\n"
        "    build_moe_cte(MoECTESpec(m), MoECTESizes(512, I, 4, 100, B, 2))\n"
        "print(sorted(n for n in sys.modules if '.reference' in n and 'moe_cte' in n))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

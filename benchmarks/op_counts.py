"""Count the ops a lowered program interprets, without running it.

Lowers StableHLO / hlo files (``import-stablehlo,legalize-scaled-matmul,
lower-hlo-to-nisa``, and with ``--bir`` on to bir) and counts the ops one call of
``main`` interprets, from the constant trip counts of its loops (an op inside loops
counts once per iteration, as ``mx-run --max-steps`` counts them;
``mxdsl.tools.steps``). Prints, per file, the total, the heaviest source lines (the
StableHLO op each lowered op came from) and the heaviest op names (default: the
Llama-class SwiGLU MXFP8 FFN, T 512, H 4096, I 14336, and the corpus's multi-head
attention):

    python benchmarks/op_counts.py [FILE.mlir ...] [--bir] [--top 15]

It is the cheap measure of a lowering's cost: the interpreter's time follows the number
of ops it runs far more than their size.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Block, Operation

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = [
    ROOT / "examples" / "stablehlo" / "llama_ffn_swiglu_mxfp8_cuda.mlir",
    ROOT / "examples" / "stablehlo" / "layer_attention_causal_mha_f32.mlir",
]


def weighted(block: Block, weight: int, lines: Counter[int], names: Counter[str]) -> int:
    """The ops of ``block`` run ``weight`` times, counted into ``lines`` / ``names``."""
    from mxdsl.tools.steps import trip_count

    total = 0
    for op in block.ops:
        total += weight
        _count(op, weight, lines, names)
        if isinstance(op, scf.ForOp):
            trips = trip_count(op)
            inner = weight * (trips if trips is not None else 1)
            total += weighted(op.body.block, inner, lines, names)
        else:
            for region in op.regions:
                for b in region.blocks:
                    total += weighted(b, weight, lines, names)
    return total


def _count(op: Operation, weight: int, lines: Counter[int], names: Counter[str]) -> None:
    location = op.location
    lines[location.line.data if isinstance(location, FileLineColLoc) else 0] += weight
    names[op.name] += weight


def count(path: Path, bir: bool, top: int) -> None:
    from mxdsl.tools.diagnostics import parse_located
    from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
    from mxdsl.transforms.import_stablehlo import ImportStableHloPass
    from mxdsl.transforms.legalize_scaled_matmul import LegalizeScaledMatmulPass
    from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass
    from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass

    ctx = _context()
    text = path.read_text()
    module, _ = parse_located(ctx, text, str(path))
    start = time.perf_counter()
    for p in (ImportStableHloPass(), LegalizeScaledMatmulPass(), LowerHloToNisaPass()):
        p.apply(ctx, module)
    if bir:
        LowerNisaToBirPass().apply(ctx, module)
    lower_s = time.perf_counter() - start
    main_op = next(
        o for o in module.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == "main"
    )
    lines: Counter[int] = Counter()
    names: Counter[str] = Counter()
    total = weighted(main_op.body.block, 1, lines, names)
    source = text.splitlines()
    print(
        f"{path.name}: {total:,} interpreted ops ({'bir' if bir else 'nisa'}, "
        f"lowered in {lower_s:.1f} s)"
    )
    print("by source line:")
    for line, n in lines.most_common(top):
        what = _brief(source[line - 1]) if 0 < line <= len(source) else "(function)"
        print(f"  {n:>12,}  {line:>4}: {what}")
    print("by op:")
    for name, n in names.most_common(top):
        print(f"  {n:>12,}  {name}")


def _brief(text: str, width: int = 100) -> str:
    """A source line cut at a word boundary within ``width`` characters."""
    text = text.strip()
    if len(text) <= width:
        return text
    return text[: text.rfind(" ", 0, width - 4)] + " ..."


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    import performance_page  # benchmarks/performance_page.py, beside this script

    performance_page.add_markdown_option(parser)
    parser.add_argument("programs", type=Path, nargs="*", default=DEFAULT)
    parser.add_argument("--bir", action="store_true", help="count the bir program instead")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    for path in args.programs:
        if not path.is_file():
            parser.error(f"cannot open {str(path)!r}: no such file")
    for path in args.programs:
        count(path, args.bir, args.top)
    return 0


if __name__ == "__main__":
    import performance_page

    sys.exit(performance_page.run(main, "op_counts", "interpreted ops of lowered layers"))

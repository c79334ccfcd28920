"""``ext-fold-scales``: ``ext.scale(ext.scale(x, a), b)`` -> ``ext.scale(x, a + b)``.

The fold keeps results bit for bit, so it only fires where it is exact: when both
exponents are >= 0. Scaling up by a power of two is exact until it overflows, and an
overflow is inf either way. A scaling down can round (into the subnormals), and two
roundings are not one, so such a pair is kept, with a remark saying why. A pair whose
combined exponent would break ``ext.scale``'s limit is kept with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from mxdsl.remarks import emit_remark, emit_warning
from mxdsl_ext_example.dialect import MAX_EXPONENT, ScaleOp


class FoldScales(RewritePattern):
    """Fold a scale of a scale into one when that is exact."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScaleOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, ScaleOp):
            return
        a, b = inner.exponent.value.data, op.exponent.value.data
        if a < 0 or b < 0:
            emit_remark(op, f"not folded: scaling by 2^{a} then 2^{b} may round twice")
            return
        if a + b > MAX_EXPONENT:
            emit_warning(op, f"not folded: the combined exponent {a + b} exceeds {MAX_EXPONENT}")
            return
        rewriter.replace(op, ScaleOp(inner.input, a + b))
        if not inner.result.uses:
            rewriter.erase(inner)


@dataclass(frozen=True)
class FoldScalesPass(ModulePass):
    """Fold chains of non-negative ``ext.scale`` ops (exact; see the module docstring)."""

    name = "ext-fold-scales"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # one forward walk: a folded op is seen by the scale that uses it, and each
        # remark or warning is emitted once
        PatternRewriteWalker(FoldScales(), apply_recursively=False).rewrite_module(op)

"""``legalize-scaled-matmul``: __op$block_scaled_dot -> ScaledMatmul_{..}_{f32|bf16}.

Spec ``hlo-mx-legalization.txt`` §3 (``xla::LegalizeScaledMatmul``, registry order 10):
match a custom call whose target is exactly ``__op$block_scaled_dot``; read the four
dimension lists and element_dtype from ``scaled_dot_backend_config``; emit
``ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}`` with operands (lhs, rhs, lhs_scale,
rhs_scale, dims metadata constant), the result type verbatim, the backend_config passed
through and api_version 1. The metadata slot order is documented in ``docs/passes.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from mxdsl.contract.mx import (
    BLOCK_SCALED_DOT,
    ScaledDotConfig,
    scaled_matmul_metadata,
    scaled_matmul_target,
)
from mxdsl.dialects.hlo import ConstantOp, CustomCallOp


class LegalizeBlockScaledDot(RewritePattern):
    """Rewrite one ``__op$block_scaled_dot`` call into its dtype-tagged target."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CustomCallOp, rewriter: PatternRewriter) -> None:
        if op.target != BLOCK_SCALED_DOT:
            return
        lhs, rhs = op.inputs[0], op.inputs[1]
        assert isinstance(lhs.type, TensorType) and isinstance(rhs.type, TensorType)
        assert isinstance(op.result.type, TensorType)
        config = ScaledDotConfig.parse(op.backend_config.data)
        try:
            literal = scaled_matmul_metadata(config, lhs.type.get_num_dims(), rhs.type.get_num_dims())
        except ValueError as err:
            raise PassFailedException(
                f"legalize-scaled-matmul: {err}; reshape the batch dimensions into one "
                "before the scaled dot"
            ) from None
        metadata = ConstantOp(literal)
        legalized = CustomCallOp(
            scaled_matmul_target(config.element_dtype, op.result.type.element_type),
            [*op.inputs, metadata.output],
            op.result.type,
            backend_config=op.backend_config.data,
            api_version=1,
        )
        metadata.output.name_hint = "dot_meta"
        legalized.result.name_hint = op.result.name_hint
        for new_op in (metadata, legalized):
            new_op.location = op.location
        rewriter.replace(op, [metadata, legalized])


@dataclass(frozen=True)
class LegalizeScaledMatmulPass(ModulePass):
    """Legalize every ``__op$block_scaled_dot`` custom call (spec §3)."""

    name = "legalize-scaled-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LegalizeBlockScaledDot(), apply_recursively=False).rewrite_module(op)

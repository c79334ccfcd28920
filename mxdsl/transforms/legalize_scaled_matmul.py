"""``legalize-scaled-matmul``: __op$block_scaled_dot -> ScaledMatmul_{..}_{f32|bf16}.

Spec "MX-FP8 Microscaling Legalization" §3 (``xla::LegalizeScaledMatmul``, registry order 10):
match a custom call whose target is exactly ``__op$block_scaled_dot``; read the four
dimension lists and element_dtype from ``scaled_dot_backend_config``; emit
``ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}`` with operands (lhs, rhs, lhs_scale,
rhs_scale, dims metadata constant), the result type verbatim, the backend_config passed
through and api_version 1. The metadata slot order is documented in ``docs/passes.md``.

The 7-slot metadata holds one batch and one contracting dimension per side, so the pass
refuses (with a diagnostic on the op) a call with more; it refuses the same way a call it
cannot read (not 4 tensor operands, a tuple result, an unreadable backend_config), which
the contract rejects first unless verification is disabled.
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
from xdsl.utils.exceptions import VerifyException

from mxdsl.contract.mx import (
    BLOCK_SCALED_DOT,
    ScaledDotConfig,
    scaled_matmul_metadata,
    scaled_matmul_target,
)
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects.hlo import ConstantOp, CustomCallOp

PASS_NAME = "legalize-scaled-matmul"


def _encodable_dims_error(config: ScaledDotConfig) -> str | None:
    """Why the dimension numbers do not fit the 7 metadata slots, or None."""
    for side, batch, contract in (
        ("lhs", config.lhs_batch_dimensions, config.lhs_contracting_dimensions),
        ("rhs", config.rhs_batch_dimensions, config.rhs_contracting_dimensions),
    ):
        if len(batch) > 1:
            return (
                f"the ScaledMatmul metadata holds at most one batch dimension, got "
                f"{side}_batch_dimensions {list(batch)}; reshape the batch dimensions into "
                "one before the scaled dot"
            )
        if len(contract) != 1:
            return (
                f"the ScaledMatmul metadata holds exactly one contracting dimension per "
                f"side, got {side}_contracting_dimensions {list(contract)}"
            )
    return None


class LegalizeBlockScaledDot(RewritePattern):
    """Rewrite one ``__op$block_scaled_dot`` call into its dtype-tagged target."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CustomCallOp, rewriter: PatternRewriter) -> None:
        if op.target != BLOCK_SCALED_DOT:
            return
        operand_types = [v.type for v in op.inputs]
        if len(operand_types) != 4 or not all(isinstance(t, TensorType) for t in operand_types):
            raise OpDiagnostic(
                op,
                f"{PASS_NAME}: {BLOCK_SCALED_DOT} takes 4 tensor operands (lhs, rhs, "
                f"lhs_scale, rhs_scale), got {len(operand_types)}",
            )
        lhs_type, rhs_type = operand_types[0], operand_types[1]
        assert isinstance(lhs_type, TensorType)
        assert isinstance(rhs_type, TensorType)
        if not isinstance(result_type := op.result.type, TensorType):
            raise OpDiagnostic(op, f"{PASS_NAME}: the result is {result_type}, not a tensor")
        try:
            config = ScaledDotConfig.parse(op.backend_config.data)
        except VerifyException as err:
            raise OpDiagnostic(op, f"{PASS_NAME}: {err}") from None
        if (reason := _encodable_dims_error(config)) is not None:
            raise OpDiagnostic(op, f"{PASS_NAME}: {reason}")
        metadata = ConstantOp(
            scaled_matmul_metadata(config, lhs_type.get_num_dims(), rhs_type.get_num_dims())
        )
        legalized = CustomCallOp(
            scaled_matmul_target(config.element_dtype, result_type.element_type),
            [*op.inputs, metadata.output],
            result_type,
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

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LegalizeBlockScaledDot(), apply_recursively=False).rewrite_module(op)

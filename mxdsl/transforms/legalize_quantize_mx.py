"""``legalize-quantize-mx``: QuantizeMX -> QuantizeMX_{f16|bf16}_{e5m2|e4m3fn}.

Spec "MX-FP8 Microscaling Legalization" §2 (``xla::LegalizeQuantizeMX``, registry order 9): match
a custom call whose target is exactly ``QuantizeMX``; read dtype, dim and block_size
(32 when absent) from its backend_config; fold a negative dim against the operand rank;
build the metadata tuple constant (s64 shape list, dim, block_size, 0); emit the
dtype-tagged target with operands (metadata, input), the original 2-tuple result type
verbatim, an empty backend_config and api_version 1; replace the old op. The MX
contract is not re-checked here (spec §6): the verifier of ``hlo.custom_call`` owns it.
A call the pass cannot even read (not one tensor operand, a backend_config without
dtype/dim) is refused with a diagnostic on the op; that only happens under
``--disable-verify``, since the contract rejects such a call first.
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
    MX_BLOCK_SIZE,
    QUANTIZE_MX,
    QuantizeMXConfig,
    quantize_mx_metadata,
    quantize_mx_target,
)
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects.hlo import ConstantOp, CustomCallOp

PASS_NAME = "legalize-quantize-mx"


class LegalizeQuantizeMX(RewritePattern):
    """Rewrite one frontend ``QuantizeMX`` call into its dtype-tagged target."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CustomCallOp, rewriter: PatternRewriter) -> None:
        if op.target != QUANTIZE_MX:
            return
        if len(op.inputs) != 1 or not isinstance(source_type := op.inputs[0].type, TensorType):
            raise OpDiagnostic(
                op, f"{PASS_NAME}: {QUANTIZE_MX} takes one tensor operand, got {len(op.inputs)}"
            )
        (source,) = op.inputs
        try:
            config = QuantizeMXConfig.parse(op.backend_config.data)
        except VerifyException as err:
            raise OpDiagnostic(op, f"{PASS_NAME}: {err}") from None
        shape = source_type.get_shape()
        dim = config.dim + len(shape) if config.dim < 0 else config.dim
        block_size = MX_BLOCK_SIZE if config.block_size is None else config.block_size
        metadata = ConstantOp(quantize_mx_metadata(shape, dim, block_size))
        legalized = CustomCallOp(
            quantize_mx_target(source_type.element_type, config.dtype),
            [metadata.output, source],
            op.result.type,
            backend_config="",
            api_version=1,
        )
        metadata.output.name_hint = "quantize_meta"
        legalized.result.name_hint = op.result.name_hint
        for new_op in (metadata, legalized):
            new_op.location = op.location
        rewriter.replace(op, [metadata, legalized])


@dataclass(frozen=True)
class LegalizeQuantizeMXPass(ModulePass):
    """Legalize every ``QuantizeMX`` custom call (spec §2); other calls stay as they are."""

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(LegalizeQuantizeMX(), apply_recursively=False).rewrite_module(op)

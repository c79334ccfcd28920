"""The MoE context-encoding (prefill) FFN as nisa kernels (see ``docs/moe-cte.md``).

``build_moe_cte(spec, sizes, options, quantization_config)`` checks a problem and builds
one variant's nisa IR (:class:`MoECTEKernel`: ``.module``, ``.arguments``, ``.run``).
This package is the kernel side only; routed random inputs (``make_inputs``) and the
goldens (``moe_cte_golden``, the MX packing and golden) are the reference side,
:mod:`mxdsl.kernels.moe_cte.reference`, which no builder imports.
"""

from mxdsl.kernels.moe_cte.dispatch import CORES, MoECTEKernel, build_moe_cte, progress_bar
from mxdsl.kernels.moe_cte.interface import ArgSpec, kernel_arguments, signature_text
from mxdsl.kernels.moe_cte.spec import (
    ActFnType,
    BlockShardStrategy,
    ExpertAffinityScaleMode,
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    NotBuiltYetError,
    QuantizationConfig,
    ShardOnBlockConfig,
    ShardOnIConfig,
    default_n_blocks,
)

__all__ = [
    "CORES",
    "ActFnType",
    "ArgSpec",
    "BlockShardStrategy",
    "ExpertAffinityScaleMode",
    "MoECTEConfigError",
    "MoECTEImplementation",
    "MoECTEKernel",
    "MoECTEOptions",
    "MoECTESizes",
    "MoECTESpec",
    "NotBuiltYetError",
    "QuantizationConfig",
    "ShardOnBlockConfig",
    "ShardOnIConfig",
    "build_moe_cte",
    "default_n_blocks",
    "kernel_arguments",
    "progress_bar",
    "signature_text",
]

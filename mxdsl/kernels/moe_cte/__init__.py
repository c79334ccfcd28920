"""The MoE context-encoding (prefill) FFN as nisa kernels (see ``docs/moe-cte.md``).

``build_moe_cte(spec, sizes, options, quantization_config)`` checks a problem and builds
one variant's nisa IR (:class:`MoECTEKernel`: ``.module``, ``.arguments``, ``.run``);
``make_inputs`` draws routed random inputs; ``moe_cte_golden`` is the dense reference.
"""

from mxdsl.kernels.moe_cte.dispatch import CORES, MoECTEKernel, build_moe_cte, progress_bar
from mxdsl.kernels.moe_cte.golden import moe_cte_golden, relative_error
from mxdsl.kernels.moe_cte.interface import ArgSpec, kernel_arguments, signature_text
from mxdsl.kernels.moe_cte.routing import MoECTEInputs, golden_for, make_inputs
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
    "MoECTEInputs",
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
    "golden_for",
    "kernel_arguments",
    "make_inputs",
    "moe_cte_golden",
    "progress_bar",
    "relative_error",
    "signature_text",
]

"""The reference side of the MoE-CTE kernels: what checks them, never what builds them.

Routed random inputs (:mod:`.inputs`), the dense numpy golden (:mod:`.golden`), and the
MX packing, MX inputs and MX-aware golden (:mod:`.mx`). These import the kernel side's
problem description (spec, argument table, MX format table); no kernel builder imports
anything here (``test/kernels/test_moe_imports.py`` checks it).
"""

from mxdsl.kernels.moe_cte.reference.golden import activation, moe_cte_golden, relative_error
from mxdsl.kernels.moe_cte.reference.inputs import (
    MoECTEInputs,
    block_values_for,
    golden_for,
    golden_options,
    make_inputs,
)
from mxdsl.kernels.moe_cte.reference.mx import (
    dense_golden_for,
    make_mx_inputs,
    moe_cte_mx_golden,
    mx_golden_for,
    pack_down,
    pack_gate_up,
    unpack_down,
    unpack_gate_up,
)

__all__ = [
    "MoECTEInputs",
    "activation",
    "block_values_for",
    "dense_golden_for",
    "golden_for",
    "golden_options",
    "make_inputs",
    "make_mx_inputs",
    "moe_cte_golden",
    "moe_cte_mx_golden",
    "mx_golden_for",
    "pack_down",
    "pack_gate_up",
    "relative_error",
    "unpack_down",
    "unpack_gate_up",
]

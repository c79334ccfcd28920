"""Kernel builders that emit nisa IR (``moe_cte``: the MoE context-encoding FFN)."""

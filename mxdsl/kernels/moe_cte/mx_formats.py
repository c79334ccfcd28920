"""The MX weight formats the MX kernels accept and the geometry of their layouts.

Kernel-side facts only (the builders and the argument table read them); packing dense
weights into these layouts is reference work (:mod:`mxdsl.kernels.moe_cte.reference.mx`).
Per nkilib's MX layouts: weights travel as x4 integer alternates
(uint32 for FP8, uint16 for FP4), one E8M0 scale per 8 partitions x 4 lanes.
"""

from __future__ import annotations

from dataclasses import dataclass

from mxdsl.numerics import MxFormat

PMAX = 128
MX_TILE = 512  # contraction elements of one nc_matmul_mx pass: 128 partitions x 4 lanes
SCALE_ROWS = PMAX // 8  # 16 E8M0 rows per 128 partitions
BLOCK = (8, 4)  # one E8M0 scale per 8 partitions x 4 lanes


@dataclass(frozen=True)
class MxWeightFormat:
    name: str  # the --mx-weights spelling
    fmt: MxFormat
    container: str  # numpy dtype name of the integer alternate
    x4: str  # the nisa x4 type


MX_WEIGHT_FORMATS: dict[str, MxWeightFormat] = {
    "fp8_e4m3fn": MxWeightFormat("fp8_e4m3fn", MxFormat.E4M3FN, "uint32", "float8_e4m3fn_x4"),
    "fp8_e5m2": MxWeightFormat("fp8_e5m2", MxFormat.E5M2, "uint32", "float8_e5m2_x4"),
    "fp4_e2m1": MxWeightFormat("fp4_e2m1", MxFormat.E2M1, "uint16", "float4_e2m1fn_x4"),
}


def weight_format(name: str) -> MxWeightFormat:
    try:
        return MX_WEIGHT_FORMATS[name]
    except KeyError:
        raise ValueError(
            f"unknown MX weight format {name!r}; choose one of {', '.join(MX_WEIGHT_FORMATS)}"
        ) from None


__all__ = [
    "BLOCK",
    "MX_TILE",
    "MX_WEIGHT_FORMATS",
    "PMAX",
    "SCALE_ROWS",
    "MxWeightFormat",
    "weight_format",
]

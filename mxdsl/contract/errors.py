"""The MX contract error catalog, as data.

Spec "MX-FP8 Microscaling Legalization" §4 and §6: the real compiler keeps one structured-error
catalog (``hilo::lookup_cause`` / ``lookup_resolution`` / ``formatErrorMessage``) that
fires when an MX custom call is built. Here every failure is an :class:`ErrorCode`, each
code has one cause and one resolution in :data:`CATALOG`, and :func:`format_error` is the
single formatter. The causes quote the validator strings the spec recovered from the binary
where it gives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from xdsl.utils.exceptions import VerifyException

OCP_MX_SPEC_URL = (
    "https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf"
)


class ErrorCode(Enum):
    """Every way a custom call can violate the MX contract; the value is the printed code."""

    # QuantizeMX (spec §2, §4.1)
    QMX_OPERAND_COUNT = "MXQ01"
    QMX_BACKEND_CONFIG = "MXQ02"
    QMX_INPUT_TYPE = "MXQ03"
    QMX_DTYPE = "MXQ04"
    QMX_BLOCK_SIZE = "MXQ05"
    QMX_SCALE_METHOD = "MXQ06"
    QMX_DIM = "MXQ07"
    QMX_RESULT_TUPLE = "MXQ08"
    QMX_X4_DIVISIBILITY = "MXQ09"
    QMX_BLOCK_DIVISIBILITY = "MXQ10"
    QMX_DATA_TYPE = "MXQ11"
    QMX_SCALE_TYPE = "MXQ12"
    # __op$block_scaled_dot (spec §3, §4.2)
    SD_OPERAND_COUNT = "MXD01"
    SD_BACKEND_CONFIG = "MXD02"
    SD_DATA_TYPE = "MXD03"
    SD_RANK = "MXD04"
    SD_RESULT_TYPE = "MXD05"
    SD_ELEMENT_DTYPE = "MXD06"
    SD_BATCH_COUNT = "MXD07"
    SD_CONTRACT_MISMATCH = "MXD08"
    SD_DIMS_OVERLAP = "MXD09"
    SD_DIM_OUT_OF_BOUNDS = "MXD10"
    SD_SCALE_SHAPE = "MXD11"
    SD_RESULT_SHAPE = "MXD12"
    # the legalized QuantizeMX_* / ScaledMatmul_* targets (spec §2.3-§2.5, §3.2-§3.4)
    LEG_UNKNOWN_TARGET = "MXL01"
    LEG_METADATA = "MXL02"
    LEG_TARGET_MISMATCH = "MXL03"


@dataclass(frozen=True)
class ErrorInfo:
    cause: str
    resolution: str


_CONFIG_RESOLUTION = (
    "Ensure the backend_config is valid JSON with required fields: "
    "dtype, dim, block_size, scale_method."
)

CATALOG: dict[ErrorCode, ErrorInfo] = {
    ErrorCode.QMX_OPERAND_COUNT: ErrorInfo(
        "QuantizeMX takes exactly one operand (the BF16/F16 tensor to quantize).",
        "Pass the activation or weight tensor as the only operand.",
    ),
    ErrorCode.QMX_BACKEND_CONFIG: ErrorInfo(
        "The QuantizeMX backend_config is not valid JSON with the required fields.",
        _CONFIG_RESOLUTION,
    ),
    ErrorCode.QMX_INPUT_TYPE: ErrorInfo(
        "QuantizeMX input element type: only BF16 and F16 are supported.",
        "Convert the input to bf16 or f16 (hlo.convert) before QuantizeMX.",
    ),
    ErrorCode.QMX_DTYPE: ErrorInfo(
        "QuantizeMX dtype: only 'float8_e5m2' and 'float8_e4m3fn' are supported.",
        'Set backend_config dtype to "float8_e4m3fn" or "float8_e5m2" '
        f"(the OCP MX FP8 element formats, see {OCP_MX_SPEC_URL}).",
    ),
    ErrorCode.QMX_BLOCK_SIZE: ErrorInfo(
        "QuantizeMX block_size must be 32.",
        f"Set block_size to 32, the OCP MX block size ({OCP_MX_SPEC_URL}).",
    ),
    ErrorCode.QMX_SCALE_METHOD: ErrorInfo(
        "QuantizeMX scale_method: only EMAX is supported.",
        'Set backend_config scale_method to "EMAX" (the shared exponent is taken '
        "from the block's largest element exponent).",
    ),
    ErrorCode.QMX_DIM: ErrorInfo(
        "QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim "
        "(rank-2 or -2) is supported.",
        "Quantize along the last or second-to-last dimension; transpose the input first "
        "to bring the quantized dimension there.",
    ),
    ErrorCode.QMX_RESULT_TUPLE: ErrorInfo(
        "QuantizeMX must return a tuple with exactly 2 outputs (quantized data and scale).",
        "Declare the result as tuple<tensor<...xui32>, tensor<...xf8E8M0FNU>>.",
    ),
    ErrorCode.QMX_X4_DIVISIBILITY: ErrorInfo(
        "The quantized dimension must be divisible by 4 for x4 packing "
        "(four FP8 elements per ui32 lane word).",
        "Pad the quantized dimension to a multiple of 4.",
    ),
    ErrorCode.QMX_BLOCK_DIVISIBILITY: ErrorInfo(
        "The quantized dimension must be divisible by 32 (one E8M0 scale per 32-element block).",
        f"Pad the quantized dimension to a multiple of 32 ({OCP_MX_SPEC_URL}).",
    ),
    ErrorCode.QMX_DATA_TYPE: ErrorInfo(
        "The quantized data output must be ui32 (x4-packed FP8) with the quantized "
        "dimension divided by 4 and all other dimensions unchanged.",
        "Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.",
    ),
    ErrorCode.QMX_SCALE_TYPE: ErrorInfo(
        "The scale output must be f8E8M0FNU (E8M0) with the quantized dimension divided "
        "by 32 and all other dimensions unchanged.",
        "Declare tuple element 1 as tensor<...xf8E8M0FNU> with the quantized dim / 32.",
    ),
    ErrorCode.SD_OPERAND_COUNT: ErrorInfo(
        "ScaledMatmul must have exactly 4 operands (lhs, rhs, lhs_scale, rhs_scale).",
        "Pass the two packed MX tensors followed by their two E8M0 scale tensors.",
    ),
    ErrorCode.SD_BACKEND_CONFIG: ErrorInfo(
        "The ScaledMatmul backend_config is not valid JSON with a "
        "scaled_dot_backend_config object holding the dot dimension numbers and "
        "element_dtype.",
        'Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], '
        '"rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], '
        '"rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.',
    ),
    ErrorCode.SD_DATA_TYPE: ErrorInfo(
        "ScaledMatmul LHS/RHS input type: only U32 (packed MX format from QuantizeMX) "
        "is supported.",
        "Feed lhs and rhs from the data output (tuple element 0) of a QuantizeMX call.",
    ),
    ErrorCode.SD_RANK: ErrorInfo(
        "ScaledMatmul LHS and RHS must have rank at least 2.",
        "Reshape the operands to at least [rows, packed K] before the scaled dot.",
    ),
    ErrorCode.SD_RESULT_TYPE: ErrorInfo(
        "ScaledMatmul output type: only F32 and BF16 are supported.",
        "Declare the result as tensor<...xf32> or tensor<...xbf16>.",
    ),
    ErrorCode.SD_ELEMENT_DTYPE: ErrorInfo(
        "ScaledMatmul element_dtype: only 'float8_e4m3fn' and 'float8_e5m2' are supported.",
        f"Set element_dtype to the dtype both operands were quantized to ({OCP_MX_SPEC_URL}).",
    ),
    ErrorCode.SD_BATCH_COUNT: ErrorInfo(
        "ScaledMatmul lhs and rhs must have the same number of batch dimensions, of equal sizes.",
        "List one rhs batch dimension per lhs batch dimension, with matching sizes.",
    ),
    ErrorCode.SD_CONTRACT_MISMATCH: ErrorInfo(
        "ScaledMatmul requires the same contract dim and size for lhs and rhs: "
        "exactly one contracting dimension on each side, of equal (unpacked) size.",
        "Contract over the dimension both operands were quantized along.",
    ),
    ErrorCode.SD_DIMS_OVERLAP: ErrorInfo(
        "ScaledMatmul contracting and batch dimensions must not overlap.",
        "Remove the contracting dimension from the batch dimension list.",
    ),
    ErrorCode.SD_DIM_OUT_OF_BOUNDS: ErrorInfo(
        "A ScaledMatmul batch or contracting dimension is out of bounds for the operand's rank.",
        "Use dimension indices in [0, rank).",
    ),
    ErrorCode.SD_SCALE_SHAPE: ErrorInfo(
        "A ScaledMatmul scale must be f8E8M0FNU with the data shape, the contracting "
        "dimension divided by 8 (32 elements = 8 packed ui32 words per scale).",
        "Pass the scale output (tuple element 1) of the QuantizeMX that produced the data.",
    ),
    ErrorCode.SD_RESULT_SHAPE: ErrorInfo(
        "The ScaledMatmul result shape must be the batch dims, then the lhs free dims, "
        "then the rhs free dims.",
        "Fix the declared result shape.",
    ),
    ErrorCode.LEG_UNKNOWN_TARGET: ErrorInfo(
        "Unknown legalized MX target: the legalizations only emit "
        "QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} and "
        "ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}.",
        "Use one of the eight legalized target names, or the frontend targets "
        "QuantizeMX / __op$block_scaled_dot.",
    ),
    ErrorCode.LEG_METADATA: ErrorInfo(
        "The metadata operand of a legalized MX target does not match its data "
        "operands (see docs/contract.md for the slot layouts).",
        "Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the "
        "legalized call by hand, or fix the metadata constant.",
    ),
    ErrorCode.LEG_TARGET_MISMATCH: ErrorInfo(
        "The dtype tags in a legalized target name do not match its operand, result or "
        "backend_config types.",
        "Use the target name the legalization derives from the types.",
    ),
}


def format_error(code: ErrorCode, target: str, detail: str) -> str:
    """The one formatter: ``[code] target: detail`` followed by cause and resolution."""
    info = CATALOG[code]
    return (
        f"[{code.value}] {target}: {detail}\n  cause: {info.cause}\n  resolution: {info.resolution}"
    )


class MxContractError(VerifyException):
    """A violated MX contract; ``code`` is the catalog entry."""

    def __init__(self, code: ErrorCode, target: str, detail: str):
        super().__init__(format_error(code, target, detail))
        self.code = code
        self.target = target
        self.detail = detail


class ContractError(VerifyException):
    """A violated contract of any custom-call target, in the MX layout (``[code] target:
    detail``, then cause and resolution). Extensions with their own catalogs raise it
    (docs/extending.md); the MX contract raises :class:`MxContractError`."""

    def __init__(self, code: str, target: str, detail: str, cause: str, resolution: str):
        super().__init__(
            f"[{code}] {target}: {detail}\n  cause: {cause}\n  resolution: {resolution}"
        )
        self.code = code
        self.target = target
        self.detail = detail

"""Custom-call contracts: the MX error catalog, the per-target registry, and the MX
contract itself (Spec "MX-FP8 Microscaling Legalization" §4, §6)."""

from mxdsl.contract.errors import (
    CATALOG,
    ContractError,
    ErrorCode,
    ErrorInfo,
    MxContractError,
    format_error,
)
from mxdsl.contract.mx import register_mx_contracts
from mxdsl.contract.registry import (
    CustomCallSignature,
    contract_for,
    register_contract,
    registered_targets,
    verify_custom_call,
)

register_mx_contracts()

__all__ = [
    "CATALOG",
    "ContractError",
    "CustomCallSignature",
    "ErrorCode",
    "ErrorInfo",
    "MxContractError",
    "contract_for",
    "format_error",
    "register_contract",
    "registered_targets",
    "verify_custom_call",
]

"""The registry of per-target custom-call contracts.

``hlo.custom_call`` verifies itself by looking its ``call_target_name`` up here. A
contract is a function that takes a :class:`CustomCallSignature` and raises
:class:`~mxdsl.contract.errors.MxContractError` (or any ``VerifyException``) when the call
violates it. Targets with no registered contract are not checked.

An extension adds its own contracts with :func:`register_contract`, at import time of the
module that defines its dialect (which the ``xdsl.universe`` entry point loads)::

    from mxdsl.contract import register_contract

    def check_my_call(call: CustomCallSignature) -> None: ...

    register_contract("MyTarget", check_my_call)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Attribute

ContractCheck = Callable[["CustomCallSignature"], None]


@dataclass(frozen=True)
class CustomCallSignature:
    """What a contract sees of a custom call: no IR objects beyond types and literals."""

    target: str
    operand_types: tuple[Attribute, ...]
    result_type: Attribute
    backend_config: str
    api_version: int
    operand_literals: tuple[Attribute | None, ...] = ()
    """For each operand, its constant literal when an ``hlo.constant`` defines it."""


_EXACT: dict[str, ContractCheck] = {}
_PREFIX: dict[str, ContractCheck] = {}


def register_contract(target: str, check: ContractCheck, *, prefix: bool = False) -> None:
    """Register ``check`` for the target named ``target`` (or, with ``prefix``, for every
    target that starts with it and has no exact entry). Registering a name twice is an
    error, so two extensions cannot silently replace each other's contract."""
    table = _PREFIX if prefix else _EXACT
    if target in table:
        raise ValueError(f"a contract for custom-call target {target!r} is already registered")
    table[target] = check


def contract_for(target: str) -> ContractCheck | None:
    """The contract that applies to ``target``: exact name first, then longest prefix."""
    if (check := _EXACT.get(target)) is not None:
        return check
    prefixes = [p for p in _PREFIX if target.startswith(p)]
    if not prefixes:
        return None
    return _PREFIX[max(prefixes, key=len)]


def registered_targets() -> dict[str, str]:
    """Every registered name, mapped to ``"exact"`` or ``"prefix"`` (for docs and tools)."""
    return {**{t: "exact" for t in _EXACT}, **{t: "prefix" for t in _PREFIX}}


def verify_custom_call(call: CustomCallSignature) -> None:
    """Run the contract registered for ``call.target``, if any."""
    if (check := contract_for(call.target)) is not None:
        check(call)

"""The registry of per-target custom-call contracts.

``hlo.custom_call`` verifies itself by looking its ``call_target_name`` up here. A
contract is a function that takes a :class:`CustomCallSignature` and raises
:class:`~mxdsl.contract.errors.MxContractError` (or any ``VerifyException``) when the call
violates it. Targets with no registered contract are not checked.

An extension publishes its contracts on the ``mxdsl.contracts`` entry-point group, one
entry point per target name (``Prefix*`` for every target starting with ``Prefix``)::

    [project.entry-points."mxdsl.contracts"]
    MyTarget = "my_ext.contract:check_my_call"

They are found without loading any dialect: the first time a call names a target, the
entry points whose name matches it are loaded (only those) and registered. A contract
that cannot be loaded makes the calls that name its target fail verification with a
message naming the extension; programs that do not use the target are not affected.
Code can also register with :func:`register_contract` directly (tests, scripts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import cast

from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from mxdsl import extensions

ENTRY_POINT_GROUP = "mxdsl.contracts"

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
_loaded_entry_points: set[tuple[str, str]] = set()
"""``(name, value)`` of every ``mxdsl.contracts`` entry point loaded so far."""


class ContractLoadError(VerifyException):
    """The contract an entry point publishes for a target cannot be loaded (or clashes
    with another); raised where a call names that target."""


def _entry_point_matches(name: str, target: str) -> bool:
    if name.endswith("*"):
        return target.startswith(name[:-1])
    return name == target


def _load_entry_point(entry_point: EntryPoint) -> None:
    key = (entry_point.name, entry_point.value)
    if key in _loaded_entry_points:
        return
    _loaded_entry_points.add(key)
    try:
        check = entry_point.load()
    except Exception as err:
        raise ContractLoadError(
            f"the contract for custom-call target {entry_point.name!r} is unavailable: "
            f"{extensions.load_failure(entry_point, err)}"
        ) from err
    if not callable(check):
        raise ContractLoadError(
            f"{extensions.describe(entry_point)} is a {type(check).__name__}, not a "
            "contract check (a function taking a CustomCallSignature)"
        )
    prefix = entry_point.name.endswith("*")
    name = entry_point.name[:-1] if prefix else entry_point.name
    try:
        register_contract(name, cast(ContractCheck, check), prefix=prefix)
    except ValueError as err:
        raise ContractLoadError(f"{extensions.describe(entry_point)}: {err}") from None


def _load_contracts_for(target: str) -> None:
    """Load the ``mxdsl.contracts`` entry points that apply to ``target`` (once each)."""
    for entry_point in extensions.entry_points(ENTRY_POINT_GROUP):
        if _entry_point_matches(entry_point.name, target):
            _load_entry_point(entry_point)


def register_contract(target: str, check: ContractCheck, *, prefix: bool = False) -> None:
    """Register ``check`` for the target named ``target`` (or, with ``prefix``, for every
    target that starts with it and has no exact entry). Registering a name twice is an
    error, so two extensions cannot silently replace each other's contract."""
    table = _PREFIX if prefix else _EXACT
    if target in table:
        raise ValueError(f"a contract for custom-call target {target!r} is already registered")
    table[target] = check


def contract_for(target: str) -> ContractCheck | None:
    """The contract that applies to ``target``: exact name first, then longest prefix,
    among the registered contracts and those the entry points publish for ``target``.

    Raises :class:`ContractLoadError` when an entry point for ``target`` is broken."""
    _load_contracts_for(target)
    if (check := _EXACT.get(target)) is not None:
        return check
    prefixes = [p for p in _PREFIX if target.startswith(p)]
    if not prefixes:
        return None
    return _PREFIX[max(prefixes, key=len)]


def registered_targets() -> dict[str, str]:
    """Every registered name, mapped to ``"exact"`` or ``"prefix"`` (for docs and tools),
    with the names the ``mxdsl.contracts`` entry points publish (not loaded)."""
    published = {
        ep.name.removesuffix("*"): "prefix" if ep.name.endswith("*") else "exact"
        for ep in extensions.entry_points(ENTRY_POINT_GROUP)
    }
    return {**published, **{t: "exact" for t in _EXACT}, **{t: "prefix" for t in _PREFIX}}


def verify_custom_call(call: CustomCallSignature) -> None:
    """Run the contract registered for ``call.target``, if any."""
    if (check := contract_for(call.target)) is not None:
        check(call)

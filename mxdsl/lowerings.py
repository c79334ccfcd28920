"""The lowering tables, and the ``mxdsl.lowerings`` entry points that extend them.

Two passes dispatch through a table:

* ``lower-hlo-to-nisa``: an op class, or for ``hlo.custom_call`` a call target, to a
  lowering ``lower(lowering, op)`` (:mod:`mxdsl.transforms.hlo_to_nisa`);
* ``nisa-select`` (the instruction selection of ``lower-nisa-to-bir``): a nisa op class to
  a selection ``select(selection, op) -> bir op`` (:mod:`mxdsl.transforms.nisa_select`).

mxdsl's own entries are registered by the families of each pass; an installed package
adds its own through an entry point of the group ``mxdsl.lowerings`` naming a function
``register(lowerings: Lowerings) -> None`` (``docs/extending.md``). A registration for a
key mxdsl (or another extension) already registered is an error naming both, unless it
passes ``override=True``. An entry point that cannot be loaded is skipped with a warning
naming it; one whose ``register`` raises is reported as that extension's fault.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import Operation

from mxdsl import extensions

GROUP = "mxdsl.lowerings"
"""The entry-point group of extension lowerings."""

MXDSL = "mxdsl"
"""The owner of the built-in registrations."""


@dataclass(frozen=True)
class Registration:
    """One table entry: the function and who registered it."""

    function: Callable[..., Any]
    owner: str
    """``mxdsl`` or the extension (``extension 'dist' (entry point ...)``)."""
    entry_point: importlib.metadata.EntryPoint | None = None

    @property
    def is_extension(self) -> bool:
        return self.entry_point is not None

    def describe(self) -> str:
        """``mxdsl (module.function)`` or ``extension '...' (entry point ...)``."""
        name = getattr(self.function, "__qualname__", repr(self.function))
        where = f"{getattr(self.function, '__module__', '?')}.{name}"
        return f"{self.owner} ({where})"


@dataclass
class Tables:
    """Every registration, by table: ``ops`` (hlo / stablehlo op class -> lowering),
    ``custom_calls`` (call target -> lowering), ``selections`` (nisa op class ->
    instruction selection). ``conflicts``: the registrations refused, as messages, by
    table name."""

    ops: dict[type[Operation], Registration] = field(
        default_factory=dict[type[Operation], Registration]
    )
    custom_calls: dict[str, Registration] = field(default_factory=dict[str, Registration])
    selections: dict[type[Operation], Registration] = field(
        default_factory=dict[type[Operation], Registration]
    )
    conflicts: dict[str, list[str]] = field(default_factory=dict[str, list[str]])


class Lowerings:
    """What ``register`` receives: it adds entries to the tables in the name of one owner
    (mxdsl, or the extension whose entry point is being loaded)."""

    def __init__(
        self,
        tables: Tables,
        owner: str = MXDSL,
        entry_point: importlib.metadata.EntryPoint | None = None,
    ):
        self._tables = tables
        self._owner = owner
        self._entry_point = entry_point

    def op(
        self, op_type: type[Operation], lower: Callable[..., None], *, override: bool = False
    ) -> None:
        """``lower(lowering, op)`` lowers every op of ``op_type`` in lower-hlo-to-nisa."""
        self._add("ops", op_type, f"op {op_type.name}", lower, override)

    def custom_call(
        self, target: str, lower: Callable[..., None], *, override: bool = False
    ) -> None:
        """``lower(lowering, op)`` lowers ``hlo.custom_call @target`` in lower-hlo-to-nisa."""
        self._add("custom_calls", target, f"custom call target {target!r}", lower, override)

    def selection(
        self, op_type: type[Operation], select: Callable[..., Operation], *, override: bool = False
    ) -> None:
        """``select(selection, op)`` returns the bir instruction of a nisa op of
        ``op_type`` in the instruction selection of lower-nisa-to-bir."""
        what = f"nisa op {op_type.name}"
        self._add("selections", op_type, what, select, override)

    def _add(
        self,
        table_name: str,
        key: Any,
        what: str,
        function: Callable[..., Any],
        override: bool,
    ) -> None:
        table: dict[Any, Registration] = getattr(self._tables, table_name)
        new = Registration(function, self._owner, self._entry_point)
        known = table.get(key)
        if known is not None and not override:
            self._tables.conflicts.setdefault(table_name, []).append(
                f"{new.owner} registers a lowering for {what}, which {known.describe()} "
                f"already lowers; register it with override=True to replace that one, or "
                f"uninstall one of the two"
            )
            return
        table[key] = new


Registrar = Callable[[Lowerings], None]


def build_tables(
    builtin: list[Registrar],
    warn: Callable[[str], None] = extensions.warn,
) -> Tables:
    """The built-in registrations, then every ``mxdsl.lowerings`` entry point's (sorted
    by name). An entry point that cannot be loaded is skipped with a warning; an
    exception raised by an extension's ``register`` propagates (the tools attribute it)."""
    tables = Tables()
    for register in builtin:
        register(Lowerings(tables))
    for entry_point in extensions.entry_points(GROUP):
        try:
            register = entry_point.load()
        except Exception as err:
            warn(f"{extensions.load_failure(entry_point, err)}; its lowerings are unavailable")
            continue
        if not callable(register):
            warn(
                f"{extensions.describe(entry_point)} is a {type(register).__name__}, not a "
                "function register(lowerings); its lowerings are unavailable"
            )
            continue
        register(Lowerings(tables, extensions.describe(entry_point), entry_point))
    return tables


@functools.cache
def cached_tables(*builtin: Registrar) -> Tables:
    """:func:`build_tables`, once per process for the given built-in registrars."""
    return build_tables(list(builtin))


__all__ = [
    "GROUP",
    "Lowerings",
    "Registrar",
    "Registration",
    "Tables",
    "build_tables",
    "cached_tables",
]

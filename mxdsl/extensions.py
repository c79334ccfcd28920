"""Extensions: the installed packages that plug into mxdsl through entry points.

Three entry-point groups make a package an extension (docs/extending.md):

* ``xdsl.universe`` — dialects and passes (read by ``mx-opt`` and ``xdsl-opt``);
* ``mxdsl.interpreters`` — interpreter functions (read by ``mx-run``);
* ``mxdsl.contracts`` — custom-call contracts, one entry point per target name (or
  ``Prefix*`` for a family), loaded only when a call names the target.

This module gives the tools two things about them:

* **tolerance**: :func:`load_multiverse` loads every universe, skipping one that cannot
  be loaded with a warning that names it (a broken extension does not stop programs that
  do not use it);
* **attribution**: :func:`extension_at_fault` says which extension's code raised an
  exception, so the tools report a bug in an extension as that extension's (its
  distribution and entry point), not as mxdsl's.
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.universe import Universe

GROUPS = ("xdsl.universe", "mxdsl.interpreters", "mxdsl.contracts")
"""The entry-point groups an extension can publish on."""

CORE_DISTRIBUTIONS = frozenset({"mxdsl", "xdsl"})
"""Distributions whose faults are mxdsl's (or upstream xDSL's), not an extension's."""


@functools.cache
def entry_points(group: str) -> Sequence[importlib.metadata.EntryPoint]:
    """The entry points of ``group``, sorted by name; read once per process (the
    verifier of every custom call asks). Monkeypatchable in tests."""
    found = importlib.metadata.entry_points(group=group)
    return tuple(sorted(found, key=lambda ep: ep.name))


def distribution_name(entry_point: importlib.metadata.EntryPoint) -> str:
    dist = getattr(entry_point, "dist", None)
    return dist.name if dist is not None else "an unknown distribution"


def describe(entry_point: importlib.metadata.EntryPoint) -> str:
    """``extension 'dist' (entry point group:name = module:attr)``."""
    group = getattr(entry_point, "group", None)
    where = f"{group}:{entry_point.name}" if group else entry_point.name
    return (
        f"extension '{distribution_name(entry_point)}' (entry point {where} = {entry_point.value})"
    )


def warn(message: str) -> None:
    """A warning about an extension, on stderr (it does not change the exit status)."""
    print(f"warning: {message}", file=sys.stderr)


def load_failure(entry_point: importlib.metadata.EntryPoint, err: BaseException) -> str:
    return f"cannot load {describe(entry_point)}: {type(err).__name__}: {err}"


# ---------------------------------------------------------------------- universes


def load_multiverse(warn: Callable[[str], None] = warn) -> Universe:
    """Every ``xdsl.universe`` entry point merged, as ``Universe.get_multiverse`` does,
    except that an entry point that cannot be loaded (or is not a ``Universe``) is
    skipped with a warning naming it. Two universes defining one name is still an error
    (``ValueError`` naming both), as upstream."""
    loaded: list[tuple[str, Universe]] = []
    for entry_point in entry_points("xdsl.universe"):
        try:
            universe = entry_point.load()
        except Exception as err:
            warn(f"{load_failure(entry_point, err)}; its dialects and passes are unavailable")
            continue
        if not isinstance(universe, Universe):
            warn(
                f"{describe(entry_point)} is a {type(universe).__name__}, not an "
                "xdsl.universe.Universe; its dialects and passes are unavailable"
            )
            continue
        loaded.append((entry_point.name, universe))
    merged = Universe()
    for field in ("all_dialects", "all_passes", "all_targets", "all_frontends"):
        table: dict[str, object] = getattr(merged, field)
        for _, universe in loaded:
            for key, factory in getattr(universe, field).items():
                if key in table:
                    owners = [n for n, u in loaded if key in getattr(u, field)]
                    raise ValueError(f"Duplicate definition of {key} in {owners}.")
                table[key] = factory
    return merged


# -------------------------------------------------------------------- attribution


@dataclass(frozen=True)
class Culprit:
    """The extension whose code raised: its distribution and the entry point whose
    module is (the package of) the raising code."""

    distribution: str
    entry_point: importlib.metadata.EntryPoint
    module: str

    def __str__(self) -> str:
        return describe(self.entry_point)


def _extension_entry_points() -> list[importlib.metadata.EntryPoint]:
    found: list[importlib.metadata.EntryPoint] = []
    for group in GROUPS:
        found.extend(
            ep for ep in entry_points(group) if distribution_name(ep) not in CORE_DISTRIBUTIONS
        )
    return found


def _owner(module: str, candidates: list[importlib.metadata.EntryPoint]):
    """The entry point whose module shares the longest package prefix with ``module``."""
    best: importlib.metadata.EntryPoint | None = None
    best_length = 0
    parts = module.split(".")
    for entry_point in candidates:
        ep_parts = entry_point.module.split(".")
        length = 0
        for mine, theirs in zip(parts, ep_parts, strict=False):
            if mine != theirs:
                break
            length += 1
        if length > best_length:
            best, best_length = entry_point, length
    return best


def extension_at_fault(err: BaseException) -> Culprit | None:
    """The extension whose code is innermost on ``err``'s traceback, if any: the frame
    that raised, or the last extension frame before it went into a library (numpy, or
    mxdsl's own API called with bad values)."""
    candidates = _extension_entry_points()
    if not candidates:
        return None
    frames = [frame for frame, _ in traceback.walk_tb(err.__traceback__)]
    for frame in reversed(frames):
        module = frame.f_globals.get("__name__", "")
        if not isinstance(module, str):
            continue
        if (owner := _owner(module, candidates)) is not None:
            return Culprit(distribution_name(owner), owner, module)
    return None

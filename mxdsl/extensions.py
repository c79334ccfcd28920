"""Extensions: the installed packages that plug into mxdsl through entry points.

Four entry-point groups make a package an extension (docs/extending.md):

* ``xdsl.universe`` — dialects and passes (read by ``mx-opt`` and ``xdsl-opt``);
* ``mxdsl.interpreters`` — interpreter functions (read by ``mx-run``);
* ``mxdsl.contracts`` — custom-call contracts, one entry point per target name (or
  ``Prefix*`` for a family), loaded only when a call names the target;
* ``mxdsl.lowerings`` — lowerings of its ops and custom-call targets into
  ``lower-hlo-to-nisa`` and instruction selection of its nisa ops (:mod:`mxdsl.lowerings`).

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

GROUPS = ("xdsl.universe", "mxdsl.interpreters", "mxdsl.contracts", "mxdsl.lowerings")
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


def _shared_prefix(module: str, entry_point: importlib.metadata.EntryPoint) -> int:
    length = 0
    for mine, theirs in zip(module.split("."), entry_point.module.split("."), strict=False):
        if mine != theirs:
            break
        length += 1
    return length


def _owner(
    module: str,
    functions: set[str],
    candidates: list[importlib.metadata.EntryPoint],
    prefer_group: str | None,
) -> importlib.metadata.EntryPoint | None:
    """The entry point of ``module``'s package: the longest shared package prefix, then
    one whose object is a function on the traceback (a contract check, say), then one of
    ``prefer_group``."""

    def score(entry_point: importlib.metadata.EntryPoint) -> tuple[int, bool, bool]:
        named = (entry_point.attr or "").split(".")[0] in functions
        return (_shared_prefix(module, entry_point), named, entry_point.group == prefer_group)

    best = max(candidates, key=score, default=None)
    if best is None or score(best)[0] == 0:
        return None
    return best


def extension_at_fault(err: BaseException, prefer_group: str | None = None) -> Culprit | None:
    """The extension whose code is innermost on ``err``'s traceback, if any: the frame
    that raised, or the last extension frame before it went into a library (numpy, or
    mxdsl's own API called with bad values). ``prefer_group`` picks among the entry points
    of one package (``mxdsl.interpreters`` while interpreting, say)."""
    candidates = _extension_entry_points()
    if not candidates:
        return None
    frames = [frame for frame, _ in traceback.walk_tb(err.__traceback__)]
    functions = {frame.f_code.co_name for frame in frames}
    for frame in reversed(frames):
        module = frame.f_globals.get("__name__", "")
        if not isinstance(module, str):
            continue
        if (owner := _owner(module, functions, candidates, prefer_group)) is not None:
            return Culprit(distribution_name(owner), owner, module)
    return None

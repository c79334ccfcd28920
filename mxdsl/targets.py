"""The modelled NeuronCore targets: every on-chip capacity is read from here.

docs/targets.md: ``trn3`` (NeuronCore-v4, the
default and the only MX target) and ``trn2`` (NeuronCore-v3, no MX instructions). The
nisa verifiers, the kernels' footprint check and the ``lower-nisa-to-bir`` allocator all
take their figures from a :class:`Target`, selected with ``--target`` on the tools.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

KIB = 1024


@dataclass(frozen=True)
class Target:
    """One NeuronCore generation's on-chip memories, per partition."""

    name: str
    core: str
    partitions: int
    sbuf_partition_bytes: int
    psum_partition_bytes: int
    psum_bank_bytes: int
    has_mx: bool

    @property
    def psum_banks(self) -> int:
        return self.psum_partition_bytes // self.psum_bank_bytes

    @property
    def sbuf_bytes(self) -> int:
        return self.partitions * self.sbuf_partition_bytes

    @property
    def psum_bytes(self) -> int:
        return self.partitions * self.psum_partition_bytes

    def describe(self) -> str:
        """``trn3 (NeuronCore-v4): SBUF 32 MiB = 128 x 256 KiB, PSUM 2 MiB = ...``."""
        return (
            f"{self.name} ({self.core}): SBUF {_mib(self.sbuf_bytes)} = {self.partitions} x "
            f"{self.sbuf_partition_bytes // KIB} KiB, PSUM {_mib(self.psum_bytes)} = "
            f"{self.partitions} x {self.psum_partition_bytes // KIB} KiB in {self.psum_banks} "
            f"banks of {self.psum_bank_bytes // KIB} KiB"
            + ("" if self.has_mx else ", no MX instructions")
        )


def _mib(size: int) -> str:
    return f"{size / (KIB * KIB):g} MiB"


TRN3 = Target(
    name="trn3",
    core="NeuronCore-v4",
    partitions=128,
    sbuf_partition_bytes=256 * KIB,
    psum_partition_bytes=16 * KIB,
    psum_bank_bytes=2 * KIB,
    has_mx=True,
)
TRN2 = Target(
    name="trn2",
    core="NeuronCore-v3",
    partitions=128,
    sbuf_partition_bytes=224 * KIB,
    psum_partition_bytes=16 * KIB,
    psum_bank_bytes=2 * KIB,
    has_mx=False,
)

TARGETS: dict[str, Target] = {t.name: t for t in (TRN3, TRN2)}
DEFAULT_TARGET = TRN3


class UnknownTargetError(ValueError):
    """A ``--target`` name that is not modelled; the message lists the known ones."""


def get_target(name: str) -> Target:
    """The target called ``name``; :class:`UnknownTargetError` naming the choices else."""
    target = TARGETS.get(name)
    if target is None:
        raise UnknownTargetError(
            f"unknown target '{name}'; the modelled targets are {', '.join(TARGETS)}"
        )
    return target


_ACTIVE: list[Target] = [DEFAULT_TARGET]


def current_target() -> Target:
    """The target the nisa verifiers check capacities against: :data:`DEFAULT_TARGET`
    unless a tool's ``--target`` or :func:`use_target` selected another."""
    return _ACTIVE[-1]


@contextmanager
def use_target(target: Target | str) -> Iterator[Target]:
    """Make ``target`` (or the target of that name) current for the ``with`` body."""
    chosen = get_target(target) if isinstance(target, str) else target
    _ACTIVE.append(chosen)
    try:
        yield chosen
    finally:
        _ACTIVE.pop()

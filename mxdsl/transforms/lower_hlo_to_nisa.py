"""``lower-hlo-to-nisa``, under the name of its command: the pass is the package
:mod:`mxdsl.transforms.hlo_to_nisa` (a driver and one module per op family)."""

from mxdsl.transforms.hlo_to_nisa import (
    ARG_NAMES_ATTR,
    RESULT_NAMES_ATTR,
    LowerHloToNisaPass,
)

__all__ = ["ARG_NAMES_ATTR", "RESULT_NAMES_ATTR", "LowerHloToNisaPass"]

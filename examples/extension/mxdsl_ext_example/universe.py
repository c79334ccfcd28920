"""The ``xdsl.universe`` entry point: the ``ext`` dialect and the ``ext-fold-scales`` pass.

Factories import lazily, so a run that does not use them does not pay for them."""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _ext() -> Dialect:
    from mxdsl_ext_example.dialect import Ext

    return Ext


def _fold_scales() -> type[ModulePass]:
    from mxdsl_ext_example.fold_scales import FoldScalesPass

    return FoldScalesPass


EXT_UNIVERSE = Universe(all_dialects={"ext": _ext}, all_passes={"ext-fold-scales": _fold_scales})

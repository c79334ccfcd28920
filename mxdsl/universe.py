"""The one registration point: mxdsl's dialects and passes as an xDSL ``Universe``.

Exposed on the ``xdsl.universe`` entry point (see ``pyproject.toml``), so plain
``xdsl-opt`` sees them and ``mx-opt`` (which loads the multiverse through ``super()``)
needs no registration of its own. Factories import lazily to keep tool start-up fast.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def get_hlo() -> Dialect:
        from mxdsl.dialects.hlo import Hlo

        return Hlo

    def get_nisa() -> Dialect:
        from mxdsl.dialects.nisa import Nisa

        return Nisa

    def get_bir() -> Dialect:
        from mxdsl.dialects.bir import Bir

        return Bir

    def get_stablehlo() -> Dialect:
        from mxdsl.dialects.stablehlo import StableHLO

        return StableHLO

    def get_chlo() -> Dialect:
        from mxdsl.dialects.chlo import Chlo

        return Chlo

    return {
        "hlo": get_hlo,
        "nisa": get_nisa,
        "bir": get_bir,
        "stablehlo": get_stablehlo,
        "chlo": get_chlo,
    }


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    def get_legalize_quantize_mx() -> type[ModulePass]:
        from mxdsl.transforms.legalize_quantize_mx import LegalizeQuantizeMXPass

        return LegalizeQuantizeMXPass

    def get_legalize_scaled_matmul() -> type[ModulePass]:
        from mxdsl.transforms.legalize_scaled_matmul import LegalizeScaledMatmulPass

        return LegalizeScaledMatmulPass

    def get_lower_hlo_to_nisa() -> type[ModulePass]:
        from mxdsl.transforms.hlo_to_nisa import LowerHloToNisaPass

        return LowerHloToNisaPass

    def get_lower_nisa_to_bir() -> type[ModulePass]:
        from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass

        return LowerNisaToBirPass

    def get_nisa_allocate() -> type[ModulePass]:
        from mxdsl.transforms.nisa_to_bir.allocate import NisaAllocatePass

        return NisaAllocatePass

    def get_nisa_select() -> type[ModulePass]:
        from mxdsl.transforms.nisa_to_bir.select import NisaSelectPass

        return NisaSelectPass

    def get_import_stablehlo() -> type[ModulePass]:
        from mxdsl.transforms.import_stablehlo import ImportStableHloPass

        return ImportStableHloPass

    return {
        "import-stablehlo": get_import_stablehlo,
        "legalize-quantize-mx": get_legalize_quantize_mx,
        "legalize-scaled-matmul": get_legalize_scaled_matmul,
        "lower-hlo-to-nisa": get_lower_hlo_to_nisa,
        "lower-nisa-to-bir": get_lower_nisa_to_bir,
        "nisa-allocate": get_nisa_allocate,
        "nisa-select": get_nisa_select,
    }


MXDSL_UNIVERSE = Universe(all_dialects=get_all_dialects(), all_passes=get_all_passes())

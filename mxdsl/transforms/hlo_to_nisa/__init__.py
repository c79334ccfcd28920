"""``lower-hlo-to-nisa``: a legalized hlo function becomes a nisa kernel.

The package: :mod:`.driver` (the pass, the function boundary, the dispatch through the
lowering table of :mod:`mxdsl.lowerings`), :mod:`.lowering` (what a lowering sees of the
function being lowered), and one module per op family: :mod:`.quantize`,
:mod:`.matmul`, :mod:`.layout` (convert, reshape, transpose, broadcast, bitcast),
:mod:`.elementwise`, :mod:`.reduce`, :mod:`.constants`. The nisa it emits is built with
:class:`mxdsl.builder.NisaBuilder`.

The function keeps its name, arguments and results; every tensor becomes an HBM buffer
(``memref<... x T, #nisa.mem<hbm>>`` with the tensor's shape and element type), results are
HBM buffers the kernel allocates and returns. Each hlo op becomes DMAs between HBM and
on-chip tiles plus the ISA ops over 128-partition tiles, in ``scf.for`` loops over the
tiles (so the IR does not grow with the tensor sizes):

* ``QuantizeMX_*``: per tile, DMA the input so that each physical MX block (8 partitions
  x 4 free columns) holds exactly one logical 32-element block, ``nisa.quantize_mx``,
  DMA the x4 data and the E8M0 scales (read out of the quadrant layout) back to HBM in the
  HLO layout.
* ``ScaledMatmul_*``: per output tile, ``nisa.nc_matmul_mx`` accumulating over the K tiles
  in PSUM (contraction index ``k = 4 p + q``: partition p, x4 lane q), then a copy out
  (``tensor_copy`` PSUM -> SBUF in the result type, DMA to HBM).
* ``dot_general`` (bf16 / f16 / f32): the same with ``nisa.nc_matmul`` (K <= 128 per step).
* ``convert`` between bf16, f16 and f32: one HBM -> HBM DMA (it converts via f32).
* ``get_tuple_element`` and the metadata constants disappear.

Shapes that are not multiples of the tile sizes get a peeled partial tile (padded with
zeros where the ISA needs multiples of 32 partitions or an even stationary size); what
the mapping cannot express is refused with a diagnostic on the op that names the dim.
``docs/lowering.md`` describes the mapping of HLO dims onto partitions.

The packed MX data is ``ui32`` at the function boundary (the HLO type, so mx-run reads and
writes the same arrays) and ``!nisa.float8_*_x4`` inside the kernel; the boundary
reinterprets the HBM buffer with a ``memref.cast`` that changes only the element type
(both are 32-bit containers of the same bytes).

The StableHLO ops ``import-stablehlo`` keeps (JAX's FP8 packing, reshapes, transposes,
broadcasts and MXFP8 quantization) lower too, each exactly (``docs/stablehlo.md``,
"Lowering to nisa and bir"): the packing is a ``nisa.view_cast`` of the FP8 lanes as x4
words, layout ops are views or DMAs, elementwise ops, compares, selects and max
reductions run per 128-partition tile on the ISA's f32 / exact-integer ALU.
"""

from mxdsl.transforms.hlo_to_nisa.common import Refusal, Splat
from mxdsl.transforms.hlo_to_nisa.driver import (
    ARG_NAMES_ATTR,
    RESULT_NAMES_ATTR,
    LowerHloToNisaPass,
    lowering_tables,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering

__all__ = [
    "ARG_NAMES_ATTR",
    "RESULT_NAMES_ATTR",
    "FunctionLowering",
    "LowerHloToNisaPass",
    "Refusal",
    "Splat",
    "lowering_tables",
]

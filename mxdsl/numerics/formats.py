"""MX element formats and the E8M0 block scale.

Spec "MX Microscaling: Quantize, Block-Scaling and E8M0", "The EMAX Table" (per-format emax 2 / 8
/ 15) and
"Round-to-Grid: FP4 and FP8" (the e2m1 grid, the e4m3fn 448 / e5m2 57344 maxima);
"MX-FP8 Microscaling Legalization" §4.1 (only ``float8_e5m2`` / ``float8_e4m3fn`` at the HLO
level, one E8M0 = ``float8_e8m0fnu`` scale per 32 elements).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np

MX_BLOCK_SIZE = 32
"""Elements per MX block (8 partitions x 4 columns, or 32 along the HLO quantized dim)."""

X4_PACK = 4
"""Narrow elements per x4 container (one ui32 for FP8, one 16-bit word for FP4)."""

E8M0_DTYPE = np.dtype(ml_dtypes.float8_e8m0fnu)
E8M0_BIAS = 127
"""An E8M0 byte ``s`` stands for ``2**(s - 127)``."""
E8M0_NAN = 0xFF
"""The one NaN code of ``float8_e8m0fnu``; the quantizer never emits it."""


@dataclass(frozen=True)
class FormatInfo:
    """Everything the numerics need to know about one narrow element format."""

    spec_name: str
    dtype: np.dtype
    emax: int
    """Unbiased exponent of the largest normal (the EMAX table)."""
    max_finite: float
    bits: int
    exponent_bits: int
    mantissa_bits: int
    bias: int
    max_code: int
    """Magnitude code of ``max_finite`` (the saturation target)."""
    nan_code: int | None
    """Magnitude code written for a NaN input; None when the format has no NaN (e2m1)."""
    first_special_code: int | None
    """Smallest magnitude code that is Inf or NaN; None when every code is finite."""


class MxFormat(enum.Enum):
    """The three MX element formats. NaN codes follow ml_dtypes' canonical quiet NaN
    (``0x7F`` for e4m3fn, ``0x7E`` for e5m2) with the input's sign; see ``docs/numerics.md``."""

    E4M3FN = FormatInfo(
        "float8_e4m3fn", np.dtype(ml_dtypes.float8_e4m3fn), 8, 448.0, 8, 4, 3, 7, 0x7E, 0x7F, 0x7F
    )
    E5M2 = FormatInfo(
        "float8_e5m2", np.dtype(ml_dtypes.float8_e5m2), 15, 57344.0, 8, 5, 2, 15, 0x7B, 0x7E, 0x7C
    )
    E2M1 = FormatInfo(
        "float4_e2m1fn", np.dtype(ml_dtypes.float4_e2m1fn), 2, 6.0, 4, 2, 1, 1, 0x7, None, None
    )

    @property
    def info(self) -> FormatInfo:
        return self.value

    @property
    def spec_name(self) -> str:
        return self.value.spec_name

    @property
    def dtype(self) -> np.dtype:
        """The ml_dtypes element type (one element per byte, FP4 in the low nibble)."""
        return self.value.dtype

    @property
    def emax(self) -> int:
        return self.value.emax

    @property
    def max_finite(self) -> float:
        return self.value.max_finite

    @property
    def bits(self) -> int:
        return self.value.bits

    @property
    def is_fp8(self) -> bool:
        return self.value.bits == 8

    @classmethod
    def from_name(cls, name: str) -> MxFormat:
        """The format named by an HLO backend_config ``dtype`` / ``element_dtype``.

        Only ``float8_e4m3fn`` and ``float8_e5m2`` exist at the HLO level
        ("MX-FP8 Microscaling Legalization" §4.1); anything else raises ValueError."""
        for fmt in (cls.E4M3FN, cls.E5M2):
            if fmt.spec_name == name:
                return fmt
        raise ValueError(
            f"unsupported MX element dtype {name!r}: only 'float8_e5m2' and "
            "'float8_e4m3fn' are supported at the HLO level"
        )

    @classmethod
    def from_spec_name(cls, name: str) -> MxFormat:
        """Any of the three formats by its spec name (``float4_e2m1fn`` included)."""
        for fmt in cls:
            if fmt.spec_name == name:
                return fmt
        known = ", ".join(repr(fmt.spec_name) for fmt in cls)
        raise ValueError(f"unknown MX element format {name!r}; known formats: {known}")


def as_format(fmt: MxFormat | str) -> MxFormat:
    """Accept a format or its spec name."""
    if isinstance(fmt, MxFormat):
        return fmt
    return MxFormat.from_spec_name(fmt)


def emax_bias(fmt: MxFormat, *, alternative_emax: bool = False) -> int:
    """The bias subtracted from the block's max exponent byte ("Algorithm — doQuantizeMx
    (EMAX pick)"): ``emax``, or ``emax - 1`` when MxAlternativeEmaxEn is set."""
    return fmt.emax - 1 if alternative_emax else fmt.emax

"""One semantics at three levels: the same program run as hlo, after lower-hlo-to-nisa and
after lower-nisa-to-bir gives bit-identical outputs.

Each case builds an hlo function with the generators of
``test/transforms/test_lower_hlo_to_nisa.py`` (frontend QuantizeMX / __op$block_scaled_dot
/ dot_general), legalizes it and runs it with the hlo interpreter, the nisa interpreter
after lower-hlo-to-nisa and the bir interpreter (the simulator twin: byte-addressed SBUF /
PSUM) after lower-nisa-to-bir, on the same inputs, and compares every result byte for
byte. The sweep: quantize along each allowed dim (-1, -2, and 0 / 1 spelled positively),
both FP8 formats, bf16 and f16 inputs, f32 and bf16 matmul outputs, batch dims, K-major
and K-minor operands, sizes with and without partial tiles."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import exact_reference as exact
import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mxdsl.interpreters import make_interpreter
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass
from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass


def _load_generators() -> ModuleType:
    """The program generators of the lower-hlo-to-nisa tests, under a private name (so
    pytest does not collect their tests twice)."""
    path = Path(__file__).parent / "transforms" / "test_lower_hlo_to_nisa.py"
    spec = importlib.util.spec_from_file_location("_hlo_to_nisa_programs", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generators()
RNG = np.random.default_rng(5)


def normal(shape: tuple[int, ...], element: str) -> np.ndarray:
    spread = np.exp2(RNG.integers(-6, 7, size=shape))
    return (RNG.standard_normal(shape) * spread).astype(gen.DTYPES[element])


def _flat(values: object) -> list[np.ndarray]:
    """Results with tuples flattened depth first (the order of lower-hlo-to-nisa)."""
    if isinstance(values, tuple | list):
        return [leaf for v in values for leaf in _flat(v)]  # pyright: ignore[reportUnknownVariableType]
    return [np.asarray(values)]


def run(module: ModuleOp, inputs: list[object]) -> tuple[np.ndarray, ...]:
    interpreter = make_interpreter(module, _context())
    copied = tuple(_copy(a) for a in inputs)
    return tuple(_flat(interpreter.call_op("main", copied)))


def _copy(value: object) -> object:
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)  # pyright: ignore[reportUnknownVariableType]
    assert isinstance(value, np.ndarray)
    return value.copy()


def three_levels(src: str, inputs: list[object], **options: int) -> tuple[np.ndarray, ...]:
    """Run hlo, nisa and bir; assert bit-identical results; return the hlo results
    (tuples flattened). A tuple input is passed as a tuple to the hlo function and as its
    elements to the kernels."""
    module, ctx = gen.legalized(src)
    expected = run(module, inputs)
    LowerHloToNisaPass(**options).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    module.verify()
    inputs = list(_flat(inputs))
    nisa_results = run(module, inputs)
    signature = next(o for o in module.walk() if isinstance(o, func.FuncOp)).function_type
    LowerNisaToBirPass().apply(ctx, module)
    module.verify()
    text = str(module)
    assert "nisa.dma_copy" not in text
    assert "#nisa.mem<sbuf>" not in text
    assert "#nisa.mem<psum>" not in text
    assert "memref.subview" not in text
    main = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    assert main.function_type == signature
    bir_results = run(module, inputs)
    for level, got in (("nisa", nisa_results), ("bir", bir_results)):
        assert len(got) == len(expected)
        for index, (a, b) in enumerate(zip(expected, got, strict=True)):
            assert a.dtype == b.dtype, f"{level} result {index}: {a.dtype} vs {b.dtype}"
            assert a.shape == b.shape, f"{level} result {index}: {a.shape} vs {b.shape}"
            if a.tobytes() != b.tobytes():
                bad = np.argwhere(a.view(np.uint8) != b.view(np.uint8))
                pytest.fail(f"{level} result {index} differs at {len(bad)} bytes: {bad[:5]}")
    return expected


# ---------------------------------------------------------------------- quantize

QUANTIZE_CASES = [
    # (shape, dim, options): full tiles; partial row tiles (< 4 groups: padded to 32
    # partitions); partial free tiles; leading batch dims; positive dims
    ((32, 64), -1, {}),
    ((20, 96), -1, {}),
    ((37, 7 * 32), -1, {"quantize_free_tile": 3}),
    ((2, 3, 18, 64), -1, {"quantize_free_tile": 2}),
    ((64, 24), -2, {}),
    ((17 * 32, 11), -2, {"quantize_free_tile": 4}),
    ((3, 64, 9), -2, {"quantize_free_tile": 5}),
    ((32, 32), 0, {}),
    ((40, 64), 1, {}),
    ((128,), -1, {}),
]


@pytest.mark.parametrize(("fmt", "element"), [("float8_e4m3fn", "bf16"), ("float8_e5m2", "f16")])
@pytest.mark.parametrize(("shape", "dim", "options"), QUANTIZE_CASES)
def test_quantize(
    shape: tuple[int, ...], dim: int, options: dict[str, int], fmt: str, element: str
):
    x = normal(shape, element)
    if x.size >= 64:  # a zero block, Inf, NaN, a denormal
        flat = x.reshape(-1)
        flat[:32] = 0
        flat[40] = np.inf
        flat[45] = -np.nan
        flat[50] = gen.DTYPES[element](2.0**-20)
    three_levels(gen.quantize_program(shape, element, fmt, dim), [x], **options)


@pytest.mark.parametrize(("fmt", "element"), [("float8_e5m2", "bf16"), ("float8_e4m3fn", "f16")])
def test_quantize_other_pairings(fmt: str, element: str):
    """The two format x input pairings the main sweep leaves out, on both dims."""
    for shape, dim in (((20, 96), -1), ((96, 40), -2)):
        three_levels(gen.quantize_program(shape, element, fmt, dim), [normal(shape, element)])


def tuple_quantize_program(
    shapes: tuple[tuple[int, ...], tuple[int, ...]], element: str, fmt: str, dim: int
) -> str:
    """QuantizeMX as a frontend emits it: two inputs passed as one tuple argument, each
    QuantizeMX result returned as its ``tuple<data, scales>`` (no get_tuple_element)."""
    arg = f"tuple<{gen.tensor(shapes[0], element)}, {gen.tensor(shapes[1], element)}>"
    lines, results = [], []
    for i, shape in enumerate(shapes):
        x = gen.tensor(shape, element)
        lines.append(f"  %x{i} = hlo.get_tuple_element %t[{i}] : ({arg}) -> {x}\n")
        text, data, scale = gen.quantize_call(f"q{i}", f"x{i}", shape, element, fmt, dim)
        lines.append(text.split("\n  %q")[0] + "\n")  # the custom call only
        results.append(f"tuple<{data}, {scale}>")
    return (
        f"func.func @main(%t: {arg}) -> ({', '.join(results)}) {{\n{''.join(lines)}"
        f"  func.return %q0, %q1 : {', '.join(results)}\n}}\n"
    )


FP8 = {
    "float8_e4m3fn": (gen.ml_dtypes.float8_e4m3fn, 8, 448.0),
    "float8_e5m2": (gen.ml_dtypes.float8_e5m2, 15, 57344.0),
}
"""format -> (ml_dtypes type, EMAX, max finite)."""


def numpy_quantize(x: np.ndarray, fmt: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """QuantizeMX in plain numpy + ml_dtypes, from the spec's steps (mx-quantize-numerics:
    max exponent byte of 32-element blocks, E8M0 = max(1, max(0, maxExp - EMAX)), multiply
    by 2^(127 - E8M0), saturating RNE narrow) and the HLO packing (4 codes per ui32 along
    the quantized dim, lane 0 in the low byte)."""
    dtype, emax, largest = FP8[fmt]
    v = np.moveaxis(x.astype(np.float32), dim, -1)
    blocks = v.reshape(*v.shape[:-1], -1, 32)
    exponents = (blocks.view(np.uint32) >> 23) & 0xFF
    scale = np.maximum(1, exponents.max(axis=-1).astype(np.int64) - emax).astype(np.uint8)
    factor = np.exp2(127.0 - scale.astype(np.float64))[..., None]
    scaled = np.clip(blocks.astype(np.float64) * factor, -largest, largest)
    codes = scaled.astype(np.float32).astype(dtype).view(np.uint8).reshape(v.shape)
    words = codes.reshape(*v.shape[:-1], -1, 4).copy().view("<u4")[..., 0]
    return np.moveaxis(words, -1, dim), np.moveaxis(scale, -1, dim)


TUPLE_CASES = [
    # (two input shapes, dim): each allowed dim, one shape with partial tiles
    (((32, 64), (20, 96)), -1),
    (((64, 24), (96, 40)), -2),
    (((32, 32), (64, 8)), 0),
    (((40, 64), (3, 32)), 1),
]


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("element", ["bf16", "f16"])
@pytest.mark.parametrize(("shapes", "dim"), TUPLE_CASES)
def test_tuple_quantize(
    shapes: tuple[tuple[int, ...], tuple[int, ...]], dim: int, fmt: str, element: str
):
    """Tuple in, tuples out at the hlo level; the kernels take and return the elements
    (arg0.0, arg0.1 -> result0.0, result0.1, result1.0, result1.1), bit-identical. The
    hlo results are also checked against the plain-numpy reference of the spec."""
    xs = (normal(shapes[0], element), normal(shapes[1], element))
    results = three_levels(tuple_quantize_program(shapes, element, fmt, dim), [xs])
    assert len(results) == 4
    for x, (data, scale) in zip(xs, (results[:2], results[2:]), strict=True):
        ref_data, ref_scale = numpy_quantize(x, fmt, dim)
        assert data.tobytes() == ref_data.tobytes()
        assert scale.tobytes() == ref_scale.tobytes()


# ------------------------------------------------------------------- MX matmul

MX_CASES = [
    # (lhs, rhs, lhs (batch, contract), rhs (batch, contract), out shape, options)
    ((128, 256), (256, 64), ([], 1), ([], 0), (128, 64), {}),  # the README example
    ((8, 640), (640, 16), ([], 1), ([], 0), (8, 16), {}),  # a full and a partial K tile
    ((35, 96), (96, 20), ([], 1), ([], 0), (35, 20), {}),  # K padded, odd M padded
    ((160, 22), (13, 160), ([], 0), ([], 1), (22, 13), {"matmul_m_tile": 8, "matmul_n_tile": 5}),
    ((3, 6, 544), (3, 544, 10), ([0], 2), ([0], 1), (3, 6, 10), {}),  # batch, K = 16 + 1 rows
    ((6, 2, 64), (2, 64, 4), ([1], 2), ([0], 1), (2, 6, 4), {"matmul_m_tile": 4}),
]


@pytest.mark.parametrize(
    ("fmt", "element", "out"),
    [("float8_e4m3fn", "bf16", "f32"), ("float8_e5m2", "f16", "bf16")],
)
@pytest.mark.parametrize(("lhs", "rhs", "lhs_dims", "rhs_dims", "out_shape", "options"), MX_CASES)
def test_scaled_matmul(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    lhs_dims: tuple[list[int], int],
    rhs_dims: tuple[list[int], int],
    out_shape: tuple[int, ...],
    options: dict[str, int],
    fmt: str,
    element: str,
    out: str,
):
    src = gen.mx_matmul_program(lhs, rhs, lhs_dims, rhs_dims, element, fmt, out, out_shape)
    y, _ = three_levels(src, [normal(lhs, element), normal(rhs, element)], **options)
    assert np.isfinite(y.astype(np.float32)).all()


@pytest.mark.parametrize(("fmt", "out"), [("float8_e4m3fn", "bf16"), ("float8_e5m2", "f32")])
def test_scaled_matmul_other_pairings(fmt: str, out: str):
    """e4m3fn with a bf16 output and e5m2 with an f32 one (bf16 inputs), K = 640."""
    src = gen.mx_matmul_program((8, 640), (640, 16), ([], 1), ([], 0), "bf16", fmt, out, (8, 16))
    three_levels(src, [normal((8, 640), "bf16"), normal((640, 16), "bf16")])


# ------------------------------------------------------------------ dot_general

DOT_CASES = [
    ((64, 96), (96, 48), ([], []), (1, 0), (64, 48), {}),
    ((200, 300), (300, 130), ([], []), (1, 0), (200, 130), {"matmul_n_tile": 64}),
    ((300, 20), (7, 300), ([], []), (0, 1), (20, 7), {}),
    ((3, 2, 40, 24), (40, 2, 3, 9), ([0, 1], [2, 1]), (2, 0), (3, 2, 24, 9), {}),
]


@pytest.mark.parametrize("types", [("bf16", "bf16", "f32"), ("f32", "f32", "bf16")])
@pytest.mark.parametrize(("lhs", "rhs", "batch", "contract", "out_shape", "options"), DOT_CASES)
def test_dot_general(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    batch: tuple[list[int], list[int]],
    contract: tuple[int, int],
    out_shape: tuple[int, ...],
    options: dict[str, int],
    types: tuple[str, str, str],
):
    src = gen.dot_program(lhs, rhs, batch, contract, types, out_shape)
    three_levels(src, [normal(lhs, types[0]), normal(rhs, types[1])], **options)


def test_convert_and_chained_ops():
    """A bf16 dot converted to f32 (an HBM -> HBM DMA) feeding an f32 dot."""
    src = (
        "func.func @main(%a: tensor<16x40xbf16>, %b: tensor<40x24xbf16>, %c: tensor<24x8xf32>)"
        " -> (tensor<16x8xf32>, tensor<16x24xbf16>) {\n"
        "  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
        "(tensor<16x40xbf16>, tensor<40x24xbf16>) -> tensor<16x24xbf16>\n"
        "  %f = hlo.convert %y : (tensor<16x24xbf16>) -> tensor<16x24xf32>\n"
        "  %z = hlo.dot_general %f, %c, contracting_dims = [1] x [0] : "
        "(tensor<16x24xf32>, tensor<24x8xf32>) -> tensor<16x8xf32>\n"
        "  func.return %z, %y : tensor<16x8xf32>, tensor<16x24xbf16>\n}\n"
    )
    inputs = [normal((16, 40), "bf16"), normal((40, 24), "bf16"), normal((24, 8), "f32")]
    three_levels(src, inputs)


def packed_block_scaled_dot(b: int, m: int, n: int, k: int, out_type: str) -> str:
    """``__op$block_scaled_dot`` of ui32 x4 words ``[b, m, k/4]`` and ``[b, n, k/4]`` with
    their E8M0 scales (e4m3fn, batch dim 0, K-minor operands) into ``[b, m, n]``."""
    config = json.dumps(
        {
            "scaled_dot_backend_config": {
                "lhs_batch_dimensions": [0],
                "rhs_batch_dimensions": [0],
                "lhs_contracting_dimensions": [2],
                "rhs_contracting_dimensions": [2],
                "element_dtype": "float8_e4m3fn",
            }
        }
    ).replace('"', "\\22")
    lhs, rhs = gen.tensor((b, m, k // 4), "ui32"), gen.tensor((b, n, k // 4), "ui32")
    ls, rs = gen.tensor((b, m, k // 32), "f8E8M0FNU"), gen.tensor((b, n, k // 32), "f8E8M0FNU")
    out = gen.tensor((b, m, n), out_type)
    return (
        f"func.func @main(%l: {lhs}, %r: {rhs}, %ls: {ls}, %rs: {rs}) -> {out} {{\n"
        f"  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) "
        f'{{backend_config = "{config}", api_version = 1 : i32}} : ({lhs}, {rhs}, {ls}, {rs})'
        f" -> {out}\n  func.return %y : {out}\n}}\n"
    )


def test_packed_arguments():
    """ScaledMatmul straight from ui32 / E8M0 arguments: the boundary casts to x4 fold
    into the patterns' dtype codes; both operands K-minor, a batch dim, a padded K tile."""
    b, m, n, k = 2, 10, 7, 1056
    src = packed_block_scaled_dot(b, m, n, k, "bf16")
    scales = [
        RNG.integers(120, 135, size=s, dtype=np.uint8).view(gen.ml_dtypes.float8_e8m0fnu)
        for s in ((b, m, k // 32), (b, n, k // 32))
    ]
    words = [
        gen.finite_fp8_words((b, m, k // 4), "float8_e4m3fn"),
        gen.finite_fp8_words((b, n, k // 4), "float8_e4m3fn"),
    ]
    three_levels(src, [*words, *scales], matmul_m_tile=4)


# ------------------------------------------------------------ adversarial passes


def spread(shape: tuple[int, ...], element: str, low: int, high: int) -> np.ndarray:
    scale = np.exp2(RNG.integers(low, high, size=shape)).astype(np.float32)
    return (RNG.standard_normal(shape).astype(np.float32) * scale).astype(gen.DTYPES[element])


def cancelling(lhs: np.ndarray, rhs: np.ndarray, big: float) -> tuple[np.ndarray, np.ndarray]:
    """``lhs [M, K]`` gets +big at k = 0 and -big at k = K - 1, and ``rhs [K, N]`` the same
    row at both: the two large products cancel exactly, and a float64 sum that meets one
    of them before the small products loses those (a + b - a)."""
    lhs, rhs = lhs.copy(), rhs.copy()
    lhs[:, 0] = big
    lhs[:, -1] = -big
    rhs[-1] = rhs[0]
    return lhs, rhs


def constant(shape: tuple[int, ...], element: str, value: float) -> np.ndarray:
    return np.full(shape, value, dtype=np.float32).astype(gen.DTYPES[element])


ADVERSARIAL_DOTS = [
    # (name, lhs [M, K], rhs [K, N], types): every level against exact sums
    ("bf16 4x128x4, 80 binades, a+b-a", lambda: cancelling(
        spread((4, 128), "bf16", -30, 30), spread((128, 4), "bf16", -30, 30), 2.0**100),
     ("bf16", "bf16", "f32")),
    ("bf16 16x128x1 mixed magnitudes", lambda: (
        spread((16, 128), "bf16", -30, 30), spread((128, 1), "bf16", -30, 30)),
     ("bf16", "bf16", "f32")),
    ("f32 operands, 3 passes, 120 binades", lambda: cancelling(
        spread((8, 384), "f32", -40, 40), spread((384, 6), "f32", -40, 40), 2.0**80),
     ("f32", "f32", "f32")),
    ("f32 normal data", lambda: (spread((8, 256), "f32", -1, 1), spread((256, 5), "f32", -1, 1)),
     ("f32", "f32", "f32")),
    ("two -0 passes", lambda: (
        constant((3, 256), "bf16", 2.0**-80), constant((256, 2), "bf16", -(2.0**-80))),
     ("bf16", "bf16", "f32")),
    ("subnormal sums", lambda: (
        spread((4, 128), "bf16", -75, -68), spread((128, 3), "bf16", -75, -68)),
     ("bf16", "bf16", "f32")),
    ("bf16 result of cancelling sums", lambda: cancelling(
        spread((5, 256), "bf16", -20, 20), spread((256, 4), "bf16", -20, 20), 2.0**90),
     ("bf16", "bf16", "bf16")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "make", "types"), ADVERSARIAL_DOTS, ids=[c[0] for c in ADVERSARIAL_DOTS]
)
def test_adversarial_dot_general_is_exact_at_every_level(name: str, make, types):
    """hlo, nisa and bir give the exact pass sums (fractions), added in fp32 in K order,
    the first pass initialising: wide spread, cancellation, -0 and subnormal sums, f32
    operands (issue 15's sweep)."""
    lhs, rhs = make()
    src = gen.dot_program(
        lhs.shape, rhs.shape, ([], []), (1, 0), types, (lhs.shape[0], rhs.shape[1])
    )
    (result,) = three_levels(src, [lhs, rhs])
    expected = exact.k_tiled(lhs.astype(np.float64), rhs.astype(np.float64), 128)
    expected = expected.astype(gen.DTYPES[types[2]])
    np.testing.assert_array_equal(result.view(np.uint8), expected.view(np.uint8), err_msg=name)


def test_adversarial_dot_general_with_infinities_gives_canonical_nan():
    """Overflowing passes of opposite sign meet in PSUM (inf + -inf), and an inf meets a
    zero in one pass (0 x inf): the canonical quiet NaN 0x7FC00000 at every level."""
    lhs = constant((2, 256), "bf16", 2.0**64)
    rhs = constant((256, 3), "bf16", 2.0**64)
    rhs[128:] = -rhs[128:]  # the first pass overflows to +inf, the second to -inf
    lhs[1, 5] = np.inf
    rhs[5, 2] = 0.0
    src = gen.dot_program(lhs.shape, rhs.shape, ([], []), (1, 0), ("bf16", "bf16", "f32"), (2, 3))
    (result,) = three_levels(src, [lhs, rhs])
    assert (result.view(np.uint32) == 0x7FC0_0000).all(), result


def test_adversarial_block_scaled_dot_is_exact_at_every_level():
    """``__op$block_scaled_dot`` from packed words: e4m3 codes under E8M0 scales 2**20
    apart; in the first pass a block of scale 2**-20 comes first and two blocks of scale
    2**20 that cancel follow (a float64 sum in K order loses the small ones); K = 1024 is
    two MX passes. The reference decodes the words with ml_dtypes and sums exactly."""
    b, m, n, k = 1, 6, 5, 1024
    src = packed_block_scaled_dot(b, m, n, k, "f32")
    e4m3 = gen.ml_dtypes.float8_e4m3fn
    lhs_codes = RNG.standard_normal((b, m, k)).astype(e4m3)
    rhs_codes = RNG.standard_normal((b, n, k)).astype(e4m3)
    lhs_codes[..., 64:96] = -lhs_codes[..., 32:64]  # block 2 cancels block 1 ...
    rhs_codes[..., 64:96] = rhs_codes[..., 32:64]
    lhs_scale = np.full((b, m, k // 32), 107, np.uint8)  # 2**-20 everywhere ...
    rhs_scale = RNG.choice(np.array([106, 107, 108], np.uint8), size=(b, n, k // 32))
    lhs_scale[..., 1:3] = 147  # ... but blocks 1 and 2: 2**20, 2**80 above the products
    rhs_scale[..., 1:3] = 147  # of block 0, which a float64 sum in K order loses

    def words(codes: np.ndarray) -> np.ndarray:
        return codes.view(np.uint8).view("<u4").astype(np.uint32)

    def values(codes: np.ndarray, scale: np.ndarray) -> np.ndarray:
        factor = np.exp2(scale.astype(np.float64) - 127).repeat(32, axis=-1)
        return codes.astype(np.float64) * factor

    e8m0 = gen.ml_dtypes.float8_e8m0fnu
    inputs = [words(lhs_codes), words(rhs_codes), lhs_scale.view(e8m0), rhs_scale.view(e8m0)]
    (result,) = three_levels(src, inputs, matmul_m_tile=4)
    lhs_values, rhs_values = values(lhs_codes, lhs_scale)[0], values(rhs_codes, rhs_scale)[0]
    expected = exact.k_tiled(lhs_values, rhs_values.T, 512)
    np.testing.assert_array_equal(result[0].view(np.uint32), expected.view(np.uint32))

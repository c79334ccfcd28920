"""lower-hlo-to-nisa: the lowered kernel gives bit-identical results to the hlo function.

Every case builds an hlo function (frontend QuantizeMX / __op$block_scaled_dot /
dot_general), legalizes it, runs it with the hlo interpreter, lowers a copy with
``lower-hlo-to-nisa`` and runs that with the nisa interpreter on the same inputs, then
compares every result byte for byte (and dtype and shape). The sweep covers: quantize
along each allowed dim (-1, -2), both FP8 formats, bf16 and f16 inputs, f32 and bf16
matmul outputs, batch dims, K-major and K-minor operands, and sizes with and without
partial tiles (small tile options make several full tiles plus a partial one cheap)."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mxdsl.interpreters import make_interpreter
from mxdsl.tools import mx_opt, mx_run
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.legalize_quantize_mx import LegalizeQuantizeMXPass
from mxdsl.transforms.legalize_scaled_matmul import LegalizeScaledMatmulPass
from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DTYPES = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}


# ---------------------------------------------------------------- program text


def tensor(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{''.join(f'{s}x' for s in shape)}{element}>"


def with_dim(shape: tuple[int, ...], dim: int, size: int) -> tuple[int, ...]:
    return tuple(size if d == dim else s for d, s in enumerate(shape))


def quantize_call(name: str, x: str, shape: tuple[int, ...], element: str, fmt: str, dim: int):
    """``%name = QuantizeMX(%x)`` + its two get_tuple_elements; returns (text, data type,
    scale type)."""
    axis = dim + len(shape) if dim < 0 else dim
    data = tensor(with_dim(shape, axis, shape[axis] // 4), "ui32")
    scale = tensor(with_dim(shape, axis, shape[axis] // 32), "f8E8M0FNU")
    config = json.dumps(
        {"dtype": fmt, "dim": dim, "block_size": 32, "scale_method": "EMAX"}
    ).replace('"', "\\22")
    tup = f"tuple<{data}, {scale}>"
    text = (
        f'  %{name} = hlo.custom_call @QuantizeMX(%{x}) {{backend_config = "{config}", '
        f"api_version = 1 : i32}} : ({tensor(shape, element)}) -> {tup}\n"
        f"  %{name}_d = hlo.get_tuple_element %{name}[0] : ({tup}) -> {data}\n"
        f"  %{name}_s = hlo.get_tuple_element %{name}[1] : ({tup}) -> {scale}\n"
    )
    return text, data, scale


def quantize_program(shape: tuple[int, ...], element: str, fmt: str, dim: int) -> str:
    text, data, scale = quantize_call("q", "x", shape, element, fmt, dim)
    return (
        f"func.func @main(%x: {tensor(shape, element)}) -> ({data}, {scale}) {{\n{text}"
        f"  func.return %q_d, %q_s : {data}, {scale}\n}}\n"
    )


def mx_matmul_program(
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    lhs_dims: tuple[list[int], int],
    rhs_dims: tuple[list[int], int],
    element: str,
    fmt: str,
    out: str,
    out_shape: tuple[int, ...],
) -> str:
    """Quantize both bf16/f16 operands along their contracting dim and multiply them with
    ``__op$block_scaled_dot``; returns the product and the lhs's quantized data."""
    (lhs_batch, lhs_c), (rhs_batch, rhs_c) = lhs_dims, rhs_dims
    lq, ld, ls = quantize_call("a", "x", lhs_shape, element, fmt, lhs_c)
    rq, rd, rs = quantize_call("b", "w", rhs_shape, element, fmt, rhs_c)
    config = json.dumps(
        {
            "scaled_dot_backend_config": {
                "lhs_batch_dimensions": lhs_batch,
                "rhs_batch_dimensions": rhs_batch,
                "lhs_contracting_dimensions": [lhs_c],
                "rhs_contracting_dimensions": [rhs_c],
                "element_dtype": fmt,
            }
        }
    ).replace('"', "\\22")
    result = tensor(out_shape, out)
    return (
        f"func.func @main(%x: {tensor(lhs_shape, element)}, %w: {tensor(rhs_shape, element)})"
        f" -> ({result}, {ld}) {{\n{lq}{rq}"
        f"  %y = hlo.custom_call @__op$block_scaled_dot(%a_d, %b_d, %a_s, %b_s) "
        f'{{backend_config = "{config}", api_version = 1 : i32}} : ({ld}, {rd}, {ls}, {rs})'
        f" -> {result}\n"
        f"  func.return %y, %a_d : {result}, {ld}\n}}\n"
    )


def dot_program(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    batch: tuple[list[int], list[int]],
    contract: tuple[int, int],
    types: tuple[str, str, str],
    out_shape: tuple[int, ...],
) -> str:
    dims = ""
    if batch[0]:
        dims += f", batching_dims = {batch[0]} x {batch[1]}"
    dims += f", contracting_dims = [{contract[0]}] x [{contract[1]}]"
    lt, rt, ot = (tensor(s, t) for s, t in zip((lhs, rhs, out_shape), types, strict=True))
    return (
        f"func.func @main(%a: {lt}, %b: {rt}) -> {ot} {{\n"
        f"  %y = hlo.dot_general %a, %b{dims} : ({lt}, {rt}) -> {ot}\n"
        f"  func.return %y : {ot}\n}}\n"
    )


# -------------------------------------------------------------------- running


def legalized(src: str) -> tuple[ModuleOp, object]:
    ctx = _context()
    module, _ = parse_located(ctx, src, "test.mlir")
    module.verify()
    LegalizeQuantizeMXPass().apply(ctx, module)
    LegalizeScaledMatmulPass().apply(ctx, module)
    module.verify()
    return module, ctx


def lowered(src: str, **options: int) -> ModuleOp:
    module, ctx = legalized(src)
    LowerHloToNisaPass(**options).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    module.verify()
    return module


def run(module: ModuleOp, inputs: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    interpreter = make_interpreter(module, _context())
    results = interpreter.call_op("main", tuple(a.copy() for a in inputs))
    return tuple(np.asarray(r) for r in results)


def check_levels(src: str, inputs: list[np.ndarray], **options: int) -> tuple[np.ndarray, ...]:
    """Run the legalized hlo and the lowered nisa; assert bit-identical results."""
    module, _ = legalized(src)
    expected = run(module, inputs)
    kernel = lowered(src, **options)
    main = next(o for o in kernel.walk() if isinstance(o, func.FuncOp))
    assert "hlo." not in str(kernel)
    assert all("#nisa.mem<hbm>" in str(t) for t in main.function_type.inputs.data)
    got = run(kernel, inputs)
    assert len(got) == len(expected)
    for index, (a, b) in enumerate(zip(expected, got, strict=True)):
        assert a.dtype == b.dtype, f"result {index}: {a.dtype} vs {b.dtype}"
        assert a.shape == b.shape, f"result {index}: {a.shape} vs {b.shape}"
        if a.tobytes() != b.tobytes():
            bad = np.argwhere(a.view(np.uint8) != b.view(np.uint8))
            pytest.fail(f"result {index} differs at {len(bad)} bytes, first {bad[:5].tolist()}")
    return expected


RNG = np.random.default_rng(20261129)


def normal(shape: tuple[int, ...], element: str, scale: float = 1.0) -> np.ndarray:
    """Normal values with a spread of magnitudes (so blocks get different scales)."""
    spread = np.exp2(RNG.integers(-6, 7, size=shape))
    return (RNG.standard_normal(shape) * spread * scale).astype(DTYPES[element])


# ---------------------------------------------------------------------- quantize

QUANTIZE_CASES = [
    # (shape, dim, options): full tiles, partial rows (incl. < 4 groups: padded to 32
    # partitions), partial free tiles, leading batch dims
    ((32, 64), -1, {}),
    ((20, 96), -1, {}),
    ((5, 32), -1, {}),
    ((37, 7 * 32), -1, {"quantize_free_tile": 3}),
    ((2, 3, 18, 64), -1, {"quantize_free_tile": 2}),
    ((64, 24), -2, {}),
    ((96, 40), -2, {}),
    ((17 * 32, 11), -2, {"quantize_free_tile": 4}),
    ((3, 64, 9), -2, {"quantize_free_tile": 5}),
    ((2, 2, 32, 6), -2, {}),
    ((32, 32), 0, {}),
    ((40, 64), 1, {}),
    ((128,), -1, {}),
]


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("element", ["bf16", "f16"])
@pytest.mark.parametrize(("shape", "dim", "options"), QUANTIZE_CASES)
def test_quantize_bit_identical(
    shape: tuple[int, ...], dim: int, options: dict[str, int], element: str, fmt: str
):
    x = normal(shape, element)
    if x.size >= 64:  # special values in some blocks: zero block, Inf, NaN, denormals
        flat = x.reshape(-1)
        flat[:32] = 0
        flat[40] = np.inf
        flat[45] = -np.nan
        flat[50] = DTYPES[element](2.0**-20)
    check_levels(quantize_program(shape, element, fmt, dim), [x], **options)


def test_quantize_default_tiles_on_a_large_input():
    """Default tile sizes: 2 full row tiles + a partial one, 512 blocks per tile."""
    shape = (40, 40 * 32)
    x = normal(shape, "bf16")
    check_levels(quantize_program(shape, "bf16", "float8_e4m3fn", -1), [x])


# ------------------------------------------------------------------- MX matmul

MX_CASES = [
    # (lhs shape, rhs shape, lhs (batch, contract), rhs (batch, contract), out shape,
    #  options)
    # the README example: lhs K-minor, rhs K-major, one K tile
    ((128, 256), (256, 64), ([], 1), ([], 0), (128, 64), {}),
    # K = 640: a full K tile of 512 and a partial one of 128 (32 partitions)
    ((8, 640), (640, 16), ([], 1), ([], 0), (8, 16), {}),
    # K = 96: one tile of 24 words padded to 32 partitions; odd M padded to even
    ((35, 96), (96, 20), ([], 1), ([], 0), (35, 20), {}),
    # K-major lhs, K-minor rhs, M and N in several tiles plus a partial one
    ((160, 22), (13, 160), ([], 0), ([], 1), (22, 13), {"matmul_m_tile": 8, "matmul_n_tile": 5}),
    # a batch dim, K = 544 (17 scale rows: 16 + 1, padded)
    ((3, 6, 544), (3, 544, 10), ([0], 2), ([0], 1), (3, 6, 10), {}),
    # the batch dim after the free dim (lhs), K-major rhs
    ((6, 2, 64), (2, 64, 4), ([1], 2), ([0], 1), (2, 6, 4), {"matmul_m_tile": 4}),
]


@pytest.mark.parametrize("out", ["f32", "bf16"])
@pytest.mark.parametrize(("fmt", "element"), [("float8_e4m3fn", "bf16"), ("float8_e5m2", "f16")])
@pytest.mark.parametrize(("lhs", "rhs", "lhs_dims", "rhs_dims", "out_shape", "options"), MX_CASES)
def test_scaled_matmul_bit_identical(
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
    src = mx_matmul_program(lhs, rhs, lhs_dims, rhs_dims, element, fmt, out, out_shape)
    x, w = normal(lhs, element), normal(rhs, element)
    y, _ = check_levels(src, [x, w], **options)
    assert np.isfinite(y.astype(np.float32)).all()


def test_scaled_matmul_exactly_summable_against_numpy():
    """Integer data (exact in FP8, exact sums) through several K / M / N tiles: the
    lowered kernel equals numpy's product, whatever the summation order."""
    lhs = RNG.integers(-8, 9, size=(2, 21, 1088)).astype(ml_dtypes.bfloat16)
    rhs = RNG.integers(-8, 9, size=(2, 1088, 37)).astype(ml_dtypes.bfloat16)
    src = mx_matmul_program(
        lhs.shape, rhs.shape, ([0], 2), ([0], 1), "bf16", "float8_e4m3fn", "f32", (2, 21, 37)
    )
    y, _ = check_levels(src, [lhs, rhs], matmul_m_tile=8, matmul_n_tile=16)
    expected = np.matmul(lhs.astype(np.float64), rhs.astype(np.float64))
    assert (y == expected).all()


def finite_fp8_words(shape: tuple[int, ...], fmt: str) -> np.ndarray:
    """Random ui32 words of four finite FP8 codes (no NaN / Inf codes)."""
    dtype = ml_dtypes.float8_e4m3fn if fmt == "float8_e4m3fn" else ml_dtypes.float8_e5m2
    codes = RNG.integers(0, 256, size=(*shape, 4), dtype=np.uint8)
    bad = ~np.isfinite(codes.view(dtype).astype(np.float32))
    codes[bad] = 0x01
    return codes.view("<u4").reshape(shape).astype(np.uint32)


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
def test_scaled_matmul_of_packed_arguments(fmt: str):
    """ScaledMatmul straight from ui32 / E8M0 function arguments (the boundary cast to x4),
    both operands K-minor, a batch dim, K = 1056 (two full K tiles and a padded one)."""
    b, m, n, k = 2, 10, 7, 1056
    lhs = tensor((b, m, k // 4), "ui32")
    rhs = tensor((b, n, k // 4), "ui32")
    ls = tensor((b, m, k // 32), "f8E8M0FNU")
    rs = tensor((b, n, k // 32), "f8E8M0FNU")
    out = tensor((b, m, n), "bf16")
    config = json.dumps(
        {
            "scaled_dot_backend_config": {
                "lhs_batch_dimensions": [0],
                "rhs_batch_dimensions": [0],
                "lhs_contracting_dimensions": [2],
                "rhs_contracting_dimensions": [2],
                "element_dtype": fmt,
            }
        }
    ).replace('"', "\\22")
    src = (
        f"func.func @main(%l: {lhs}, %r: {rhs}, %ls: {ls}, %rs: {rs}) -> {out} {{\n"
        f"  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) "
        f'{{backend_config = "{config}", api_version = 1 : i32}} : ({lhs}, {rhs}, {ls}, {rs})'
        f" -> {out}\n  func.return %y : {out}\n}}\n"
    )
    scales = [
        RNG.integers(120, 135, size=s, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu)
        for s in ((b, m, k // 32), (b, n, k // 32))
    ]
    inputs = [finite_fp8_words((b, m, k // 4), fmt), finite_fp8_words((b, n, k // 4), fmt)]
    check_levels(src, [*inputs, *scales], matmul_m_tile=4)


# ------------------------------------------------------------------ dot_general

DOT_CASES = [
    # (lhs, rhs, batch dims, contracting dims, out shape, options)
    ((64, 96), (96, 48), ([], []), (1, 0), (64, 48), {}),
    ((200, 300), (300, 130), ([], []), (1, 0), (200, 130), {"matmul_n_tile": 64}),
    ((300, 20), (7, 300), ([], []), (0, 1), (20, 7), {}),
    ((2, 33, 129), (2, 129, 5), ([0], [0]), (2, 1), (2, 33, 5), {"matmul_m_tile": 16}),
    ((3, 2, 40, 24), (40, 2, 3, 9), ([0, 1], [2, 1]), (2, 0), (3, 2, 24, 9), {}),
]


@pytest.mark.parametrize(
    "types", [("bf16", "bf16", "f32"), ("f32", "f32", "f32"), ("bf16", "f16", "bf16")]
)
@pytest.mark.parametrize(("lhs", "rhs", "batch", "contract", "out_shape", "options"), DOT_CASES)
def test_dot_general_bit_identical(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    batch: tuple[list[int], list[int]],
    contract: tuple[int, int],
    out_shape: tuple[int, ...],
    options: dict[str, int],
    types: tuple[str, str, str],
):
    src = dot_program(lhs, rhs, batch, contract, types, out_shape)
    check_levels(src, [normal(lhs, types[0]), normal(rhs, types[1])], **options)


def test_convert_and_chained_ops():
    """A dot whose bf16 result is converted to f32 and fed to another dot."""
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
    check_levels(src, [normal((16, 40), "bf16"), normal((40, 24), "bf16"), normal((24, 8), "f32")])


# ---------------------------------------------------------------- IR properties


def test_ir_size_does_not_grow_with_the_tensor_sizes():
    def size(m: int, k: int, n: int) -> int:
        src = mx_matmul_program(
            (m, k), (k, n), ([], 1), ([], 0), "bf16", "float8_e4m3fn", "f32", (m, n)
        )
        ops = [o for o in lowered(src).walk() if o.name != "arith.constant"]
        return len(ops)

    # full tiles only, and full tiles plus partial ones in every dim (the same remainders)
    assert size(256, 1024, 1024) == size(1024, 4096, 4096)
    assert size(2248, 17440, 4696) == size(2248 + 2048, 17440 + 16384, 4696 + 4096)


def test_kernel_signature_keeps_name_arguments_and_results():
    src = (EXAMPLES / "mx_matmul.mlir").read_text()
    kernel = lowered(src)
    main = next(o for o in kernel.walk() if isinstance(o, func.FuncOp))
    assert main.sym_name.data == "main"
    assert [str(t) for t in main.function_type.inputs.data] == [
        "memref<128x256xbf16, #nisa.mem<hbm>>",
        "memref<256x64xbf16, #nisa.mem<hbm>>",
    ]
    assert [str(t) for t in main.function_type.outputs.data] == [
        "memref<128x64xf32, #nisa.mem<hbm>>"
    ]


def test_packed_data_result_is_ui32_at_the_boundary():
    kernel = lowered(quantize_program((32, 64), "bf16", "float8_e5m2", -1))
    main = next(o for o in kernel.walk() if isinstance(o, func.FuncOp))
    assert [str(t) for t in main.function_type.outputs.data] == [
        "memref<32x16xui32, #nisa.mem<hbm>>",
        "memref<32x2xf8E8M0FNU, #nisa.mem<hbm>>",
    ]
    assert "!nisa.float8_e5m2_x4" in str(kernel)


# ------------------------------------------------------------------ mx-run


def test_mx_run_writes_the_same_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """mx-run on the original file and on the lowered one (via -p and via mx-opt output):
    the same keys, dtypes and bytes."""
    example = EXAMPLES / "mx_matmul.mlir"
    legalize = "legalize-quantize-mx,legalize-scaled-matmul"
    lowered_file = tmp_path / "kernel.mlir"
    lower = f"{legalize},lower-hlo-to-nisa"
    assert mx_opt.main([str(example), "-p", lower, "-o", str(lowered_file)]) == 0
    runs = {
        "hlo": [str(example)],
        "legalized": [str(example), "-p", legalize],
        "lowered": [str(example), "-p", lower],
        "file": [str(lowered_file)],
    }
    outputs = {}
    for name, argv in runs.items():
        out = tmp_path / f"{name}.npz"
        assert mx_run.main([*argv, "--random-inputs", "7", "-o", str(out), "--quiet"]) == 0
        with np.load(out) as npz:
            outputs[name] = {k: npz[k] for k in npz.files}
    capsys.readouterr()
    reference = outputs["hlo"]
    assert list(reference) == ["result0"]
    for name, arrays in outputs.items():
        assert list(arrays) == list(reference), name
        for key, array in arrays.items():
            assert array.dtype == reference[key].dtype, (name, key)
            assert array.tobytes() == reference[key].tobytes(), (name, key)


def test_mx_run_quantize_results_same_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    src = tmp_path / "q.mlir"
    src.write_text(quantize_program((64, 48), "f16", "float8_e4m3fn", -2))
    x = normal((64, 48), "f16")
    np.savez(tmp_path / "in.npz", arg0=x)
    outputs = {}
    for name, passes in (("hlo", []), ("nisa", ["-p", "legalize-quantize-mx,lower-hlo-to-nisa"])):
        out = tmp_path / f"{name}.npz"
        argv = [str(src), *passes, "--inputs", str(tmp_path / "in.npz"), "-o", str(out)]
        assert mx_run.main(argv) == 0
        with np.load(out) as npz:
            outputs[name] = {k: npz[k] for k in npz.files}
    capsys.readouterr()
    assert list(outputs["hlo"]) == list(outputs["nisa"]) == ["result0", "result1"]
    for key in outputs["hlo"]:
        a, b = outputs["hlo"][key], outputs["nisa"][key]
        assert (a.dtype, a.shape, a.tobytes()) == (b.dtype, b.shape, b.tobytes())


# ------------------------------------------------------------------ refusals


def refusal(src: str, **options: int) -> str:
    module, ctx = legalized(src)
    with pytest.raises(Exception) as info:  # noqa: PT011  (OpDiagnostic)
        LowerHloToNisaPass(**options).apply(ctx, module)  # pyright: ignore[reportArgumentType]
    return str(info.value)


def test_tuple_result_is_flattened():
    """A QuantizeMX result returned as its tuple: the kernel returns data then scales,
    records their mx-run keys, and computes the hlo function's bytes."""
    src = (
        "func.func @main(%x: tensor<32x32xbf16>) -> tuple<tensor<32x8xui32>, "
        "tensor<32x1xf8E8M0FNU>> {\n"
        + quantize_call("q", "x", (32, 32), "bf16", "float8_e4m3fn", -1)[0]
        + "  func.return %q : tuple<tensor<32x8xui32>, tensor<32x1xf8E8M0FNU>>\n}\n"
    )
    module, _ = legalized(src)
    x = normal((32, 32), "bf16")
    (expected,) = make_interpreter(module, _context()).call_op("main", (x.copy(),))
    kernel = lowered(src)
    main = next(o for o in kernel.walk() if isinstance(o, func.FuncOp))
    outputs = [str(t) for t in main.function_type.outputs.data]
    assert outputs == [
        "memref<32x8xui32, #nisa.mem<hbm>>",
        "memref<32x1xf8E8M0FNU, #nisa.mem<hbm>>",
    ]
    names = main.attributes["mx.result_names"]
    assert [n.data for n in names.data] == ["result0.0", "result0.1"]  # pyright: ignore
    assert "mx.arg_names" not in main.attributes
    got = run(kernel, [x])
    assert len(got) == 2
    for a, b in zip(expected, got, strict=True):
        assert (a.dtype, a.shape, a.tobytes()) == (b.dtype, b.shape, b.tobytes())


def test_refuses_free_dims_apart():
    src = dot_program((4, 32, 6), (32, 8), ([], []), (1, 0), ("bf16", "bf16", "f32"), (4, 6, 8))
    message = refusal(src)
    assert "lhs free dims [0, 2]" in message
    assert "are not adjacent" in message


def test_refuses_mixed_f32():
    src = dot_program((4, 32), (32, 8), ([], []), (1, 0), ("f32", "bf16", "f32"), (4, 8))
    assert "pairs an f32 operand only with f32" in refusal(src)


def test_refuses_bad_options():
    with pytest.raises(ValueError, match="matmul_k_tile must be in"):
        LowerHloToNisaPass(matmul_k_tile=256)
    src = mx_matmul_program(
        (4, 64), (64, 4), ([], 1), ([], 0), "bf16", "float8_e4m3fn", "f32", (4, 4)
    )
    assert "not a multiple of 32" in refusal(src, matmul_k_tile=48)
    assert "matmul_m_tile 3 is odd" in refusal(src, matmul_m_tile=3)

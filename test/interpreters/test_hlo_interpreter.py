"""The hlo interpreter: every op, the custom-call registry, interpreter discovery, and the
MX path (frontend vs. legalized bit identity; the scaled matmul against a dense numpy
computation written here from first principles, not through mxdsl.numerics)."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, TensorType
from xdsl.dialects.func import Func
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.passes import PassPipeline

import mxdsl.interpreters as interpreters
from mxdsl.dialects.hlo import ConvertOp, CustomCallOp, Hlo
from mxdsl.interpreters import (
    InterpreterDiscoveryError,
    OpInterpretationError,
    discover_interpreter_functions,
    make_interpreter,
)
from mxdsl.interpreters.hlo import (
    HloFunctions,
    register_custom_call_impl,
    unregister_custom_call_impl,
)
from mxdsl.tools.diagnostics import parse_located, verify_located
from mxdsl.transforms.legalize_quantize_mx import LegalizeQuantizeMXPass
from mxdsl.transforms.legalize_scaled_matmul import LegalizeScaledMatmulPass

BF16 = np.dtype(ml_dtypes.bfloat16)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E5M2 = np.dtype(ml_dtypes.float8_e5m2)
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Hlo, _EXT):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str, name: str = "test.mlir") -> ModuleOp:
    module, _ = parse_located(context(), text, name)
    verify_located(module)
    return module


def legalize(module: ModuleOp) -> ModuleOp:
    PassPipeline((LegalizeQuantizeMXPass(), LegalizeScaledMatmulPass())).apply(context(), module)
    verify_located(module)
    return module


def run(module: ModuleOp, *args: Any, symbol: str = "main", **kwargs: Any) -> tuple[Any, ...]:
    return tuple(make_interpreter(module, **kwargs).call_op(symbol, args))


def run_text(text: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    return run(parse(text), *args, **kwargs)


def bits(values: list[float] | np.ndarray, dtype: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32).astype(dtype)


# ---------------------------------------------------------------- plain ops


def test_constants_are_the_literal_bytes() -> None:
    (bf, e4, flag, splat, word, i8) = run_text(
        """
        func.func @main() -> (tensor<3xbf16>, tensor<2xf8E4M3FN>, tensor<2xi1>,
                              tensor<2x2xf32>, tensor<1xui32>, tensor<2xi8>) {
          %a = hlo.constant dense<[1.5, -0.125, 1.2676506002282294e30]> : tensor<3xbf16>
          %b = hlo.constant dense<[448.0, -0.001953125]> : tensor<2xf8E4M3FN>
          %c = hlo.constant dense<[true, false]> : tensor<2xi1>
          %d = hlo.constant dense<2.5> : tensor<2x2xf32>
          %e = hlo.constant dense<[4294967295]> : tensor<1xui32>
          %f = hlo.constant dense<[-128, 127]> : tensor<2xi8>
          func.return %a, %b, %c, %d, %e, %f : tensor<3xbf16>, tensor<2xf8E4M3FN>, tensor<2xi1>,
                                                tensor<2x2xf32>, tensor<1xui32>, tensor<2xi8>
        }
        """
    )
    assert bf.dtype == BF16
    assert bf.view(np.uint16).tolist() == [0x3FC0, 0xBE00, 0x7180]  # 2^100: exponent 227
    assert e4.dtype == E4M3
    assert e4.view(np.uint8).tolist() == [0x7E, 0x81]
    assert flag.dtype == np.bool_
    assert flag.tolist() == [True, False]
    assert splat.dtype == np.float32
    assert splat.tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert word.dtype == np.uint32
    assert word.tolist() == [0xFFFFFFFF]
    assert i8.dtype == np.int8
    assert i8.tolist() == [-128, 127]


def test_tuple_literal_tuple_and_get_tuple_element() -> None:
    (whole, inner, scalar) = run_text(
        """
        func.func @main() -> (tuple<tensor<2xi64>, tuple<tensor<i64>, tensor<f32>>>,
                              tuple<tensor<i64>, tensor<f32>>, tensor<f32>) {
          %m = hlo.constant (dense<[128, 256]> : tensor<2xi64>,
                             (dense<1> : tensor<i64>, dense<0.5> : tensor<f32>))
          %i = hlo.get_tuple_element %m[1] : (tuple<tensor<2xi64>, tuple<tensor<i64>, tensor<f32>>>)
                 -> tuple<tensor<i64>, tensor<f32>>
          %s = hlo.get_tuple_element %i[1] : (tuple<tensor<i64>, tensor<f32>>) -> tensor<f32>
          %t = hlo.tuple %s : tuple<tensor<f32>>
          %u = hlo.get_tuple_element %t[0] : (tuple<tensor<f32>>) -> tensor<f32>
          func.return %m, %i, %u : tuple<tensor<2xi64>, tuple<tensor<i64>, tensor<f32>>>,
                                   tuple<tensor<i64>, tensor<f32>>, tensor<f32>
        }
        """
    )
    assert isinstance(whole, tuple)
    assert len(whole) == 2
    assert whole[0].tolist() == [128, 256]
    assert whole[0].dtype == np.int64
    assert inner == whole[1]
    assert scalar.shape == ()
    assert scalar.dtype == np.float32
    assert float(scalar) == 0.5


CONVERT = """
func.func @main(%x: tensor<{n}x{src}>) -> tensor<{n}x{dst}> {{
  %y = hlo.convert %x : (tensor<{n}x{src}>) -> tensor<{n}x{dst}>
  func.return %y : tensor<{n}x{dst}>
}}
"""


def convert(values: np.ndarray, src: str, dst: str) -> np.ndarray:
    (out,) = run_text(CONVERT.format(n=values.size, src=src, dst=dst), values)
    return out


def test_convert_rounds_to_nearest_even() -> None:
    # bf16 keeps 8 significant bits: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 (even: 1);
    # 1 + 3*2^-8 is a tie between 1 + 2^-7 and 1 + 2^-6 (even: 1 + 2^-6).
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20], dtype=np.float32)
    out = convert(x, "f32", "bf16")
    assert out.dtype == BF16
    assert out.astype(np.float64).tolist() == [1.0, 1 + 2**-6, 1 + 2**-7]


def test_convert_from_f64_rounds_once() -> None:
    # Through float32 this would round twice (to 1 + 2^-8, then the tie to 1.0).
    x = np.array([1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-30)], dtype=np.float64)
    assert convert(x, "f64", "bf16").astype(np.float64).tolist() == [1 + 2**-7, -(1 + 2**-7)]
    # and from a wide integer: 2^30 + 2^22 + 1 is just above the tie -> 2^30 + 2^23
    i = np.array([2**30 + 2**22 + 1, 2**30 + 2**22], dtype=np.int64)
    assert convert(i, "i64", "bf16").astype(np.float64).tolist() == [2**30 + 2**23, 2**30]


def test_convert_float_to_int_truncates_and_saturates() -> None:
    x = np.array([np.nan, 1e20, -1e20, -2.7, 2.7, np.inf, -0.5], dtype=np.float32)
    assert convert(x, "f32", "i32").tolist() == [0, 2**31 - 1, -(2**31), -2, 2, 2**31 - 1, 0]
    assert convert(np.array([-3.5, 300.0, 255.9], np.float32), "f32", "ui8").tolist() == [
        0,
        255,
        255,
    ]
    assert convert(np.array([0.0, -0.0, 0.1, np.nan], np.float32), "f32", "i1").tolist() == [
        False,
        False,
        True,
        True,
    ]


def test_convert_int_to_int_wraps() -> None:
    assert convert(np.array([300, -1, 127], np.int32), "i32", "i8").tolist() == [44, -1, 127]
    assert convert(np.array([-1, 256], np.int32), "i32", "ui8").tolist() == [255, 0]


def test_convert_to_fp8_is_ml_dtypes_rne() -> None:
    x = np.array([0.296875 * 128, 0.30078125 * 128, 500.0], dtype=np.float32)
    out = convert(x, "f32", "f8E4M3FN")
    # 38 is a tie between 36 and 40 (even mantissa: 40); 38.5 -> 40; 500 is out of
    # range, and a plain convert (unlike QuantizeMX) does not saturate: NaN.
    assert out.view(np.uint8).tolist() == [0x62, 0x62, 0x7F]


DOT = """
func.func @main(%a: tensor<{a}>, %b: tensor<{b}>) -> tensor<{r}> {{
  %y = hlo.dot_general %a, %b{dims} : (tensor<{a}>, tensor<{b}>) -> tensor<{r}>
  func.return %y : tensor<{r}>
}}
"""


def test_dot_general_accumulates_in_f32_and_rounds_once() -> None:
    # 1 + 256 * 2^-8 = 2: a bf16 accumulator would lose every 2^-8 (each add is a tie
    # to 1.0) and return 1.0.
    lhs = np.array([[1.0] + [2**-8] * 256], dtype=BF16)
    rhs = np.ones((257, 1), dtype=BF16)
    (out,) = run_text(
        DOT.format(
            a="1x257xbf16", b="257x1xbf16", r="1x1xbf16", dims=", contracting_dims = [1] x [0]"
        ),
        lhs,
        rhs,
    )
    assert out.dtype == BF16
    assert out.astype(np.float64).tolist() == [[2.0]]


def test_dot_general_batch_and_dimension_order() -> None:
    rng = np.random.default_rng(0)
    lhs = rng.integers(-8, 9, size=(3, 5, 2)).astype(BF16)  # [b, k, m]
    rhs = rng.integers(-8, 9, size=(4, 3, 5)).astype(np.float32)  # [n, b, k]
    (out,) = run_text(
        DOT.format(
            a="3x5x2xbf16",
            b="4x3x5xf32",
            r="3x2x4xf32",
            dims=", batching_dims = [0] x [1], contracting_dims = [1] x [2]",
        ),
        lhs,
        rhs,
    )
    expected = np.einsum("bkm,nbk->bmn", lhs.astype(np.float64), rhs.astype(np.float64))
    assert out.dtype == np.float32
    assert out.shape == (3, 2, 4)
    assert np.array_equal(out, expected.astype(np.float32))


def test_dot_general_integers_and_outer_product() -> None:
    lhs = np.array([[1, 2], [3, 4]], dtype=np.int32)
    rhs = np.array([[5, 6], [7, 8]], dtype=np.int32)
    (out,) = run_text(
        DOT.format(a="2x2xi32", b="2x2xi32", r="2x2xi32", dims=", contracting_dims = [1] x [0]"),
        lhs,
        rhs,
    )
    assert out.dtype == np.int32
    assert out.tolist() == [[19, 22], [43, 50]]
    (outer,) = run_text(
        DOT.format(a="2xf32", b="3xf32", r="2x3xf32", dims=""),
        np.array([1, 2], np.float32),
        np.array([1, 10, 100], np.float32),
    )
    assert outer.tolist() == [[1, 10, 100], [2, 20, 200]]


# ------------------------------------------------------------ custom calls


UNKNOWN_TARGET = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = hlo.custom_call @MyVendorOp(%x) {backend_config = "", api_version = 1 : i32}
      : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


def test_unknown_custom_call_target_names_target_and_location() -> None:
    module = parse(UNKNOWN_TARGET, "prog.mlir")
    with pytest.raises(OpInterpretationError) as info:
        run(module, np.zeros(4, np.float32))
    assert info.value.message == (
        "no interpreter implementation for custom call target 'MyVendorOp'"
    )
    assert str(info.value).startswith("prog.mlir:2:3: ")
    assert isinstance(info.value.op, CustomCallOp)


def test_an_extension_registers_a_custom_call_target() -> None:
    def my_vendor_op(interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]) -> Any:
        (x,) = args
        return x * np.float32(2)

    register_custom_call_impl("MyVendorOp", my_vendor_op)
    try:
        (out,) = run(parse(UNKNOWN_TARGET), np.arange(4, dtype=np.float32))
        assert out.tolist() == [0, 2, 4, 6]
        with pytest.raises(ValueError, match="already has an implementation"):
            register_custom_call_impl("MyVendorOp", my_vendor_op)
    finally:
        unregister_custom_call_impl("MyVendorOp")


def test_a_custom_call_returning_the_wrong_value_is_reported() -> None:
    register_custom_call_impl("MyVendorOp", lambda interp, op, args: args[0].astype(np.float64))
    try:
        with pytest.raises(
            OpInterpretationError, match="produced a wrong result: expected float32"
        ):
            run(parse(UNKNOWN_TARGET), np.zeros(4, np.float32))
    finally:
        unregister_custom_call_impl("MyVendorOp")


# --------------------------------------------------------------- discovery


@irdl_op_definition
class TwiceOp(IRDLOperation):
    name = "test_ext.twice"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    assembly_format = "$x attr-dict `:` type($x) `->` type($y)"


_EXT = Dialect("test_ext", [TwiceOp])


@register_impls
class ExtFunctions(InterpreterFunctions):
    @impl(TwiceOp)
    def run_twice(self, interpreter: Interpreter, op: TwiceOp, args: tuple[Any, ...]):
        return (args[0] + args[0],)


@register_impls
class ClashingFunctions(InterpreterFunctions):
    @impl(ConvertOp)
    def run_convert(self, interpreter: Interpreter, op: ConvertOp, args: tuple[Any, ...]):
        return (np.zeros_like(args[0], dtype=np.float32),)


@dataclass
class FakeEntryPoint:
    name: str
    target: Any
    value: str = "tests:fake"

    def load(self) -> Any:
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


TWICE = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = test_ext.twice %x : tensor<2xf32> -> tensor<2xf32>
  %z = hlo.convert %y : (tensor<2xf32>) -> tensor<2xf32>
  func.return %z : tensor<2xf32>
}
"""


def with_entry_points(monkeypatch: pytest.MonkeyPatch, *extra: FakeEntryPoint) -> None:
    installed = list(interpreters._entry_points())
    monkeypatch.setattr(
        interpreters, "_entry_points", lambda: sorted([*installed, *extra], key=lambda e: e.name)
    )


def test_hlo_functions_are_found_through_the_entry_point() -> None:
    found = dict(discover_interpreter_functions())
    assert isinstance(found["hlo"], HloFunctions)


def test_an_extension_entry_point_adds_interpreter_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = parse(TWICE)
    with pytest.raises(Exception, match="Could not find interpretation function"):
        run(module, np.ones(2, np.float32))
    with_entry_points(monkeypatch, FakeEntryPoint("zz_ext", ExtFunctions))
    (out,) = run(module, np.array([1.5, -2], np.float32))
    assert out.tolist() == [3.0, -4.0]


def test_entry_points_may_be_instances_or_factories(monkeypatch: pytest.MonkeyPatch) -> None:
    with_entry_points(monkeypatch, FakeEntryPoint("zz_ext", lambda: ExtFunctions()))
    assert run(parse(TWICE), np.ones(2, np.float32))[0].tolist() == [2.0, 2.0]


def test_an_entry_point_that_is_not_functions_is_skipped_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_entry_points(monkeypatch, FakeEntryPoint("zz_bad", 42))
    names = [name for name, _ in discover_interpreter_functions()]
    assert "zz_bad" not in names
    assert "hlo" in names
    warning = capsys.readouterr().err
    assert "warning: extension" in warning
    assert "'zz_bad' is a int, not an InterpreterFunctions class" in warning
    assert "skipped" in warning


def test_extra_functions_plug_in_without_an_entry_point() -> None:
    (out,) = run(parse(TWICE), np.ones(2, np.float32), extra=[ExtFunctions])
    assert out.tolist() == [2.0, 2.0]
    (overridden,) = run(
        parse(TWICE), np.ones(2, np.float32), extra=[ExtFunctions(), ClashingFunctions]
    )
    assert overridden.tolist() == [0.0, 0.0]


def test_two_entry_points_implementing_one_op_clash(monkeypatch: pytest.MonkeyPatch) -> None:
    with_entry_points(monkeypatch, FakeEntryPoint("zz_clash", ClashingFunctions))
    with pytest.raises(
        InterpreterDiscoveryError, match="'hlo' and 'zz_clash' both implement hlo.convert"
    ):
        make_interpreter(parse(TWICE))


def test_a_broken_entry_point_warns_and_other_programs_still_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_entry_points(
        monkeypatch,
        FakeEntryPoint("zz_broken", ImportError("no module named x")),
        FakeEntryPoint("zz_ext", ExtFunctions),
    )
    (out,) = run(parse(TWICE), np.array([1.0, 2.0], np.float32))
    assert out.tolist() == [2.0, 4.0]
    warning = capsys.readouterr().err
    assert "cannot load extension" in warning
    assert "zz_broken = tests:fake" in warning
    assert "ImportError: no module named x; skipped" in warning


# ------------------------------------------------------------------- MX path


def _config(fields: dict[str, Any]) -> str:
    """``fields`` as JSON inside an MLIR string literal (quotes as \\22)."""
    return json.dumps(fields).replace('"', "\\22")


def _tensor(shape: tuple[int, ...], element: str) -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + element + ">"


@dataclass(frozen=True)
class MatmulCase:
    """One MX matmul program: QuantizeMX on both sides, then __op$block_scaled_dot."""

    m: int
    n: int
    k: int
    source: str  # bf16 | f16
    fmt: str  # e4m3fn | e5m2
    out: str  # f32 | bf16
    lhs_k_last: bool  # lhs is [.., M, K] (else [.., K, M])
    rhs_k_last: bool  # rhs is [.., N, K] (else [.., K, N])
    batch: int  # 0: no batch dim, else a leading batch dim of that size
    positive_dims: bool  # spell QuantizeMX dims as rank-1 / rank-2 instead of -1 / -2

    @property
    def rank(self) -> int:
        return 3 if self.batch else 2

    def lhs_shape(self) -> tuple[int, ...]:
        tail = (self.m, self.k) if self.lhs_k_last else (self.k, self.m)
        return ((self.batch,) if self.batch else ()) + tail

    def rhs_shape(self) -> tuple[int, ...]:
        tail = (self.n, self.k) if self.rhs_k_last else (self.k, self.n)
        return ((self.batch,) if self.batch else ()) + tail

    def axes(self) -> tuple[int, int]:
        return (
            self.rank - 1 if self.lhs_k_last else self.rank - 2,
            self.rank - 1 if self.rhs_k_last else self.rank - 2,
        )

    def result_shape(self) -> tuple[int, ...]:
        return ((self.batch,) if self.batch else ()) + (self.m, self.n)

    def source_dtype(self) -> np.dtype[Any]:
        return BF16 if self.source == "bf16" else np.dtype(np.float16)

    def out_dtype(self) -> np.dtype[Any]:
        return BF16 if self.out == "bf16" else np.dtype(np.float32)

    def mlir(self) -> str:
        dtype = f"float8_{self.fmt}"
        lines = []
        names = {}
        for side, shape, axis in (
            ("x", self.lhs_shape(), self.axes()[0]),
            ("w", self.rhs_shape(), self.axes()[1]),
        ):
            data = tuple(s // 4 if d == axis else s for d, s in enumerate(shape))
            scale = tuple(s // 32 if d == axis else s for d, s in enumerate(shape))
            tup = f"tuple<{_tensor(data, 'ui32')}, {_tensor(scale, 'f8E8M0FNU')}>"
            dim = axis if self.positive_dims else axis - self.rank
            config = _config({"dtype": dtype, "dim": dim, "block_size": 32, "scale_method": "EMAX"})
            lines += [
                f'  %{side}q = hlo.custom_call @QuantizeMX(%{side}) {{backend_config = "{config}", '
                f"api_version = 1 : i32}} : ({_tensor(shape, self.source)}) -> {tup}",
                f"  %{side}d = hlo.get_tuple_element %{side}q[0] : ({tup}) -> "
                f"{_tensor(data, 'ui32')}",
                f"  %{side}s = hlo.get_tuple_element %{side}q[1] : ({tup}) -> "
                f"{_tensor(scale, 'f8E8M0FNU')}",
            ]
            names[side] = (_tensor(data, "ui32"), _tensor(scale, "f8E8M0FNU"))
        batch = [0] if self.batch else []
        config = _config(
            {
                "scaled_dot_backend_config": {
                    "lhs_batch_dimensions": batch,
                    "rhs_batch_dimensions": batch,
                    "lhs_contracting_dimensions": [self.axes()[0]],
                    "rhs_contracting_dimensions": [self.axes()[1]],
                    "element_dtype": dtype,
                }
            }
        )
        result = _tensor(self.result_shape(), self.out)
        operand_types = ", ".join((names["x"][0], names["w"][0], names["x"][1], names["w"][1]))
        lines.append(
            "  %y = hlo.custom_call @__op$block_scaled_dot(%xd, %wd, %xs, %ws) "
            f'{{backend_config = "{config}", '
            f"api_version = 1 : i32}} : ({operand_types}) -> {result}"
        )
        return (
            f"func.func @main(%x: {_tensor(self.lhs_shape(), self.source)}, "
            f"%w: {_tensor(self.rhs_shape(), self.source)}) -> {result} {{\n"
            + "\n".join(lines)
            + f"\n  func.return %y : {result}\n}}\n"
        )

    def inputs(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Standard normal values, each element also scaled by 2^[-12, 12] so blocks get
        very different E8M0 scales and some elements go subnormal in the FP8 grid."""
        rng = np.random.default_rng(seed)

        def draw(shape: tuple[int, ...]) -> np.ndarray:
            x = rng.standard_normal(shape) * np.exp2(rng.integers(-12, 13, size=shape))
            return x.astype(np.float32).astype(self.source_dtype())

        return draw(self.lhs_shape()), draw(self.rhs_shape())


def _sweep() -> list[MatmulCase]:
    cases = []
    dtype_combos = list(itertools.product(("bf16", "f16"), ("e4m3fn", "e5m2"), ("f32", "bf16")))
    sizes = [(1, 1, 32), (3, 5, 64), (8, 2, 96), (5, 7, 128)]
    for c, (source, fmt, out) in enumerate(dtype_combos):
        for j in range(4):
            layout = (j + c) % 4
            m, n, k = sizes[(j + 2 * c) % 4]
            cases.append(
                MatmulCase(
                    m,
                    n,
                    k,
                    source,
                    fmt,
                    out,
                    lhs_k_last=layout in (0, 1),
                    rhs_k_last=layout in (1, 2),
                    batch=0 if c % 2 == 0 else (2 if c % 4 == 1 else 3),
                    positive_dims=(j + c // 2) % 2 == 1,
                )
            )
    cases.append(MatmulCase(64, 48, 256, "bf16", "e4m3fn", "f32", True, False, 0, False))
    return cases


SWEEP = _sweep()


@pytest.mark.parametrize(
    "case",
    SWEEP,
    ids=lambda c: (
        f"{c.source}-{c.fmt}-{c.out}-{c.m}x{c.n}x{c.k}"
        f"-{'L' if c.lhs_k_last else 'l'}{'R' if c.rhs_k_last else 'r'}"
        f"-b{c.batch}-{'pos' if c.positive_dims else 'neg'}"
    ),
)
def test_legalization_keeps_results_bit_identical(case: MatmulCase) -> None:
    text = case.mlir()
    lhs, rhs = case.inputs(seed=hash((case.m, case.n, case.k)) % 1000)
    (frontend,) = run(parse(text), lhs, rhs)
    legalized_module = legalize(parse(text))
    targets = [op.target for op in legalized_module.walk() if isinstance(op, CustomCallOp)]
    assert sorted(targets) == sorted(
        [f"QuantizeMX_{case.source}_{case.fmt}"] * 2
        + [f"ScaledMatmul_{case.fmt}_{case.fmt}_{case.out}"]
    )
    (legalized,) = run(legalized_module, lhs, rhs)
    assert frontend.dtype == legalized.dtype == case.out_dtype()
    assert frontend.shape == legalized.shape == case.result_shape()
    assert frontend.tobytes() == legalized.tobytes()
    assert not np.isnan(frontend.astype(np.float32)).any()


# ---- the dense reference, from first principles (not mxdsl.numerics) ----


def unpack_fp8(data: np.ndarray, axis: int, fmt: str) -> np.ndarray:
    """ui32 words -> 4 FP8 elements each along ``axis``, byte 0 (the low byte) first."""
    lanes = (data[..., None] >> (np.arange(4, dtype=np.uint32) * 8)) & 0xFF  # [..., 4]
    lanes = np.moveaxis(lanes.astype(np.uint8), -1, axis + 1)  # word axis, then its 4 lanes
    shape = list(data.shape)
    shape[axis] *= 4
    return lanes.reshape(shape).view(E4M3 if fmt == "e4m3fn" else E5M2).astype(np.float64)


def dequant(data: np.ndarray, scale: np.ndarray, axis: int, fmt: str) -> np.ndarray:
    """element * 2^(E8M0 byte - 127), one byte per 32 elements along ``axis``."""
    factor = np.exp2(scale.view(np.uint8).astype(np.float64) - 127)
    return unpack_fp8(data, axis, fmt) * np.repeat(factor, 32, axis=axis)


SCALED_DOT = """func.func @main(%a: {a}, %b: {b}, %sa: {sa}, %sb: {sb}) -> {r} {{
  %y = hlo.custom_call @__op$block_scaled_dot(%a, %b, %sa, %sb)
      {{backend_config = "{config}", api_version = 1 : i32}} : ({a}, {b}, {sa}, {sb}) -> {r}
  func.return %y : {r}
}}
"""


def scaled_dot_program(
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    axes: tuple[int, int],
    fmt: str,
    out: str,
    batch: bool,
) -> str:
    result = (
        ((lhs_shape[0],) if batch else ())
        + tuple(s for d, s in enumerate(lhs_shape) if d != axes[0] and not (batch and d == 0))
        + tuple(s for d, s in enumerate(rhs_shape) if d != axes[1] and not (batch and d == 0))
    )
    config = _config(
        {
            "scaled_dot_backend_config": {
                "lhs_batch_dimensions": [0] if batch else [],
                "rhs_batch_dimensions": [0] if batch else [],
                "lhs_contracting_dimensions": [axes[0]],
                "rhs_contracting_dimensions": [axes[1]],
                "element_dtype": f"float8_{fmt}",
            }
        }
    )

    def scale_shape(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
        return tuple(s // 8 if d == axis else s for d, s in enumerate(shape))

    return SCALED_DOT.format(
        a=_tensor(lhs_shape, "ui32"),
        b=_tensor(rhs_shape, "ui32"),
        sa=_tensor(scale_shape(lhs_shape, axes[0]), "f8E8M0FNU"),
        sb=_tensor(scale_shape(rhs_shape, axes[1]), "f8E8M0FNU"),
        r=_tensor(result, out),
        config=config,
    )


def random_fp8_words(
    rng: np.random.Generator, shape: tuple[int, ...], fmt: str, exponents: tuple[int, int]
) -> np.ndarray:
    """Packed words of random FP8 elements: random sign and mantissa, biased exponent
    field in ``exponents`` (inclusive), so no Inf/NaN codes."""
    mantissa_bits = 3 if fmt == "e4m3fn" else 2
    count = int(np.prod(shape)) * 4
    exponent = rng.integers(exponents[0], exponents[1] + 1, size=count)
    mantissa = rng.integers(0, 2**mantissa_bits, size=count)
    sign = rng.integers(0, 2, size=count)
    codes = (sign << 7) | (exponent << mantissa_bits) | mantissa
    if fmt == "e4m3fn":  # exponent field 15 with mantissa 7 is NaN: use 6
        codes = np.where((codes & 0x7F) == 0x7F, codes - 1, codes)
    return codes.astype(np.uint8).view(np.uint32).reshape(shape)


def scaled_dot_inputs(
    rng: np.random.Generator,
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    axes: tuple[int, int],
    fmt: str,
    exponents: tuple[int, int],
    scales: tuple[int, int],
) -> tuple[np.ndarray, ...]:
    lhs = random_fp8_words(rng, lhs_shape, fmt, exponents)
    rhs = random_fp8_words(rng, rhs_shape, fmt, exponents)

    def scale(shape: tuple[int, ...], axis: int) -> np.ndarray:
        s = tuple(v // 8 if d == axis else v for d, v in enumerate(shape))
        return rng.integers(scales[0], scales[1] + 1, size=s).astype(np.uint8).view(E8M0)

    return lhs, rhs, scale(lhs_shape, axes[0]), scale(rhs_shape, axes[1])


def dense_reference(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lhs_scale: np.ndarray,
    rhs_scale: np.ndarray,
    axes: tuple[int, int],
    fmt: str,
    batch: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(exact sum rounded once to float64, sum of |products|). Every product of two FP8
    values times powers of two is exact in float64; math.fsum adds them exactly."""
    a = np.moveaxis(dequant(lhs, lhs_scale, axes[0], fmt), axes[0], -1)  # [.., M, K]
    b = np.moveaxis(dequant(rhs, rhs_scale, axes[1], fmt), axes[1], -2)  # [.., K, N]
    products = np.moveaxis(a[..., :, :, None] * b[..., None, :, :], -2, -1)  # [.., M, N, K]
    rows = products.reshape(-1, products.shape[-1])
    exact = np.array([math.fsum(row) for row in rows]).reshape(products.shape[:-1])
    return exact, np.abs(products).sum(axis=-1)


REFERENCE_CASES = [
    # lhs shape (packed), rhs shape (packed), contracting axes, fmt, out, batch
    ((4, 16), (16, 3), (1, 0), "e4m3fn", "f32", False),
    ((16, 4), (3, 16), (0, 1), "e5m2", "bf16", False),
    ((2, 5, 8), (2, 8, 6), (2, 1), "e4m3fn", "bf16", True),
    ((3, 8, 2), (3, 4, 8), (1, 2), "e5m2", "f32", True),
]


@pytest.mark.parametrize("case", REFERENCE_CASES)
def test_scaled_dot_equals_dense_numpy_exactly(case: tuple[Any, ...]) -> None:
    """Tolerance 0. The FP8 elements are 1 <= |e| < 16 (a 4-bit significand, so a
    multiple of 2^-3 for e4m3fn, 2^-2 for e5m2) and the E8M0 scales 2^0 or 2^1: every
    product is a multiple of 2^-6 below 2^10, and K <= 64 such products sum to less
    than 2^16, so every partial sum is exact in float32 whatever the summation order:
    the interpreter's result must be exactly round_to_out(exact sum)."""
    lhs_shape, rhs_shape, axes, fmt, out, batch = case
    rng = np.random.default_rng(7)
    exponents = (7, 10) if fmt == "e4m3fn" else (15, 18)  # values in [1, 16)
    args = scaled_dot_inputs(rng, lhs_shape, rhs_shape, axes, fmt, exponents, (127, 128))
    text = scaled_dot_program(lhs_shape, rhs_shape, axes, fmt, out, batch)
    (got,) = run(parse(text), *args)
    (legalized,) = run(legalize(parse(text)), *args)
    exact, _ = dense_reference(*args, axes, fmt, batch)
    expected = exact.astype(np.float32).astype(BF16 if out == "bf16" else np.float32)
    assert np.abs(exact).max() < 2**16
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()
    assert legalized.tobytes() == got.tobytes()


@pytest.mark.parametrize("out", ["f32", "bf16"])
@pytest.mark.parametrize("fmt", ["e4m3fn", "e5m2"])
def test_scaled_dot_is_within_the_f32_summation_bound(fmt: str, out: str) -> None:
    """Wide-range data: FP8 elements over the whole finite range (subnormals included),
    scales 2^-20 .. 2^20, K = 512. Products are still exact in float32, so recursive
    float32 summation in any order is within gamma_(K-1) * sum|products| of the exact
    sum (gamma_n = n u / (1 - n u), u = 2^-24); a bf16 result adds one rounding,
    2^-8 relative."""
    rng = np.random.default_rng(11)
    lhs_shape, rhs_shape, axes = (6, 128), (128, 5), (1, 0)
    top = 15 if fmt == "e4m3fn" else 30
    args = scaled_dot_inputs(rng, lhs_shape, rhs_shape, axes, fmt, (0, top), (107, 147))
    (got,) = run(parse(scaled_dot_program(lhs_shape, rhs_shape, axes, fmt, out, False)), *args)
    exact, magnitude = dense_reference(*args, axes, fmt, False)
    k = 512
    u = 2.0**-24
    gamma = (k - 1) * u / (1 - (k - 1) * u)
    bound = gamma * magnitude
    if out == "bf16":
        bound = bound + 2.0**-8 * (np.abs(exact) + bound)
    error = np.abs(got.astype(np.float64) - exact)
    assert (error <= bound).all(), float((error / np.maximum(bound, 1e-300)).max())


def test_quantize_mx_then_scaled_dot_equals_dense_reference() -> None:
    """The whole program: the QuantizeMX outputs, dequantized here from first principles
    and multiplied densely, agree with the interpreter's block-scaled dot within the
    float32 summation bound (K = 256)."""
    case = MatmulCase(16, 8, 256, "bf16", "e4m3fn", "f32", True, False, 0, False)
    module = parse(case.mlir())
    lhs, rhs = case.inputs(seed=3)
    (got,) = run(module, lhs, rhs)
    interpreter = make_interpreter(module)
    quantizes = [
        op for op in module.walk() if isinstance(op, CustomCallOp) and op.target == "QuantizeMX"
    ]
    ((xd, xs),) = interpreter.run_op(quantizes[0], (lhs,))
    ((wd, ws),) = interpreter.run_op(quantizes[1], (rhs,))
    exact, magnitude = dense_reference(xd, wd, xs, ws, case.axes(), case.fmt, False)
    gamma = 255 * 2.0**-24 / (1 - 255 * 2.0**-24)
    assert (np.abs(got.astype(np.float64) - exact) <= gamma * magnitude).all()

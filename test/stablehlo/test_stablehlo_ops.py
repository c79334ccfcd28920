"""Every stablehlo interpreter op on small inputs, against values worked out by hand or
computed with plain numpy / ml_dtypes (never with mxdsl)."""
# ruff: noqa: E501, PT018  (IR text of the ops under test; compact multi-part asserts)

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]

BF16 = ml_dtypes.bfloat16


def run(signature: str, body: str, *args: np.ndarray) -> Any:
    text = f"func.func @main{signature} {{\n{body}\n}}"
    ctx = _context()
    module, _ = parse_located(ctx, text, "t")
    module.verify()
    return make_interpreter(module, ctx).call_op("main", args)


def one(signature: str, body: str, *args: np.ndarray) -> Any:
    (result,) = run(signature, body, *args)
    return result


def binary(op: str, t: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return one(
        f"(%a: {t}, %b: {t}) -> {t}",
        f"  %r = stablehlo.{op} %a, %b : {t}\n  func.return %r : {t}",
        a,
        b,
    )


def unary(op: str, t: str, a: np.ndarray) -> np.ndarray:
    return one(f"(%a: {t}) -> {t}", f"  %r = stablehlo.{op} %a : {t}\n  func.return %r : {t}", a)


def test_float_arithmetic_rounds_once_in_the_type() -> None:
    t = "tensor<3xbf16>"
    one_third = binary("divide", t, np.array([1, 2, -1], BF16), np.array([3, 3, 3], BF16))
    # bf16 1/3 = 0x3EAB (0.333984375), 2/3 = 0x3F2B, -1/3 = 0xBEAB: by hand
    assert one_third.view(np.uint16).tolist() == [0x3EAB, 0x3F2B, 0xBEAB]
    # 1 + 2^-8 is a tie between 1 and 1 + 2^-7 in bf16: to even (1.0); 1 + 3*2^-8 -> up
    a = np.array([1, 1, 256], BF16)
    b = np.array([2.0**-8, 3 * 2.0**-8, 1], BF16)
    assert binary("add", t, a, b).astype(np.float64).tolist() == [1.0, 1.015625, 256.0]
    assert binary("subtract", t, a, b).astype(np.float64).tolist() == [0.99609375, 0.98828125, 255]
    f = np.array([1.5, -2.0, 3.0], np.float32)
    g = np.array([2.0, 0.5, -0.25], np.float32)
    t32 = "tensor<3xf32>"
    np.testing.assert_array_equal(binary("multiply", t32, f, g), [3.0, -1.0, -0.75])
    np.testing.assert_array_equal(
        binary(
            "remainder", t32, np.array([5.5, -5.5, 1], np.float32), np.array([2, 2, 3], np.float32)
        ),
        [1.5, -1.5, 1],
    )
    np.testing.assert_array_equal(
        binary("power", t32, g, f), np.array([2.0**1.5, 4.0, -(0.25**3)], np.float32)
    )
    nan = np.float32(np.nan)
    mx = binary(
        "maximum", t32, np.array([1, nan, -0.0], np.float32), np.array([2, 0, 0.0], np.float32)
    )
    assert mx[0] == 2 and np.isnan(mx[1])
    mn = binary("minimum", t32, np.array([1, 5, nan], np.float32), np.array([2, 0, 0], np.float32))
    assert mn[0] == 1 and mn[1] == 0 and np.isnan(mn[2])


def test_integer_arithmetic_wraps_and_truncates() -> None:
    t = "tensor<4xi8>"
    a = np.array([127, -128, 7, -7], np.int8)
    b = np.array([1, -1, 2, 2], np.int8)
    assert binary("add", t, a, b).tolist() == [-128, 127, 9, -5]
    assert binary("subtract", t, a, b).tolist() == [126, -127, 5, -9]
    assert binary("multiply", t, a, b).tolist() == [127, -128, 14, -14]
    assert binary("divide", t, a, b).tolist() == [127, -128, 3, -3]
    assert binary("remainder", t, a, b).tolist() == [0, 0, 1, -1]
    assert binary(
        "power", t, np.array([2, 3, -2, 0], np.int8), np.array([3, 2, 3, 0], np.int8)
    ).tolist() == [8, 9, -8, 1]
    assert unary("abs", t, a).tolist() == [127, -128, 7, 7]
    assert unary("negate", t, a).tolist() == [-127, -128, -7, 7]
    assert unary("not", t, a).tolist() == [-128, 127, -8, 6]
    assert unary("sign", t, a).tolist() == [1, -1, 1, -1]


def test_bitwise_and_shifts() -> None:
    t = "tensor<4xui32>"
    a = np.array([1, 0x80000000, 0xF0, 0xFFFFFFFF], np.uint32)
    n = np.array([31, 31, 4, 32], np.uint32)
    assert binary("shift_left", t, a, n).tolist() == [0x80000000, 0, 0xF00, 0]
    assert binary("shift_right_logical", t, a, n).tolist() == [0, 1, 0xF, 0]
    # arithmetic shifts see the bits as signed: 0x80000000 >> 31 is all ones
    assert binary("shift_right_arithmetic", t, a, n).tolist() == [0, 0xFFFFFFFF, 0xF, 0xFFFFFFFF]
    assert binary("and", t, a, n).tolist() == [1, 0, 0, 32]
    assert binary("or", t, a, n).tolist() == [31, 0x8000001F, 0xF4, 0xFFFFFFFF]
    assert binary("xor", t, a, n).tolist() == [30, 0x8000001F, 0xF4, 0xFFFFFFDF]
    ti = "tensor<2xi32>"
    s = binary(
        "shift_right_arithmetic", ti, np.array([-8, -8], np.int32), np.array([1, 40], np.int32)
    )
    assert s.tolist() == [-4, -1]
    p = np.array([True, False])
    q = np.array([True, True])
    tb = "tensor<2xi1>"
    assert binary("and", tb, p, q).tolist() == [True, False]
    assert binary("or", tb, p, q).tolist() == [True, True]
    assert binary("xor", tb, p, q).tolist() == [False, True]
    assert unary("not", tb, p).tolist() == [False, True]


def test_float_unary_ops() -> None:
    t = "tensor<4xf32>"
    x = np.array([4.0, 0.25, 2.5, -1.5], np.float32)
    np.testing.assert_array_equal(unary("abs", t, x), [4, 0.25, 2.5, 1.5])
    np.testing.assert_array_equal(unary("negate", t, x), [-4, -0.25, -2.5, 1.5])
    np.testing.assert_array_equal(unary("sqrt", t, np.abs(x))[:2], [2, 0.5])
    np.testing.assert_array_equal(unary("rsqrt", t, np.abs(x))[:2], [0.5, 2])
    np.testing.assert_array_equal(unary("floor", t, x), [4, 0, 2, -2])
    np.testing.assert_array_equal(unary("ceil", t, x), [4, 1, 3, -1])
    np.testing.assert_array_equal(unary("round_nearest_even", t, x), [4, 0, 2, -2])
    np.testing.assert_array_equal(unary("sign", t, x), [1, 1, 1, -1])
    np.testing.assert_array_equal(unary("exponential", t, np.zeros(4, np.float32)), [1, 1, 1, 1])
    np.testing.assert_array_equal(unary("log", t, np.ones(4, np.float32)), [0, 0, 0, 0])
    np.testing.assert_array_equal(unary("tanh", t, np.zeros(4, np.float32)), [0, 0, 0, 0])
    # exp(1) correctly rounded to f32 is 0x402DF854
    e = unary("exponential", t, np.ones(4, np.float32))
    assert e.view(np.uint32)[0] == 0x402DF854


def test_compare_select_clamp() -> None:
    sig = "(%a: tensor<3xui32>, %b: tensor<3xui32>) -> (tensor<3xi1>, tensor<3xi1>)"
    body = (
        "  %u = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>\n"
        "  %c = stablehlo.bitcast_convert %a : (tensor<3xui32>) -> tensor<3xi32>\n"
        "  %d = stablehlo.bitcast_convert %b : (tensor<3xui32>) -> tensor<3xi32>\n"
        "  %s = stablehlo.compare GT, %c, %d, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>\n"
        "  func.return %u, %s : tensor<3xi1>, tensor<3xi1>"
    )
    u, s = run(sig, body, np.array([0xFFFFFFFF, 1, 2], np.uint32), np.array([1, 1, 1], np.uint32))
    assert u.tolist() == [True, False, True]
    assert s.tolist() == [False, False, True]  # 0xFFFFFFFF is -1 signed
    nan = np.float32(np.nan)
    f = np.array([nan, 1.0, -0.0], np.float32)
    g = np.array([nan, 1.0, 0.0], np.float32)
    results = {}
    for direction in ("EQ", "NE", "LT", "GE"):
        results[direction] = one(
            "(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1>",
            f"  %r = stablehlo.compare {direction}, %a, %b, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n  func.return %r : tensor<3xi1>",
            f,
            g,
        ).tolist()
    assert results == {
        "EQ": [False, True, True],
        "NE": [True, False, False],
        "LT": [False, False, False],
        "GE": [False, True, True],
    }
    total = one(
        "(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1>",
        "  %r = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n  func.return %r : tensor<3xi1>",
        f,
        g,
    )
    assert total.tolist() == [False, False, True]  # -0 < +0 in the total order
    sel = one(
        "(%p: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32>",
        "  %r = stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xf32>\n  func.return %r : tensor<3xf32>",
        np.array([True, False, True]),
        np.array([1, 2, 3], np.float32),
        np.array([4, 5, 6], np.float32),
    )
    assert sel.tolist() == [1, 5, 3]
    clamp = one(
        "(%lo: tensor<bf16>, %x: tensor<3xbf16>, %hi: tensor<bf16>) -> tensor<3xbf16>",
        "  %r = stablehlo.clamp %lo, %x, %hi : (tensor<bf16>, tensor<3xbf16>, tensor<bf16>) -> tensor<3xbf16>\n  func.return %r : tensor<3xbf16>",
        np.array(-448, BF16),
        np.array([-1000, 3, 1000], BF16),
        np.array(448, BF16),
    )
    assert clamp.astype(np.float64).tolist() == [-448, 3, 448]


def test_conversions_and_bitcasts() -> None:
    words = one(
        "(%a: tensor<2x4xui8>) -> tensor<2xui32>",
        "  %r = stablehlo.bitcast_convert %a : (tensor<2x4xui8>) -> tensor<2xui32>\n  func.return %r : tensor<2xui32>",
        np.array([[1, 2, 3, 4], [0xFF, 0, 0, 0x80]], np.uint8),
    )
    assert words.tolist() == [0x04030201, 0x800000FF]  # element j in byte j
    bytes_ = one(
        "(%a: tensor<1xf32>) -> tensor<1x4xui8>",
        "  %r = stablehlo.bitcast_convert %a : (tensor<1xf32>) -> tensor<1x4xui8>\n  func.return %r : tensor<1x4xui8>",
        np.array([1.0], np.float32),
    )
    assert bytes_.tolist() == [[0, 0, 0x80, 0x3F]]
    fp8 = one(
        "(%a: tensor<4xf32>) -> tensor<4xf8E4M3FN>",
        "  %r = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf8E4M3FN>\n  func.return %r : tensor<4xf8E4M3FN>",
        np.array([1.0, 448.0, 1.0625, 17.0], np.float32),
    )
    # 1.0 = 0x38, 448 = 0x7E, 1.0625 is a tie between 1 and 1.125 -> 1 (even), 17 -> 16
    assert fp8.view(np.uint8).tolist() == [0x38, 0x7E, 0x38, 0x58]
    as_int = one(
        "(%a: tensor<3xf32>) -> tensor<3xui8>",
        "  %r = stablehlo.convert %a : (tensor<3xf32>) -> tensor<3xui8>\n  func.return %r : tensor<3xui8>",
        np.array([2.7, 300, -1], np.float32),
    )
    assert as_int.tolist() == [2, 255, 0]


def test_shape_ops() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    r = one(
        "(%a: tensor<2x3xf32>) -> tensor<3x2xf32>",
        "  %r = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>\n  func.return %r : tensor<3x2xf32>",
        x,
    )
    np.testing.assert_array_equal(r, [[0, 1], [2, 3], [4, 5]])
    t = one(
        "(%a: tensor<2x3xf32>) -> tensor<3x2xf32>",
        "  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n  func.return %r : tensor<3x2xf32>",
        x,
    )
    np.testing.assert_array_equal(t, [[0, 3], [1, 4], [2, 5]])
    b = one(
        "(%a: tensor<2x3xf32>) -> tensor<3x4x2xf32>",
        "  %r = stablehlo.broadcast_in_dim %a, dims = [2, 0] : (tensor<2x3xf32>) -> tensor<3x4x2xf32>\n  func.return %r : tensor<3x4x2xf32>",
        x,
    )
    # result[i, j, k] = x[k, i]
    assert b[2, 3, 1] == x[1, 2] and b[0, 1, 1] == x[1, 0] and b.shape == (3, 4, 2)
    s = one(
        "(%a: tensor<f32>) -> tensor<2x2xf32>",
        "  %r = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<2x2xf32>\n  func.return %r : tensor<2x2xf32>",
        np.array(7, np.float32),
    )
    assert s.tolist() == [[7, 7], [7, 7]]
    i = one(
        "() -> tensor<2x3xi32>",
        "  %r = stablehlo.iota dim = 1 : tensor<2x3xi32>\n  func.return %r : tensor<2x3xi32>",
    )
    assert i.tolist() == [[0, 1, 2], [0, 1, 2]]
    c = one(
        "() -> tensor<2xbf16>",
        "  %r = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xbf16>\n  func.return %r : tensor<2xbf16>",
    )
    assert c.astype(np.float64).tolist() == [1.5, -2.0]


def test_reduce_and_dot_general() -> None:
    x = np.array([[1.0, -3.0, 2.0], [0.5, 0.25, -8.0]], BF16)
    mx = one(
        "(%a: tensor<2x3xbf16>, %i: tensor<bf16>) -> tensor<2xbf16>",
        "  %r = stablehlo.reduce(%a init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2xbf16>\n  func.return %r : tensor<2xbf16>",
        x,
        np.array(-np.inf, BF16),
    )
    assert mx.astype(np.float64).tolist() == [2.0, 0.5]
    total = one(
        "(%a: tensor<3xf32>, %i: tensor<f32>) -> tensor<f32>",
        "  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n  func.return %r : tensor<f32>",
        np.array([2.0**30, 1.0, -(2.0**30)], np.float32),
        np.array(0.5, np.float32),
    )
    assert float(total) == 1.5  # summed exactly, rounded once (not 0.5 from 2^30 + 1 in f32)
    words = np.array([[0b1100, 0b1010], [0b0110, 0b0011]], np.uint32)
    for body, init, expected in (
        ("and", 0xFFFFFFFF, [0b1000, 0b0010]),
        ("or", 0, [0b1110, 0b0111]),
        ("xor", 0b10000, [0b10110, 0b10101]),
    ):
        bits = one(
            "(%a: tensor<2x2xui32>, %i: tensor<ui32>) -> tensor<2xui32>",
            f"  %r = stablehlo.reduce(%a init: %i) applies stablehlo.{body} across dimensions = [1] : (tensor<2x2xui32>, tensor<ui32>) -> tensor<2xui32>\n  func.return %r : tensor<2xui32>",
            words,
            np.array(init, np.uint32),
        )
        assert bits.tolist() == expected, body  # bitwise on integers, not logical
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10
    b = np.arange(40, dtype=np.float32).reshape(2, 4, 5) / 4
    d = one(
        "(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32>",
        "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>\n  func.return %r : tensor<2x3x5xf32>",
        a,
        b,
    )
    np.testing.assert_array_equal(d, np.einsum("bmk,bkn->bmn", a.astype(np.float64), b))


def test_errors_are_located() -> None:
    from mxdsl.interpreters import OpInterpretationError

    with pytest.raises(
        OpInterpretationError, match="no interpreter implementation for custom call target 'foo'"
    ):
        one(
            "(%a: tensor<2xf32>) -> tensor<2xf32>",
            "  %r = stablehlo.custom_call @foo(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  func.return %r : tensor<2xf32>",
            np.zeros(2, np.float32),
        )
    with pytest.raises(OpInterpretationError, match="only reductions whose body is one"):
        one(
            "(%a: tensor<2xf32>, %i: tensor<f32>) -> tensor<f32>",
            "  %r = stablehlo.reduce(%a init: %i) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
            "   reducer(%x: tensor<f32>, %y: tensor<f32>) {\n    %m = stablehlo.multiply %x, %y : tensor<f32>\n"
            "    %n = stablehlo.add %m, %y : tensor<f32>\n    stablehlo.return %n : tensor<f32>\n  }\n"
            "  func.return %r : tensor<f32>",
            np.zeros(2, np.float32),
            np.array(0, np.float32),
        )


def test_hex_float_literals_are_bit_patterns_in_either_syntax() -> None:
    """Hex elements of non-splat float literals are bits (custom and generic syntax)."""
    t = "tensor<2xf32>, tensor<2xbf16>, tensor<2xf8E4M3FN>, tensor<2xf16>"
    body = (
        "  %0 = stablehlo.constant dense<[0x7FC00000, 0x7F800000]> : tensor<2xf32>\n"
        '  %1 = "stablehlo.constant"() <{value = dense<[0xFF80, 1.0]> : tensor<2xbf16>}> : () -> tensor<2xbf16>\n'
        "  %2 = stablehlo.constant dense<[0x7F, -2.0]> : tensor<2xf8E4M3FN>\n"
        '  %3 = "stablehlo.constant"() <{value = dense<[2.5, 0xFC00]> : tensor<2xf16>}> : () -> tensor<2xf16>\n'
        f"  func.return %0, %1, %2, %3 : {t}"
    )
    f32, bf16, e4m3, f16 = run(f"() -> ({t})", body)
    assert f32.view(np.uint32).tolist() == [0x7FC00000, 0x7F800000]
    assert bf16.view(np.uint16).tolist() == [0xFF80, 0x3F80]
    assert e4m3.view(np.uint8).tolist() == [0x7F, 0xC0]  # NaN; -2 = sign, exp 8, mant 0
    assert f16.view(np.uint16).tolist() == [0x4100, 0xFC00]


def test_masked_softmax_as_jax_writes_it() -> None:
    """jax.nn.softmax(s + jnp.asarray([0, 0, -inf, -inf])), s = [1, 2, 3, 4], against
    a float64 numpy softmax of the unmasked entries."""
    t = "tensor<4xf32>"
    body = f"""
  %mask = stablehlo.constant dense<[0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000]> : {t}
  %x = stablehlo.add %s, %mask : {t}
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : ({t}, tensor<f32>) -> tensor<f32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [] : (tensor<f32>) -> {t}
  %d = stablehlo.subtract %x, %mb : {t}
  %e = stablehlo.exponential %d : {t}
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : ({t}, tensor<f32>) -> tensor<f32>
  %sb = stablehlo.broadcast_in_dim %sum, dims = [] : (tensor<f32>) -> {t}
  %r = stablehlo.divide %e, %sb : {t}
  func.return %r : {t}"""
    s = np.array([1, 2, 3, 4], np.float32)
    result = one(f"(%s: {t}) -> {t}", body, s)
    live = np.exp(s[:2].astype(np.float64))
    expected = np.concatenate([live / live.sum(), [0.0, 0.0]])
    np.testing.assert_allclose(result, expected, rtol=2e-7)
    assert result[2:].view(np.uint32).tolist() == [0, 0]


@pytest.mark.parametrize("t", ["f32", "bf16", "f16", "f8E4M3FN", "f8E5M2"])
def test_maximum_minimum_order_signed_zeros(t: str) -> None:
    """IEEE 754 maximum / minimum: -0 < +0 in either operand order, and NaN propagates;
    elementwise, in clamp and as reduce bodies."""
    dtype = {"f32": np.float32, "bf16": BF16, "f16": np.float16}.get(
        t, {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}.get(t)
    )
    a = np.array([0.0, -0.0, -0.0, 0.0, np.nan, 1.0], np.float64).astype(dtype)
    b = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, np.nan], np.float64).astype(dtype)
    tt = f"tensor<6x{t}>"
    hi, lo = binary("maximum", tt, a, b), binary("minimum", tt, a, b)
    assert np.signbit(hi.astype(np.float32)).tolist()[:4] == [False, False, True, False]
    assert np.signbit(lo.astype(np.float32)).tolist()[:4] == [True, True, True, False]
    assert np.isnan(hi.astype(np.float32)[4:]).all() and np.isnan(lo.astype(np.float32)[4:]).all()
    z = np.array([0.0, -0.0], np.float64).astype(dtype)
    zeros = np.stack([z, z[::-1]])  # rows [+0, -0] and [-0, +0]
    big = float(ml_dtypes.finfo(dtype).max)
    for body, sign in (("maximum", False), ("minimum", True)):
        r = one(
            f"(%a: tensor<2x2x{t}>, %i: tensor<{t}>) -> tensor<2x{t}>",
            f"  %r = stablehlo.reduce(%a init: %i) applies stablehlo.{body} across dimensions = [1] : (tensor<2x2x{t}>, tensor<{t}>) -> tensor<2x{t}>\n  func.return %r : tensor<2x{t}>",
            zeros,
            np.array(big if sign else -big, np.float64).astype(dtype),  # no inf in e4m3fn
        )
        assert np.signbit(r.astype(np.float32)).tolist() == [sign, sign], body
    clamped = one(
        f"(%l: tensor<{t}>, %x: tensor<2x{t}>, %h: tensor<{t}>) -> tensor<2x{t}>",
        f"  %r = stablehlo.clamp %l, %x, %h : (tensor<{t}>, tensor<2x{t}>, tensor<{t}>) -> tensor<2x{t}>\n  func.return %r : tensor<2x{t}>",
        np.array(-0.0, np.float64).astype(dtype),
        z,
        np.array(0.0, np.float64).astype(dtype),
    )
    # clamp(-0, x, +0) = min(max(x, -0), +0): +0 stays +0, -0 stays -0
    assert np.signbit(clamped.astype(np.float32)).tolist() == [False, True]


def test_float_reduce_add_is_the_exact_sum_rounded_once() -> None:
    """bf16 [256, 1, 1] over the minor dim: the exact sum 258 is a bf16 (a left-to-right
    bf16 fold ties 257 to 256 twice); f32 [1, 2^-24, 2^-60]: above the tie, 1 + 2^-23."""
    x = np.array([[256.0, 1.0, 1.0], [-0.0, -0.0, -0.0]], BF16)
    r = one(
        "(%a: tensor<2x3xbf16>, %i: tensor<bf16>) -> tensor<2xbf16>",
        "  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2xbf16>\n  func.return %r : tensor<2xbf16>",
        x,
        np.array(-0.0, BF16),
    )
    assert r.view(np.uint16).tolist() == [0x4381, 0x0000]  # 258 = 1.0000001b x 2^8; +0
    y = np.array([1.0, 2.0**-24, 2.0**-60], np.float32)
    s = one(
        "(%a: tensor<3xf32>, %i: tensor<f32>) -> tensor<f32>",
        "  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n  func.return %r : tensor<f32>",
        y,
        np.array(0.0, np.float32),
    )
    assert s.view(np.uint32) == 0x3F800001


def test_sign_keeps_the_sign_of_zero() -> None:
    """StableHLO's sign: -1 / -0 / +0 / 1 / NaN (numpy's np.sign(-0.0) is +0)."""
    x = np.array([-2.5, -0.0, 0.0, 3.0, np.nan], np.float32)
    s = unary("sign", "tensor<5xf32>", x)
    assert s.view(np.uint32).tolist()[:4] == [0xBF800000, 0x80000000, 0x00000000, 0x3F800000]
    assert np.isnan(s[4])

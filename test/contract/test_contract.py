"""The MX contract catalog, its documentation, and the per-target contract registry.

The lit tests beside this file show every error message through ``mx-opt``; these tests
check what lit cannot: that the catalog is complete, that docs/contract.md and the lit
suite cover every code, and that the registry is extensible from Python.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E8M0FNUType,
    Float32Type,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    TupleType,
    f32,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from mxdsl.contract import (
    CATALOG,
    CustomCallSignature,
    ErrorCode,
    MxContractError,
    contract_for,
    format_error,
    register_contract,
    registered_targets,
    verify_custom_call,
)
from mxdsl.contract import registry as registry_module
from mxdsl.contract.errors import OCP_MX_SPEC_URL
from mxdsl.contract.mx import (
    BLOCK_SCALED_DOT,
    QUANTIZE_MX,
    QUANTIZE_MX_LEGALIZED_PREFIX,
    SCALED_MATMUL_LEGALIZED_PREFIX,
    check_block_scaled_dot,
    check_quantize_mx,
    check_quantize_mx_legalized,
    check_scaled_matmul_legalized,
    normalize_quantize_dim,
)
from mxdsl.dialects.hlo import CustomCallOp

TEST_DIR = Path(__file__).parent
DOC = TEST_DIR.parent.parent / "docs" / "contract.md"
CODE_RE = re.compile(r"MX[QDL]\d\d")

ui32 = IntegerType(32, Signedness.UNSIGNED)


# ------------------------------------------------------------------------ catalog


def test_every_code_has_a_cause_and_a_resolution():
    assert set(CATALOG) == set(ErrorCode)
    for code, info in CATALOG.items():
        assert info.cause.strip(), code
        assert info.resolution.strip(), code
        assert "\n" not in info.cause + info.resolution, code


def test_codes_are_unique_and_well_formed():
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(CODE_RE.fullmatch(v) for v in values), values
    # numbered from 01 without gaps within each family
    for family in "QDL":
        numbers = sorted(int(v[3:]) for v in values if v[2] == family)
        assert numbers == list(range(1, len(numbers) + 1)), family


def test_the_spec_strings_are_quoted():
    """The causes and resolutions the spec recovered from the binary, verbatim."""
    assert CATALOG[ErrorCode.QMX_BACKEND_CONFIG].resolution == (
        "Ensure the backend_config is valid JSON with required fields: "
        "dtype, dim, block_size, scale_method."
    )
    for code, quoted in (
        (ErrorCode.QMX_INPUT_TYPE, "only BF16 and F16 are supported"),
        (ErrorCode.QMX_DTYPE, "only 'float8_e5m2' and 'float8_e4m3fn' are supported"),
        (ErrorCode.QMX_BLOCK_SIZE, "block_size must be 32"),
        (ErrorCode.QMX_RESULT_TUPLE, "must return a tuple with exactly 2 outputs"),
        (ErrorCode.QMX_X4_DIVISIBILITY, "must be divisible by 4 for x4 packing"),
        (ErrorCode.SD_OPERAND_COUNT, "must have exactly 4 operands (lhs, rhs, lhs_scale"),
        (ErrorCode.SD_DATA_TYPE, "only U32 (packed MX format from QuantizeMX) is supported"),
        (ErrorCode.SD_RESULT_TYPE, "only F32 and BF16 are supported"),
        (ErrorCode.SD_CONTRACT_MISMATCH, "same contract dim and size for lhs and rhs"),
    ):
        assert quoted in CATALOG[code].cause, code
    # the OCP MX v1.0 spec URL is cited in the resolutions about the OCP formats
    for code in (ErrorCode.QMX_DTYPE, ErrorCode.QMX_BLOCK_SIZE, ErrorCode.SD_ELEMENT_DTYPE):
        assert OCP_MX_SPEC_URL in CATALOG[code].resolution, code


def test_format_error_has_the_three_lines():
    text = format_error(ErrorCode.QMX_BLOCK_SIZE, "QuantizeMX", "block_size is 16")
    info = CATALOG[ErrorCode.QMX_BLOCK_SIZE]
    assert text.split("\n") == [
        "[MXQ05] QuantizeMX: block_size is 16",
        f"  cause: {info.cause}",
        f"  resolution: {info.resolution}",
    ]


def test_contract_error_is_a_verify_exception_carrying_its_parts():
    err = MxContractError(ErrorCode.SD_RANK, BLOCK_SCALED_DOT, "lhs has rank 1")
    assert isinstance(err, VerifyException)
    assert (err.code, err.target, err.detail) == (
        ErrorCode.SD_RANK,
        BLOCK_SCALED_DOT,
        "lhs has rank 1",
    )
    assert str(err) == format_error(ErrorCode.SD_RANK, BLOCK_SCALED_DOT, "lhs has rank 1")


# --------------------------------------------------------------- docs and lit


def _doc_rows() -> dict[str, list[str]]:
    """The rows of the code table in docs/contract.md: code -> its cells. Cells are
    split on unescaped ``|``; ``\\|`` is a literal bar and `backticks` are dropped."""
    rows: dict[str, list[str]] = {}
    for line in DOC.read_text().splitlines():
        if not line.startswith("|"):
            continue
        cells = [
            c.strip().replace("\\|", "|").replace("`", "")
            for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))
        ]
        if CODE_RE.fullmatch(cells[0]):
            assert cells[0] not in rows, f"{cells[0]} is listed twice"
            rows[cells[0]] = cells
    return rows


def test_the_doc_lists_every_code_with_its_catalog_text():
    rows = _doc_rows()
    assert set(rows) == {code.value for code in ErrorCode}
    for code in ErrorCode:
        _, name, _check, cause, resolution = rows[code.value]
        assert name == code.name, code
        assert cause == CATALOG[code].cause, code
        assert resolution == CATALOG[code].resolution, code


def test_every_code_has_a_lit_case():
    """Each code appears in a CHECK line of a lit test here, so each message is shown."""
    checked: set[str] = set()
    for path in TEST_DIR.glob("*.mlir"):
        checked |= set(re.findall(r"// CHECK: .*\[(MX[QDL]\d\d)\]", path.read_text()))
    assert checked == {code.value for code in ErrorCode}


# ---------------------------------------------------------------------- registry


@pytest.fixture
def scratch_targets() -> Iterator[list[str]]:
    """Names a test registers; removed from the module-level registry afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        registry_module._EXACT.pop(name, None)
        registry_module._PREFIX.pop(name, None)
    assert not set(names) & set(registered_targets())


def _values(*types: Attribute):
    return test_dialect.TestOp(result_types=list(types)).results


def _reject_odd_operand_count(call: CustomCallSignature) -> None:
    if len(call.operand_types) % 2:
        raise VerifyException(f"MyExt: {call.target} wants an even operand count")


def test_an_extension_registers_a_contract(scratch_targets):
    name = "test_contract.MyTarget"
    scratch_targets.append(name)
    register_contract(name, _reject_odd_operand_count)
    assert registered_targets()[name] == "exact"
    assert contract_for(name) is _reject_odd_operand_count

    t = TensorType(f32, [4])
    CustomCallOp(name, _values(t, t), t).verify()  # two operands: fine
    bad = CustomCallOp(name, _values(t), t, backend_config="{}")
    with pytest.raises(VerifyException, match="MyExt: test_contract.MyTarget wants an even"):
        bad.verify()
    # the same error when the op is verified as part of a module
    module = ModuleOp([test_dialect.TestOp(result_types=[t]), CustomCallOp(name, _values(t), t)])
    with pytest.raises(VerifyException, match="wants an even operand count"):
        module.verify()


def test_an_extension_can_use_the_catalog_formatter(scratch_targets):
    name = "test_contract.Formatted"
    scratch_targets.append(name)

    def check(call: CustomCallSignature) -> None:
        raise MxContractError(ErrorCode.QMX_OPERAND_COUNT, call.target, "always")

    register_contract(name, check)
    t = TensorType(f32, [4])
    with pytest.raises(MxContractError) as info:
        CustomCallOp(name, _values(t), t).verify()
    assert info.value.code is ErrorCode.QMX_OPERAND_COUNT
    assert str(info.value).startswith("[MXQ01] test_contract.Formatted: always\n  cause: ")


def test_registering_a_name_twice_is_an_error(scratch_targets):
    name = "test_contract.Twice"
    scratch_targets.append(name)
    register_contract(name, _reject_odd_operand_count)
    with pytest.raises(ValueError, match="already registered"):
        register_contract(name, _reject_odd_operand_count)
    # exact and prefix tables are separate namespaces, each refusing duplicates
    register_contract(name, _reject_odd_operand_count, prefix=True)
    with pytest.raises(ValueError, match="already registered"):
        register_contract(name, _reject_odd_operand_count, prefix=True)
    # and the MX contracts themselves cannot be replaced
    with pytest.raises(ValueError, match="already registered"):
        register_contract(QUANTIZE_MX, _reject_odd_operand_count)


def test_prefix_lookup_exact_first_then_longest_prefix(scratch_targets):
    short, long, exact = "test_contract.P_", "test_contract.P_long_", "test_contract.P_long_x"
    scratch_targets += [short, long, exact]

    def a(call: CustomCallSignature) -> None: ...
    def b(call: CustomCallSignature) -> None: ...
    def c(call: CustomCallSignature) -> None: ...

    register_contract(short, a, prefix=True)
    register_contract(long, b, prefix=True)
    register_contract(exact, c)
    assert contract_for("test_contract.P_other") is a
    assert contract_for("test_contract.P_long_y") is b
    assert contract_for(exact) is c
    assert contract_for("test_contract.Q") is None
    assert registered_targets()[long] == "prefix"


def test_the_mx_contracts_are_registered():
    assert contract_for(QUANTIZE_MX) is check_quantize_mx
    assert contract_for(BLOCK_SCALED_DOT) is check_block_scaled_dot
    assert contract_for("QuantizeMX_bf16_e4m3fn") is check_quantize_mx_legalized
    assert contract_for("QuantizeMX_anything") is check_quantize_mx_legalized
    assert contract_for("ScaledMatmul_e5m2_e5m2_bf16") is check_scaled_matmul_legalized
    assert contract_for("QuantizeMXv2") is None  # exact name, or the prefix with "_"
    assert contract_for("ScaledMatmul") is None
    targets = registered_targets()
    assert targets[QUANTIZE_MX] == targets[BLOCK_SCALED_DOT] == "exact"
    assert targets[QUANTIZE_MX_LEGALIZED_PREFIX] == "prefix"
    assert targets[SCALED_MATMUL_LEGALIZED_PREFIX] == "prefix"


def test_unregistered_targets_are_not_checked():
    t = TensorType(f32, [4])
    CustomCallOp("test_contract.Unknown", _values(t), t, backend_config="not json").verify()


# ------------------------------------------------------ the MX contract from Python


def _quantize_signature(**config: object) -> CustomCallSignature:
    fields = {"dtype": "float8_e4m3fn", "dim": -1, "block_size": 32, "scale_method": "EMAX"}
    fields.update(config)
    return CustomCallSignature(
        target=QUANTIZE_MX,
        operand_types=(TensorType(BFloat16Type(), [4, 64]),),
        result_type=TupleType((TensorType(ui32, [4, 16]), TensorType(Float8E8M0FNUType(), [4, 2]))),
        backend_config=json.dumps(fields),
        api_version=1,
    )


def test_contract_on_a_signature_without_ir():
    verify_custom_call(_quantize_signature())
    with pytest.raises(MxContractError) as info:
        verify_custom_call(_quantize_signature(block_size=16))
    assert info.value.code is ErrorCode.QMX_BLOCK_SIZE
    assert info.value.detail == "block_size is 16"


def test_custom_call_verifier_raises_the_contract_error():
    (x,) = _values(TensorType(BFloat16Type(), [4, 64]))
    result = TupleType((TensorType(ui32, [4, 16]), TensorType(Float8E8M0FNUType(), [4, 2])))
    config = {"dtype": "float8_e5m2", "dim": 1, "block_size": 32, "scale_method": "EMAX"}
    CustomCallOp(QUANTIZE_MX, [x], result, json.dumps(config)).verify()
    config["scale_method"] = "MAX"
    with pytest.raises(MxContractError) as info:
        CustomCallOp(QUANTIZE_MX, [x], result, json.dumps(config)).verify()
    assert info.value.code is ErrorCode.QMX_SCALE_METHOD


def test_block_scaled_dot_from_python():
    lhs, rhs, ls, rs = _values(
        TensorType(ui32, [4, 16]),
        TensorType(ui32, [16, 8]),
        TensorType(Float8E8M0FNUType(), [4, 2]),
        TensorType(Float8E8M0FNUType(), [2, 8]),
    )
    config = {
        "scaled_dot_backend_config": {
            "lhs_contracting_dimensions": [1],
            "rhs_contracting_dimensions": [0],
            "element_dtype": "float8_e4m3fn",
        }
    }
    ok = CustomCallOp(
        BLOCK_SCALED_DOT, [lhs, rhs, ls, rs], TensorType(f32, [4, 8]), json.dumps(config)
    )
    ok.verify()
    bad = CustomCallOp(
        BLOCK_SCALED_DOT, [lhs, rhs, ls, rs], TensorType(Float32Type(), [8, 4]), json.dumps(config)
    )
    with pytest.raises(MxContractError) as info:
        bad.verify()
    assert info.value.code is ErrorCode.SD_RESULT_SHAPE


@pytest.mark.parametrize(
    ("rank", "accepted"),
    [
        (0, {}),
        (1, {0: 0, -1: 0}),
        (2, {1: 1, -1: 1, 0: 0, -2: 0}),
        (3, {2: 2, -1: 2, 1: 1, -2: 1}),
        (4, {3: 3, -1: 3, 2: 2, -2: 2}),
    ],
)
def test_normalize_quantize_dim(rank: int, accepted: dict[int, int]):
    for dim in range(-rank - 2, rank + 2):
        assert normalize_quantize_dim(dim, rank) == accepted.get(dim), (dim, rank)


def test_the_doc_example_registers_a_working_contract(scratch_targets):
    """The registration example in docs/contract.md runs and does what it says."""
    (example,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    scratch_targets += ["MyTopK", "MyTopK_"]
    exec(compile(example, str(DOC), "exec"), {})
    t = TensorType(f32, [4])
    CustomCallOp("MyTopK", _values(t), t).verify()
    for target in ("MyTopK", "MyTopK_v2"):
        with pytest.raises(VerifyException, match=f"{target} takes one operand, got 2"):
            CustomCallOp(target, _values(t, t), t).verify()


@pytest.mark.parametrize(
    ("batch", "contract", "message"),
    [
        (((), (0, 1)), ((1,), (0,)), "rhs has [0, 1]"),
        (((0, 1), ()), ((1,), (0,)), "lhs has [0, 1]"),
        (((), ()), ((), ()), "exactly one contracting dimension, lhs has []"),
        (((), ()), ((1,), (0, 1)), "exactly one contracting dimension, rhs has [0, 1]"),
    ],
)
def test_scaled_matmul_metadata_refuses_what_its_slots_cannot_hold(batch, contract, message):
    from mxdsl.contract.mx import ScaledDotConfig, scaled_matmul_metadata

    config = ScaledDotConfig(batch[0], batch[1], contract[0], contract[1], "float8_e4m3fn")
    with pytest.raises(ValueError, match=re.escape(message)):
        scaled_matmul_metadata(config, 3, 3)

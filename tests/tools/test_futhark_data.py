"""Futhark's data format: every type and rank both ways, the bytes of the binary format, and an error with its line
for each malformed value."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from soac.tools.futhark_data import (
    TYPES,
    DataError,
    format_binary,
    format_text,
    parse_binary,
    parse_data,
    parse_text,
    read_data_file,
)


def values(text: str) -> list[tuple[object, str, bool]]:
    """(value as a list, dtype name, typed) of each value in `text`."""
    return [(v.value.tolist(), str(v.value.dtype), v.typed) for v in parse_text(text)]


def test_scalars_and_their_types() -> None:
    assert values("3 -2i64 0xFFu8 0b101i8 1_000 2.5 1e3f32 2f32 true false") == [
        (3, "int32", False),
        (-2, "int64", True),
        (255, "uint8", True),
        (5, "int8", True),
        (1000, "int32", False),
        (2.5, "float64", False),
        (1000.0, "float32", True),
        (2.0, "float32", True),
        (True, "bool", True),
        (False, "bool", True),
    ]


def test_special_floats() -> None:
    nan, inf, minus_inf = (v.value for v in parse_text("f32.nan f64.inf -f16.inf"))
    assert np.isnan(nan) and nan.dtype == np.float32  # noqa: PT018
    assert inf == np.inf and inf.dtype == np.float64  # noqa: PT018
    assert minus_inf == -np.inf and minus_inf.dtype == np.float16  # noqa: PT018


def test_arrays_comments_and_lines() -> None:
    parsed = parse_text("-- a matrix\n[[1, 2],\n [3, 4]]  [1.5, 2f32]\n[1, 2i64] empty([2][0]f32)", "x.in")
    assert [v.line for v in parsed] == [2, 3, 4, 4]
    matrix, floats, mixed, empty = parsed
    assert matrix.value.tolist() == [[1, 2], [3, 4]]
    assert matrix.value.dtype == np.int32
    assert not matrix.typed
    assert floats.value.tolist() == [1.5, 2.0]
    assert floats.value.dtype == np.float32
    assert mixed.value.dtype == np.int64  # untyped elements take the type of a typed one
    assert mixed.typed
    assert empty.value.shape == (2, 0)
    assert empty.value.dtype == np.float32


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", "x.in:1: the '[' is never closed"),
        ("\n\n[1, 2,", "x.in:3: the '[' is never closed"),
        ("[1 2]", "x.in:1: expected ',' or ']' in an array, found '2'"),
        ("[[1], [2, 3]]", "x.in:1: the rows of an array have different shapes"),
        ("[1i32, 2i64]", "x.in:1: an array mixes i32 and i64 elements"),
        ("300u8", "x.in:1: 300 is out of range for u8"),
        ("-1u8", "x.in:1: -1 is out of range for u8"),
        ("2.5i32", "x.in:1: 2.5 is not an integer, but the value has type i32"),
        ("[1.5, 2i64]", "x.in:1: 1.5 is not an integer, but the value has type i64"),
        ("[]", "x.in:1: an empty array needs its type: write empty([0]i32)"),
        ("empty([3]i32)", "x.in:1: empty([3]i32) has no zero dimension"),
        ("empty([0]q32)", "x.in:1: unknown type 'q32' in empty(...)"),
        ("empty(i32)", "x.in:1: expected a shape and type like empty([0][3]i32)"),
        ("1\n  }", "x.in:2: expected a value, found '}'"),
        ("3q8", "x.in:1: unknown type suffix 'q8' in '3q8'"),
        ("1\n[2, 3i31]", "x.in:2: unknown type suffix 'i31' in '3i31'"),
        ("[", "x.in:1: the '[' is never closed"),
        ("-- values\n[1,\n 2}", "x.in:3: expected ',' or ']' in an array, found '}'"),
        ("[1, true]", "x.in:1: 1 is not a boolean, but the value has type bool"),
        ("[true, 0]", "x.in:1: 0 is not a boolean, but the value has type bool"),
        ("[f32.nan, 1i32]", "x.in:1: an array mixes f32 and i32 elements"),
        ("1.5.", "x.in:1: '1.5.' is not a number"),
        ("1e5.", "x.in:1: '1e5.' is not a number"),
        ("0x_", "x.in:1: unknown type suffix 'x_' in '0x_'"),
        ("truefalse", "x.in:1: expected a value, found 'truefalse'"),
        ("3000000000", "x.in:1: 3000000000 is out of range for i32"),
        ("128i8", "x.in:1: 128 is out of range for i8"),
        ("0x100u8", "x.in:1: 0x100 is out of range for u8"),
        ("1e40f32", "x.in:1: 1e40 is out of range for f32"),
        ("70000f16", "x.in:1: 70000 is out of range for f16"),
        ("1e400", "x.in:1: 1e400 is out of range for f64"),
        ("[1, empty([0]i32)]", "x.in:1: the rows of an array have different shapes"),
    ],
)
def test_text_errors_name_source_and_line(text: str, message: str) -> None:
    with pytest.raises(DataError) as error:
        parse_text(text, "x.in")
    assert str(error.value) == message


def test_numbers_in_every_notation() -> None:
    assert values("1_000_000i64 0x_ff_ffu16 0b1010_1010u8 -0x80i8 1. .5 1.5e-3 1E3f16 1e+2f32 0x1f32 0b11f64") == [
        (1_000_000, "int64", True),
        (0xFFFF, "uint16", True),
        (0b10101010, "uint8", True),
        (-128, "int8", True),
        (1.0, "float64", False),
        (0.5, "float64", False),
        (1.5e-3, "float64", False),
        (1000.0, "float16", True),
        (100.0, "float32", True),
        (0x1F32, "int32", False),  # a hexadecimal number takes the f of f32 as a digit
        (3.0, "float64", True),
    ]
    assert values("18446744073709551615u64 -9223372036854775808i64") == [
        (2**64 - 1, "uint64", True),
        (-(2**63), "int64", True),
    ]


def test_commas_separate_values_like_whitespace() -> None:
    assert values("1, 2i64,[3]") == [(1, "int32", False), (2, "int64", True), ([3], "int32", False)]


def test_empty_arrays_inside_arrays() -> None:
    (nested,) = parse_text("[empty([0]i16), empty([0]i16)]")
    assert nested.value.shape == (2, 0)
    assert nested.value.dtype == np.int16
    assert nested.typed


def test_floats_are_written_in_their_shortest_form() -> None:
    arrays = [np.float32(0.1), np.float16(0.1), np.float64(0.1), np.float32(1e30), np.float64(5e-324)]
    assert format_text(arrays).split() == ["0.1f32", "0.1f16", "0.1f64", "1e+30f32", "5e-324f64"]
    assert [v.value for v in parse_text(format_text(arrays))] == arrays


def test_values_without_a_futhark_type_are_refused() -> None:
    for array in (np.zeros(2, np.complex64), np.zeros((0, 2), np.complex64), np.array(["a"])):
        with pytest.raises(DataError, match="have no Futhark type"):
            format_text([array])
        with pytest.raises(DataError, match="have no Futhark type"):
            format_binary([array])


def test_binary_value_byte_for_byte() -> None:
    assert format_binary([np.array([1, 2], np.int32)]) == (
        b"b" + b"\x02" + b"\x01" + b" i32" + b"\x02\x00\x00\x00\x00\x00\x00\x00" + b"\x01\x00\x00\x00" + b"\x02\x00\x00\x00"
    )
    assert format_binary([np.uint8(7), np.False_]) == b"b\x02\x00  u8\x07" + b"b\x02\x00bool\x00"


def test_binary_bytes_are_the_documented_layout() -> None:
    data = format_binary([np.array([1, 2], np.int32), np.float64(0.5), np.array([[True]])])
    assert data[:7] == b"b\x02\x01 i32"
    assert struct.unpack_from("<Q2i", data, 7) == (2, 1, 2)
    rest = data[7 + 8 + 8 :]
    assert rest[:7] == b"b\x02\x00 f64"
    assert struct.unpack_from("<d", rest, 7) == (0.5,)
    assert rest[15:] == b"b\x02\x02bool" + struct.pack("<QQ", 1, 1) + b"\x01"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"b\x01\x00 i32\x00\x00\x00\x00", "x.bin:1: binary value at byte 0: format version 1, expected 2"),
        (b"b\x02\x00 q32\x00\x00\x00\x00", "x.bin:1: binary value at byte 0: unknown type ' q32'"),
        (b"b\x02\x01 i32\x03\x00", "x.bin:1: binary value at byte 0: the shape is cut short"),
        (b"b\x02\x01 i32" + struct.pack("<Q", 3) + b"\x01\x00\x00\x00", "expected 3 i32 elements, the data ends first"),
        (b"b\x02", "x.bin:1: binary value at byte 0: the header is cut short"),
        (b"1\n2\n b\x02\x00 f64\x00", "x.bin:3: binary value at byte 5: expected 1 f64 elements, the data ends first"),
        (
            b"b\x02\x02 i64" + struct.pack("<QQ", 0, 2**63),
            "the shape [0, 9223372036854775808] is too large",
        ),
    ],
)
def test_binary_errors(data: bytes, message: str) -> None:
    with pytest.raises(DataError) as error:
        parse_data(data, "x.bin")
    assert message in str(error.value)


def test_parse_binary_refuses_text() -> None:
    with pytest.raises(DataError) as error:
        parse_binary(b"\n 1i32", "x.bin")
    assert str(error.value) == "x.bin:2: binary value at byte 2: expected the byte 'b'"


def test_text_and_binary_mix_in_one_file(tmp_path: Path) -> None:
    path = tmp_path / "mixed.in"
    path.write_bytes(b"[1, 2]\n" + format_binary([np.int64(5)]) + b"\n 3f32\n")
    mixed = read_data_file(path)
    assert [v.value.tolist() for v in mixed] == [[1, 2], 5, 3.0]
    assert [str(v.value.dtype) for v in mixed] == ["int32", "int64", "float32"]


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nowhere\.in: no such file"):
        read_data_file(tmp_path / "nowhere.in")


def test_special_values_and_empty_arrays_round_trip() -> None:
    arrays = [np.array([np.nan, -np.inf, np.inf, -0.0], np.float32), np.zeros((0, 3), np.int16), np.zeros((2, 0), np.bool_)]
    text = format_text(arrays)
    assert text.splitlines() == ["[f32.nan, -f32.inf, f32.inf, -0.0f32]", "empty([0][3]i16)", "empty([2][0]bool)"]
    for round_trip in (parse_data(text.encode()), parse_binary(format_binary(arrays))):
        for original, back in zip(arrays, round_trip):
            assert back.value.dtype == original.dtype
            np.testing.assert_array_equal(back.value, original)


@given(
    st.sampled_from(sorted(TYPES)).flatmap(
        lambda name: hnp.arrays(
            TYPES[name],
            hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
        )
    )
)
def test_every_type_and_rank_round_trips(array: np.ndarray) -> None:
    for parsed in (parse_data(format_text([array]).encode()), parse_data(format_binary([array]))):
        (back,) = parsed
        assert back.typed
        assert back.value.dtype == array.dtype
        assert back.value.shape == array.shape
        np.testing.assert_array_equal(back.value, array)

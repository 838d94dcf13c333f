"""The stanza syntax of `soac-test`: what each stanza means, and a clear error with its line for each malformed one."""

from __future__ import annotations

from pathlib import Path

import pytest
from soac.tools.test_spec import DEFAULT_PIPELINE, SpecError, parse_test_spec

PROGRAM = """// A description above the block is not read.
// input { 1 } is not a case here.
//
// ==
// entry: main
// input { [1, 2,
//          3, 4] }
// output { [4, 11, 21, 34] }
// input @ data/big.in output @ data/big.out
// random input { [100]i32 [3][4]f32 }
// nobench compiled input { [1] 5 }
// error: out of bounds
// input { [7] } auto output
// tags { slow }
// structure { soac.scanomap 1 soac.map 0 }
// structure pipeline(soac-fuse,soac-flatten{mode=full}) { soac.segscan 1 }
// structure pipeline() { /soac.map 1 }

func.func @main(%xs: tensor<?xi32>) -> tensor<?xi32> {
  func.return %xs : tensor<?xi32>
}

// ==
// entry: other @third
// input { 3 } output { 4 }
"""


def test_cases_and_their_expectations() -> None:
    spec = parse_test_spec(Path("dir/prog.mlir"), PROGRAM)
    main = [case for case in spec.cases if case.entry == "main"]
    assert [case.index for case in main] == [0, 1, 2, 3, 4]
    literal, files, random, failing, auto = main
    assert literal.input.text is not None
    assert literal.input.text.split() == ["[1,", "2,", "3,", "4]"]
    assert literal.input.line == 6
    assert literal.output is not None
    assert literal.output.line == 8
    assert files.input.file == Path("dir/data/big.in")
    assert files.output is not None
    assert files.output.file == Path("dir/data/big.out")
    assert random.input.random == (((100,), "i32"), ((3, 4), "f32"))
    assert random.output is None
    assert random.error is None
    assert failing.error == "out of bounds"
    assert failing.no_bench
    assert failing.compiled_only
    assert auto.output is None
    assert auto.error is None
    assert all(case.tags == ("slow",) for case in main)
    assert literal.name == '@main #0 ("[1, 2, 3, 4]")'
    assert files.name == "@main #1 (big.in)"


def test_structure_checks() -> None:
    spec = parse_test_spec(Path("prog.mlir"), PROGRAM)
    default, full, written = spec.structures
    assert (default.line, default.pipeline, default.counts) == (15, DEFAULT_PIPELINE, (("soac.scanomap", 1), ("soac.map", 0)))
    assert full.pipeline == "soac-fuse,soac-flatten{mode=full}"
    assert full.counts == (("soac.segscan", 1),)
    assert written.pipeline == ""
    assert written.counts == (("/soac.map", 1),)


def test_entries_of_several_blocks() -> None:
    spec = parse_test_spec(Path("prog.mlir"), PROGRAM)
    assert spec.entries == {"main": 5, "other": 24, "third": 24}
    other = [case for case in spec.cases if case.entry == "other"]
    third = [case for case in spec.cases if case.entry == "third"]
    assert len(other) == len(third) == 1
    assert other[0].index == 0
    assert other[0].tags == ()


def test_a_file_without_a_block_has_no_cases() -> None:
    spec = parse_test_spec(Path("prog.mlir"), "// input { 1 } output { 2 }\nfunc.func @main() {\n}\n")
    assert spec.cases == []
    assert spec.structures == []


def test_a_block_without_entry_tests_main() -> None:
    spec = parse_test_spec(Path("prog.mlir"), "// ==\n// input { 1 } output { 2 }\n")
    assert [case.entry for case in spec.cases] == ["main"]


@pytest.mark.parametrize(
    ("stanzas", "message"),
    [
        ("// input [1]", "prog.mlir:3: expected '{' after input, found '[1]'"),
        ("// inptu { 1 }", "prog.mlir:3: expected 'input', 'output', 'error:', 'structure', 'entry:' or 'tags', found 'inptu'"),
        ("// input { [1]\n// output { 2 }", "prog.mlir:3: the '{' of input is never closed"),
        ("// input { 1 }\n// output", "prog.mlir:4: expected '{' after output, found the end of the block"),
        ("// input { 1 }\n// output @", "prog.mlir:4: expected a file name after 'output @'"),
        ("// structure { soac.map }", "prog.mlir:3: structure wants pairs of an op name and a count, got 'soac.map'"),
        ("// structure { soac.map x }", "prog.mlir:3: the count of soac.map in structure must be a number, got 'x'"),
        ("// structure pipeline(soac-fuse { soac.map 1 }", "prog.mlir:3: the '(' of 'pipeline(' is never closed"),
        ("// input { 1 } error: (", "prog.mlir:3: 'error:' wants a regular expression: missing ), unterminated subpattern"),
        ("// random input { [3]x }", "prog.mlir:3: expected a shape and type like [100][10]f32 in random input, found '[3]x'"),
        ("// compiled output { 1 }", "prog.mlir:3: expected 'input' after 'compiled', found 'output'"),
        ("// entry:", "prog.mlir:3: 'entry:' names no function"),
        ("// input { 1 } auto input", "prog.mlir:3: expected 'output' after 'auto'"),
        ("// output { 1 }", "prog.mlir:3: 'output' must follow an input, once"),
        ("// input { 1 } output { 2 } error: x", "prog.mlir:3: 'error:' must follow an input, once"),
    ],
)
def test_malformed_stanzas_name_file_and_line(stanzas: str, message: str) -> None:
    with pytest.raises(SpecError) as error:
        parse_test_spec(Path("prog.mlir"), f"// Test.\n// ==\n{stanzas}\nfunc.func @main() {{\n}}\n")
    assert str(error.value).startswith(message)

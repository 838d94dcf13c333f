"""The import graph of soac (bench/import_graph.py: every `import` in a module's source, lazy ones inside functions
included) has no cycle, and soac.lang's modules import everything at their top, in layers: the value classes below
what builds IR from them, their operators and methods attached by `soac.lang.methods`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import soac.lang as sl
from soac.lang.values import Array, Scalar

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import import_graph  # noqa: E402  # pyright: ignore[reportMissingImports]


def test_the_soac_package_imports_no_cycle() -> None:
    edges = import_graph.graph()
    assert "soac.lang.values" in edges
    assert "soac.lowering.conversion.soac_to_kernel" in edges
    assert import_graph.cycles(edges) == []


def test_a_cycle_is_found() -> None:
    """The check above can fail: a module importing back, lazily or not, is a cycle."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_graph.cycles(edges) == [["a", "b", "c"]]


def _function_level_imports(path: Path) -> list[int]:
    """The lines of `path` that import inside a function or class (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(), str(path))
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            lines += [n.lineno for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
    return sorted(set(lines))


def test_soac_lang_imports_at_module_top() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "lang").rglob("*.py"))
        if (lines := _function_level_imports(path))
    }
    assert found == {}


def test_the_value_classes_import_only_the_layers_below() -> None:
    edges = import_graph.graph()
    lang = {m: {t for t in targets if t.startswith("soac.lang")} for m, targets in edges.items() if m.startswith("soac.lang")}
    assert lang["soac.lang.errors"] == set()
    assert lang["soac.lang.dtypes"] == {"soac.lang.errors"}
    assert lang["soac.lang.tracer"] == {"soac.lang.dtypes", "soac.lang.errors"}
    assert lang["soac.lang.values"] == {"soac.lang.dtypes", "soac.lang.errors", "soac.lang.tracer"}


def test_the_methods_are_attached_when_soac_lang_is_imported() -> None:
    """`soac.lang.methods.install` gives the classes their operators and numpy methods; `==` builds IR, so values
    are no dictionary keys (as before the methods moved)."""
    for name in ("__add__", "__rlshift__", "__eq__", "__pow__", "astype"):
        assert name in vars(Scalar), name
    for name in ("__add__", "__matmul__", "__getitem__", "T", "at", "sum", "reshape", "astype"):
        assert name in vars(Array), name
    assert "__rlshift__" not in vars(Array)
    assert Scalar.__hash__ is None
    assert Array.__hash__ is None
    assert callable(sl.f32)

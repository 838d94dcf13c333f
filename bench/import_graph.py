"""The import graph of the `soac` package, lazy imports (inside functions) included, and its cycles.

    python bench/import_graph.py            # prints each cycle (none: "no import cycle"), exit status 1 if any
    python bench/import_graph.py --dot      # the graph in Graphviz's dot language

Every `import` and `from ... import` anywhere in a module's source is an edge, whether it runs at import time or
inside a function (not those under `if TYPE_CHECKING:`, which never run); `from pkg import name` is an edge to
`pkg.name` where that is a module, else to `pkg`. A package is not counted as imported by its submodules' imports
(Python runs `pkg/__init__.py` first, but that only closes a cycle where `pkg/__init__.py` itself imports back).
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_folders(root: Path) -> dict[str, Path]:
    """The folder of each package of `soac` (pyproject.toml's packages, placed by its package-dir)."""
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    placed: dict[str, str] = config["package-dir"]
    folders: dict[str, Path] = {}
    for package in config["packages"]:
        prefix = max((p for p in placed if package == p or package.startswith(p + ".")), key=len)
        folders[package] = root / placed[prefix] / package[len(prefix) :].lstrip(".").replace(".", "/")
    return folders


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its `__init__.py`)."""
    found: dict[str, Path] = {}
    for package, folder in package_folders(root).items():
        for path in folder.glob("*.py"):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that the source of `path` imports, anywhere in it."""
    edges: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                edges.add(name)
    return edges


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports(path, known) - {name} for name, path in sorted(known.items())}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dot", action="store_true", help="print the graph in dot")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to read (default: this one)")
    args = parser.parse_args()
    edges = graph(args.root)
    if args.dot:
        print("digraph soac {")
        for source, targets in edges.items():
            for target in sorted(targets):
                print(f'  "{source}" -> "{target}";')
        print("}")
        return
    found = cycles(edges)
    for component in found:
        print("cycle:", " ".join(component))
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports, {len(found)} cycles" if found else "no import cycle")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()

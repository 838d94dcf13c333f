"""Random *nested* SOAC programs, for differential tests of soac-fuse, soac-flatten and the lowering.

`nested_programs()` is a hypothesis strategy of `Program`s: a function
`@main(%n: index, %m: index, %l: index, %xss: tensor<?x?xi32>, %yss: tensor<?x?xi32>, %x3: tensor<?x?x?xi32>)`
(`%xss`, `%yss`: n x m; `%x3`: n x l x m) built from

- maps over the rows of one or two matrices whose lambdas run SOACs of every kind over the rows (map, reduce,
  scan, redomap and scanomap with map-outs and post lambdas, scan+reduce, hist alone and in pairs over one bin
  array), yielding one to three rows and scalars (multi-result maps);
- maps over a 3-D array whose lambdas map over the rows of each matrix in turn;
- scans and reductions over the per-row results, maps over them, and loops around a nest;

over shapes that include zero rows, zero columns and single elements (`nested_args`). Integer ops only: a
transformed program must give exactly the same arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st
from programs import BINOPS, OPERATORS, T1, T2, Draw, Generator, Program  # pyright: ignore[reportMissingImports]

T3 = "tensor<?x?x?xi32>"


class RowGenerator(Generator):
    """The 1-D generator without reads of element 0 of whole arrays in lambdas: rows here may be empty."""

    def lambda_body(self, params: list[str], n_yield: int, indent: str, free: bool = True) -> tuple[list[str], list[str]]:
        arrays, self.arrays = self.arrays, []
        try:
            return super().lambda_body(params, n_yield, indent, free)
        finally:
            self.arrays = arrays


@dataclass
class NestedGenerator:
    """Emits the statements of one function: nests over matrices and a 3-D array, then SOACs over their results."""

    draw: Draw
    top: Generator = field(init=False)
    cubes: list[str] = field(default_factory=lambda: ["%x3"])
    by_l: list[str] = field(default_factory=list)
    """n x l matrices (per-row results of the 3-D nests): results only, never mapped over as n x m."""
    all_pairs: bool = False
    """Also make all-pairs nests (`stmt_all_pairs`), which soac-tile rewrites, and return their results; off, the
    programs are those made before it existed."""
    returned: list[str] = field(default_factory=list)
    """Arrays the function returns whatever else it chooses."""

    def __post_init__(self) -> None:
        self.top = RowGenerator(self.draw, arrays=[], matrices=["%xss", "%yss"], scalars=[], lines=[], width="%n")

    def fresh(self, stem: str) -> str:
        return self.top.fresh(stem)

    def row_body(self, rows: list[str], indent: str, width: str = "%m") -> tuple[list[str], list[str], list[str]]:
        """SOACs over `rows` (width `width`): the lines, and the rows and scalars they make."""
        inner = RowGenerator(self.draw, list(rows), [], [], [], self.top.counter, 0, width)
        for _ in range(self.draw(1, 3)):
            choice = inner.draw(0, 8)
            if choice <= 1:
                inner.stmt_map(indent)
            elif choice == 6:
                inner.stmt_scan_reduce_pair(indent)
            elif choice >= 7:
                (inner.stmt_hist if choice == 7 else inner.stmt_hist_pair)(indent)
            else:
                inner.stmt_combining(("reduce", "scan", "redomap", "scanomap")[choice - 2], indent)
        self.top.counter = inner.counter + 1
        return inner.lines, inner.arrays[len(rows) :] or rows[:1], inner.scalars

    def yields(self, arrays: list[str], scalars: list[str]) -> list[tuple[str, str]]:
        """One to three of a lambda's values to yield, with their types (rows first)."""
        candidates = [(a, T1) for a in arrays] + [(s, "i32") for s in scalars]
        count = self.draw(1, min(3, len(candidates)))
        chosen = [candidates[-1 - self.draw(0, len(candidates) - 1)] for _ in range(count)]
        return list(dict.fromkeys(chosen))

    def stmt_nest2(self, indent: str = "  ") -> None:
        """A map over the rows of one or two matrices."""
        sources = [self.top.pick(self.top.matrices) for _ in range(self.draw(1, 2))]
        rows = [self.fresh("row") for _ in sources]
        body, arrays, scalars = self.row_body(rows, indent + "  ")
        results = self.yields(arrays, scalars)
        self.emit_map(sources, T2, rows, T1, body, results, indent, "%n")

    def stmt_nest3(self, indent: str = "  ") -> None:
        """A map over the matrices of a 3-D array, mapping over the rows of each."""
        cube, matrix = self.top.pick(self.cubes), self.fresh("mat")
        inner_indent = indent + "  "
        row = self.fresh("row")
        body, arrays, scalars = self.row_body([row], inner_indent + "  ")
        inner_results = self.yields(arrays, scalars)
        outs = [self.fresh("in") for _ in inner_results]
        lines = [
            *body,
            f"{inner_indent}  soac.yield {', '.join(v for v, _ in inner_results)} : {', '.join(t for _, t in inner_results)}",
        ]
        out_types = [T2 if t == T1 else T1 for _, t in inner_results]
        head = (
            f"{inner_indent}{', '.join(outs)} = soac.map %l ({matrix} : {T2}) -> ({', '.join(out_types)}) lambda({row}: {T1}) {{"
        )
        inner = [head, *lines, f"{inner_indent}}}"]
        self.emit_map([cube], T3, [matrix], T2, inner, list(zip(outs, out_types)), indent, "%n", nested=True)

    def emit_map(
        self,
        sources: list[str],
        source_type: str,
        params: list[str],
        param_type: str,
        body: list[str],
        results: list[tuple[str, str]],
        indent: str,
        width: str,
        nested: bool = False,
    ) -> None:
        outs = [self.fresh("nest") for _ in results]
        out_types = [_array_of(t) for _, t in results]
        yielded = f"{indent}  soac.yield {', '.join(v for v, _ in results)} : {', '.join(t for _, t in results)}"
        head = ", ".join(f"{p}: {param_type}" for p in params)
        self.top.lines.append(
            f"{indent}{', '.join(outs)} = soac.map {width} ({', '.join(sources)} : {', '.join([source_type] * len(sources))})"
            f" -> ({', '.join(out_types)}) lambda({head}) {{"
        )
        self.top.lines += [*body, yielded, f"{indent}}}"]
        for out, t in zip(outs, out_types):
            {T1: self.top.arrays, T2: self.by_l if nested else self.top.matrices, T3: self.cubes}[t].append(out)

    def stmt_loop(self, indent: str = "  ") -> None:
        """A loop whose body maps over the rows of its matrix accumulator."""
        init = self.top.pick(self.top.matrices)
        lo, hi, step, i, acc, out = (self.fresh(s) for s in ("lo", "hi", "st", "it", "acc", "loop"))
        self.top.lines += [
            f"{indent}{lo} = arith.constant 0 : index",
            f"{indent}{hi} = arith.constant {self.draw(0, 2)} : index",
            f"{indent}{step} = arith.constant 1 : index",
            f"{indent}{out} = scf.for {i} = {lo} to {hi} step {step} iter_args({acc} = {init}) -> ({T2}) {{",
        ]
        row = self.fresh("row")
        body, arrays, _ = self.row_body([row], indent + "    ")
        new = self.fresh("next")
        self.top.lines += [
            f"{indent}  {new} = soac.map %n ({acc} : {T2}) -> ({T2}) lambda({row}: {T1}) {{",
            *body,
            f"{indent}    soac.yield {arrays[-1]} : {T1}",
            f"{indent}  }}",
            f"{indent}  scf.yield {new} : {T2}",
            f"{indent}}}",
        ]
        self.top.matrices.append(out)

    def stmt_all_pairs(self, indent: str = "  ") -> None:
        """A map over per-row results whose lambda folds all of them, the shape of seed 004's all-pairs and of
        nbody: a redomap of a 1- or 2-tuple over one or two of the arrays, scalar code before it that its lambda
        uses, and scalar code after it."""
        arrays = self.top.arrays
        sources, inputs = self.top.picks(arrays, 1, 2), self.top.picks(arrays, 1, 2)
        params, elements = [self.fresh("p") for _ in sources], [self.fresh("q") for _ in inputs]
        pre, c = self.fresh("pre"), self.fresh("c")
        combines = [sorted(OPERATORS)[self.draw(0, len(OPERATORS) - 1)] for _ in range(self.draw(1, 2))]
        neutral = [self.fresh("ne") for _ in combines]
        folded, post = [self.fresh("s") for _ in combines], self.fresh("post")
        left, right = [self.fresh("a") for _ in combines], [self.fresh("b") for _ in combines]
        merged, terms = [self.fresh("m") for _ in combines], [self.fresh("f") for _ in combines]
        types = ", ".join(["i32"] * len(combines))
        lines = [f"{indent}  {c} = arith.constant {self.draw(-3, 3)} : i32"]
        lines.append(f"{indent}  {pre} = arith.{self.binop()} {params[-1]}, {c} : i32")
        lines += [f"{indent}  {ne} = arith.constant {OPERATORS[op]} : i32" for ne, op in zip(neutral, combines)]
        lines.append(
            f"{indent}  {', '.join(folded)} = soac.redomap %n ({', '.join(inputs)} : {', '.join([T1] * len(inputs))}) "
            f"neutral({', '.join(neutral)} : {types}) -> ({types}) "
            f"combine({', '.join(f'{v}: i32' for v in left + right)}) {{"
        )
        lines += [f"{indent}    {m} = arith.{op} {a}, {b} : i32" for m, op, a, b in zip(merged, combines, left, right)]
        lines.append(f"{indent}    soac.yield {', '.join(merged)} : {types}")
        lines.append(f"{indent}  }} lambda({', '.join(f'{q}: i32' for q in elements)}) {{")
        for j, term in enumerate(terms):
            own = (params[0], pre)[self.draw(0, 1)]
            lines.append(f"{indent}    {term} = arith.{self.binop()} {elements[j % len(elements)]}, {own} : i32")
        lines.append(f"{indent}    soac.yield {', '.join(terms)} : {types}")
        lines.append(f"{indent}  }}")
        lines.append(f"{indent}  {post} = arith.{self.binop()} {folded[0]}, {params[0]} : i32")
        results = [(post, "i32"), *((s, "i32") for s in folded[1:])]
        self.emit_map(sources, T1, params, "i32", lines, results, indent, "%n")
        self.returned += self.top.arrays[-len(results) :]

    def binop(self) -> str:
        return BINOPS[self.draw(0, len(BINOPS) - 1)]

    def statement(self) -> None:
        if self.all_pairs and self.top.arrays and self.draw(0, 2) == 0:
            self.stmt_all_pairs()
            return
        choice = self.draw(0, 9)
        if choice <= 3:
            self.stmt_nest2()
        elif choice <= 5:
            self.stmt_nest3()
        elif choice == 6:
            self.stmt_loop()
        elif self.top.arrays:
            # SOACs over the per-row results (width %n)
            kinds = ("reduce", "scan", "redomap", "scanomap", "scanred")
            if choice == 7:
                self.top.stmt_map()
            else:
                self.top.stmt_combining(kinds[self.draw(0, len(kinds) - 1)])
        else:
            self.stmt_nest2()

    def function(self, n_statements: int) -> str:
        for _ in range(n_statements):
            self.statement()
        live = [(v, T1) for v in self.top.arrays] + [(v, T2) for v in self.top.matrices[2:]]
        live += [(v, T2) for v in self.by_l] + [(v, T3) for v in self.cubes[1:]] + [(v, "i32") for v in self.top.scalars]
        chosen = [v for v in live if self.draw(0, 2) == 0] or [live[-1]]
        chosen += [(v, T1) for v in self.returned if (v, T1) not in chosen]
        params = f"%n: index, %m: index, %l: index, %xss: {T2}, %yss: {T2}, %x3: {T3}"
        return "\n".join(
            [
                f"func.func @main({params}) -> ({', '.join(t for _, t in chosen)}) {{",
                *self.top.lines,
                f"  func.return {', '.join(v for v, _ in chosen)} : {', '.join(t for _, t in chosen)}",
                "}",
            ]
        )


def _array_of(t: str) -> str:
    return {"i32": T1, T1: T2, T2: T3}[t]


def nested_args(n: int, m: int, depth: int, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    return [
        np.int64(n),
        np.int64(m),
        np.int64(depth),
        rng.integers(-20, 20, (n, m), dtype=np.int32),
        rng.integers(-20, 20, (n, m), dtype=np.int32),
        rng.integers(-20, 20, (n, depth, m), dtype=np.int32),
    ]


@st.composite
def nested_programs(draw: st.DrawFn, max_statements: int = 4, all_pairs: bool = False) -> Program:
    """Random nested programs and arguments; sizes include 0 rows, 0 columns and single elements. With `all_pairs`,
    also maps whose lambdas fold whole arrays of per-row results (`NestedGenerator.stmt_all_pairs`)."""
    generator = NestedGenerator(lambda lo, hi: draw(st.integers(lo, hi)), all_pairs=all_pairs)
    text = generator.function(draw(st.integers(1, max_statements)))
    n, m, depth = draw(st.integers(0, 5)), draw(st.integers(0, 4)), draw(st.integers(0, 3))
    return Program(text, nested_args(n, m, depth, draw(st.integers(0, 2**16))))

"""Random SOAC programs, for differential tests of passes and lowerings.

`programs()` is a hypothesis strategy of `Program`s: the text of a module with
one function `@main(%n: index, %m: index, %a0..: tensor<?xi32>, %mat: tensor<?x?xi32>)`
and arguments to run it with. The function is a DAG of map, reduce, scan,
redomap, scanomap (with map-outs, post lambdas, values forwarded to them and reduction parts), scan+reduce
pairs over a shared array, scatter (with out-of-bounds indices), hist (alone, and in pairs
over one bin array), stencils (1-D over arrays, 2-D over the matrix, every boundary), in-place updates,
indexing, loops and SOACs nested in lambdas, over i32 arrays of width `%n`
(rows of width `%m`). Everything a fusion pass must respect occurs: shared
inputs, results used several times, results indexed or read inside lambdas,
arrays consumed by updates and scatters, reduce results used as scalars.

`module_of_soacs(count, seed)` builds one large program with about `count`
SOACs (for scaling measurements).

Integer ops only (add, sub, xor, max, min and multiplication by small
constants): results are exact, so a transformed program must give exactly
the same arrays.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

T1 = "tensor<?xi32>"
T2 = "tensor<?x?xi32>"
OPERATORS = {"addi": "0", "maxsi": "-2147483648", "minsi": "2147483647", "xori": "0"}
BINOPS = ("addi", "subi", "xori", "maxsi", "minsi", "muli")

Draw = Callable[[int, int], int]
"""`draw(lo, hi)`: an integer in [lo, hi], from hypothesis or from a seeded random generator."""


@dataclass
class Program:
    text: str
    args: list[object]

    def __repr__(self) -> str:  # hypothesis prints failing examples with this
        return f"Program(args={self.args!r})\n{self.text}"


@dataclass
class Generator:
    """Emits one function statement by statement, tracking which values may still be used."""

    draw: Draw
    arrays: list[str] = field(default_factory=list[str])
    matrices: list[str] = field(default_factory=list[str])
    scalars: list[str] = field(default_factory=list[str])
    lines: list[str] = field(default_factory=list[str])
    counter: int = 0
    soacs: int = 0
    width: str = "%n"
    looped: set[str] = field(default_factory=set[str])
    """Arrays a loop starts from and the loops' results, which may share memory, so no update consumes them."""

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"%{stem}{self.counter}"

    def pick(self, items: list[str]) -> str:
        return items[self.draw(0, len(items) - 1)]

    def picks(self, items: list[str], lo: int, hi: int) -> list[str]:
        return [self.pick(items) for _ in range(self.draw(lo, hi))]

    # -- scalar code inside lambdas ---------------------------------------------------------

    def expr(self, body: list[str], values: list[str], indent: str, count: int | None = None) -> list[str]:
        """Emit a few i32 ops over `values` (and constants); return all values now available."""
        values = list(values)
        for _ in range(self.draw(1, 3) if count is None else count):
            op = BINOPS[self.draw(0, len(BINOPS) - 1)]
            a = self.pick(values)
            if op == "muli" or self.draw(0, 3) == 0:
                const = self.fresh("c")
                body.append(f"{indent}{const} = arith.constant {self.draw(-3, 3)} : i32")
                b = const
            else:
                b = self.pick(values)
            result = self.fresh("v")
            body.append(f"{indent}{result} = arith.{op} {a}, {b} : i32")
            values.append(result)
        return values

    def lambda_body(self, params: list[str], n_yield: int, indent: str, free: bool = True) -> tuple[list[str], list[str]]:
        body: list[str] = []
        available = list(params)
        if free and self.scalars and self.draw(0, 3) == 0:
            available.append(self.pick(self.scalars))  # a reduce result or index used as a scalar
        if free and self.arrays and self.draw(0, 5) == 0:
            whole = self.pick(self.arrays)  # a whole array read inside the lambda
            c0, e = self.fresh("i"), self.fresh("e")
            body += [f"{indent}{c0} = arith.constant 0 : index", f"{indent}{e} = soac.index {whole}[{c0}] : {T1} -> i32"]
            available.append(e)
        values = self.expr(body, available, indent)
        yielded = [values[-1 - self.draw(0, min(2, len(values) - 1))] for _ in range(n_yield)]
        return body, yielded

    @staticmethod
    def sig(names: list[str], type_: str) -> str:
        return ", ".join(names) + " : " + ", ".join([type_] * len(names))

    def params(self, count: int, type_: str = "i32") -> list[str]:
        return [self.fresh("p") for _ in range(count)]

    def emit_lambda(
        self, keyword: str, params: list[str], types: list[str], body: list[str], yielded: list[str], indent: str
    ) -> str:
        head = ", ".join(f"{p}: {t}" for p, t in zip(params, types))
        inner = "\n".join([*body, f"{indent}  soac.yield {', '.join(yielded)} : {', '.join(['i32'] * len(yielded))}"])
        return f" {keyword}({head}) {{\n{inner}\n{indent}}}"

    def combine(self, ops: list[str], indent: str) -> str:
        lefts, rights = self.params(len(ops)), self.params(len(ops))
        body, outs = [], []
        for op, a, b in zip(ops, lefts, rights):
            r = self.fresh("r")
            body.append(f"{indent}  {r} = arith.{op} {a}, {b} : i32")
            outs.append(r)
        return self.emit_lambda("combine", lefts + rights, ["i32"] * (2 * len(ops)), body, outs, indent)

    def neutrals(self, ops: list[str], indent: str) -> list[str]:
        names = []
        for op in ops:
            name = self.fresh("ne")
            self.lines.append(f"{indent}{name} = arith.constant {OPERATORS[op]} : i32")
            names.append(name)
        return names

    def operator_list(self, k: int) -> list[str]:
        keys = list(OPERATORS)
        return [keys[self.draw(0, len(keys) - 1)] for _ in range(k)]

    # -- statements -------------------------------------------------------------------------

    def stmt_map(self, indent: str = "  ") -> None:
        inputs = self.picks(self.arrays, 1, 3)
        params = self.params(len(inputs))
        k = self.draw(1, 2)
        body, yielded = self.lambda_body(params, k, indent + "  ")
        outs = [self.fresh("m") for _ in range(k)]
        lam = self.emit_lambda("lambda", params, ["i32"] * len(params), body, yielded, indent)
        self.lines.append(
            f"{indent}{', '.join(outs)} = soac.map {self.width} ({self.sig(inputs, T1)}) -> ({', '.join([T1] * k)}){lam}"
        )
        self.arrays += outs
        self.soacs += 1

    def stmt_combining(self, kind: str, indent: str = "  ", shared: str | None = None) -> None:
        """reduce, scan, redomap, scanomap (with map-outs and maybe a post lambda) or scanred.

        `scanred` is a scanomap with a reduction part. `shared` is an array the op must take as input.
        """
        scanred = kind == "scanred"
        kind = "scanomap" if scanred else kind
        k = self.draw(1, 2)
        ops = self.operator_list(k)
        ne = self.neutrals(ops, indent)
        red_ops = self.operator_list(self.draw(1, 2)) if scanred else []
        red_ne = self.neutrals(red_ops, indent)
        kr = len(red_ops)
        with_lambda = kind in ("redomap", "scanomap")
        scans = kind in ("scan", "scanomap")
        has_post = kind == "scanomap" and self.draw(0, 1) == 1
        n_fwd = self.draw(0, 2) if has_post else 0  # values the lambda forwards to the post lambda
        if with_lambda:
            inputs = self.picks(self.arrays, 1, 3)
            params = self.params(len(inputs))
            n_mo = self.draw(0, 1)
            body, yielded = self.lambda_body(params, k + kr + n_mo + n_fwd, indent + "  ")
            lam = self.emit_lambda("lambda", params, ["i32"] * len(params), body, yielded, indent)
        else:
            inputs, n_mo, lam = [self.pick(self.arrays) for _ in range(k)], 0, ""
        if shared is not None and shared not in inputs:
            inputs[0] = shared
        post, n_post = "", k
        if has_post:
            n_post = self.draw(1, 2)
            scanned, rows, fwd = self.params(k), self.params(len(inputs)), self.params(n_fwd)
            body, yielded = self.lambda_body(scanned + rows + fwd, n_post, indent + "  ", free=False)
            post = self.emit_lambda("post", scanned + rows + fwd, ["i32"] * (k + len(inputs) + n_fwd), body, yielded, indent)
        combined_type = T1 if scans else "i32"
        combined = [self.fresh("s") for _ in range(n_post if scans else k)]
        reduced = [self.fresh("r") for _ in range(kr)]
        mapouts = [self.fresh("mo") for _ in range(n_mo)]
        types = [combined_type] * len(combined) + ["i32"] * kr + [T1] * n_mo
        reduction, reduction_op = "", ""
        if scanred:
            reduction = f" reduce({self.sig(red_ne, 'i32')})"
            reduction_op = self.combine(red_ops, indent).replace(" combine(", " reduce_combine(", 1)
        self.lines.append(
            f"{indent}{', '.join(combined + reduced + mapouts)} = soac.{kind} {self.width} ({self.sig(inputs, T1)})"
            f" neutral({self.sig(ne, 'i32')}){reduction}"
            f" -> ({', '.join(types)}){self.combine(ops, indent)}{reduction_op}{lam}{post}"
        )
        (self.arrays if scans else self.scalars).extend(combined)
        self.scalars += reduced
        self.arrays += mapouts
        self.soacs += 1

    def stmt_scan_reduce_pair(self, indent: str = "  ") -> None:
        """A scan(omap) and a reduce/redomap over a shared array: a horizontal scan+reduce fusion candidate."""
        shared = self.pick(self.arrays)
        self.stmt_combining(("scan", "scanomap")[self.draw(0, 1)], indent, shared)
        self.stmt_combining(("reduce", "redomap")[self.draw(0, 1)], indent, shared)

    def stmt_scatter(self, indent: str = "  ") -> None:
        """Scatter values into a fresh array at the (distinct) indices n-1-i+s for a shift s in [-3, 3]: a shift other
        than 0 sends some rows out of bounds, which a partial scatter drops."""
        dest, iota, c0 = self.fresh("dest"), self.fresh("iota"), self.fresh("z")
        self.lines += [
            f"{indent}{c0} = arith.constant {self.draw(-2, 2)} : i32",
            f"{indent}{dest} = soac.replicate %n, {c0} : i32 -> {T1}",
            f"{indent}{iota} = soac.iota %n : tensor<?xindex>",
        ]
        values = self.picks(self.arrays, 1, 2)
        i, params = self.fresh("p"), self.params(len(values))
        body, (value,) = self.lambda_body(params, 1, indent + "  ")
        one, last, j = self.fresh("one"), self.fresh("last"), self.fresh("j")
        shift = self.draw(-3, 3)
        body += [
            f"{indent}  {one} = arith.constant {1 - shift} : index",
            f"{indent}  {last} = arith.subi %n, {one} : index",
            f"{indent}  {j} = arith.subi {last}, {i} : index",
        ]
        head = ", ".join([f"{i}: index", *(f"{p}: i32" for p in params)])
        out = self.fresh("sc")
        inner = "\n".join([*body, f"{indent}  soac.yield {j}, {value} : index, i32"])
        self.lines.append(
            f"{indent}{out} = soac.scatter %n ({iota}, {', '.join(values)} : tensor<?xindex>, {', '.join([T1] * len(values))})"
            f" into({dest} : {T1}) -> {T1} lambda({head}) {{\n{inner}\n{indent}}}"
        )
        self.arrays.append(out)
        self.soacs += 1

    HIST_OPERATORS = (("arith.addi", "0"), ("arith.maxsi", "-2147483648"), ("arith.minsi", "2147483647"), ("arith.xori", "0"))

    def stmt_hist(self, indent: str = "  ") -> None:
        """A histogram of one or two arrays into as many bins as rows, with an atomic operator: bin `x & 7` (out of
        bounds when there are fewer rows), weighted by the lambda's value."""
        self.emit_hist(self.picks(self.arrays, 1, 2), indent)

    def stmt_hist_pair(self, indent: str = "  ") -> None:
        """Two histograms whose bins are `x & 7` of the same array (a horizontal pair for soac-fuse), with their own
        operators and weights."""
        first = self.pick(self.arrays)
        values = [[first, *self.picks(self.arrays, 0, 1)] for _ in range(2)]  # neither reads the other's result
        for chosen in values:
            self.emit_hist(chosen, indent)

    def emit_hist(self, values: list[str], indent: str) -> None:
        op, neutral = self.HIST_OPERATORS[self.draw(0, len(self.HIST_OPERATORS) - 1)]
        dest, ne, seven = self.fresh("bins"), self.fresh("ne"), self.fresh("seven")
        self.lines += [
            f"{indent}{ne} = arith.constant {neutral} : i32",
            f"{indent}{dest} = soac.replicate {self.width}, {ne} : i32 -> {T1}",
        ]
        params = self.params(len(values))
        body, (value,) = self.lambda_body(params, 1, indent + "  ")
        low, j = self.fresh("low"), self.fresh("j")
        body += [
            f"{indent}  {seven} = arith.constant 7 : i32",
            f"{indent}  {low} = arith.andi {params[0]}, {seven} : i32",
            f"{indent}  {j} = arith.index_cast {low} : i32 to index",
        ]
        a, b, r, out = self.fresh("a"), self.fresh("b"), self.fresh("r"), self.fresh("h")
        inner = "\n".join([*body, f"{indent}  soac.yield {j}, {value} : index, i32"])
        self.lines.append(
            f"{indent}{out} = soac.hist {self.width} ({', '.join(values)} : {', '.join([T1] * len(values))}) into({dest} : {T1})"
            f" neutral({ne} : i32) -> {T1} combine({a}: i32, {b}: i32) {{\n{indent}  {r} = {op} {a}, {b} : i32\n"
            f"{indent}  soac.yield {r} : i32\n{indent}}} lambda({', '.join(f'{p}: i32' for p in params)}) {{\n{inner}\n{indent}}}"
        )
        self.arrays.append(out)
        self.soacs += 1

    STENCIL_BOUNDARIES = ("clamp", "mirror", "wrap", "constant")

    def stmt_stencil(self, indent: str = "  ") -> None:
        """A stencil over one or two arrays of the width (window 1, 3 or 5) or over the matrix (3x1, 1x3, 3x3), with
        any boundary; the lambda combines some of the neighbours."""
        boundary = self.STENCIL_BOUNDARIES[self.draw(0, 3)]
        if self.width == "%n" and self.matrices and self.draw(0, 2) == 0:
            inputs, window, dims, type_ = [self.pick(self.matrices)], [(3, 1), (1, 3), (3, 3)][self.draw(0, 2)], "%n, %m", T2
        else:
            inputs, window, dims, type_ = self.picks(self.arrays, 1, 2), ((1, 3, 5)[self.draw(0, 2)],), self.width, T1
        params = self.params(len(inputs) * window[0] * (window[1] if len(window) > 1 else 1))
        k = self.draw(1, 2)
        body, yielded = self.lambda_body(params, k, indent + "  ")
        head = boundary
        if boundary == "constant":
            edges = [self.fresh("edge") for _ in inputs]
            self.lines += [f"{indent}{e} = arith.constant {self.draw(-5, 5)} : i32" for e in edges]
            head += f"({self.sig(edges, 'i32')})"
        outs = [self.fresh("st") for _ in range(k)]
        lam = self.emit_lambda("lambda", params, ["i32"] * len(params), body, yielded, indent)
        extents = ", ".join(map(str, window))
        self.lines.append(
            f"{indent}{', '.join(outs)} = soac.stencil ({dims}) window [{extents}] {head} ({self.sig(inputs, type_)})"
            f" -> ({', '.join([type_] * k)}){lam}"
        )
        (self.matrices if type_ == T2 else self.arrays).extend(outs)
        self.soacs += 1

    def stmt_update(self, indent: str = "  ") -> None:
        """`xs with [0] = v`: consumes an array, which is never used again (an index if every array is looped)."""
        if not (free := [a for a in self.arrays if a not in self.looped]):
            return self.stmt_index(indent)
        array = self.pick(free)
        c0, value, out = self.fresh("i"), self.fresh("u"), self.fresh("up")
        self.lines += [
            f"{indent}{c0} = arith.constant 0 : index",
            f"{indent}{value} = arith.constant {self.draw(-9, 9)} : i32",
            f"{indent}{out} = soac.update {array}[{c0}] = {value} : {T1}, i32",
        ]
        self.arrays = [a for a in self.arrays if a != array] + [out]

    def stmt_index(self, indent: str = "  ") -> None:
        array, c0, out = self.pick(self.arrays), self.fresh("i"), self.fresh("x")
        self.lines += [f"{indent}{c0} = arith.constant 0 : index", f"{indent}{out} = soac.index {array}[{c0}] : {T1} -> i32"]
        self.scalars.append(out)

    def stmt_reverse_reshape(self, indent: str = "  ") -> None:
        """A reverse of an array or matrix, or a reshape there and back (flatten and unflatten, a row made a matrix)."""
        if self.matrices and self.draw(0, 1):
            source, out = self.pick(self.matrices), self.fresh("rv")
            if self.draw(0, 1):
                dims = ("0", "1", "0, 1")[self.draw(0, 2)]
                self.lines.append(f"{indent}{out} = soac.reverse {source} [{dims}] : {T2}")
            else:
                count, flat = self.fresh("nm"), self.fresh("flat")
                self.lines += [
                    f"{indent}{count} = arith.muli %n, %m : index",
                    f"{indent}{flat} = soac.reshape {source} ({count}) : {T2} -> {T1}",
                    f"{indent}{out} = soac.reshape {flat} (%n, %m) : {T1} -> {T2}",
                ]
            self.matrices.append(out)
            return
        source, out = self.pick(self.arrays), self.fresh("rv")
        if self.draw(0, 1):
            self.lines.append(f"{indent}{out} = soac.reverse {source} [0] : {T1}")
        else:
            one, column = self.fresh("one"), self.fresh("col")
            self.lines += [
                f"{indent}{one} = arith.constant 1 : index",
                f"{indent}{column} = soac.reshape {source} ({self.width}, {one}) : {T1} -> {T2}",
                f"{indent}{out} = soac.reshape {column} ({self.width}) : {T2} -> {T1}",
            ]
        self.arrays.append(out)

    def stmt_loop(self, indent: str = "  ") -> None:
        """A loop whose body maps over its accumulator and arrays from outside (never fused into it)."""
        init = self.pick(self.arrays)
        lo, hi, step, i, acc, out = (self.fresh(s) for s in ("lo", "hi", "st", "it", "acc", "loop"))
        self.lines += [
            f"{indent}{lo} = arith.constant 0 : index",
            f"{indent}{hi} = arith.constant {self.draw(0, 2)} : index",
            f"{indent}{step} = arith.constant 1 : index",
            f"{indent}{out} = scf.for {i} = {lo} to {hi} step {step} iter_args({acc} = {init}) -> ({T1}) {{",
        ]
        saved = self.arrays
        self.arrays = [acc, *saved]
        inner = indent + "  "
        before = len(self.arrays)
        for _ in range(self.draw(1, 2)):
            self.stmt_map(inner)
        result = self.arrays[before + self.draw(0, len(self.arrays) - before - 1)]
        self.lines.append(f"{inner}scf.yield {result} : {T1}")
        self.lines.append(f"{indent}}}")
        self.arrays = [*saved, out]
        self.looped |= {init, out}

    def stmt_nested(self, indent: str = "  ") -> None:
        """A map over the rows of a matrix whose lambda holds SOACs over the rows (width %m)."""
        source = self.pick(self.matrices)
        row = self.fresh("row")
        outer = Generator(self.draw, [row], [], [], [], self.counter, 0, "%m")
        inner_indent = indent + "  "
        for _ in range(self.draw(1, 3)):
            choice = outer.draw(0, 2)
            if choice == 0:
                kind = outer.draw(0, 4)
                (outer.stmt_stencil if kind == 0 else outer.stmt_reverse_reshape if kind == 4 else outer.stmt_map)(inner_indent)
            else:
                kinds = ("redomap", "scanomap", "scanred")
                outer.stmt_combining(kinds[outer.draw(0, 2)] if outer.draw(0, 1) else "reduce", inner_indent)
        self.counter = outer.counter + 1
        body = outer.lines
        if outer.scalars and self.draw(0, 1):
            result, type_, out_type = outer.scalars[-1], "i32", T1
        else:
            result, type_, out_type = outer.arrays[-1], T1, T2
        out = self.fresh("nest")
        inner = "\n".join([*body, f"{inner_indent}soac.yield {result} : {type_}"])
        self.lines.append(
            f"{indent}{out} = soac.map %n ({source} : {T2}) -> {out_type} lambda({row}: {T1}) {{\n{inner}\n{indent}}}"
        )
        (self.arrays if out_type == T1 else self.matrices).append(out)
        self.soacs += 1 + outer.soacs

    def statement(self) -> None:
        choice = self.draw(0, 15)
        if choice <= 3:
            self.stmt_map()
        elif choice <= 8:
            self.stmt_combining(("reduce", "scan", "redomap", "scanomap", "scanomap")[choice - 4])
        elif choice == 14:
            self.stmt_combining("scanred")
        elif choice == 15:
            self.stmt_scan_reduce_pair()
        elif choice == 9:
            (self.stmt_scatter, self.stmt_hist, self.stmt_hist_pair, self.stmt_stencil)[self.draw(0, 3)]()
        elif choice == 10:
            self.stmt_update() if len(self.arrays) > 1 else self.stmt_index()
        elif choice == 11:
            self.stmt_loop()
        elif choice == 12:
            self.stmt_nested()
        elif self.draw(0, 1):
            self.stmt_reverse_reshape()
        else:
            self.stmt_index()

    def function(self, n_arrays: int, n_statements: int) -> str:
        inputs = [f"%a{i}" for i in range(n_arrays)]
        self.arrays, self.matrices = list(inputs), ["%mat"]
        for _ in range(n_statements):
            self.statement()
        results = self.choose_results()
        params = ", ".join(["%n: index", "%m: index", *(f"{a}: {T1}" for a in inputs), f"%mat: {T2}"])
        types = [self.type_of(r) for r in results]
        return "\n".join(
            [
                f"func.func @main({params}) -> ({', '.join(types)}) {{",
                *self.lines,
                f"  func.return {', '.join(results)} : {', '.join(types)}",
                "}",
            ]
        )

    def choose_results(self) -> list[str]:
        live = self.arrays + self.matrices + self.scalars
        chosen = [v for v in live if self.draw(0, 2) == 0]
        return chosen or [live[-1]]

    def type_of(self, value: str) -> str:
        if value in self.scalars:
            return "i32"
        return T2 if value in self.matrices else T1


def make_args(n: int, m: int, n_arrays: int, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    arrays = [rng.integers(-20, 20, size=n, dtype=np.int32) for _ in range(n_arrays)]
    return [n, m, *arrays, rng.integers(-20, 20, size=(n, m), dtype=np.int32)]


@st.composite
def programs(draw: st.DrawFn, max_statements: int = 8) -> Program:
    """Random SOAC programs and arguments: `(Program.text, Program.args)`."""
    n_arrays = draw(st.integers(1, 3))
    n_statements = draw(st.integers(1, max_statements))
    generator = Generator(lambda lo, hi: draw(st.integers(lo, hi)))
    text = generator.function(n_arrays, n_statements)
    n, m, seed = draw(st.integers(1, 6)), draw(st.integers(1, 4)), draw(st.integers(0, 2**16))
    return Program(text, make_args(n, m, n_arrays, seed))


def module_of_soacs(count: int, seed: int = 0) -> Program:
    """One program with about `count` SOACs (top-level and nested), for scaling measurements."""
    rng = random.Random(seed)
    generator = Generator(rng.randint)
    generator.arrays, generator.matrices = ["%a0", "%a1", "%a2"], ["%mat"]
    while generator.soacs < count:
        generator.statement()
        generator.arrays = generator.arrays[-40:]  # keep the DAG local, like real programs
    results = generator.arrays[-3:]
    params = f"%n: index, %m: index, %a0: {T1}, %a1: {T1}, %a2: {T1}, %mat: {T2}"
    text = "\n".join(
        [
            f"func.func @main({params}) -> ({', '.join([T1] * len(results))}) {{",
            *generator.lines,
            f"  func.return {', '.join(results)} : {', '.join([T1] * len(results))}",
            "}",
        ]
    )
    return Program(text, make_args(4, 3, 3, seed))

"""`soac-autotune`: chooses the thresholds (and tile sizes) of a flattened program for the given datasets.

    soac-autotune FILE --dataset ARG... [--dataset ARG...] [--entry NAME] [--backend interp|opencl]
                  [--pipeline PIPELINE] [--runs N] [--output FILE]

Each `--dataset` is one run's inputs: a directory of `.npy` files (one per
parameter, in name order), one `.npz` file (its arrays in order), or one
argument per parameter as `soac-run --input` takes them (`.npy` files or
literals). `--pipeline soac-fuse,soac-flatten` transforms the program first.

The search follows Futhark's autotuner without re-running what it knows:

1. one interpreter run per dataset, with every threshold at 2**62 (never take
   a guarded version), records the `par` values each threshold is compared
   with (`soac.passes.thresholds.observe_pars`);
2. thresholds are tuned one at a time, deepest first; for a threshold, only
   the distinct `par` values matter: the candidates are the smallest value
   seen and each value + 1 (every way of splitting the datasets); each
   candidate is timed on the datasets that reach the threshold, and a run
   whose threshold outcomes were already timed is not repeated;
3. with `--backend opencl`, the tile sizes of `soac.tiled_redomap`s (soac-tile)
   are tuned next, one at a time (chunk, then register and block sizes): each
   usable value of `soac.passes.tile_sizes.CANDIDATES` is timed on the
   datasets whose thresholds lead to the tiled op;
4. the tuning file (`name=value` lines, sorted, FILE.tuning by default) gets
   the best candidates; thresholds no dataset reaches keep their defaults. With
   `--backend opencl` it also records the lowering options that the environment
   set (`soac-to-kernel.hist=global` for `SOAC_HIST=global`): the kernels timed.

Progress goes to stderr; the summary compares the tuned time with the defaults'.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from soac.context import make_context
from soac.lowering.conversion.options import options_from_environment
from soac.parsing import parse_module
from soac.passes import get_all_passes
from soac.passes.thresholds import MAX_THRESHOLD, ThresholdInfo, list_thresholds, observe_pars
from soac.passes.tile_sizes import CANDIDATES, TileParameter, TileSizeError, list_tile_parameters, with_tile_sizes
from soac.passes.tuning import tuning_text
from soac.tools.diagnostics import fail, run_cleanly
from soac.tools.soac_run import InputError, convert, describe_param, find_entry, load_backend, read_input
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import PassPipeline

Thresholds = dict[str, int]
Measure = Callable[[int, Thresholds], float]
"""Seconds that one run of dataset #j takes with the given thresholds."""


# ---------------------------------------------------------------------------
# Datasets
# ---------------------------------------------------------------------------


def load_dataset(func: FuncOp, spec: Sequence[str]) -> list[Any]:
    """The inputs of one dataset (see the module docstring)."""
    params = func.body.block.args
    if len(spec) == 1 and (Path(spec[0]).is_dir() or spec[0].endswith(".npz")):
        arrays = _load_arrays(spec[0])
        if len(arrays) != len(params):
            raise InputError(f"'{spec[0]}' holds {len(arrays)} arrays, @{func.sym_name.data} takes {len(params)} inputs")
        values = []
        for index, (array, arg) in enumerate(zip(arrays, params)):
            try:
                value = convert(np.asarray(array), arg.type, strict_kind=True)
            except InputError as error:
                raise InputError(f"'{spec[0]}': {describe_param(index, arg)}: {error}") from None
            values.append(value if value.ndim else value[()])
        return values
    if len(spec) != len(params):
        raise InputError(f"@{func.sym_name.data} takes {len(params)} inputs, the dataset gives {len(spec)}")
    values = []
    for index, (text, arg) in enumerate(zip(spec, params)):
        try:
            values.append(read_input(text, arg.type))
        except InputError as error:
            raise InputError(f"{describe_param(index, arg)}: {error}") from None
    return values


def _load_arrays(path: str) -> list[np.ndarray[Any, Any]]:
    try:
        if path.endswith(".npz"):
            with np.load(path, allow_pickle=False) as archive:
                return [archive[name] for name in archive.files]
        return [np.load(file, allow_pickle=False) for file in sorted(Path(path).glob("*.npy"))]
    except (OSError, ValueError, EOFError) as error:
        raise InputError(f"cannot read dataset '{path}': {error}") from None


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------


def candidates(pars: set[int]) -> list[int]:
    """The threshold values that split `pars` in every possible way: the smallest, and each value + 1."""
    ordered = sorted(pars)
    return sorted({ordered[0], *(p + 1 for p in ordered)})


@dataclass
class Tuner:
    """Tunes thresholds deepest first, timing each distinct behaviour of each dataset once."""

    infos: list[ThresholdInfo]
    pars: list[dict[str, set[int]]]
    """Per dataset, the `par` values each threshold it reaches is compared with."""
    measure: Measure
    progress: Callable[[str], None] = lambda _: None
    timings: dict[tuple[int, tuple[tuple[str, tuple[bool, ...]], ...]], float] = field(default_factory=dict)

    def behaviour(self, dataset: int, config: Mapping[str, int]) -> tuple[tuple[str, tuple[bool, ...]], ...]:
        """Which way each threshold goes for each `par` of the dataset: runs with equal behaviours are equal."""
        seen = self.pars[dataset]
        return tuple((name, tuple(p >= config[name] for p in sorted(seen[name]))) for name in sorted(seen))

    def time(self, dataset: int, config: Mapping[str, int]) -> float:
        key = (dataset, self.behaviour(dataset, config))
        if key not in self.timings:
            self.timings[key] = self.measure(dataset, dict(config))
        return self.timings[key]

    def tune(self) -> Thresholds:
        config = {info.name: MAX_THRESHOLD for info in self.infos}
        order = sorted(self.infos, key=lambda info: -info.depth)
        for step, info in enumerate(order, 1):
            reached = [j for j, seen in enumerate(self.pars) if info.name in seen]
            if not reached:
                self.progress(f"[{step}/{len(order)}] {info.name}: no dataset reaches it, keeping {info.default}")
                config[info.name] = info.default
                continue
            values = candidates(set().union(*(self.pars[j][info.name] for j in reached)))
            self.progress(f"[{step}/{len(order)}] {info.name}: {len(values)} candidates on {len(reached)} dataset(s)")
            best, best_time = config[info.name], float("inf")
            for value in values:
                trial = {**config, info.name: value}
                total = sum(self.time(j, trial) for j in reached)
                self.progress(f"    {info.name}={value}: {total * 1e3:.3f} ms")
                if total < best_time:
                    best, best_time = value, total
            config[info.name] = best
        return config


@dataclass
class TileTuner:
    """Tunes the tile sizes of the tiled ops the tuned thresholds lead to, one parameter at a time."""

    module: ModuleOp
    parameters: list[TileParameter]
    pars: list[dict[str, set[int]]]
    measure: Measure
    progress: Callable[[str], None] = lambda _: None

    def reaching(self, parameter: TileParameter, config: Mapping[str, int]) -> list[int]:
        """The datasets that run the parameter's op: every threshold on its path goes its way for some `par`."""
        return [
            j
            for j, seen in enumerate(self.pars)
            if all(any((p >= config[name]) == taken for p in seen.get(name, ())) for name, taken in parameter.path)
        ]

    def usable(self, values: Mapping[str, int]) -> bool:
        try:
            with_tile_sizes(self.module, values)
        except TileSizeError:
            return False
        return True

    def tune(self, config: Thresholds) -> Thresholds:
        order = sorted(self.parameters, key=lambda p: ("chunk", "reg", "block").index(p.kind))
        for step, parameter in enumerate(order, 1):
            reached = self.reaching(parameter, config)
            if not reached:
                self.progress(f"[tile {step}/{len(order)}] {parameter.name}: no dataset runs it, keeping {parameter.default}")
                continue
            current = config.get(parameter.name, parameter.default)
            values = [v for v in sorted({current, *CANDIDATES[parameter.kind]}) if self.usable({**config, parameter.name: v})]
            self.progress(f"[tile {step}/{len(order)}] {parameter.name}: {len(values)} candidates on {len(reached)} dataset(s)")
            best, best_time = current, float("inf")
            for value in values:
                total = sum(self.measure(j, {**config, parameter.name: value}) for j in reached)
                self.progress(f"    {parameter.name}={value}: {total * 1e3:.3f} ms")
                if total < best_time:
                    best, best_time = value, total
            config = {**config, parameter.name: best}
        return config


def write_tuning(path: Path, config: Mapping[str, int], lowering: Mapping[str, object] | None = None) -> None:
    """The tuning file: the lowering options the kernels were timed with (`soac-to-kernel.hist=global` lines), then
    the thresholds and tile sizes."""
    path.write_text(tuning_text(config, lowering))


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(f"error: {message} (see 'soac-autotune --help')", 2)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="soac-autotune", description="Tune the thresholds of a flattened soac program.")
    parser.add_argument("file", metavar="FILE", help="the program (.mlir)")
    parser.add_argument(
        "--dataset", metavar="ARG", nargs="+", action="append", required=True,
        help="one run's inputs: a directory of .npy files, a .npz file, or one .npy file or literal per parameter",
    )  # fmt: skip
    parser.add_argument("--entry", metavar="NAME", help="the function to tune (default: main, or the only function)")
    parser.add_argument("--backend", choices=("interp", "opencl"), default="interp", help="how to run (default: interp)")
    parser.add_argument("--pipeline", metavar="PIPELINE", help="passes to apply first, e.g. soac-fuse,soac-flatten")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement; the fastest counts (default 3)")
    parser.add_argument("--output", metavar="FILE", help="the tuning file to write (default: FILE.tuning)")
    return parser


def run(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if args.runs < 1:
        fail("error: --runs must be at least 1")
    ctx = make_context()
    module = parse_module(ctx, Path(args.file).read_text(), args.file)
    if args.pipeline:
        PassPipeline.parse_spec(get_all_passes(), args.pipeline).apply(ctx, module)
    func = find_entry(module, args.entry)
    entry = func.sym_name.data
    try:
        datasets = [load_dataset(func, spec) for spec in args.dataset]
    except InputError as error:
        fail(f"error: {error}")
    run_function, runtime_errors = load_backend(args.backend)
    infos = list_thresholds(module)
    tiles = list_tile_parameters(module)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    log(f"{len(infos)} threshold(s), {len(datasets)} dataset(s), backend {args.backend}")

    def measure(dataset: int, thresholds: Thresholds | None) -> float:
        best = float("inf")
        for _ in range(args.runs):
            start = time.perf_counter()
            run_function(module, entry, datasets[dataset], thresholds=thresholds)
            best = min(best, time.perf_counter() - start)
        return best

    try:
        everything_off = {info.name: MAX_THRESHOLD for info in infos}
        pars = [observe_pars(module, entry, data, everything_off) for data in datasets]
        for j, seen in enumerate(pars):
            log(f"dataset #{j}: " + (", ".join(f"{n} sees {sorted(p)}" for n, p in seen.items()) or "reaches no threshold"))
        config = Tuner(infos, pars, measure, log).tune()
        if tiles and args.backend == "opencl":
            config = TileTuner(module, tiles, pars, measure, log).tune(config)
        elif tiles:
            log(f"{len(tiles)} tile size(s) keep their defaults: they change only speed on OpenCL (--backend opencl)")
        default_time = sum(measure(j, None) for j in range(len(datasets)))
        tuned_time = sum(measure(j, config) for j in range(len(datasets)))
    except runtime_errors as error:
        fail(f"error: {error}")
    output = Path(args.output or f"{args.file}.tuning")
    # The environment's lowering options shaped the kernels timed: the file records them, and they apply where it does.
    write_tuning(output, config, options_from_environment(os.environ) if args.backend == "opencl" else None)
    gain = default_time / tuned_time if tuned_time > 0 else 1.0
    log(f"defaults: {default_time * 1e3:.3f} ms, tuned: {tuned_time * 1e3:.3f} ms ({gain:.2f}x)")
    print(f"wrote {output} ({len(config)} threshold(s) and tile size(s)); {gain:.2f}x the speed of the defaults")


def main() -> None:
    run_cleanly(run)


if __name__ == "__main__":
    main()

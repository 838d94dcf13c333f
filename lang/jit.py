"""`@jit`: Python functions on numpy arrays, traced once per argument types, compiled and cached.

    import soac.lang as sl

    @sl.jit
    def map_scan(xs):
        return sl.scan(lambda a, b: a + b, 0, sl.map(lambda x: 3 * x + 1, xs))

    map_scan(np.arange(5, dtype=np.int32))      # traces, compiles, runs: array([ 1,  5, 12, 22, 35])
    map_scan.ir()                               # the traced soac IR; ir(optimized=True) after the passes
    map_scan.opencl()                           # the kernels that ran

A call looks for a compiled program for its argument types and ranks (not the
data) in memory; on a miss it traces the function, then looks for the traced
structure in the on-disk cache (`soac.lang.cache`), and only then runs the pass
pipeline and lowers. The `soac.lang` logger reports hits and misses at DEBUG
level; `soac.lang.cache.STATS` counts them.
"""

from __future__ import annotations

import functools
import inspect
import io
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl
from soac.context import make_context
from soac.interpreter import SoacInterpreter
from soac.lang import cache, dtypes
from soac.lang.autotune import Autotuner, TuningReport, resident_timer
from soac.lang.dtypes import DType
from soac.lang.errors import SoacTraceError, SoacTypeError, SourceLocation, located, user_location
from soac.lang.tracer import Tracer, call_capturing_locals, parameter_names, set_name
from soac.lang.values import Value, argument_values, as_value, name_locals
from soac.lowering.conversion.options import LoweringOptions, one_warp_problem, option_fields, parse_option
from soac.lowering.kernel.target import get_target
from soac.lowering.opencl.emitter import opencl_source
from soac.lowering.runtime import Program, choose_device, compile_module, lower_module, options_for
from soac.lowering.runtime.device_arrays import DeviceNDArray
from soac.parsing import did_you_mean, verify_after
from soac.passes import DEFAULT_PIPELINE, standard_pipeline
from soac.passes.pipelines import all_passes, check_pipeline
from soac.passes.tile_sizes import with_tile_sizes
from soac.passes.tuning import read_tuning, unknown_threshold
from soac.signless import erase_signedness
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, FileLineColLoc, FunctionType, IntAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException

log = logging.getLogger("soac.lang")

BACKENDS = ("opencl", "interp")

ArgType = tuple[DType, int | None]
"""An argument's element type and rank (None for a scalar)."""


def argument_type(position: int, arg: object) -> ArgType:
    """The type of a call argument: a numpy or device array, a numpy scalar or a Python bool, int or float."""
    if isinstance(arg, np.ndarray) or type(arg) is DeviceNDArray:
        dtype = dtypes.from_numpy(arg.dtype)
        rank: int | None = arg.ndim
    else:
        dtype = dtypes.of_argument(arg)
        rank = None
    if dtype is None:
        what = f"{arg.dtype} array" if isinstance(arg, np.ndarray) else type(arg).__name__
        types = "arrays and scalars of bool, int8-64, uint8-64, float32/64"
        raise SoacTypeError(located(f"argument {position + 1}: a {what} has no type in soac ({types})"))
    if rank == 0:
        raise SoacTypeError(located(f"argument {position + 1}: a 0-D array; pass a numpy scalar (a[()]) instead"))
    return dtype, rank


def _ir_type(arg: ArgType) -> Attribute:
    dtype, rank = arg
    return dtype.ir if rank is None else TensorType(dtype.ir, [DYNAMIC_INDEX] * rank)


def _symbol(name: str) -> str:
    cleaned = re.sub(r"\W", "_", name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"f_{cleaned}"


def _definition_location(fn: Callable[..., Any]) -> SourceLocation:
    code = getattr(fn, "__code__", None)
    if code is None:
        return SourceLocation("<unknown>", 0, 0)
    return SourceLocation(code.co_filename, code.co_firstlineno, 1)


def trace(fn: Callable[..., Any], types: Sequence[ArgType], name: str) -> tuple[ModuleOp, bool]:
    """Trace `fn` on symbolic arguments of `types` into a module with one function `@name`.

    Returns the module and whether `fn` returned a tuple (else one value). Unsigned values are traced as `ui8`...
    (constants as a signless constant and an `arith.bitcast`), so that the module says which values are unsigned;
    `soac.signless.erase_signedness` makes it soac's signless IR (as `JitFunction.compile` does).
    """
    inputs = [_ir_type(t) for t in types]
    block = Block(arg_types=inputs)
    tracer = Tracer(block)
    for arg, param in zip(block.args, parameter_names(fn)):
        set_name(arg, param)
    with tracer.active():
        args = argument_values(block.args, types, tracer.scope)
        result, local_names, returned_at = call_capturing_locals(fn, args)
        name_locals(local_names, tracer.scope)
        returned_at = returned_at or _definition_location(fn)
        is_tuple = isinstance(result, tuple | list)
        items = list(result) if is_tuple else [result]
        if not items or (not is_tuple and result is None):
            raise SoacTraceError(located("the function returns nothing", returned_at))
        values = [as_value(item, None, f"result {k + 1} of {name}", returned_at) for k, item in enumerate(items)]
        ret = func.ReturnOp(*(v.ssa for v in values))
        block.add_op(ret)
    where = _definition_location(fn)
    function = func.FuncOp(name, FunctionType.from_lists(inputs, [v.ir_type for v in values]), Region(block))
    function.location = FileLineColLoc(StringAttr(where.filename), IntAttr(where.line), IntAttr(where.column))
    module = ModuleOp([function])
    verify_traced(module)
    return module, is_tuple


def verify_traced(module: ModuleOp) -> None:
    """Verify a traced module; a failure (such as an array used after sl.scatter consumed it) names the Python line."""
    try:
        module.verify()
    except (VerifyException, DiagnosticException) as error:
        for op in module.walk(region_first=True):
            try:
                op.verify(verify_nested_ops=False)
            except (VerifyException, DiagnosticException) as op_error:
                loc = op.location
                if isinstance(loc, FileLineColLoc):
                    where = SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
                    raise SoacTypeError(located(str(op_error), where)) from None
        raise SoacTraceError(f"the traced program does not verify: {error}") from None


class _LocatedPrinter(Printer):
    """xDSL's printer with locations, except inside `scf.while`'s custom syntax, where xDSL 0.74 prints the location
    after the types (and again at the end), which its own parser refuses."""

    def print_operation_type(self, op: Operation) -> None:
        if isinstance(op, scf.WhileOp):
            self.print_function_type(op.operand_types, op.result_types)
        else:
            super().print_operation_type(op)


def print_module(module: ModuleOp, locations: bool = False) -> str:
    stream = io.StringIO()
    (_LocatedPrinter if locations else Printer)(stream, print_debuginfo=locations).print_op(module)
    return stream.getvalue()


@dataclass
class Compiled:
    """One specialisation of a jitted function: its IR before and after the passes, and what runs it."""

    name: str
    traced: ModuleOp
    returns_tuple: bool
    key: str
    optimized_text: str
    """The program after the pass pipeline, printed with its locations."""
    backend: str
    runner: Any
    """A `soac.lowering.runtime.Program` (OpenCL) or a `SoacInterpreter`."""
    result_types: tuple[DType | None, ...] = ()
    """The element type of each result: the signless IR's `i8` results of `u8` values are handed back as uint8."""

    @functools.cached_property
    def optimized(self) -> ModuleOp:
        return Parser(make_context(), self.optimized_text).parse_module()

    def run(
        self,
        args: Sequence[object],
        thresholds: Mapping[str, int],
        device_results: bool | None = None,
        device_scalars: bool = False,
    ) -> Any:
        """The program on `args`; `device_scalars` (OpenCL, with device results): a reduce's scalar results stay on
        the device as 0-d device arrays (`soac.lowering.runtime.Program.call`)."""
        if self.backend == "interp":  # reads device arrays back (`__array__`)
            results = self.runner.call(self.name, args)
        elif device_scalars:
            results = self.runner.call(self.name, args, thresholds, device_results, device_scalars=True)
        else:
            results = self.runner.call(self.name, args, thresholds, device_results)
        results = [_as_unsigned(r, t) for r, t in zip(results, self.result_types)] if self.result_types else results
        return tuple(results) if self.returns_tuple else results[0]

    def opencl(self) -> str:
        if self.backend == "opencl":
            return self.runner.source

        return opencl_source(lower_module(self.optimized))


class JitFunction:
    """A Python function compiled to soac on first call for each combination of argument types and ranks."""

    def __init__(
        self,
        fn: Callable[..., Any],
        backend: str = "opencl",
        pipeline: str | None = None,
        tuning: str | None = None,
        thresholds: Mapping[str, int] | None = None,
        device: str | None = None,
        name: str | None = None,
        lowering: Mapping[str, object] | None = None,
        device_results: bool | None = None,
        autotune: bool = False,
    ):
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
        if pipeline is not None and pipeline != DEFAULT_PIPELINE:
            _check_pipeline(pipeline)
        self.fn = fn
        self.backend = backend
        self.pipeline = pipeline
        """The pass pipeline given; None: the standard one for the device (`soac.passes.standard_pipeline`)."""
        self.device = device
        self.lowering = _checked_lowering(lowering or {})
        self.device_results = device_results
        """Whether array results stay on the device (`DeviceNDArray`s); None: when an argument is a device array."""
        self.name = _symbol(name or getattr(fn, "__name__", "main"))
        self.thresholds: dict[str, int] = {}
        if tuning is not None:
            tuned, tuned_lowering = read_tuning(tuning)
            self.thresholds.update(tuned)
            self.lowering = {**tuned_lowering, **self.lowering}  # the lowering the thresholds were tuned with
        self.named_thresholds = _checked_thresholds(thresholds or {})
        """The `thresholds` argument, whose names each program must have (a typo would change nothing)."""
        self.thresholds.update(self.named_thresholds)
        self.defined_at = user_location()
        self.specializations: dict[tuple[ArgType, ...], Compiled] = {}
        self.last: Compiled | None = None
        self.autotune = autotune and backend == "opencl"
        self.tuners: dict[str, Autotuner] = {}
        self.tunings: list[TuningReport] = []
        """One report per autotuning search this function made (`soac.lang.autotune`), oldest first."""
        functools.update_wrapper(self, fn)  # pyright: ignore[reportArgumentType]

    # -- calling -------------------------------------------------------------

    def __call__(self, *args: object, **kwargs: object) -> Any:
        if Tracer.current_or_none() is not None:  # called from another traced function: inline it
            self._check_call(args, kwargs)
            return self.fn(*args)
        if kwargs:
            self._check_call(args, kwargs)
        types = tuple(argument_type(k, a) for k, a in enumerate(args))
        compiled = self.specializations.get(types)
        if compiled is None:
            compiled = self.compile(types)
        else:
            cache.STATS.memory_hits += 1
            if log.isEnabledFor(logging.DEBUG):
                log.debug("%s%s: cache hit in memory", self.name, _signature(types))
        self.last = compiled
        thresholds = self.tuned_thresholds(compiled, args) if self.autotune else self.thresholds
        return compiled.run(args, thresholds, self.device_results)

    def tuned_thresholds(self, compiled: Compiled, args: Sequence[object]) -> dict[str, int]:
        """The thresholds for this call with `autotune=True`: the size class's choice (searched now if new), under
        the thresholds the user named."""
        tuner = self.tuners.get(compiled.key)
        if tuner is None:
            tuner = self.tuners[compiled.key] = Autotuner(compiled.key, compiled.optimized)
        measure = lambda: resident_timer(compiled.runner, compiled.name, args, self.thresholds, self.named_thresholds)  # noqa: E731
        chosen, report = tuner.thresholds(args, measure)
        if report is not None:
            self.tunings.append(report)
        return {**self.thresholds, **chosen, **self.named_thresholds}

    def specialize(self, *args: object) -> Compiled:
        """The compiled program for the types of `args` (compiled now if needed), without running it."""
        types = tuple(argument_type(k, a) for k, a in enumerate(args))
        compiled = self.specializations.get(types) or self.compile(types)
        self.last = compiled
        return compiled

    def _check_call(self, args: Sequence[object], kwargs: Mapping[str, object]) -> None:
        """SoacTypeError at the call's line unless the call passes the function's parameters, by position."""
        try:
            signature = inspect.signature(self.fn)
        except (TypeError, ValueError):  # no Python signature: the call itself will say
            signature = None
        function = f"the jitted function {getattr(self.fn, '__name__', self.name)}{signature or '(...)'}"
        if kwargs:
            given = ", ".join(kwargs)
            raise SoacTypeError(located(f"{function} takes its arguments by position, not by keyword ({given})"))
        if signature is None:
            return
        try:
            signature.bind(*args)
        except TypeError as error:
            count = f"{len(args)} argument{'' if len(args) == 1 else 's'}"
            raise SoacTypeError(located(f"{function} is called with {count}: {error}")) from None

    def compile(self, types: tuple[ArgType, ...]) -> Compiled:
        self._check_call(types, {})
        traced, returns_tuple = trace(self.fn, types, self.name)
        result_types = _result_types(traced)
        erase_signedness(traced)
        cache.STATS.traces += 1
        device_info, device, local_tiles = self._device()
        pipeline = self.pipeline if self.pipeline is not None else standard_pipeline(local_tiles)

        # Every named value: the tile sizes of ops the passes make (soac-tile's, soac-coalesce's row tiles) are not in
        # the traced module, so `tile_values(traced, ...)` would leave them out of the key.
        tiles = repr(sorted(self.thresholds.items()))
        lowering = "".join(f" {k}={v}" for k, v in sorted(self.lowering.items()))
        key = cache.cache_key(print_module(traced, locations=True), pipeline + lowering, tiles, self.backend, device_info)
        entry = cache.load(key)
        if entry is not None:
            cache.STATS.disk_hits += 1
            log.debug("%s%s: cache miss in memory, hit on disk (%s)", self.name, _signature(types), key[:12])
        else:
            log.debug("%s%s: cache miss; running %s", self.name, _signature(types), pipeline)
            cache.STATS.compiles += 1
            entry = self._build_entry(traced, pipeline)
            cache.store(key, entry)
        cache.STATS.keys.append(key)
        runner = self._runner(entry, device)
        compiled = Compiled(self.name, traced, returns_tuple, key, entry["optimized"], self.backend, runner, result_types)
        if self.named_thresholds:
            if (problem := unknown_threshold(compiled.optimized, self.named_thresholds)) is not None:
                raise ValueError(located(f"sl.jit thresholds of {self.name}{_signature(types)}: {problem}", self.defined_at))
        self.specializations[types] = compiled
        return compiled

    def _device(self) -> tuple[str, Any, bool]:
        """The device's description for the cache key, the device, and whether tiling pays there: a GPU whose target
        shares reads through local memory (on a CPU, PoCL, even the `generic` target's tiles only cost barriers)."""
        if self.backend == "interp":
            return "interp", None, False

        device = choose_device(self.device)
        # Every lowering option as compile_module will use it (given, from the environment, or the device's).
        options = options_for(device, **self.lowering)
        info = f"{device.platform.name}|{device.name}|{device.driver_version}|{options.option_text()}"
        return info, device, options.device_target.local_tiles and bool(device.type & cl.device_type.GPU)

    def _build_entry(self, traced: ModuleOp, pipeline: str) -> dict[str, Any]:
        optimized = traced.clone()
        PassPipeline.parse_spec(all_passes(), pipeline).apply(make_context(), optimized)
        verify_after(optimized, pipeline)
        entry: dict[str, Any] = {"optimized": print_module(optimized, locations=True), "_optimized": optimized}
        if self.backend == "opencl":
            program = compile_module(with_tile_sizes(optimized, self.thresholds), device=self.device, **self.lowering)
            entry["lowered"] = print_module(program.module)
            entry["_program"] = program
        return entry

    def _runner(self, entry: dict[str, Any], device: Any) -> Any:
        if self.backend == "interp":
            module = entry.pop("_optimized", None) or _parse(entry["optimized"])
            return SoacInterpreter(module, self.thresholds)
        program = entry.pop("_program", None)
        if program is not None:
            return program

        return Program(_parse(entry["lowered"]), device)

    # -- inspecting ----------------------------------------------------------

    def _compiled(self, args: Sequence[object]) -> Compiled:
        if args:
            return self.specialize(*args)
        if self.last is None:
            raise SoacTraceError(f"{self.name} has not been called yet: pass example arguments, e.g. f.ir(xs)")
        return self.last

    def ir(self, *args: object, optimized: bool = False) -> str:
        """The soac IR traced for the types of `args` (or of the last call), or after the pass pipeline."""
        compiled = self._compiled(args)
        return print_module(compiled.optimized if optimized else compiled.traced)

    def opencl(self, *args: object) -> str:
        """The OpenCL C of the kernels for the types of `args` (or of the last call)."""
        return self._compiled(args).opencl()

    def __repr__(self) -> str:
        return f"<soac.lang.jit {self.name} backend={self.backend} ({len(self.specializations)} specialisations)>"


def _result_types(traced: ModuleOp) -> tuple[DType, ...]:
    """The element types of the traced function's results (before its signedness is erased)."""
    function = traced.body.block.first_op
    assert isinstance(function, func.FuncOp)
    outputs = function.function_type.outputs.data
    return tuple(dtypes.from_ir(t.get_element_type() if isinstance(t, TensorType) else t) for t in outputs)


def _as_unsigned(result: Any, dtype: DType | None) -> Any:
    """A result of an unsigned element type, which the signless program returns as signed integers, as numpy's
    unsigned array or scalar of the same bits; any other result as it is."""
    if dtype is None or not dtype.is_unsigned:
        return result
    return result.view(dtype.numpy)


def _check_pipeline(pipeline: str) -> None:
    """ValueError at the user's line where `pipeline` names an unknown pass or option, or does not parse."""
    try:
        check_pipeline(pipeline, all_passes())
    except ParseError as error:
        raise ValueError(located(f"sl.jit pipeline {pipeline!r}: {error.msg}")) from None
    except ArgSpecParseError as error:
        problem = str(error).strip().splitlines()[-1].strip()
        raise ValueError(located(f"sl.jit pipeline {pipeline!r} does not parse: {problem[:1].lower()}{problem[1:]}")) from None


def _checked_thresholds(thresholds: Mapping[str, int]) -> dict[str, int]:
    """`thresholds` as names and ints; ValueError at the user's line for another name or value, or a negative one."""
    checked: dict[str, int] = {}
    for name, value in thresholds.items():
        if not isinstance(name, str):
            raise ValueError(located(f"sl.jit thresholds: a threshold's name is a string, not {name!r}"))
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise ValueError(located(f"sl.jit thresholds: '{name}' needs an integer value, not {value!r}"))
        if value < 0:
            raise ValueError(located(f"sl.jit thresholds: '{name}' must not be negative, not {value}"))
        checked[name] = int(value)
    return checked


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _signature(types: Sequence[ArgType]) -> str:
    return "(" + ", ".join(("[]" * rank if rank else "") + dtype.name for dtype, rank in types) + ")"


def _checked_lowering(lowering: Mapping[str, object]) -> dict[str, object]:
    """soac-to-kernel's options by field name (`scan-items` or `scan_items`; values as written, `"8"`, or typed)."""
    fields = option_fields()
    checked: dict[str, object] = {}
    for option, value in lowering.items():
        name = option.replace("-", "_")
        if name not in fields:
            known = [f.replace("_", "-") for f in fields]
            hint = did_you_mean(option.replace("_", "-"), known)
            raise ValueError(located(f"sl.jit lowering option {option!r}{hint}: soac-to-kernel's options are {', '.join(known)}"))
        try:
            checked[name] = parse_option(name, value) if isinstance(value, str) else value
            LoweringOptions(**{name: checked[name]})
        except ValueError as error:
            raise ValueError(located(f"sl.jit lowering option {option}={value!r}: {error}")) from None
    try:
        LoweringOptions(**checked)  # options that each are fine may not be together (a register block too large)
    except ValueError as error:
        raise ValueError(located(f"sl.jit lowering options: {error}")) from None
    if isinstance(target := checked.get("target"), str) and (chosen := get_target(target)).one_warp_groups:
        warp = chosen.subgroup_width
        group_size, scan_group = checked.get("group_size", warp), checked.get("scan_group", warp)
        if (problem := one_warp_problem(chosen, int(group_size), int(scan_group))) is not None:  # pyright: ignore[reportArgumentType]
            raise ValueError(located(f"sl.jit lowering options: {problem}"))
    return checked


def jit(
    fn: Callable[..., Any] | None = None,
    *,
    backend: str = "opencl",
    pipeline: str | None = None,
    tuning: str | None = None,
    thresholds: Mapping[str, int] | None = None,
    device: str | None = None,
    name: str | None = None,
    lowering: Mapping[str, object] | None = None,
    device_results: bool | None = None,
    autotune: bool = False,
) -> Any:
    """Compile a Python function written with soac.lang's combinators; use as `@jit` or `@jit(backend="interp")`.

    `backend` is "opencl" (the default: a GPU, else the CPU through PoCL; `device` as `SOAC_OPENCL_DEVICE`) or
    "interp" (the reference interpreter). `pipeline` is the soac-opt pass pipeline run before lowering (by default
    `soac.passes.TILED_PIPELINE` on GPUs whose target shares reads through local memory, else `DEFAULT_PIPELINE`:
    block tiling and blocks staged in local memory pay only there; pass `pipeline=TILED_PIPELINE` to use them
    elsewhere, `GPU_PIPELINE` to coalesce row-walking kernels: local-memory row tiles, copies); `tuning` a
    tuning file of thresholds, tile sizes and lowering options (as `soac-run --tuning`), `thresholds` more of them;
    `lowering` sets soac-to-kernel's options (`LoweringOptions`; e.g. `{"segred": "teams", "hist": "global",
    "scan-items": 8}`), which win over the tuning file's, the environment variables and the device's defaults. Arguments
    may be device arrays (`sl.device_put`); array results stay on the device when an argument is one, or always with
    `device_results=True` (never with False). The interpreter reads device arrays back and returns numpy arrays.
    With `autotune` (OpenCL only), the first call for each size class times the program's versions on the arguments
    (uploaded once) and keeps the fastest, on disk beside the compile cache (`soac.lang.autotune`); `f.tunings`
    reports each search and its cost.
    """

    def decorate(f: Callable[..., Any]) -> JitFunction:
        return JitFunction(f, backend, pipeline, tuning, thresholds, device, name, lowering, device_results, autotune)

    return decorate(fn) if fn is not None else decorate


__all__ = ["Compiled", "JitFunction", "Value", "jit", "trace"]

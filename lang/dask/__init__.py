"""soac.lang.dask: soac.lang programs over dask arrays, chunk by chunk, on one OpenCL device per worker.

    import dask.array as da
    import soac.lang as sl
    import soac.lang.dask as sd

    @sd.jit
    def energy(xs, k):
        return sl.sum(sl.map(lambda x: k * x * x, xs))

    xs = da.random.random(10**8, chunks=10**7).astype("float32")
    energy(xs, np.float32(0.5)).compute()

A dask array argument is *chunked* (its chunks along axis 0 are run one at a
time, each on a worker's device); a numpy array or a scalar is *whole* (every
chunk gets all of it). The program is split at its SOAC boundaries (see
`soac.lang.dask.plan` for what is accepted and refused, and
`soac.lang.dask.graph` for the dask operations each kind becomes): maps run
blockwise, fused with the reduce, scan or hist that may end the program, whose
partial results dask combines with soac programs of the same operator. The result
is a dask array (0-d for a reduce); nothing runs until it is computed, with any
dask scheduler (threads, or `distributed`).

Chunks resident on the devices: `sd.persist(x)` uploads each chunk once and returns a dask array of
`sl.DeviceArray` blocks; programs over it move no chunk (see `soac.lang.dask.resident`). A reduce or a hist over
resident chunks (or over host chunks small enough to join) runs as one task per device and one combining task
(`soac.lang.dask.groups`; dask's config
`soac.device-groups: False` makes it a task per chunk). `with sd.timeline() as tl:` records what the tasks did, per
thread and device (`soac.lang.dask.timeline`). With host chunks on a
device that copies (a GPU), `jit(prefetch=True)` (the default there) uploads each chunk in a task of its own, so
that a worker thread uploads the next chunk while another computes.

The chunk budget (`jit(chunk_budget=...)`, else dask's config `soac.chunk-budget`:
bytes or a string such as "256 MiB") caps the bytes of a chunk's inputs on the
device: chunks above it are split before the run, and a task over it fails. It
keeps an array larger than a device's memory in chunks that fit (and simulates a
small device on PoCL).
"""

from __future__ import annotations

import functools
import hashlib
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np
from soac.lang import dtypes
from soac.lang.dask.graph import Inputs, build, empty_chunks
from soac.lang.dask.groups import INTERLEAVE_KEY, JOIN_BYTES_KEY, ReadyArray, distributed_client, groupable, grouped
from soac.lang.dask.plan import Plan, SoacDaskError, analyse
from soac.lang.dask.resident import is_resident, persist, refuse_rechunk, stage
from soac.lang.dask.timeline import Span, Timeline, held_locks, timeline
from soac.lang.dask.workers import _LOCK, _PLANS, STATS, Program, Stats, chosen_devices
from soac.lang.errors import located
from soac.lang.jit import ArgType, JitFunction, argument_type, print_module, trace
from soac.lowering.runtime import choose_device, memory_of

CHUNK_BUDGET_KEY = "soac.chunk-budget"
DEVICE_GROUPS_KEY = "soac.device-groups"
READY_KEPT = 8
"""The most graphs over resident chunks a `DaskFunction` keeps for calls to come (`DaskFunction.__call__`)."""
"""dask config: False runs a reduce or a hist over resident chunks as a task per chunk (`soac.lang.dask.groups`)."""


class DaskFunction:
    """A soac.lang function run over dask arrays (see the module's docstring)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        devices: Sequence[str] = (),
        chunk_budget: int | str | None = None,
        split_every: int | None = None,
        prefetch: bool | None = None,
        **jit_options: Any,
    ):
        while isinstance(fn, JitFunction | DaskFunction):  # an @sl.jit or @sd.jit function: its Python function
            fn = fn.fn
        self.fn = fn
        self.devices = tuple(devices)
        self.chunk_budget = chunk_budget
        self.split_every = split_every
        self.prefetch = prefetch
        self.jit_options = tuple(sorted(jit_options.items()))
        self.plans: dict[tuple[tuple[ArgType, ...], frozenset[int]], tuple[str, Plan]] = {}
        self.ready: dict[tuple[Any, ...], tuple[tuple[weakref.ref[Any] | None, ...], ReadyArray]] = {}
        """Graphs ready to run, by `memo_key` (at most `READY_KEPT`), with the arrays they were made of."""
        self.interpreted: JitFunction | None = None
        """The function on the reference interpreter: a hist's destination, from a run on zero rows."""
        self.__name__ = getattr(self.fn, "__name__", "main")
        self.__doc__ = getattr(self.fn, "__doc__", None)

    def budget(self) -> int | None:
        budget = self.chunk_budget if self.chunk_budget is not None else dask.config.get(CHUNK_BUDGET_KEY, None)
        return None if budget is None else dask.utils.parse_bytes(budget)

    def plan(self, types: tuple[ArgType, ...], chunked: frozenset[int]) -> tuple[str, Plan]:
        """The plan for these argument types (traced and checked once; errors name the user's line)."""
        if (found := self.plans.get((types, chunked))) is not None:
            return found
        with _LOCK:
            module, _ = trace(self.fn, types, self.__name__)
            text = print_module(module, locations=True) + repr(sorted(chunked)) + repr(self.jit_options)
            key = hashlib.sha256(text.encode()).hexdigest()
            if (plan := _PLANS.get(key)) is None:
                plan = _PLANS[key] = analyse(module.body.block.first_op, set(chunked))  # pyright: ignore[reportArgumentType]
        self.plans[(types, chunked)] = (key, plan)
        return key, plan

    def __call__(self, *args: Any) -> Any:
        """The dask array of the program on `args`. A call over resident chunks only (`sd.persist`'s) that makes a
        graph of device groups ready to run (`ReadyArray`) is kept for the next call with the same arrays (the same
        objects), equal scalars and the same settings: building it costs more than running it on a small array. The
        graph holds the chunks: it is forgotten when one of its arrays is collected (held weakly), so that it keeps no
        device memory alive beyond the arrays the caller keeps."""
        memo = self.memo_key(args)
        if memo is not None and (kept := self.ready.get(memo)) is not None:
            arrays, ready = kept
            if all(ref is None or ref() is a for ref, a in zip(arrays, args)):
                return ready
        result = self.graph(*args)
        if memo is not None and isinstance(result, ReadyArray):
            if len(self.ready) >= READY_KEPT:
                self.ready.pop(next(iter(self.ready)), None)
            forget = functools.partial(_forget, weakref.ref(self), memo)
            arrays = tuple(weakref.ref(a, forget) if isinstance(a, np.ndarray | da.Array) else None for a in args)
            self.ready[memo] = (arrays, result)
        return result

    def memo_key(self, args: Sequence[Any]) -> tuple[Any, ...] | None:
        """What a kept graph depends on (None: keep none): resident dask arrays by name, numpy arrays by identity,
        scalars by type and value, and the settings read while building it."""
        parts: list[Any] = []
        for a in args:
            if isinstance(a, da.Array):
                if not is_resident(a):
                    return None
                parts.append(("dask", a.name))
            elif isinstance(a, np.ndarray):
                parts.append(("numpy", id(a)))
            elif isinstance(a, int | float | bool | np.generic):
                parts.append(("scalar", type(a), a))
            else:
                return None
        settings = tuple(dask.config.get(k, None) for k in (DEVICE_GROUPS_KEY, JOIN_BYTES_KEY, INTERLEAVE_KEY, CHUNK_BUDGET_KEY))
        return (*parts, settings, self.chunk_budget, chosen_devices(self.devices), distributed_client())

    def graph(self, *args: Any) -> Any:
        chunked = frozenset(k for k, a in enumerate(args) if isinstance(a, da.Array))
        if not chunked:
            raise SoacDaskError(located(f"{self.__name__}: no argument is a dask array; call an sl.jit function on numpy arrays"))
        types = tuple(_dask_type(k, a) if k in chunked else argument_type(k, a) for k, a in enumerate(args))
        key, plan = self.plan(types, chunked)
        budget = self.budget()
        aligned = iter(_aligned([args[k] for k in sorted(chunked)], budget, _whole_bytes(args, chunked), self.__name__))
        arrays = tuple(next(aligned) if k in chunked else a for k, a in enumerate(args))
        host_results = not any(is_resident(arrays[k]) for k in chunked)
        inputs = Inputs(arrays, chunked)
        groups = dask.config.get(DEVICE_GROUPS_KEY, True) and groupable(plan, inputs, len(chosen_devices(self.devices)) or 1)
        if not groups and plan.kind != "scan" and host_results and self.staging():  # a scan's carry reads host chunks
            arrays = tuple(stage(a, self.devices) if k in chunked and not is_resident(a) else a for k, a in enumerate(arrays))
            inputs = Inputs(arrays, chunked)
        program = Program(self.fn, types, chunked, "program", key, self.jit_options)
        options: dict[str, Any] = {"devices": self.devices, "budget": budget, "split_every": self.split_every}
        options["host_results"] = host_results
        if plan.kind == "hist":
            options["empty_run"] = lambda: self._empty_run(args, chunked)
        if groups:
            return grouped(plan, program, inputs, options)
        return build(plan, program, inputs, options)

    def staging(self) -> bool:
        """Whether host chunks go to the device in tasks of their own (`prefetch`; None: on devices that copy)."""
        if self.prefetch is not None:
            return self.prefetch

        return any(memory_of(choose_device(spec)).mode != "zero-copy" for spec in chosen_devices(self.devices) or (None,))

    def _empty_run(self, args: Sequence[Any], chunked: frozenset[int]) -> Any:
        """The program on zero rows of its chunked arguments, by the reference interpreter (a hist's destination)."""
        empties = iter(empty_chunks([args[k] for k in sorted(chunked)]))
        if self.interpreted is None:
            self.interpreted = JitFunction(self.fn, backend="interp", name=self.__name__)
        return self.interpreted(*(next(empties) if k in chunked else a for k, a in enumerate(args)))

    def __repr__(self) -> str:
        return f"<soac.lang.dask.jit {self.__name__}>"


def _forget(function: weakref.ref[DaskFunction], memo: tuple[Any, ...], _: Any) -> None:
    """A kept graph's array was collected: drop the graph (and the chunks it holds)."""
    if (owner := function()) is not None:
        owner.ready.pop(memo, None)


def _dask_type(position: int, array: da.Array) -> ArgType:
    dtype = dtypes.from_numpy(array.dtype)
    if dtype is None or array.ndim == 0:
        what = f"a {array.dtype} dask array" if dtype is None else "a 0-D dask array"
        raise SoacDaskError(
            located(f"argument {position + 1}: {what} has no chunked type in soac (1-D or more, bool, int8-64, float32/64)")
        )
    return dtype, array.ndim


def _whole_bytes(args: Sequence[Any], chunked: frozenset[int]) -> int:
    return sum(a.nbytes for k, a in enumerate(args) if k not in chunked and isinstance(a, np.ndarray))


def _aligned(arrays: list[da.Array], budget: int | None, whole: int, name: str) -> list[da.Array]:
    """The chunked arrays with the chunks of the first along axis 0 (split to fit the budget), one chunk elsewhere."""
    for k, array in enumerate(arrays, 1):
        if any(np.isnan(c) for c in array.chunks[0]):
            problem = f"{name}: chunked array {k} has chunks of unknown size; call compute_chunk_sizes() first"
            raise SoacDaskError(located(problem))
    rows = arrays[0].shape[0]
    for k, array in enumerate(arrays[1:], 2):
        if array.shape[0] != rows:
            raise SoacDaskError(
                located(
                    f"{name}: chunked array {k} has {array.shape[0]} rows, the first has {rows}: "
                    "they split alike only with as many rows"
                )
            )
    chunks = next((a for a in arrays if is_resident(a)), arrays[0]).chunks[0]  # a resident array keeps its chunks
    if budget is not None:
        row_bytes = sum(a.dtype.itemsize * int(np.prod(a.shape[1:])) for a in arrays)
        if whole + row_bytes > budget:
            raise SoacDaskError(
                located(
                    f"{name}: one row of the chunked arrays with the whole ones takes {whole + row_bytes} bytes, "
                    f"over the chunk budget of {budget}"
                )
            )
        per_chunk = (budget - whole) // max(row_bytes, 1)
        chunks = tuple(piece for c in chunks for piece in _split(c, per_chunk))
    refuse_rechunk(arrays, chunks, name)
    return [a if is_resident(a) else a.rechunk({0: chunks, **{d: -1 for d in range(1, a.ndim)}}) for a in arrays]


def _split(rows: int, most: int) -> list[int]:
    if rows <= most:
        return [rows]
    count = -(-rows // most)
    return [rows // count + (1 if k < rows % count else 0) for k in range(count)]


def jit(
    fn: Callable[..., Any] | None = None,
    *,
    devices: Sequence[str] = (),
    chunk_budget: int | str | None = None,
    split_every: int | None = None,
    prefetch: bool | None = None,
    **jit_options: Any,
) -> Any:
    """Run a soac.lang function over dask arrays: `@sd.jit`, or `@sd.jit(devices=["0:0", "0:1"], chunk_budget="1 GiB")`.

    `devices`: the workers' devices (`SOAC_OPENCL_DEVICE` specs), one per worker in turn (else `$SOAC_DASK_DEVICES`,
    else the runtime's default device); `chunk_budget`: see the module's docstring; `split_every`: the fan-in of
    dask's combining tree; `prefetch`: upload host chunks in tasks of their own, so that a worker thread uploads the
    next chunk while another computes (None: on devices that copy, GPUs; PoCL reads host memory in place); other
    options go to `sl.jit` (`pipeline`, `thresholds`, ...).
    """

    def decorate(f: Callable[..., Any]) -> DaskFunction:
        return DaskFunction(f, devices, chunk_budget, split_every, prefetch, **jit_options)

    return decorate(fn) if fn is not None else decorate


stats: Stats = STATS
"""What this process's workers ran: chunks, the largest chunk's bytes, programs built, devices used."""

device_put = persist
"""`sd.device_put(x)` is `sd.persist(x)`: `sl.device_put` for a dask array, chunk by chunk."""

__all__ = [
    "CHUNK_BUDGET_KEY",
    "DEVICE_GROUPS_KEY",
    "DaskFunction",
    "SoacDaskError",
    "Span",
    "Timeline",
    "device_put",
    "held_locks",
    "is_resident",
    "jit",
    "persist",
    "stats",
    "timeline",
]

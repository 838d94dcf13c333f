"""Peer implementations of the benchmarks: numpy on the CPU; CuPy, torch, JAX and CUB on the GPU (when installed).

Dtypes are pinned: torch and CuPy promote int32 sums and cumulative sums to
int64 unless told (`dtype=`), which moves more bytes and is not the same
computation. GPU peers are timed with CUDA events (torch, CuPy, CUB) or wall time
after `block_until_ready` (JAX); numpy with wall time. CUB (bench/cub_scan.cu) is built
with nvcc where there is one and called through ctypes on host arrays.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

Fn = Callable[..., Any]


@dataclass
class Peer:
    name: str
    kind: str
    ops: dict[str, Fn]
    to_device: Fn
    to_host: Fn
    timer: Callable[[Fn, int], float]

    def supports(self, bench: str) -> bool:
        return bench in self.ops

    def time(self, bench: str, args: list[Any], runs: int) -> tuple[float, list[np.ndarray]]:
        device_args = [self.to_device(a) for a in args]
        fn = self.ops[bench]
        result = fn(*device_args)
        results = result if isinstance(result, tuple) else (result,)
        host = [np.asarray(self.to_host(r)) for r in results]
        ms = self.timer(lambda: fn(*device_args), runs)
        return ms, host


def build_cuda(source: Path, shared: bool = False) -> Path | None:
    """`source` built with nvcc for this machine's GPU (a CUB peer: a program, or a shared library with `shared`),
    or None where there is no nvcc."""
    nvcc = shutil.which("nvcc") or next((str(p) for p in Path("/usr/local").glob("cuda*/bin/nvcc")), None)
    if nvcc is None:
        return None
    binary = Path(tempfile.gettempdir()) / (f"libsoac_{source.stem}.so" if shared else f"soac_{source.stem}")
    library = ["-shared", "-Xcompiler", "-fPIC"] if shared else []
    subprocess.run([nvcc, "-O3", "-arch=native", *library, "-o", str(binary), str(source)], check=True)
    return binary


def _wall(fn: Fn, runs: int, sync: Fn = lambda r: r) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sync(fn())
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def _numpy_locvol(u0: np.ndarray, a: np.ndarray, steps: Any) -> np.ndarray:
    u = u0.copy()
    for _ in range(int(steps)):
        ys = np.empty_like(u)
        ys[:, 0] = u[:, 0]
        for j in range(1, u.shape[1]):
            ys[:, j] = u[:, j] + a[j] * ys[:, j - 1]
        u = ys / np.maximum.accumulate(np.maximum(np.float32(1), np.abs(ys)), axis=1)
    return u


def _numpy_scan_reduce(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ys = x * np.int32(3) + np.int32(1)
    return np.cumsum(ys, dtype=np.int32), np.sum(ys, dtype=np.int32), ys.max()


def numpy_peer() -> Peer:
    i32 = np.int32
    ops: dict[str, Fn] = {
        "map_scan": lambda x: np.cumsum(x * i32(3) + i32(1), dtype=i32),
        "scan_scan": lambda x: (np.cumsum(x * x, dtype=i32), np.maximum.accumulate(x)),
        "sum": lambda x: np.sum(x * i32(3) + i32(1), dtype=i32),
        "scan_reduce": _numpy_scan_reduce,
        "radix_sort": lambda x: np.sort(x.view(np.uint32)).view(i32),
        "segred": lambda x: x.sum(axis=1, dtype=i32),
        "segscan": lambda x: np.cumsum(x, axis=1, dtype=i32),
        "matmul": lambda a, b: a @ b,
        "locvolcalib": _numpy_locvol,
    }
    return Peer("numpy (CPU)", "cpu", ops, lambda a: a, lambda r: r, _wall)


def torch_peer() -> Peer | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    i32 = torch.int32

    def timer(fn: Fn, runs: int) -> float:
        fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return float(np.median(times))

    def to_device(a: Any) -> Any:
        return torch.from_numpy(np.ascontiguousarray(a)).cuda() if isinstance(a, np.ndarray) else a

    def torch_scan_reduce(x: Any) -> tuple[Any, Any, Any]:
        ys = x * 3 + 1
        return torch.cumsum(ys, 0, dtype=i32), torch.sum(ys, dtype=i32), torch.max(ys)

    ops: dict[str, Fn] = {
        "map_scan": lambda x: torch.cumsum(x * 3 + 1, 0, dtype=i32),
        "scan_scan": lambda x: (torch.cumsum(x * x, 0, dtype=i32), torch.cummax(x, 0).values),
        "sum": lambda x: torch.sum(x * 3 + 1, dtype=i32),
        "scan_reduce": torch_scan_reduce,
        "radix_sort": lambda x: torch.sort(x).values,
        "segred": lambda x: torch.sum(x, 1, dtype=i32),
        "segscan": lambda x: torch.cumsum(x, 1, dtype=i32),
        "matmul": lambda a, b: a @ b,
    }
    return Peer(f"torch {torch.__version__}", "gpu", ops, to_device, lambda r: r.cpu().numpy(), timer)


def cupy_peer() -> Peer | None:
    try:
        import cupy as cp
    except ImportError:
        return None
    i32 = cp.int32

    def cupy_scan_reduce(x: Any) -> tuple[Any, Any, Any]:
        ys = x * i32(3) + i32(1)
        return cp.cumsum(ys, dtype=i32), cp.sum(ys, dtype=i32), cp.max(ys)

    def timer(fn: Fn, runs: int) -> float:
        fn()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(runs):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        return float(np.median(times))

    ops: dict[str, Fn] = {
        "map_scan": lambda x: cp.cumsum(x * i32(3) + i32(1), dtype=i32),
        "sum": lambda x: cp.sum(x * i32(3) + i32(1), dtype=i32),
        "scan_reduce": cupy_scan_reduce,
        "radix_sort": lambda x: cp.sort(x),
        "segred": lambda x: x.sum(axis=1, dtype=i32),
        "segscan": lambda x: cp.cumsum(x, axis=1, dtype=i32),
        "matmul": lambda a, b: a @ b,
    }
    return Peer(
        f"cupy {cp.__version__}", "gpu", ops, lambda a: cp.asarray(a) if isinstance(a, np.ndarray) else a, cp.asnumpy, timer
    )


def jax_peer() -> Peer | None:
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    try:
        if not any(d.platform == "gpu" for d in jax.devices()):
            return None
    except RuntimeError:
        return None
    i32 = jnp.int32
    ops: dict[str, Fn] = {
        "map_scan": jax.jit(lambda x: jnp.cumsum(x * 3 + 1, dtype=i32)),
        "scan_scan": jax.jit(lambda x: (jnp.cumsum(x * x, dtype=i32), jax.lax.cummax(x))),
        "sum": jax.jit(lambda x: jnp.sum(x * 3 + 1, dtype=i32)),
        "scan_reduce": jax.jit(lambda x: (jnp.cumsum(x * 3 + 1, dtype=i32), jnp.sum(x * 3 + 1, dtype=i32), jnp.max(x * 3 + 1))),
        "radix_sort": jax.jit(jnp.sort),
        "segred": jax.jit(lambda x: jnp.sum(x, 1, dtype=i32)),
        "segscan": jax.jit(lambda x: jnp.cumsum(x, 1, dtype=i32)),
        "matmul": jax.jit(lambda a, b: jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST)),
    }

    def timer(fn: Fn, runs: int) -> float:
        jax.block_until_ready(fn())
        return _wall(fn, runs, jax.block_until_ready)

    return Peer(
        f"jax {jax.__version__}", "gpu", ops, lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a, np.asarray, timer
    )


CUB_OPS = {"map_scan": 0, "scan": 1, "sum": 2, "scan_scan": 3}
"""The ops of bench/cub_scan.cu's `soac_cub`."""


class CubPeer(Peer):
    """A CUB program of bench/cub_scan.cu: it copies the input to the GPU, times its op with CUDA events and gives
    the results of the last call. `premap` applies x*3+1 on the host first (the plain scan of the mapped array)."""

    def __init__(self, name: str, library: ctypes.CDLL, ops: dict[str, str], premap: bool = False):
        super().__init__(name, "gpu", {bench: lambda: None for bench in ops}, lambda a: a, lambda r: r, lambda fn, runs: 0.0)
        self.library, self.cub_ops, self.premap = library, ops, premap

    def time(self, bench: str, args: list[Any], runs: int) -> tuple[float, list[np.ndarray]]:
        xs = np.ascontiguousarray(args[0], dtype=np.int32)
        if self.premap:
            xs = xs * np.int32(3) + np.int32(1)
        op = CUB_OPS[self.cub_ops[bench]]
        outs = [np.empty(1 if op == 2 else len(xs), np.int32), np.empty(len(xs) if op == 3 else 1, np.int32)]
        pointer = ctypes.POINTER(ctypes.c_int32)
        ms = self.library.soac_cub(op, xs.ctypes.data_as(pointer), *(o.ctypes.data_as(pointer) for o in outs), len(xs), runs)
        if ms < 0:
            raise RuntimeError(f"CUB {self.cub_ops[bench]} failed with CUDA error {int(-ms)}")
        return float(ms), (outs if op == 3 else [outs[0].reshape(()) if op == 2 else outs[0]])


def cub_peers() -> list[Peer]:
    """CUB on the same arrays as soac (fused map->scan, redomap sum, two scans; the plain scan of the mapped array),
    where nvcc builds bench/cub_scan.cu."""
    path = build_cuda(Path(__file__).resolve().parent / "cub_scan.cu", shared=True)
    if path is None:
        return []
    library = ctypes.CDLL(str(path))
    pointer = ctypes.POINTER(ctypes.c_int32)
    library.soac_cub.argtypes = [ctypes.c_int, pointer, pointer, pointer, ctypes.c_long, ctypes.c_int]
    library.soac_cub.restype = ctypes.c_float
    fused = {"map_scan": "map_scan", "sum": "sum", "scan_scan": "scan_scan"}
    return [
        CubPeer("CUB (transform iterator; two scans for scan_scan)", library, fused),
        CubPeer("CUB InclusiveSum of the mapped array (plain scan)", library, {"map_scan": "scan"}, premap=True),
    ]


def available_peers(gpu: bool, smoke: bool) -> list[Peer]:
    peers = [numpy_peer()]
    if gpu and not smoke:
        for make in (cupy_peer, torch_peer, jax_peer):
            try:
                peer = make()
            except Exception:
                peer = None
            if peer is not None:
                peers.append(peer)
        try:
            peers.extend(cub_peers())
        except Exception as error:  # a CUB build failure costs the CUB rows only
            print(f"CUB peers not built: {type(error).__name__}: {error}", flush=True)
    return peers

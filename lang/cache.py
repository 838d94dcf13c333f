"""The on-disk compile cache: compiled programs keyed by their traced structure, kept across processes.

An entry holds the program after the pass pipeline and, for the OpenCL
backend, after lowering (the kernel IR, whose OpenCL C is built once more by
pyopencl, which keeps binaries in a cache of its own). The key is a SHA-256 of
the traced IR with its locations, the pipeline, the tile sizes, the backend and
device, and a fingerprint of the compiler (the soac sources, xDSL's version), so
that a changed compiler never reuses an old entry. The folder is
`$SOAC_CACHE_DIR`, else `$XDG_CACHE_HOME/soac/lang` (`~/.cache/soac/lang`);
`SOAC_CACHE_DIR=off` turns it off.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy
import soac.lowering
import soac.passes
import xdsl
from soac import parsing  # the dialect's folder, by one of its modules


@dataclass
class CacheStats:
    """What the compile caches did in this process (also reported through the `soac.lang` logger)."""

    traces: int = 0
    """Functions traced into IR (a miss in memory)."""
    compiles: int = 0
    """Pass pipelines (and lowerings) run: misses of both caches."""
    memory_hits: int = 0
    disk_hits: int = 0
    disk_writes: int = 0
    keys: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if isinstance(v, int)}


STATS = CacheStats()


def cache_dir() -> Path | None:
    configured = os.environ.get("SOAC_CACHE_DIR")
    if configured is not None:
        return None if configured.lower() in ("", "off", "0", "none") else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "soac" / "lang"


@functools.cache
def compiler_fingerprint() -> str:
    """A hash of what decides the compiled code: the soac package's sources and the versions of xDSL and numpy."""
    digest = hashlib.sha256(f"{getattr(xdsl, '__version__', '?')} {numpy.__version__}".encode())
    roots = sorted({os.path.dirname(os.path.abspath(m.__file__ or "")) for m in (parsing, soac.passes, soac.lowering)})
    roots.append(os.path.dirname(os.path.abspath(__file__)))
    for root in roots:
        for folder, dirs, files in sorted(os.walk(root)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256(compiler_fingerprint().encode())
    for part in parts:
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def load(key: str) -> dict[str, Any] | None:
    folder = cache_dir()
    if folder is None:
        return None
    try:
        return json.loads((folder / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None


def store(key: str, entry: dict[str, Any]) -> None:
    """Write an entry atomically (a reader sees the whole entry or none); a cache that cannot be written is skipped."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({k: v for k, v in entry.items() if not k.startswith("_")}, f)
        os.replace(tmp, folder / f"{key}.json")
        STATS.disk_writes += 1
    except OSError:
        pass

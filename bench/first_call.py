"""Where a suite program's first call goes: the pass pipelines, the OpenCL build, and the rest (tracing, the first
launches, which some drivers compile lazily), with soac's cache and the drivers' binary caches off.

    python bench/first_call.py --only nbody,softmax            # GPU sizes on the first GPU
    python bench/first_call.py --small --only nbody            # PoCL
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["SOAC_CACHE_DIR"] = "off"
for name, value in (("PYOPENCL_NO_CACHE", "1"), ("POCL_KERNEL_CACHE", "0"), ("CUDA_CACHE_DISABLE", "1")):
    os.environ.setdefault(name, value)

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
from xdsl.passes import PassPipeline  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "real"))
from suite import PROGRAMS  # noqa: E402

spent: dict[str, float] = {}


def timed(owner: Any, attribute: str, label: Callable[..., str]) -> None:
    original = getattr(owner, attribute)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            key = label(*args)
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - start

    setattr(owner, attribute, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="nbody")
    parser.add_argument("--small", action="store_true")
    options = parser.parse_args()
    timed(PassPipeline, "apply", lambda pipeline, *_: "passes: " + ",".join(p.name for p in pipeline.passes[-1:]))
    timed(cl.Program, "build", lambda *_: "OpenCL build")
    import soac.lang as sl

    for name in options.only.split(","):
        spent.clear()
        program = next(p for p in PROGRAMS if p.name == name)
        args = program.inputs(np.random.default_rng(0), program.sizes["small" if options.small else "gpu"])
        f = sl.jit(program.soac, device="pocl") if options.small else sl.jit(program.soac)
        start = time.perf_counter()
        f(*args)
        total = time.perf_counter() - start
        start = time.perf_counter()
        f(*args)
        second = time.perf_counter() - start
        parts = ", ".join(f"{k} {v:.3f}" for k, v in spent.items())
        rest = total - sum(spent.values())
        print(f"{name}: first call {total:.3f} s ({parts}, rest {rest:.3f}); second call {second:.3f} s", flush=True)


if __name__ == "__main__":
    main()

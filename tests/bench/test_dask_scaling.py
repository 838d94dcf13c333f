"""bench/dask_scaling.py's check that a resident run fits the devices before it starts (on PoCL's device: its
memory and largest buffer stand for a GPU's)."""

from __future__ import annotations

import sys
from pathlib import Path

import dask
from soac.lowering.runtime import choose_device

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from dask_scaling import resident_fits  # pyright: ignore[reportMissingImports]


def test_resident_fits_says_why_not() -> None:
    device = choose_device("pocl")
    largest, memory = device.max_mem_alloc_size, device.global_mem_size
    elements = lambda nbytes: nbytes // 4  # noqa: E731  (f32)
    assert resident_fits(["pocl"], elements(1 << 24), 8, with_cupy=False) is None
    assert "largest buffer" in (resident_fits(["pocl"], elements(largest) + 1024, 1, with_cupy=False) or "")
    if memory * 0.9 > largest:  # as on a GPU: many chunks fit a buffer each, but not the memory together
        chunks = int(memory // largest) + 2
        assert "over 90%" in (resident_fits(["pocl"], elements(largest) * chunks, chunks, with_cupy=False) or "")
    with dask.config.set({"soac.chunk-budget": "1 MiB"}):
        assert "chunk budget" in (resident_fits(["pocl"], elements(4 << 20), 2, with_cupy=False) or "")

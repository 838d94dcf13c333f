"""Tiled kernels on PoCL write inside their buffers (session 40's crash: backprop through `TILED_PIPELINE` with the
`generic` target aborted the process with heap corruption).

PoCL 3.0 and 3.1 miscompile a store guarded by a work-item's private condition after a branch with barriers: every
work-item of the group stores when work-item 0 does (`bench/pocl_select_barrier.py`). The tiled kernel's last chunk
was such a branch, so a block with fewer results than work-items wrote past its result buffer, which on a CPU device
is heap memory. The runtime now lowers the last chunk without the branch on PoCL (`tile_tail_branch`).

Each launch here runs on copies of its buffers with a guard zone after them; a kernel that writes into a guard fails
the test, whether or not the heap would have noticed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pyopencl as cl
import pytest
import soac.lang as sl
from soac.lowering.runtime import choose_device, options_for
from soac.lowering.runtime import program as runtime_program
from soac.passes import TILED_PIPELINE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "real"))
from suite.backprop import backprop, peer  # pyright: ignore[reportMissingImports]
from suite.backprop import inputs as backprop_inputs  # pyright: ignore[reportMissingImports]

GUARD_BYTES = 4096
GUARD = 0x5A


@pytest.fixture
def writes_past_buffers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every launch runs on guarded copies of its buffers; the names of the kernels that wrote into a guard."""
    launch = runtime_program._LaunchSite.launch
    offenders: list[str] = []

    def guarded(site: Any, queue: cl.CommandQueue, values: list[Any], global_size: int, local_size: int) -> None:
        copies, swapped = [], list(values)
        for index, (value, scalar) in enumerate(zip(values, site.types)):
            if scalar is not None:
                continue
            nbytes = max(value.size * value.dtype.itemsize, value.dtype.itemsize)
            host = np.full(nbytes + GUARD_BYTES, GUARD, np.uint8)
            cl.enqueue_copy(queue, host[:nbytes], value.buffer)
            copy = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
            swapped[index] = SimpleNamespace(buffer=copy)
            copies.append((value, copy, host, nbytes))
        launch(site, queue, swapped, global_size, local_size)
        site.current = [runtime_program._UNSET] * len(values)  # the copies go: set every argument again next time
        for value, copy, host, nbytes in copies:
            cl.enqueue_copy(queue, host, copy)
            if (host[nbytes:] != GUARD).any():
                offenders.append(site.name)
            cl.enqueue_copy(queue, value.buffer, host[:nbytes])

    monkeypatch.setattr(runtime_program._LaunchSite, "launch", guarded)
    return offenders


@pytest.mark.parametrize("size", [{"inputs": 64, "hidden": 16}, {"inputs": 300, "hidden": 5}])
def test_tiled_backprop_writes_inside_its_buffers(size: dict[str, int], writes_past_buffers: list[str]) -> None:
    """backprop's forward pass is a 1-D tiled op (a block of 128 hidden units, 64 work-items) over 16 or 5 units."""
    args = backprop_inputs(np.random.default_rng(1), size)
    jitted = sl.jit(backprop, pipeline=TILED_PIPELINE, lowering={"target": "generic"})
    assert "soac.tiled_redomap" in jitted.specialize(*args).optimized_text
    got = jitted(*args)
    assert writes_past_buffers == []
    for value, want in zip(got, peer(np)(*args)):
        np.testing.assert_allclose(np.asarray(value), want, rtol=1e-4, atol=1e-6)


def test_pocl_lowers_the_last_chunk_without_a_branch() -> None:
    device = choose_device()
    on_pocl = "portable computing language" in device.platform.name.lower()
    assert options_for(device, target="generic").tile_tail_branch is not on_pocl
    assert options_for(device, target="generic", tile_tail_branch=True).tile_tail_branch

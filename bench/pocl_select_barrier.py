"""PoCL miscompile: a private condition read after a branch with barriers takes work-item 0's value (no soac needed).

Found chasing "heap corruption when many suite programs run in one PoCL process" (bugs38). Reproduced with

    SOAC_TARGET=generic MALLOC_CHECK_=3 python bench/real/run.py --small --coalesce --only matvec   # double free

(tiling on PoCL, which soac.lang does only when asked: `--coalesce`, `--pipeline` with `soac-tile`, or the tests'
`sl.jit(f, pipeline=TILED_PIPELINE, lowering={"target": "generic"})`). The tiled matvec kernel (`matvec_tiled_0`)
guards each work-item's row reads inside its tail loop with `in_space ? a[...] : 0` and its store after the loop with
`if (in_space)`; the tail sits in `if (tail > 0) { barrier; ...; barrier; loop }`. PoCL 3.1 (LLVM 15, Debian's
`pocl-opencl-icd`; loopvec and loops work-group methods alike) and PoCL 3.0-rc2 (LLVM 14, the pyopencl wheel's) run
the store in every work-item when work-item 0's row exists, so a block with fewer rows than work-items writes past the
result buffer; on a CPU device that buffer is heap memory (glibc then reports `double free or corruption` /
`munmap_chunk(): invalid pointer`). The soac kernel's OpenCL C is right: printf shows the condition false in
work-item 1 before the branch and true at the store. `-cl-opt-disable` builds it right: with the runtime's
`cl.Program(...).build()` given that option (an experiment, not kept), the whole suite tiled on PoCL
(`SOAC_TARGET=generic MALLOC_CHECK_=3 run.py --small --pipeline <TILED_PIPELINE>`) ran with 0 failures, where
without it matvec and backprop abort with heap corruption. soac.lang tiles only on GPUs, so PoCL users meet this only
when they ask for tiling. Since session 40 (branch crash40) the runtime works around it on PoCL: the tiled kernels run
their last chunk without the branch (`tile-tail-branch=false`, `select_no_branch`'s shape below), and
tests/lang/test_tiled_stores_in_bounds.py checks backprop's launches against guard zones after their buffers.

The three kernels below differ in one thing each; only `select_in_loop` writes outside `out[0]`:

    python bench/pocl_select_barrier.py                   # select_in_loop writes out[0..63]
    python bench/pocl_select_barrier.py -cl-opt-disable   # all write out[0] only
"""

from __future__ import annotations

import sys

import numpy as np
import pyopencl as cl

PROLOGUE = """
__kernel void k(const long n, const long m, __global float *out) {
  __local float tile[64];
  const long tid = get_local_id(0);
  const bool mine = tid < n;
  float acc = 0.0f;
"""
KERNELS = {
    "select_in_loop": PROLOGUE
    + """
  if (m > 0) {
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[tid] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long i = 0; i < m; i++) acc += mine ? tile[i] : 0.0f;
  }
  if (mine) out[tid] = acc;
}""",
    "plain_loop": PROLOGUE
    + """
  if (m > 0) {
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[tid] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long i = 0; i < m; i++) acc += tile[i];
  }
  if (mine) out[tid] = acc;
}""",
    "select_no_branch": PROLOGUE
    + """
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[tid] = 1.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long i = 0; i < m; i++) acc += mine ? tile[i] : 0.0f;
  if (mine) out[tid] = acc;
}""",
}
GROUP = 64


def written(context: cl.Context, queue: cl.CommandQueue, source: str, options: list[str]) -> list[int]:
    """The elements of `out` the kernel writes with n = 1 (only out[0] should be)."""
    kernel = cl.Program(context, source).build(options=options).k
    out = np.full(GROUP, -1.0, np.float32)
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    kernel(queue, (GROUP,), (GROUP,), np.int64(1), np.int64(5), buffer)
    cl.enqueue_copy(queue, out, buffer)
    queue.finish()
    return np.flatnonzero(out != -1.0).tolist()


def main(options: list[str]) -> int:
    platform = next(p for p in cl.get_platforms() if "Portable" in p.name)
    device = platform.get_devices()[0]
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    print(f"{platform.version} | {device.name} | build options {options}")
    wrong = 0
    for name, source in KERNELS.items():
        indices = written(context, queue, source, options)
        wrong += indices != [0]
        print(f"{name:18} n=1: writes out{indices if len(indices) < 4 else f'[{indices[0]}..{indices[-1]}]'}")
    return wrong


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1:]) else 0)

"""The real-program suite: one module per program, each exposing `PROGRAM` (see `program.Program`)."""

from __future__ import annotations

from . import (
    backprop,
    batched_matmul,
    blackscholes,
    histeq,
    hotspot,
    kmeans,
    layernorm,
    locvolcalib,
    mandelbrot,
    matvec,
    nbody,
    nearest,
    pathfinder,
    softmax,
    spmv,
)
from .program import Program, agree

PROGRAMS: list[Program] = [
    nbody.PROGRAM,
    softmax.PROGRAM,
    layernorm.PROGRAM,
    matvec.PROGRAM,
    batched_matmul.PROGRAM,
    batched_matmul.PROGRAM_INDEXED,  # the same written with indices (issue 27, item 3)
    kmeans.PROGRAM,
    kmeans.PROGRAM_ROWS,  # the sums as one histogram of rows (Futhark's reduce_by_index form)
    blackscholes.PROGRAM,
    mandelbrot.PROGRAM,
    spmv.PROGRAM,
    pathfinder.PROGRAM,
    hotspot.PROGRAM,
    backprop.PROGRAM,
    nearest.PROGRAM,
    histeq.PROGRAM,
    locvolcalib.PROGRAM,
]

__all__ = ["PROGRAMS", "Program", "agree"]

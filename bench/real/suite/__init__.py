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
    m.PROGRAM
    for m in (
        nbody,
        softmax,
        layernorm,
        matvec,
        batched_matmul,
        kmeans,
        blackscholes,
        mandelbrot,
        spmv,
        pathfinder,
        hotspot,
        backprop,
        nearest,
        histeq,
        locvolcalib,
    )
]

__all__ = ["PROGRAMS", "Program", "agree"]

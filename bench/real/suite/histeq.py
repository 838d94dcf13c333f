"""Histogram equalisation of an 8-bit grey image (Accelerate's and the CUDA samples' histogram examples): a
histogram, its prefix sum, a lookup table from the cumulative distribution, and a gather per pixel. The image is
numpy's uint8, its pixels the hist's bins and the gather's indices as they are."""

from __future__ import annotations

from typing import Any

import numpy as np
import soac.lang as sl

from .program import Program, bincount

LEVELS = 256


def histeq(image):
    pixels = image.shape[0]
    counts = sl.hist(sl.replicate(LEVELS, sl.i32(0)), lambda a, b: a + b, 0, image, sl.replicate(pixels, sl.i32(1)))
    cdf = sl.cumsum(counts)
    lowest = sl.min(sl.map(lambda c, h: sl.where(h > 0, c, sl.i32(2**31 - 1)), cdf, counts))
    scale = (LEVELS - 1.0) / sl.f32(sl.maximum(sl.i32(pixels) - lowest, 1))
    table = sl.map(lambda c: sl.i32(sl.floor(sl.f32(c - lowest) * scale + 0.5)), cdf)
    return sl.map(lambda p: table[p], image)


def peer(xp: Any):
    def histeq(image):
        counts = bincount(xp, image, LEVELS).astype(np.int32)
        cdf = xp.cumsum(counts, dtype=np.int32)
        lowest = xp.min(xp.where(counts > 0, cdf, np.int32(2**31 - 1)))
        scale = np.float32(LEVELS - 1) / xp.maximum(image.shape[0] - lowest, 1).astype(np.float32)
        table = xp.floor((cdf - lowest).astype(np.float32) * scale + np.float32(0.5)).astype(np.int32)
        return table[image]

    return histeq


def inputs(rng: np.random.Generator, size: dict[str, int]) -> tuple[Any, ...]:
    return (np.clip(rng.normal(100, 25, size["pixels"]), 0, LEVELS - 1).astype(np.uint8),)


PROGRAM = Program(
    "histeq",
    "Accelerate examples / CUDA samples: histogram equalisation of a (flattened) 8-bit image",
    histeq,
    peer(np),
    inputs,
    {"gpu": {"pixels": 4096 * 4096}, "small": {"pixels": 50_000}},
    peer,
    failed_forms=(
        (
            "a 2-D image: per-row histograms summed with "
            "sl.reduce(lambda a, b: a + b, sl.replicate(256, sl.i32(0)), sl.map(row_hist, image))",
            "LoweringError 'soac.redomap' ...: its operator combines arrays "
            " (tensor<?xi32>), which no kernel does outside a lambda; ...",
        ),
    ),
)

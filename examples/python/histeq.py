"""Histogram equalisation of an 8-bit grey image given as numpy's `uint8`: a histogram of the pixel values
(soac.hist, with the u8 pixels as bins), its prefix sum (the cumulative distribution), a lookup table that
spreads the occupied levels over 0..255, and the image mapped through the table, back to `uint8`.

The table is exact integer arithmetic on unsigned values: `(cdf - lowest) * 255 / (pixels - lowest)`, rounded
to nearest, in u64 (no overflow for any image that fits in memory), so both backends agree with numpy bit for bit.

    python examples/python/histeq.py
"""

import numpy as np
import soac.lang as sl

LEVELS = 256


def histeq(image):
    pixels = sl.flatten(image)
    total = sl.u32(pixels.shape[0])
    counts = sl.hist(sl.replicate(LEVELS, sl.u32(0)), lambda a, b: a + b, 0, pixels, sl.replicate(pixels.shape[0], sl.u32(1)))
    cdf = sl.cumsum(counts)
    lowest = sl.min(sl.map(lambda c, h: sl.where(h > 0, c, sl.u32(2**32 - 1)), cdf, counts))
    denominator = sl.u64(sl.maximum(total - lowest, sl.u32(1)))

    def level(c):
        above = sl.u64(sl.where(c > lowest, c - lowest, sl.u32(0)))
        return sl.u8((above * 255 + denominator // 2) // denominator)

    table = sl.map(level, cdf)
    return sl.map(lambda row: sl.map(lambda p: table[p], row), image)


def reference(image: np.ndarray) -> np.ndarray:
    counts = np.bincount(image.ravel(), minlength=LEVELS).astype(np.uint32)
    cdf = np.cumsum(counts, dtype=np.uint32)
    lowest = cdf[counts > 0].min() if image.size else np.uint32(2**32 - 1)
    denominator = np.uint64(max(np.uint32(image.size) - lowest, np.uint32(1)))
    above = np.where(cdf > lowest, cdf - lowest, np.uint32(0)).astype(np.uint64)
    table = ((above * np.uint64(255) + denominator // np.uint64(2)) // denominator).astype(np.uint8)
    return table[image]


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    image = np.clip(rng.normal(100, 20, (64, 48)), 0, 255).astype(np.uint8)
    equalised = sl.jit(histeq)(image)
    print(equalised.dtype, equalised.min(), equalised.max(), np.array_equal(equalised, reference(image)))

"""A histogram of values in [0, 1) over `num_bins` equal bins, with soac.hist (Futhark's reduce_by_index):
each value gives its bin and a count of one; values outside [0, 1) fall outside the bins and are skipped.

    python examples/python/histogram.py
"""

import numpy as np
import soac.lang as sl


def histogram(values, num_bins):
    bins = sl.map(lambda v: sl.i64(sl.floor(v * sl.f32(num_bins))), values)
    ones = sl.replicate(values.shape[0], sl.i32(1))
    counts = sl.replicate(num_bins, sl.i32(0))
    return sl.hist(counts, lambda a, b: a + b, 0, bins, ones)


def reference(values: np.ndarray, num_bins: int) -> np.ndarray:
    bins = np.floor(values * np.float32(num_bins)).astype(np.int64)
    inside = (bins >= 0) & (bins < num_bins)
    return np.bincount(bins[inside], minlength=num_bins).astype(np.int32)


if __name__ == "__main__":
    values = np.random.default_rng(0).random(1000, np.float32)
    print(sl.jit(histogram)(values, 10), reference(values, 10))

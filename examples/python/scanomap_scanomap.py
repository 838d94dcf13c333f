"""Two scans over one input, as in the thesis' scanomap-scanomap benchmark: a running sum of squares and a
running maximum. `soac-fuse` fuses them horizontally into one scanomap, so the input is read once.

    python examples/python/scanomap_scanomap.py
"""

import numpy as np
import soac.lang as sl


def scanomap_scanomap(inp):
    sums = sl.scan(lambda a, b: a + b, 0, sl.map(lambda x: x * x, inp))
    maxs = sl.scan(sl.maximum, np.iinfo(np.int32).min, inp)
    return sums, maxs


def reference(inp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.cumsum(inp * inp, dtype=inp.dtype), np.maximum.accumulate(inp)


if __name__ == "__main__":
    inp = np.array([3, -1, 4, 1, -5, 9], np.int32)
    print(sl.jit(scanomap_scanomap)(inp), reference(inp))

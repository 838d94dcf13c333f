"""The thesis' map->scan, `scan (+) 0 (map (\\x -> 3*x + 1) xs)`, written in soac.lang.

It is examples/map_scan.mlir line by line (the Python names become the IR's
names), so that fusion makes the same scanomap and the OpenCL C is the same
text as the hand-written program's (tests/lang/test_examples.py checks it).

    python examples/python/map_scan.py        # prints the result and numpy's
"""

import numpy as np
import soac.lang as sl


def map_scan(xs):
    def f(x):
        x3 = x * 3
        y = x3 + 1
        return y

    ys = sl.map(f, xs)
    zero = sl.i32(0)

    def plus(a, b):
        s = a + b
        return s

    sums = sl.scan(plus, zero, ys)
    return sums


def reference(xs: np.ndarray) -> np.ndarray:
    return np.cumsum(3 * xs + 1, dtype=xs.dtype)


if __name__ == "__main__":
    xs = np.array([1, 2, 3, 4], np.int32)
    print(sl.jit(map_scan)(xs), reference(xs))  # [ 4 11 21 34] [ 4 11 21 34]

"""Radix sort after the thesis' appendix A: 32 stable partitions by one bit each (maps, scans, a reduce and a
scatter), in a sequential `sl.loop` over the bits. Keys are numpy's uint32 (`>>` on unsigned values fills with
zeros; the positions are u32 indices).

    python examples/python/radix_sort.py
"""

import numpy as np
import soac.lang as sl


def radix_sort_step(xs, digit):
    bits = sl.map(lambda x: (x >> digit) & 1, xs)
    bits_inv = sl.map(lambda b: 1 - b, bits)
    ps0 = sl.scan(lambda a, b: a + b, 0, bits_inv)
    ps0_clean = sl.map(lambda b, p: b * p, bits_inv, ps0)
    ps1 = sl.scan(lambda a, b: a + b, 0, bits)
    ps0_offset = sl.reduce(lambda a, b: a + b, 0, bits_inv, commutative=True)
    ps1_clean = sl.map(lambda b, p: b * (p + ps0_offset), bits, ps1)
    ps_actual = sl.map(lambda p, q: p + q - 1, ps0_clean, ps1_clean)
    return sl.scatter(sl.copy(xs), ps_actual, xs)


def radix_sort(xs):
    return sl.loop(32, xs, lambda i, keys: radix_sort_step(keys, sl.u32(i)))


def reference(xs: np.ndarray) -> np.ndarray:
    return np.sort(xs)


if __name__ == "__main__":
    xs = np.random.default_rng(0).integers(0, 2**32, 20, dtype=np.uint32)
    print(sl.jit(radix_sort)(xs), reference(xs), sep="\n")

"""Matrix multiplication as nested parallelism: a map over the rows of `a` of a map over the columns of `b`
of a dot product (a sum of a map). Fusion makes the dot product one redomap; flattening gives the versions
behind thresholds that examples/matmul.mlir shows.

    python examples/python/matmul.py
"""

import numpy as np
import soac.lang as sl


def matmul(a, b):
    bt = sl.transpose(b)
    return sl.map(lambda arow: sl.map(lambda bcol: sl.sum(arow * bcol), bt), a)


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a @ b


if __name__ == "__main__":
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([[5, 6], [7, 8]], np.float32)
    print(sl.jit(matmul)(a, b), reference(a, b), sep="\n")

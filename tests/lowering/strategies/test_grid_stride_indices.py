"""Grid-stride kernels over index spaces of several dimensions carry their indices from element to element
(`strategies/maps.py`'s `grid_stride_indexed`): segmaps, transposes and reversals, on both layouts (the GPUs'
strided one and the CPUs' contiguous one), with few work-items so that each steps through many elements and the
carries cross every dimension, on sizes with empty dimensions, ones and primes; against numpy."""

from __future__ import annotations

import numpy as np
import pytest
import soac.lang as sl

SHAPES = [(1, 1, 1), (3, 5, 7), (7, 11, 13), (0, 4, 5), (5, 0, 3), (2, 3, 0), (17, 1, 13), (2, 64, 3)]
LAYOUTS = [
    {"layout": "strided", "group_size": 32, "max_groups": 1},
    {"layout": "strided", "group_size": 64, "max_groups": 3},
    {"layout": "contiguous", "group_size": 32, "max_groups": 2},
]


def positions(xs):
    """Each element's value with its three indices folded in: a segmap whose lambda reads its indices."""
    n, m, k = xs.shape
    return sl.map(
        lambda i, plane: sl.map(
            lambda j, row: sl.map(lambda q, x: x * 2 + i * 10000 + j * 100 + q, sl.iota(k), row), sl.iota(m), plane
        ),
        sl.iota(n),
        xs,
    )


def transposed(xs):
    return sl.transpose(xs, (2, 0, 1))


def reversed_middle(xs):
    return sl.map(lambda plane: sl.reverse(plane), xs)


def numpy_positions(xs: np.ndarray) -> np.ndarray:
    i, j, q = np.indices(xs.shape)
    return xs * 2 + i * 10000 + j * 100 + q


CASES = {
    "segmap": (positions, numpy_positions),
    "transpose": (transposed, lambda xs: np.transpose(xs, (2, 0, 1))),
    "reverse": (reversed_middle, lambda xs: xs[:, ::-1, :]),
}


@pytest.mark.parametrize("lowering", LAYOUTS, ids=lambda o: f"{o['layout']}-{o['group_size']}x{o['max_groups']}")
@pytest.mark.parametrize("case", list(CASES))
def test_indices_carried_across_every_dimension(case: str, lowering: dict[str, object]) -> None:
    program, expected = CASES[case]
    f = sl.jit(program, lowering=lowering)
    for shape in SHAPES:
        xs = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
        np.testing.assert_array_equal(f(xs), expected(xs), err_msg=f"{case}, shape {shape}")

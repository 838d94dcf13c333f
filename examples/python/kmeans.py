"""One step of k-means clustering (Lloyd's algorithm), as Futhark writes it: each point joins its nearest centre,
then `reduce_by_index` over rows sums the points of each cluster (a histogram whose bins are rows of d
coordinates, combined element-wise), a second one counts them, and each new centre is its cluster's mean (a centre
without points stays where it was).

    futhark: reduce_by_index (replicate k (replicate d 0)) (map2 (+)) (replicate d 0) membership points

    python examples/python/kmeans.py
"""

import numpy as np
import soac.lang as sl


def kmeans(points, centres):
    k, d = centres.shape[0], centres.shape[1]

    def nearest(p):
        distances = sl.map(lambda c: sl.sum(sl.map(lambda x, y: (x - y) * (x - y), p, c)), centres)

        def closer(a, b):  # the smaller distance; the first centre of equal ones, as numpy's argmin
            a_first = (a[0] < b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
            return sl.where(a_first, a[0], b[0]), sl.where(a_first, a[1], b[1])

        _, best = sl.reduce(closer, (sl.f32(np.inf), sl.i64(k)), distances, sl.iota(k))
        return best

    membership = sl.map(nearest, points)
    sums = sl.hist(sl.replicate(k, sl.replicate(d, sl.f32(0))), lambda a, b: a + b, sl.f32(0), membership, points)
    counts = sl.hist(
        sl.replicate(k, sl.i32(0)), lambda a, b: a + b, sl.i32(0), membership, sl.replicate(points.shape[0], sl.i32(1))
    )
    return sl.map(lambda s, n, old: sl.where(n > 0, s / sl.f32(n), old), sums, counts, centres), counts


def reference(points: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    membership = distances.argmin(axis=1) if len(centres) else np.zeros(len(points), np.int64)
    sums = np.zeros_like(centres)
    np.add.at(sums, membership, points)
    counts = np.bincount(membership, minlength=len(centres)).astype(np.int32)
    means = sums / np.maximum(counts, 1)[:, None].astype(np.float32)
    return np.where(counts[:, None] > 0, means, centres).astype(np.float32), counts


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    points = rng.random((1000, 3), np.float32)
    centres = points[:4].copy()
    new, counts = sl.jit(kmeans)(points, centres)
    expected, expected_counts = reference(points, centres)
    print(new, counts)
    print(expected, expected_counts)

"""Order statistics of small float arrays, and the means and spreads of a floor's pixels,
the same numbers NumPy gives, without its per-call machinery.

The tray flags take a dozen medians and percentiles of a few hundred pixels per die and
several more in the floor search; there ``np.median``'s axis handling and copies cost more
than the one partition that matters. Each function here returns exactly what its NumPy
counterpart returns (value and type; NaN when a value is NaN) and hands any input it does
not handle to NumPy.
"""

from __future__ import annotations

import math
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt


def median(values: npt.NDArray[np.floating[Any]]) -> np.floating[Any]:
    """``np.median`` of a 1-D float array, the same number, without its general machinery.

    ``np.median`` spends tens of microseconds on axis handling and copies before the one
    partition that matters; the per-die measurements take several medians of a few hundred
    pixels each, where that overhead is most of the cost. As ``np.median``: the middle
    value, the mean of the two middle ones (in the array's type) for an even count, NaN
    when any value is NaN.
    """
    v = np.asarray(values)
    n = v.size
    if v.ndim != 1 or n == 0 or v.dtype.kind != "f":
        return cast("np.floating[Any]", np.median(v))
    h = n // 2
    kth = (h, n - 1) if n % 2 else (h - 1, h, n - 1)
    part = np.partition(v, kth)
    if np.isnan(part[-1]):
        return cast("np.floating[Any]", part[-1])
    if n % 2:
        return cast("np.floating[Any]", part[h])
    two = part[h - 1 : h + 1]
    return cast("np.floating[Any]", v.dtype.type((two[0] + two[1]) / 2))


def column_medians(values: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.floating[Any]]:
    """``np.median(values, axis=0)`` of an (N, K) float array, the same numbers (see
    :func:`median`), as a (K,) array of its type."""
    v = np.asarray(values)
    if v.ndim != 2 or v.shape[0] == 0:
        return np.asarray(np.median(v, axis=0))
    return np.array([median(v[:, j]) for j in range(v.shape[1])], v.dtype)


def row_medians(values: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.floating[Any]]:
    """``np.median(values, axis=1)`` of an (M, N) float array, the same numbers (see
    :func:`median`): one partition of the rows, no copies and checks around it."""
    v = np.asarray(values)
    if v.ndim != 2 or v.shape[1] == 0 or v.dtype.kind != "f":
        return np.asarray(np.median(v, axis=1))
    n = v.shape[1]
    h = n // 2
    kth = (h, n - 1) if n % 2 else (h - 1, h, n - 1)
    part = np.partition(v, kth, axis=1)
    out = part[:, h].copy() if n % 2 else (part[:, h - 1] + part[:, h]) / v.dtype.type(2)
    out[np.isnan(part[:, -1])] = np.nan
    return np.asarray(out, v.dtype)


def column_mean_std(
    values: npt.NDArray[np.floating[Any]],
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.floating[Any]]]:
    """``values.mean(axis=0)`` and ``values.std(axis=0)`` of an (N, K) float32 array, the
    same numbers, several times faster.

    NumPy sums a C-ordered array of two or more columns down its first axis row by row,
    in float32, one short row of K values at a time; ``cv2.reduce`` adds the rows in the
    same order in float32 (``test_stats`` checks the numbers) without NumPy's per-row
    overhead. The divisions and the square root are NumPy's own, as ``np.mean`` and
    ``np.std`` do them. A single column NumPy sums pairwise, so it is left to NumPy.
    """
    v = np.asarray(values)
    if (
        v.ndim != 2
        or v.shape[0] == 0
        or v.shape[1] < 2
        or v.dtype != np.float32
        or not v.flags.c_contiguous
    ):
        return np.asarray(v.mean(axis=0)), np.asarray(v.std(axis=0))
    count = np.intp(v.shape[0])
    mean = np.asarray(cv2.reduce(v, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F)).reshape(-1)
    np.true_divide(mean, count, out=mean, casting="unsafe")
    dev = v - mean
    np.multiply(dev, dev, out=dev)
    var = np.asarray(cv2.reduce(dev, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F)).reshape(-1)
    np.true_divide(var, count, out=var, casting="unsafe")
    return cast("npt.NDArray[np.floating[Any]]", mean), np.sqrt(var, out=var)


def percentile(values: npt.NDArray[np.floating[Any]], q: float) -> np.floating[Any]:
    """``np.percentile(values, q)`` (linear interpolation) of a 1-D float array, the same
    number, at a fraction of the cost (see :func:`median`): the two neighbouring order
    statistics from one partition, interpolated as NumPy's ``_lerp`` does."""
    v = np.asarray(values)
    n = v.size
    if v.ndim != 1 or n == 0 or v.dtype.kind != "f" or not 0.0 <= q <= 100.0:
        return cast("np.floating[Any]", np.percentile(v, q))
    virtual = (n - 1) * float(np.true_divide(q, 100))
    if virtual >= n - 1:
        lo = hi = n - 1
    else:
        lo = math.floor(virtual)
        hi = lo + 1
    part = np.partition(v, sorted({0, lo, hi, n - 1}))
    if np.isnan(part[-1]):
        return cast("np.floating[Any]", part[-1])
    a, b = part[lo], part[hi]
    t = virtual - lo if hi != lo else 0.0
    diff = b - a
    return cast("np.floating[Any]", b - diff * (1 - t) if t >= 0.5 else a + diff * t)

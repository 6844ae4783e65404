"""calibration.stats: the same order statistics as NumPy's, bit for bit."""

from __future__ import annotations

import numpy as np

from calibration.stats import column_mean_std, column_medians, median, percentile, row_medians


def _samples(rng: np.random.Generator, n: int, dtype: type[np.floating]) -> np.ndarray:
    """Values with many ties (8-bit pixels) or none, as the floor and die statistics see."""
    if n % 3 == 0:
        return rng.integers(0, 12, n).astype(dtype)
    return (rng.normal(0.0, 40.0, n) + 128.0).astype(dtype)


def test_median_and_percentile_give_numpys_numbers() -> None:
    # The fast statistics replace np.median / np.percentile in the flag step, whose
    # decisions must not change: the same numbers, bit for bit, of the same type.
    rng = np.random.default_rng(5)
    for n in [*range(1, 40), 255, 256, 4001, 4002]:
        for dtype in (np.float32, np.float64):
            v = _samples(rng, n, dtype)
            got, want = median(v), np.median(v)
            assert type(got) is type(want) and got == want, (n, dtype)
            for q in (0, 25, 50, 75, 90, 100, 33.3):
                got, want = percentile(v, q), np.percentile(v, q)
                assert type(got) is type(want) and got == want, (n, dtype, q)
            cols = np.stack([v, v[::-1] * 0.5, -v], axis=1)
            got_c, want_c = column_medians(cols), np.median(cols, axis=0)
            assert got_c.dtype == want_c.dtype and np.array_equal(got_c, want_c), (n, dtype)
            got_r, want_r = row_medians(cols.T), np.median(cols.T, axis=1)
            assert got_r.dtype == want_r.dtype and np.array_equal(got_r, want_r), (n, dtype)


def test_median_and_percentile_of_values_with_nan_are_nan() -> None:
    v = np.array([3.0, np.nan, 1.0, 2.0], np.float32)
    assert np.isnan(median(v)) and np.isnan(percentile(v, 90))
    rows = row_medians(np.stack([v, np.arange(4, dtype=np.float32)]))
    assert np.isnan(rows[0]) and rows[1] == 1.5


def test_column_mean_and_std_give_numpys_numbers() -> None:
    # The floor's Lab mean and spread set every colour threshold after it: the same
    # float32 numbers as values.mean(axis=0) and values.std(axis=0), bit for bit.
    rng = np.random.default_rng(8)
    for n in [1, 2, 3, 7, 8, 9, 100, 1023, 4096, 9001, 30000]:
        for k in (1, 2, 3, 4):
            for spread in (0.5, 40.0, 255.0):
                v = (rng.normal(128.0, spread, (n, k))).astype(np.float32)
                if n % 2:
                    v = np.round(v)  # 8-bit pixels: many ties
                mean, std = column_mean_std(v)
                want_mean, want_std = v.mean(axis=0), v.std(axis=0)
                assert mean.dtype == want_mean.dtype and np.array_equal(mean, want_mean), (n, k)
                assert std.dtype == want_std.dtype and np.array_equal(std, want_std), (n, k)

"""Medians per group against statistics.median, whichever sort the values take
(one combined key when it fits in 62 bits, a lexsort otherwise)."""

from __future__ import annotations

import math
import statistics
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.core.base.grouped import group_medians, median


@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 50), (-(10**9), 10**9), (-(2**62), 2**62)],  # the last: the lexsort
    ids=["small", "negative", "beyond 62 bits"],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_medians_are_statistics_median(low: int, high: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = 9
    group = rng.integers(0, size - 1, 2000).astype(np.int64)  # the last is empty
    values = rng.integers(low, high, 2000, dtype=np.int64)
    keep = rng.random(2000) < 0.8
    medians = group_medians(size, group, values, keep)
    for row in range(size):
        members = [float(v) for v in values[(group == row) & keep].tolist()]
        if members:
            assert medians[row] == statistics.median(members)
        else:
            assert math.isnan(medians[row])


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-(2**63), 2**63 - 1), max_size=12).map(
            lambda values: np.array(values, dtype=np.int64)
        ),
        st.lists(st.floats(allow_infinity=False), max_size=12).map(
            lambda values: np.array(values, dtype=np.float64)
        ),
    )
)
def test_median_is_numpys_to_the_bit(values: np.ndarray) -> None:
    with warnings.catch_warnings():
        # numpy's on an empty column; both overflow alike to inf near float64's max.
        warnings.simplefilter("ignore", RuntimeWarning)
        wanted = float(np.median(values))
        got = median(values)
    assert got == wanted or (math.isnan(got) and math.isnan(wanted))

"""`distinct` is `np.unique` of an id column, by sorting (numpy's hash table is
slow when most ids differ): same values, same dtype, same order, every kind."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tui.core.base.distinct import distinct

INTEGER_DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.uint64, np.bool_]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@given(data=st.data())
def test_same_as_numpy_on_integers(
    dtype: type[np.generic], data: st.DataObject
) -> None:
    values = data.draw(
        hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=2, min_side=0))
    )
    got, want = distinct(values), np.unique(values)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_empty_and_single() -> None:
    for values in (np.zeros(0, np.int64), np.array([7], np.int32), np.array([[3]])):
        got = distinct(values)
        np.testing.assert_array_equal(got, np.unique(values))
        assert got.dtype == values.dtype and got.ndim == 1


def test_input_is_left_as_it_was() -> None:
    values = np.array([5, 1, 5, 3], dtype=np.int64)
    distinct(values)
    assert values.tolist() == [5, 1, 5, 3]


def test_a_million_distinct_ids() -> None:
    ids = np.random.default_rng(0).permutation(1_000_000).astype(np.int64)
    np.testing.assert_array_equal(distinct(ids), np.arange(1_000_000))


@pytest.mark.parametrize(
    "values",
    [np.array([1.5, np.nan, 1.5, np.nan]), np.array(["b", "a", "b"])],
    ids=["floats with NaN", "strings"],
)
def test_other_kinds_keep_numpys_rules(values: np.ndarray) -> None:
    np.testing.assert_array_equal(distinct(values), np.unique(values))

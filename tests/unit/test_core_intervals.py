"""The interval algebra against a brute-force model: sets of integer points."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.core.base.intervals import Intervals

LIMIT = 60

raw_intervals = st.lists(
    st.tuples(st.integers(0, LIMIT), st.integers(0, 12)), max_size=12
)


def build(pairs: list[tuple[int, int]]) -> Intervals:
    return Intervals.union_of(
        np.array([start for start, _ in pairs], dtype=np.int64),
        np.array([start + length for start, length in pairs], dtype=np.int64),
    )


def points(pairs: list[tuple[int, int]]) -> set[int]:
    return {t for start, length in pairs for t in range(start, start + length)}


def points_of(intervals: Intervals) -> set[int]:
    return {t for start, end in intervals for t in range(start, end)}


def assert_normalised(intervals: Intervals) -> None:
    starts, ends = intervals.starts, intervals.ends
    assert starts.dtype == np.int64 and ends.dtype == np.int64
    assert np.all(ends > starts)
    # Sorted, disjoint and never touching: every interval is maximal.
    assert np.all(starts[1:] > ends[:-1])


@given(raw_intervals)
def test_union_of_is_the_point_set_and_maximal(pairs: list[tuple[int, int]]) -> None:
    result = build(pairs)
    assert_normalised(result)
    assert points_of(result) == points(pairs)
    assert result.total_ns == len(points(pairs))


@given(raw_intervals, raw_intervals)
def test_set_operations_match_points(
    left_pairs: list[tuple[int, int]], right_pairs: list[tuple[int, int]]
) -> None:
    left, right = build(left_pairs), build(right_pairs)
    a, b = points(left_pairs), points(right_pairs)
    for result, expected in (
        (left.union(right), a | b),
        (left.intersect(right), a & b),
        (left.subtract(right), a - b),
    ):
        assert_normalised(result)
        assert points_of(result) == expected


@given(raw_intervals, st.integers(-5, LIMIT + 5), st.integers(0, 40))
def test_clip_and_covered(
    pairs: list[tuple[int, int]], start: int, length: int
) -> None:
    intervals = build(pairs)
    end = start + length
    window = set(range(start, end))
    clipped = intervals.clip(start, end)
    assert_normalised(clipped)
    assert points_of(clipped) == points(pairs) & window
    assert intervals.covered_ns(start, end) == len(points(pairs) & window)
    assert clipped.total_ns == len(points(pairs) & window)


@given(raw_intervals, st.lists(st.integers(0, LIMIT), max_size=6))
@settings(max_examples=200)
def test_split_keeps_the_points_and_cuts_at_each_cut(
    pairs: list[tuple[int, int]], cuts: list[int]
) -> None:
    intervals = build(pairs)
    pieces = intervals.split_at(np.array(cuts, dtype=np.int64))
    assert points_of(pieces) == points(pairs)
    assert pieces.total_ns == intervals.total_ns
    for start, end in pieces:
        assert not any(start < cut < end for cut in cuts)


def test_covered_in_many_windows() -> None:
    intervals = Intervals.union_of(np.array([0, 10, 30]), np.array([5, 20, 40]))
    covered = intervals.covered_in(
        np.array([0, 3, 15, 25, 45, 8]), np.array([50, 12, 35, 28, 50, 8])
    )
    assert covered.tolist() == [25, 4, 10, 0, 0, 0]


def test_assign_to_windows() -> None:
    intervals = Intervals.union_of(np.array([0, 10, 30, 60]), np.array([5, 20, 40, 70]))
    step_of = intervals.assign(np.array([0, 25, 50]), np.array([12, 50, 65]))
    assert step_of.tolist() == [0, 0, 1, 2]

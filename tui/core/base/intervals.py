"""Sorted interval sets on numpy arrays: the one algebra behind every time figure.

Device busy, gaps, untraced time, breakdowns and overlaps are all sets of
half-open `[start, end)` nanosecond intervals. An `Intervals` value is always
normalised — sorted, disjoint, non-empty, and with touching intervals merged —
so its length is a plain sum and no figure can count the same nanosecond
twice. Every operation is vectorised: its cost is O(n log n) in numpy, never a
Python loop per interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_EMPTY = np.zeros(0, dtype=np.int64)
_EMPTY.flags.writeable = False


def _as_int64(values: npt.ArrayLike) -> Int64Array:
    return np.ascontiguousarray(values, dtype=np.int64).reshape(-1)


@dataclass(frozen=True, eq=False)
class Intervals:
    """A normalised set of `[start, end)` intervals (int64 ns).

    Build one with `Intervals.union_of` (any intervals, overlapping or not)
    or `Intervals.span`; the constructor trusts its arrays to be normalised.
    """

    starts: Int64Array
    ends: Int64Array

    # -- construction ---------------------------------------------------------

    @classmethod
    def empty(cls) -> Intervals:
        """The empty set."""
        return cls(_EMPTY, _EMPTY)

    @classmethod
    def span(cls, start: int, end: int) -> Intervals:
        """One interval; empty when `end <= start`."""
        if end <= start:
            return cls.empty()
        return cls(np.array([start], dtype=np.int64), np.array([end], dtype=np.int64))

    @classmethod
    def union_of(cls, starts: npt.ArrayLike, ends: npt.ArrayLike) -> Intervals:
        """The union of any intervals: sorted, overlapping and touching ones merged, empty ones dropped."""
        starts = _as_int64(starts)
        ends = _as_int64(ends)
        if starts.shape != ends.shape:
            raise ValueError("starts and ends differ in length")
        keep = ends > starts
        if not keep.all():
            starts, ends = starts[keep], ends[keep]
        if starts.size == 0:
            return cls.empty()
        if starts.size > 1 and not bool(np.all(starts[1:] >= starts[:-1])):
            order = np.argsort(starts, kind="stable")
            starts, ends = starts[order], ends[order]
        running_end = np.maximum.accumulate(ends)
        # A new block starts where the start lies beyond everything before it;
        # touching intervals (start == previous end) join the same block.
        new_block = np.empty(starts.size, dtype=np.bool_)
        new_block[0] = True
        np.greater(starts[1:], running_end[:-1], out=new_block[1:])
        heads = np.flatnonzero(new_block)
        block_ends = running_end[np.append(heads[1:] - 1, starts.size - 1)]
        return cls(starts[heads], block_ends)

    @classmethod
    def union_all(cls, sets: Sequence[Intervals]) -> Intervals:
        """The union of several sets."""
        if not sets:
            return cls.empty()
        if len(sets) == 1:
            return sets[0]
        return cls.union_of(
            np.concatenate([item.starts for item in sets]),
            np.concatenate([item.ends for item in sets]),
        )

    # -- reading ----------------------------------------------------------------

    def __len__(self) -> int:
        return int(self.starts.size)

    def __bool__(self) -> bool:
        return bool(self.starts.size)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(zip(self.starts.tolist(), self.ends.tolist(), strict=True))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Intervals):
            return NotImplemented
        return bool(
            np.array_equal(self.starts, other.starts)
            and np.array_equal(self.ends, other.ends)
        )

    def __repr__(self) -> str:
        shown = list(self)[:4]
        more = f", … {len(self) - 4} more" if len(self) > 4 else ""
        return f"Intervals({shown}{more})"

    @property
    def total_ns(self) -> int:
        """The length of the set: a sum, since intervals are disjoint."""
        return int((self.ends - self.starts).sum())

    @property
    def lengths(self) -> Int64Array:
        """Each interval's length."""
        return self.ends - self.starts

    @property
    def first_ns(self) -> int | None:
        """The earliest start, None when empty."""
        return int(self.starts[0]) if self.starts.size else None

    @property
    def last_ns(self) -> int | None:
        """The latest end, None when empty."""
        return int(self.ends[-1]) if self.ends.size else None

    def contains(self, times: npt.ArrayLike) -> BoolArray:
        """Which times lie inside the set."""
        moments = _as_int64(times)
        position = np.searchsorted(self.starts, moments, side="right") - 1
        safe = np.maximum(position, 0)
        return (position >= 0) & (
            moments < self.ends[safe] if self.ends.size else False
        )

    # -- algebra ---------------------------------------------------------------

    def union(self, other: Intervals) -> Intervals:
        """Times in either set."""
        return Intervals.union_all([self, other])

    def intersect(self, other: Intervals) -> Intervals:
        """Times in both sets."""
        if not self or not other:
            return Intervals.empty()
        return _combine(self, other, np.logical_and)

    def subtract(self, other: Intervals) -> Intervals:
        """Times in this set and not in `other`."""
        if not self or not other:
            return self
        return _combine(self, other, lambda mine, theirs: mine & ~theirs)

    def clip(self, start: int, end: int) -> Intervals:
        """The part of the set inside `[start, end)`."""
        if end <= start or not self:
            return Intervals.empty()
        first = int(np.searchsorted(self.ends, start, side="right"))
        last = int(np.searchsorted(self.starts, end, side="left"))
        if last <= first:
            return Intervals.empty()
        starts = self.starts[first:last].copy()
        ends = self.ends[first:last].copy()
        starts[0] = max(int(starts[0]), start)
        ends[-1] = min(int(ends[-1]), end)
        return Intervals(starts, ends)

    def covered_ns(self, start: int, end: int) -> int:
        """How much of `[start, end)` the set covers."""
        return int(self.covered_in(np.array([start]), np.array([end]))[0])

    def covered_in(self, starts: npt.ArrayLike, ends: npt.ArrayLike) -> Int64Array:
        """How much of each window `[starts[i], ends[i])` the set covers, for many windows at once."""
        window_starts = _as_int64(starts)
        window_ends = _as_int64(ends)
        if not self:
            return np.zeros(window_starts.size, dtype=np.int64)
        covered = self._covered_before(window_ends) - self._covered_before(
            window_starts
        )
        return np.where(window_ends > window_starts, covered, 0)

    @cached_property
    def _prefix(self) -> Int64Array:
        """The length of the first i intervals, for each i (a summary asks device
        busy of every step, then of the whole trace)."""
        prefix = np.zeros(self.starts.size + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=prefix[1:])
        return prefix

    def _covered_before(self, times: Int64Array) -> Int64Array:
        """Length of the set before each time: prefix sums plus the interval still open."""
        prefix = self._prefix
        count = np.searchsorted(self.starts, times, side="right")
        previous = np.maximum(count - 1, 0)
        overshoot = np.where(count > 0, np.maximum(self.ends[previous] - times, 0), 0)
        return prefix[count] - overshoot

    def split_at(self, cuts: npt.ArrayLike) -> Intervals:
        """The same times, with intervals cut at each of `cuts` (so each piece lies on one side).

        The result is no longer merged at the cuts; its length is unchanged.
        """
        moments = _distinct(_as_int64(cuts))
        if not self or moments.size == 0:
            return self
        # Cuts strictly inside each interval.
        low = np.searchsorted(moments, self.starts, side="right")
        high = np.searchsorted(moments, self.ends, side="left")
        inside = np.maximum(high - low, 0)
        if not inside.any():
            return self
        pieces = inside + 1
        owner = np.repeat(np.arange(self.starts.size), pieces)
        rank = np.arange(int(pieces.sum())) - np.repeat(
            np.cumsum(pieces) - pieces, pieces
        )
        cut_index = low[owner] + rank  # the cut this piece starts after (rank >= 1)
        piece_starts = np.where(
            rank == 0,
            self.starts[owner],
            moments[np.minimum(cut_index - 1, moments.size - 1)],
        )
        is_last = rank == inside[owner]
        piece_ends = np.where(
            is_last, self.ends[owner], moments[np.minimum(cut_index, moments.size - 1)]
        )
        return Intervals(piece_starts.astype(np.int64), piece_ends.astype(np.int64))

    def assign(
        self, window_starts: npt.ArrayLike, window_ends: npt.ArrayLike
    ) -> Int64Array:
        """For each interval, the index of the window its start lies in (-1 for none).

        Windows must be sorted and disjoint (steps are).
        """
        starts = _as_int64(window_starts)
        ends = _as_int64(window_ends)
        position = np.searchsorted(starts, self.starts, side="right") - 1
        safe = np.maximum(position, 0)
        inside = (position >= 0) & (self.starts < ends[safe] if ends.size else False)
        return np.where(inside, position, -1).astype(np.int64)


def _distinct(values: Int64Array) -> Int64Array:
    """The sorted distinct values (np.unique, without its import of numpy.ma)."""
    ordered = np.sort(values)
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _combine(
    left: Intervals,
    right: Intervals,
    keep: Callable[[BoolArray, BoolArray], BoolArray],
) -> Intervals:
    """Sweep both sets' boundaries once and keep the elementary pieces where `keep` holds.

    Each boundary carries ±1 (a start or an end of the left set) or ±2 (of
    the right one); in time order, the running sum says which sets cover
    the piece after each time (read after the last boundary at that time). The four boundary
    arrays are each sorted, so a stable sort merges them in near-linear
    time, where asking each set which pieces it contains was two binary
    searches of every piece (most of the time of the step split).
    """
    count_left, count_right = left.starts.size, right.starts.size
    times = np.concatenate([left.starts, left.ends, right.starts, right.ends])
    if times.size < 2:
        return Intervals.empty()
    order = np.argsort(times, kind="stable")
    times = times[order]
    steps = np.zeros(times.size, dtype=np.int8)
    steps[:count_left] = 1
    steps[count_left : 2 * count_left] = -1
    steps[2 * count_left : 2 * count_left + count_right] = 2
    steps[2 * count_left + count_right :] = -2
    # The running sum is 0, 1 (left), 2 (right) or 3 (both).
    covered = np.cumsum(steps[order], dtype=np.int8)
    last = np.empty(times.size, dtype=np.bool_)
    last[-1] = True
    np.not_equal(times[1:], times[:-1], out=last[:-1])
    at = np.flatnonzero(last)
    bounds = times[at]
    if bounds.size < 2:
        return Intervals.empty()
    state = covered[at[:-1]]
    chosen = keep((state & 1).astype(np.bool_), (state & 2).astype(np.bool_))
    return Intervals.union_of(bounds[:-1][chosen], bounds[1:][chosen])

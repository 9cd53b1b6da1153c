"""Lanes: one row's events split so that the events overlapping any window are one slice."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

MAX_LANES = 12
"""A row is split into at most this many lanes; the last one keeps the rest."""


@dataclass(frozen=True)
class Lane:
    """Events of one row whose running maximum end makes both bounds a binary search."""

    events: Int64Array
    starts: Int64Array
    ends: Int64Array
    end_key: Int64Array
    """Running max of ends: monotone, so searchsorted works."""
    cover: Int64Array | None
    """Position of the event reaching `end_key` (the one still running); None: itself."""
    busy_prefix: Int64Array
    """busy_prefix[i]: the sum of the first i durations."""
    monotone: bool

    @classmethod
    def build(
        cls,
        events: Int64Array,
        starts: Int64Array,
        ends: Int64Array,
        end_key: Int64Array | None = None,
    ) -> Lane:
        """Index a lane once: running max end, who reaches it, prefix sums of durations."""
        if end_key is None:
            end_key = np.maximum.accumulate(ends) if ends.size else ends
        monotone = bool(np.array_equal(end_key, ends))
        cover = None
        if not monotone:
            positions = np.arange(ends.size, dtype=np.int64)
            cover = np.maximum.accumulate(np.where(ends >= end_key, positions, 0))
        busy_prefix = np.zeros(ends.size + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=busy_prefix[1:])
        return cls(
            events,
            starts,
            ends,
            ends if monotone else end_key,
            cover,
            busy_prefix,
            monotone,
        )

    @property
    def size(self) -> int:
        """How many events the lane holds."""
        return int(self.events.size)

    def covering(self, positions: Int64Array) -> Int64Array:
        """For each position, the event position whose end is the running max there."""
        return positions if self.cover is None else self.cover[positions]

    def visible(self, start_ns: int, end_ns: int) -> tuple[int, int]:
        """Index range of the events that may overlap [start, end)."""
        low = int(np.searchsorted(self.end_key, start_ns, side="right"))
        high = int(np.searchsorted(self.starts, end_ns, side="left"))
        return low, max(low, high)


def split_lanes(events: Int64Array, starts: Int64Array, ends: Int64Array) -> list[Lane]:
    """Peel events (sorted by start) into lanes whose ends never decrease.

    In such a lane the events overlapping a window are exactly one contiguous
    slice found by two binary searches, whatever lies outside the window.
    """
    lanes: list[Lane] = []
    remaining, remaining_starts, remaining_ends = events, starts, ends
    while remaining.size:
        running = np.maximum.accumulate(remaining_ends)
        record = remaining_ends >= running
        if len(lanes) == MAX_LANES - 1 or record.all():
            lanes.append(
                Lane.build(remaining, remaining_starts, remaining_ends, running)
            )
            break
        lanes.append(
            Lane.build(
                remaining[record], remaining_starts[record], remaining_ends[record]
            )
        )
        keep = ~record
        remaining = remaining[keep]
        remaining_starts = remaining_starts[keep]
        remaining_ends = remaining_ends[keep]
    return lanes


def lanes_of(trace: Trace, events: Int64Array) -> list[Lane]:
    """Lanes of events sorted by start; a contiguous run reads the columns in place."""
    contiguous = events.size and int(events[-1]) - int(events[0]) == events.size - 1
    if contiguous and bool(np.all(np.diff(events) == 1)):
        run = slice(int(events[0]), int(events[-1]) + 1)
        starts = trace.start_ns[run]
        return split_lanes(events, starts, starts + trace.duration_ns[run])
    starts = trace.start_ns[events]
    return split_lanes(events, starts, starts + trace.duration_ns[events])


def marked_lanes(lanes: list[Lane], marked: BoolArray) -> list[Lane]:
    """The marked events of a row's lanes, as lanes again (empty ones left out).

    A subset of a lane keeps its order by start, and its ends still never
    decrease where the lane's did, so nothing is sorted: marking a million
    events costs a gather per lane, not a sort of the row.
    """
    kept: list[Lane] = []
    for lane in lanes:
        keep = marked[lane.events]
        if not keep.any():
            continue
        ends = lane.ends[keep]
        kept.append(
            Lane.build(
                lane.events[keep],
                lane.starts[keep],
                ends,
                ends if lane.monotone else None,
            )
        )
    return kept


def neighbour(
    lane: Lane, here: tuple[int, int], direction: int
) -> tuple[int, int] | None:
    """The (start, event) just after or just before `here` in a lane."""
    start = here[0]
    if direction > 0:
        position = int(np.searchsorted(lane.starts, start, side="left"))
        while position < lane.starts.size:
            candidate = (int(lane.starts[position]), int(lane.events[position]))
            if candidate > here:
                return candidate
            position += 1
        return None
    position = int(np.searchsorted(lane.starts, start, side="right")) - 1
    while position >= 0:
        candidate = (int(lane.starts[position]), int(lane.events[position]))
        if candidate < here:
            return candidate
        position -= 1
    return None


def run_heads(values: npt.NDArray[np.generic]) -> BoolArray:
    """True where a run of equal values begins (np.r_ is slow on hot paths)."""
    heads = np.empty(values.size, dtype=np.bool_)
    if values.size:
        heads[0] = True
        np.not_equal(values[1:], values[:-1], out=heads[1:])
    return heads

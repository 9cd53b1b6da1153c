"""What the timeline's keys select: the row an event is on, the next event on a
row, the event under the cursor, the next track, and what `f` fits."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from tui.core.base.vocab import RowRole
from tui.view.lanes import neighbour
from tui.view.layout import Row, TimelineLayout
from tui.view.timeline_index import TimelineIndex


def row_contains(index: TimelineIndex, row: Row, event: int) -> bool:
    """Whether `event` is drawn on `row`, in constant or logarithmic time."""
    if row.role is RowRole.TRACK:
        if row.track != int(index.trace.track[event]):
            return False
        depth = index.depth_of(event)
        return depth == row.depth or (row.deeper > 0 and depth >= row.depth)
    members = row.members
    if members is None or members.size == 0:
        return False
    position = int(np.searchsorted(members, event))
    return position < members.size and int(members[position]) == event


def row_of(index: TimelineIndex, layout: TimelineLayout, event: int) -> int | None:
    """Index of the row drawing `event`: its track's row, else a header row or
    its device's row (its stream folded)."""
    rows = layout.rows
    track = int(index.trace.track[event])
    for position, row in enumerate(rows):
        if row.track == track and row_contains(index, row, event):
            return position
    for position, row in enumerate(rows):  # a header row, or its device's row
        if row.role is not RowRole.TRACK and row_contains(index, row, event):
            return position
    return None


def next_on_row(row: Row, here: tuple[int, int], direction: int) -> int | None:
    """The event just after (or before) `here` = (start, event) on a row."""
    best: tuple[int, int] | None = None
    for lane in row.lanes:
        candidate = neighbour(lane, here, direction)
        if candidate is None:
            continue
        if best is None or (candidate < best) == (direction > 0):
            best = candidate
    return None if best is None else best[1]


def longest_in(row: Row, low: int, high: int) -> int | None:
    """The longest event of `row` overlapping [low, high), earliest on ties."""
    best: tuple[int, int] | None = None
    for lane in row.lanes:
        first, last = lane.visible(low, high)
        if last <= first:
            continue
        ends = lane.ends[first:last]
        durations = np.where(ends > low, ends - lane.starts[first:last], -1)
        position = int(np.argmax(durations))
        if durations[position] < 0:
            continue
        candidate = (int(durations[position]), -int(lane.events[first + position]))
        if best is None or candidate > best:
            best = candidate
    return None if best is None else -best[1]


def track_target(rows: list[Row], cursor_row: int, direction: int) -> int | None:
    """The first row of the previous or next track (header rows count as tracks)."""
    current = rows[cursor_row].track if cursor_row < len(rows) else None
    starts = [
        position
        for position, row in enumerate(rows)
        if row.role is not RowRole.AXIS
        and (row.role is not RowRole.TRACK or row.first_of_track)
    ]
    if direction > 0:
        after = [
            position
            for position in starts
            if position > cursor_row and rows[position].track != current
        ]
        return after[0] if after else None
    first_of_current = next(
        (
            position
            for position in starts
            if current is not None and rows[position].track == current
        ),
        cursor_row,
    )
    before = [position for position in starts if position < first_of_current]
    return before[-1] if before else None


class Picked(enum.Enum):
    """Which of the timeline's two selections was made last."""

    NOTHING = enum.auto()
    EVENT = enum.auto()
    RANGE = enum.auto()


@dataclass
class Selection:
    """What is selected on the timeline, and which of the two was chosen last."""

    event: int | None = None
    range: tuple[int, int] | None = None
    latest: Picked = Picked.NOTHING
    """Which was selected last: what `f` fits."""

    def fit_target(self, index: TimelineIndex) -> tuple[int, int] | None:
        """The range the latest selection covers (an event: its own extent)."""
        event = None
        if self.event is not None:
            trace = index.trace
            start = int(trace.start_ns[self.event])
            event = start, start + max(int(trace.duration_ns[self.event]), 1)
        if self.latest is Picked.RANGE:
            return self.range or event
        return event or self.range

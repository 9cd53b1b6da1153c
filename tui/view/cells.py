"""Cells: what each character cell of a time lane shows, exactly or summarised.

A view of [start, end) over `width` cells. With few events in view each one
is bucketed into the cells it touches (the longest owns a cell); with many,
each cell is summarised by binary searches and prefix sums, at a cost that
depends on the width, not on the number of events.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.view.lanes import Int64Array, Lane, run_heads

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

DENSE_EVENTS_PER_CELL = 8
"""Above this many events per cell a lane is summarised per cell, not per event."""


class Drawing(enum.Enum):
    """How a lane is turned into cells: chosen by density, or forced (tests, benchmarks)."""

    AUTO = "auto"
    EXACT = "exact"
    DENSE = "dense"


@dataclass(frozen=True)
class Viewport:
    """A time window drawn over `width` cells."""

    start_ns: int
    end_ns: int
    width: int

    @property
    def span_ns(self) -> int:
        """How long the window is."""
        return self.end_ns - self.start_ns

    def edges(self) -> Int64Array:
        """The times where cells begin, and the end of the last one."""
        return self.start_ns + (
            np.arange(self.width + 1, dtype=np.int64) * self.span_ns
        ) // max(self.width, 1)

    def cell_bounds(
        self, starts: Int64Array, ends: Int64Array
    ) -> tuple[Int64Array, Int64Array]:
        """First cell and one past the last cell each interval covers (at least one)."""
        width = self.width
        scale = width / self.span_ns
        first = np.floor((starts - self.start_ns) * scale)
        last = np.ceil((ends - self.start_ns) * scale)
        first_cell = np.clip(first, 0, width - 1).astype(np.int64)
        last_cell = np.clip(last, 0, width).astype(np.int64)
        return first_cell, np.maximum(last_cell, first_cell + 1)

    def paint(self, starts: Int64Array, ends: Int64Array) -> BoolArray:
        """Cells touched by any of the intervals."""
        width = self.width
        if starts.size == 0:
            return np.zeros(width, dtype=np.bool_)
        first, last = self.cell_bounds(starts, ends)
        change = np.bincount(first, minlength=width + 1) - np.bincount(
            last, minlength=width + 1
        )
        return np.cumsum(change[:width]) > 0

    def paint_sorted(self, starts: Int64Array, ends: Int64Array) -> BoolArray:
        """Cells touched by sorted disjoint intervals, visiting only those in view."""
        low = int(np.searchsorted(ends, self.start_ns, side="right"))
        high = int(np.searchsorted(starts, self.end_ns, side="left"))
        return self.paint(starts[low:high], ends[low:high])

    def range_cells(self, start_ns: int, end_ns: int) -> BoolArray:
        """Cells inside one range (a selection)."""
        cells = np.zeros(self.width, dtype=np.bool_)
        if end_ns >= self.start_ns and start_ns <= self.end_ns:
            first, last = self.cell_bounds(
                np.array([start_ns], dtype=np.int64), np.array([end_ns], dtype=np.int64)
            )
            cells[int(first[0]) : int(last[0])] = True
        return cells


@dataclass
class LaneCells:
    """Per cell: the event drawn (-1: none), its duration, whether it spans
    more than this cell, and how busy the cell is (0 to 1)."""

    owner: Int64Array
    duration: Int64Array
    wide: BoolArray
    occupancy: FloatArray

    @classmethod
    def empty(cls, width: int) -> LaneCells:
        """Nothing drawn."""
        return cls(
            np.full(width, -1, dtype=np.int64),
            np.full(width, -1, dtype=np.int64),
            np.zeros(width, dtype=np.bool_),
            np.zeros(width, dtype=np.float64),
        )

    def merge(self, other: LaneCells) -> None:
        """Add another lane: the longer event owns a cell; busy time adds up."""
        better = other.duration > self.duration
        self.owner[better] = other.owner[better]
        self.duration[better] = other.duration[better]
        self.wide[better] = other.wide[better]
        self.occupancy += other.occupancy


def exact_cells(lane: Lane, low: int, high: int, view: Viewport) -> LaneCells | None:
    """Each cell's longest event among a few visible ones, and how busy the cell is."""
    width = view.width
    view_start, view_end = view.start_ns, view.end_ns
    scale = width / view.span_ns
    starts = lane.starts[low:high]
    ends = lane.ends[low:high]
    lane_events = lane.events[low:high]
    if not lane.monotone:
        keep = ends > view_start
        starts, ends, lane_events = starts[keep], ends[keep], lane_events[keep]
        if lane_events.size == 0:
            return None
    durations = ends - starts
    first, last = view.cell_bounds(starts, ends)
    spans = last - first
    occupancy = np.zeros(width, dtype=np.float64)
    single = spans == 1
    if single.any():
        clipped = (
            np.minimum(ends[single], view_end) - np.maximum(starts[single], view_start)
        ) * scale
        occupancy += np.bincount(first[single], weights=clipped, minlength=width)[
            :width
        ]
    # Every (cell, event) pair; the longest event of a cell wins, then the earliest.
    cells = np.repeat(first, spans) + (
        np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
    )
    pair_durations = np.repeat(durations, spans)
    pair_events = np.repeat(lane_events, spans)
    order = np.lexsort((-pair_events, pair_durations, cells))
    last_of_cell = np.append(run_heads(cells[order])[1:], True)
    winners = order[last_of_cell]
    drawn = LaneCells.empty(width)
    winner_cells = cells[winners]
    drawn.owner[winner_cells] = pair_events[winners]
    drawn.duration[winner_cells] = pair_durations[winners]
    drawn.wide[winner_cells] = np.repeat(spans > 1, spans)[winners]
    drawn.occupancy[:] = occupancy
    return drawn


def dense_cells(lane: Lane, view: Viewport) -> LaneCells:
    """Many events per cell: summarise each cell by binary searches, not per event.

    Busy time comes from prefix sums, the event still running into a cell
    from the running max end; the drawn event is the one covering the cell,
    else the first starting in it. Cost is O(width log n) however many events
    are in view.
    """
    edges = view.edges()
    first_at = np.searchsorted(lane.starts, edges, side="left")
    count = np.diff(first_at)
    cell_ns = np.maximum(np.diff(edges), 1)
    busy = lane.busy_prefix[first_at[1:]] - lane.busy_prefix[first_at[:-1]]
    before = np.maximum(first_at[:-1] - 1, 0)
    has_before = first_at[:-1] > 0
    running_end = np.where(has_before, lane.end_key[before], edges[:-1])
    carry = np.clip(running_end - edges[:-1], 0, cell_ns)
    # Events starting in a cell may end past it: only their part inside counts.
    overflow = np.zeros(edges.size - 1, dtype=np.int64)
    has_last = count > 0
    if has_last.any():
        last = first_at[1:][has_last] - 1
        reach = lane.end_key[last]
        overflow[has_last] = np.maximum(reach - edges[1:][has_last], 0)
    occupancy = (busy - overflow + carry) / cell_ns
    covered = has_before & (running_end >= edges[1:])
    last_position = max(lane.events.size - 1, 0)
    position = np.where(
        covered | ((count == 0) & (carry > 0)),
        lane.covering(before),
        np.minimum(first_at[:-1], last_position),
    )
    wide = covered.copy()
    # A long event also owns the cell it starts in, so its name starts there.
    long_cells = np.flatnonzero(covered)
    if long_cells.size:
        long_positions = position[long_cells]
        start_cells = np.searchsorted(first_at, long_positions, side="right") - 1
        starts_here = (start_cells >= 0) & (start_cells < long_cells)
        position[start_cells[starts_here]] = long_positions[starts_here]
        wide[start_cells[starts_here]] = True
    drawn = wide | (count > 0) | (carry > 0)
    owner = np.where(drawn, lane.events[position], -1)
    duration = np.where(drawn, lane.ends[position] - lane.starts[position], -1)
    return LaneCells(owner, duration, wide, occupancy)


def row_cells(
    lanes: list[Lane], view: Viewport, drawing: Drawing = Drawing.AUTO
) -> tuple[LaneCells, int]:
    """All lanes of a row merged into cells, and how many events were visited one by one."""
    merged = LaneCells.empty(view.width)
    examined = 0
    for lane in lanes:
        low, high = lane.visible(view.start_ns, view.end_ns)
        if high <= low:
            continue
        dense = drawing is Drawing.DENSE or (
            drawing is Drawing.AUTO and high - low > DENSE_EVENTS_PER_CELL * view.width
        )
        drawn: LaneCells | None
        if dense:
            drawn = dense_cells(lane, view)
        else:
            examined += high - low
            drawn = exact_cells(lane, low, high, view)
        if drawn is not None:
            merged.merge(drawn)
    np.clip(merged.occupancy, 0.0, 1.0, out=merged.occupancy)
    return merged, examined


def covered_cells(lanes: list[Lane], view: Viewport) -> BoolArray:
    """Cells holding any event of these lanes (a row's marked events)."""
    covered = np.zeros(view.width, dtype=np.bool_)
    for lane in lanes:
        covered |= _lane_covered_cells(lane, view)
    return covered


def _lane_covered_cells(lane: Lane, view: Viewport) -> BoolArray:
    low, high = lane.visible(view.start_ns, view.end_ns)
    if high - low <= DENSE_EVENTS_PER_CELL * view.width:
        return view.paint(lane.starts[low:high], lane.ends[low:high])
    edges = view.edges()
    first_at = np.searchsorted(lane.starts, edges, side="left")
    before = np.maximum(first_at[:-1] - 1, 0)
    running = (first_at[:-1] > 0) & (lane.end_key[before] > edges[:-1])
    return (np.diff(first_at) > 0) | running

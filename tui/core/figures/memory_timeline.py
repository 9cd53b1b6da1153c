"""Memory over time: allocated (and reserved, where written) per device over the
window, its peak, and the operator in which the peak happens.

The allocated level is `DeviceMemory`'s (the allocator's `Total Allocated`, or
the running sum of `Bytes` where the trace has no totals); reserved is the
allocator's `Total Reserved`, only where written. The peak is the highest
level in the window counting the level it starts at (as `DeviceMemory.peak`),
reached at the first memory event that sets it; its operator is the innermost
CPU event whose interval holds that instant (torch's rule for giving an
operator its memory: the event's time in the interval, ends included, on any
thread), with the events around it on its thread, outermost first: its
operator path, and the Python frames where the capture recorded stacks.

A series is handed out downsampled to at most `max_points` buckets of equal
time, each the highest level in it (counting the level it starts at), so the
peak survives any downsampling; fewer events than that are given whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import DeviceMemory, device_label, devices_of
from tui.core.model.trace import MemoryColumns, Trace

Int64Array = npt.NDArray[np.int64]

MAX_POINTS = 512
"""Points per device in `memory --timeline --json`."""


@dataclass(frozen=True)
class PeakOperator:
    """The CPU event in which a peak happens, and the events around it on its
    thread (outermost first, itself last)."""

    event: int
    name: str
    path: list[str]


@dataclass(frozen=True)
class Series:
    """A level over time: each point the highest level from its time to the next
    point's (when downsampled: its bucket's), -1 where unknown."""

    time_ns: Int64Array
    level: Int64Array
    downsampled: bool


@dataclass(frozen=True)
class DeviceTimeline:
    """One device over the window: allocated, reserved (None where not written),
    the peak, when it is reached, and the operator holding that instant."""

    device: DeviceMemory
    reserved: Int64Array | None
    start_ns: int
    end_ns: int
    peak_bytes: int | None
    peak_ns: int | None
    peak_reserved_bytes: int | None
    operator: PeakOperator | None

    def allocated_series(self, max_points: int = MAX_POINTS) -> Series:
        """Allocated over the window, at most `max_points` points."""
        return _series(
            self.device.time_ns,
            self.device.allocated,
            self.start_ns,
            self.end_ns,
            max_points,
        )

    def reserved_series(self, max_points: int = MAX_POINTS) -> Series | None:
        """Reserved over the window, None where the trace has no Total Reserved."""
        if self.reserved is None:
            return None
        return _series(
            self.device.time_ns, self.reserved, self.start_ns, self.end_ns, max_points
        )


def _series(
    times: Int64Array, levels: Int64Array, start: int, end: int, max_points: int
) -> Series:
    """The level's events in [start, end) with the level carried in at `start`;
    downsampled by time to `max_points` buckets of the highest level each."""
    first = int(np.searchsorted(times, start, "left"))
    last = int(np.searchsorted(times, end, "left"))
    carried = levels[first - 1 : first] if first > 0 else levels[:0]
    point_times = np.concatenate((np.full(carried.size, start), times[first:last]))
    point_levels = np.concatenate((carried, levels[first:last])).astype(np.int64)
    if point_times.size <= max_points:
        return Series(point_times.astype(np.int64), point_levels, False)
    return Series(*bucket_maxima(times, levels, start, end, max_points), True)


def bucket_maxima(
    times: Int64Array, levels: Int64Array, start: int, end: int, buckets: int
) -> tuple[Int64Array, Int64Array]:
    """`buckets` equal slices of [start, end): each one's start and the highest
    level in it, counting the level it starts at (-1: none known)."""
    edges = start + (np.arange(buckets + 1, dtype=np.int64) * (end - start)) // buckets
    first = np.searchsorted(times, edges[:-1], "left")
    stop = np.searchsorted(times, edges[1:], "left")
    carried = np.where(first > 0, levels[np.maximum(first - 1, 0)], -1)
    inside = np.full(buckets, -1, dtype=np.int64)
    busy = stop > first
    if busy.any():
        maxima = np.maximum.reduceat(levels, first[busy])
        # reduceat runs to the next start; a busy bucket ends at its own stop,
        # and the next busy bucket starts there, so each slice is exact except
        # the last, which runs to the end of `levels`: cut it.
        last_busy = int(np.flatnonzero(busy)[-1])
        maxima[-1] = levels[first[last_busy] : stop[last_busy]].max()
        inside[busy] = maxima
    return edges[:-1].astype(np.int64), np.maximum(inside, carried).astype(np.int64)


def peak_operator(
    analysis: Analysis, device: DeviceMemory, start_ns: int, end_ns: int
) -> PeakOperator | None:
    """The operator holding the instant a device's peak over [start, end) is
    first reached; None when no level is known there or no CPU event holds it."""
    index = _peak_index(device, start_ns, end_ns)
    if index is None:
        return None
    return _operator_at(analysis, int(device.time_ns[index]))


def _peak_index(device: DeviceMemory, start: int, end: int) -> int | None:
    """The first memory event setting the window's highest level (the one before
    the window when the level it starts at is the highest)."""
    times, levels = device.time_ns, device.allocated
    first = int(np.searchsorted(times, start, "left"))
    last = int(np.searchsorted(times, end, "left"))
    low = max(first - 1, 0)
    if last <= low or levels[low:last].max() < 0:
        return None
    return low + int(np.argmax(levels[low:last]))


def _operator_at(analysis: Analysis, time_ns: int) -> PeakOperator | None:
    """The innermost CPU event holding `time_ns` (ends included), and its thread's
    events around it, outermost first."""
    trace = analysis.trace
    ends = trace.end_ns
    holding = np.flatnonzero(
        analysis.on_cpu & (trace.start_ns <= time_ns) & (ends >= time_ns)
    )
    if holding.size == 0:
        return None
    # The shortest wins; on a tie the latest start, then the deeper (later) event.
    order = np.lexsort((holding, -trace.start_ns[holding], trace.duration_ns[holding]))
    event = int(holding[order[0]])
    track = trace.track[event]
    around = holding[trace.track[holding] == track]
    around = around[np.lexsort((-trace.duration_ns[around], trace.start_ns[around]))]
    path = [trace.event_name(int(index)) for index in around]
    if trace.event_name(event) != path[-1]:
        path.append(trace.event_name(event))
    return PeakOperator(event, trace.event_name(event), path)


def _reserved(memory: MemoryColumns, device: DeviceMemory) -> Int64Array | None:
    """The device's Total Reserved per event, None when never written."""
    labels = np.array(
        [
            device_label(int(kind), int(index))
            for kind, index in zip(
                memory.device_type.tolist(), memory.device_id.tolist(), strict=True
            )
        ]
        or [""],
    )[: len(memory)]
    reserved = memory.total_reserved[labels == device.label]
    return reserved if (reserved >= 0).any() else None


def memory_timeline(analysis: Analysis) -> list[DeviceTimeline]:
    """Each device over the window (the whole trace without steps); [] without
    memory events."""
    trace: Trace = analysis.trace
    if len(trace.memory) == 0:
        return []
    steps = analysis.window_steps
    if steps:
        start, end = steps[0].start_ns, steps[-1].end_ns
    else:
        start, end = (
            int(trace.memory.time_ns.min()),
            int(trace.memory.time_ns.max()) + 1,
        )
    timelines = []
    for device in devices_of(trace.memory):
        reserved = _reserved(trace.memory, device)
        index = _peak_index(device, start, end)
        peak_ns = None if index is None else max(int(device.time_ns[index]), start)
        operator = peak_operator(analysis, device, start, end)
        peak_reserved = (
            None
            if reserved is None
            else DeviceMemory(device.label, device.time_ns, reserved).peak(start, end)
        )
        timelines.append(
            DeviceTimeline(
                device,
                reserved,
                start,
                end,
                device.peak(start, end),
                peak_ns,
                peak_reserved,
                operator,
            )
        )
    return timelines

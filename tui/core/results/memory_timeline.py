"""`steptrace memory --timeline --json`: each device's allocated (and reserved)
series over the window, its peak and the operator holding it."""

from __future__ import annotations

from typing import Any

from tui.core.base.units import us
from tui.core.figures.memory_timeline import MAX_POINTS, DeviceTimeline, Series

DOWNSAMPLING = (
    "a device with more events than max_points is given as max_points time "
    "buckets of equal length, each point the highest level in its bucket "
    "(counting the level it starts at), so the peak is kept exactly; with "
    "fewer, every event is a point, the first one the level the window starts at"
)


def _points(series: Series | None) -> list[int] | None:
    return None if series is None else series.level.tolist()


def device_json(timeline: DeviceTimeline, max_points: int) -> dict[str, Any]:
    """One device's figures and series."""
    allocated = timeline.allocated_series(max_points)
    reserved = timeline.reserved_series(max_points)
    operator = timeline.operator
    source = timeline.device.source
    return {
        "device": timeline.device.label,
        "source": None if source is None else source.value,
        "peak_bytes": timeline.peak_bytes,
        "peak_at_us": None if timeline.peak_ns is None else us(timeline.peak_ns),
        "peak_reserved_bytes": timeline.peak_reserved_bytes,
        "peak_operator": None
        if operator is None
        else {"name": operator.name, "path": operator.path},
        "downsampled": allocated.downsampled,
        "t_us": [us(value) for value in allocated.time_ns.tolist()],
        "allocated_bytes": _points(allocated),
        "reserved_bytes": _points(reserved),
    }


def timeline_json(
    timelines: list[DeviceTimeline], max_points: int = MAX_POINTS
) -> dict[str, Any]:
    """The `timeline` key of `memory --timeline --json` (times in µs from the
    trace's origin)."""
    window = [us(timelines[0].start_ns), us(timelines[0].end_ns)] if timelines else None
    return {
        "window_us": window,
        "max_points": max_points,
        "downsampling": DOWNSAMPLING,
        "devices": [device_json(timeline, max_points) for timeline in timelines],
    }

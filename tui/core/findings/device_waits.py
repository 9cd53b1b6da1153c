"""The device's waits: per window step, how long the busiest device is busy and
why it idles.

The device is all its streams read as one (it idles when none runs); a gap's
cause is HTA's **host wait** (the stream idles until the host issues its
next op), **kernel wait** (a gap under 30 µs, the signature of launch
overhead) or other. Both device readings weigh by it: the host-bound reading
(`host_bound.py`) and many small launches (`small_launches.py`).
"""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import BreakdownRules, IdleCause
from tui.core.figures.analysis import Analysis
from tui.core.figures.breakdown.gpu import DeviceTimeSets
from tui.core.figures.breakdown.rows import device_rows

Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class DeviceWaits:
    """Per window step: the busiest device's busy time and idle time by cause.

    The device is all its streams together: it idles when none of them runs,
    and a gap's cause is read from the op that ends it (HTA's rule, applied
    to the device's union instead of one stream): host wait when that op's
    launch came after the gap began, kernel wait when the gap is under 30 µs,
    else other.
    """

    device: int | str
    busy_ns: Int64Array
    idle_ns: dict[IdleCause, Int64Array]
    host_wait_in_zone_ns: Int64Array
    """The part of the host wait inside the data zone (its own finding's time)."""

    def mean(self, cause: IdleCause) -> float:
        """A cause's idle per step (the window's over its steps)."""
        values = self.idle_ns[cause]
        return float(values.mean()) if values.size else 0.0


_READ: weakref.WeakKeyDictionary[Analysis, DeviceWaits | None] = (
    weakref.WeakKeyDictionary()
)
"""Each analysis's waits, read once (kept while the analysis lives)."""


def step_windows(analysis: Analysis) -> tuple[Int64Array, Int64Array]:
    """The window steps' bounds; without steps, the capture's span as one step."""
    steps = analysis.window_steps
    if steps:
        return (
            np.array([step.start_ns for step in steps], dtype=np.int64),
            np.array([step.end_ns for step in steps], dtype=np.int64),
        )
    trace = analysis.trace
    return (
        np.array([trace.start_ns.min()], dtype=np.int64),
        np.array([trace.end_ns.max()], dtype=np.int64),
    )


def device_waits(analysis: Analysis) -> DeviceWaits | None:
    """The busiest device's idle by cause in each window step (steptrace's exact rows,
    every stream of a device read as one); read once per analysis, since both
    device readings weigh by it."""
    if analysis in _READ:
        return _READ[analysis]
    waits = _device_waits(analysis)
    _READ[analysis] = waits
    return waits


def _device_waits(analysis: Analysis) -> DeviceWaits | None:
    trace = analysis.trace
    if not trace.gpu_observed:
        return None
    rows = device_rows(trace, BreakdownRules.STEPTRACE, analysis.launch_call)
    if len(rows) == 0:
        return None
    labels = sorted({str(device) for device in rows.stream_device})
    group_of_stream = np.array(
        [labels.index(str(device)) for device in rows.stream_device], dtype=np.int64
    )
    devices: list[int | str] = []
    for label in labels:  # a stream of no single device reads "the device"
        known = label.lstrip("-").isdigit()
        devices.append(int(label) if known else "the device")
    merged = dataclasses.replace(
        rows,
        stream=group_of_stream[rows.stream],
        streams=tuple(devices),
        stream_device=tuple(
            device if isinstance(device, int) else None for device in devices
        ),
    )
    sets = DeviceTimeSets.of(merged)
    if sets is None:
        return None
    starts, ends = step_windows(analysis)
    busy_by_device = {
        devices[index]: Intervals.union_of(
            merged.start_ns[merged.stream == index],
            merged.end_ns[merged.stream == index],
        )
        for index in range(len(devices))
    }
    totals = {
        device: int(busy.covered_in(starts, ends).sum())
        for device, busy in busy_by_device.items()
    }
    busiest = max(totals, key=lambda device: (totals[device], str(device)))
    idle = {cause: np.zeros(starts.size, dtype=np.int64) for cause in IdleCause}
    in_zone = np.zeros(starts.size, dtype=np.int64)
    zone = analysis.zone_reading.zone if analysis.zone_reading.found else None
    for device, cause, gaps in sets.gaps:
        if device == busiest:
            idle[cause] = idle[cause] + gaps.covered_in(starts, ends)
            if cause is IdleCause.HOST_WAIT and zone is not None:
                in_zone = in_zone + gaps.intersect(zone).covered_in(starts, ends)
    return DeviceWaits(
        busiest, busy_by_device[busiest].covered_in(starts, ends), idle, in_zone
    )

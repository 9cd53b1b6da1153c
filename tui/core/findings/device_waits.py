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


@dataclass(frozen=True)
class _BusiestDevice:
    """The busiest device's part of `DeviceWaits`, which no data zone changes, its
    busy time and its idle gaps by cause (to intersect with a zone, and to claim)."""

    device: int | str
    busy_ns: Int64Array
    idle_ns: dict[IdleCause, Int64Array]
    busy: Intervals
    idle_gaps: dict[IdleCause, Intervals]


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
    every stream of a device read as one). Both device readings weigh by it: the
    device's part is read once per analysis (`Analysis.memo`, shared by its
    other zones), the data zone's part for this one."""
    busiest = analysis.memo(_busiest_device)
    if busiest is None:
        return None
    starts, ends = step_windows(analysis)
    in_zone = np.zeros(starts.size, dtype=np.int64)
    if analysis.zone_reading.found:
        zone = analysis.zone_reading.zone
        gaps = busiest.idle_gaps[IdleCause.HOST_WAIT]
        in_zone = gaps.intersect(zone).covered_in(starts, ends)
    return DeviceWaits(busiest.device, busiest.busy_ns, busiest.idle_ns, in_zone)


def _busiest_device(analysis: Analysis) -> _BusiestDevice | None:
    """The device busiest over the window steps: its busy time and idle by cause."""
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
    idle_gaps: dict[IdleCause, list[Intervals]] = {cause: [] for cause in IdleCause}
    for device, cause, gaps in sets.gaps:
        if device == busiest:
            idle[cause] = idle[cause] + gaps.covered_in(starts, ends)
            idle_gaps[cause].append(gaps)
    busy = busy_by_device[busiest]
    return _BusiestDevice(
        busiest,
        busy.covered_in(starts, ends),
        idle,
        busy,
        {cause: Intervals.union_all(gaps) for cause, gaps in idle_gaps.items()},
    )


def busiest_device_time(
    analysis: Analysis,
) -> tuple[Intervals, dict[IdleCause, Intervals]] | None:
    """The busiest device's busy time and its idle gaps by cause (None without
    device work): what the device readings claim (`claims.py`)."""
    busiest = analysis.memo(_busiest_device)
    return None if busiest is None else (busiest.busy, busiest.idle_gaps)

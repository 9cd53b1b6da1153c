"""The device's readings: a host that cannot keep the device fed, and many small launches.

Both are weighed by the device's **host wait** (HTA's idle cause: a stream
idles until the host issues its next op) on the device busiest over the
window (all its streams read as one: it idles when none runs), per step. Host-bound: that host wait is the largest cause of the
device's idle time; its cost is the host wait per step outside the data
zone (the wait inside it is the data zone's own finding: costs never count
the same time twice). Many small launches: the step launches many short
kernels; launching can cost the step only while the device waits on the
host or between kernels (kernel wait: gaps under 30 µs, the signature of
launch overhead), so its cost is the smaller of the launch calls' host
time and those waits, per step. Where the device never waits on the host, launching is
hidden behind the device and weighs nothing. Kernels a CUDA graph replays
are not launches and are left out, as HTA leaves them.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import median
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import BreakdownRules, FindingId, FindingStatus, IdleCause
from tui.core.figures.analysis import Analysis
from tui.core.figures.breakdown.gpu import DeviceTimeSets
from tui.core.figures.breakdown.rows import device_rows
from tui.core.figures.kernels import kernel_events
from tui.core.figures.launches import SHORT_KERNEL_NS, issued_at
from tui.core.findings.finding import (
    Anchor,
    Finding,
    HostBoundFigures,
    LaunchFigures,
    Missing,
    MissingReason,
    ShowKernel,
    ShowStep,
    gpu_not_observed,
)
from tui.core.findings.weights import (
    MANY_KERNELS_PER_STEP,
    SMALL_KERNEL_NS,
    Scale,
    scale_of,
)
from tui.core.model.steps import Step

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
    every stream of a device read as one)."""
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


def host_bound(
    analysis: Analysis, scale: Scale | None = None, waits: DeviceWaits | None = None
) -> Finding:
    """The device waits on the host more than on anything else, per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.HOST_BOUND, trace)
    waits = waits or device_waits(analysis)
    if waits is None:
        return Finding(
            FindingId.HOST_BOUND,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_KERNELS),
        )
    host = waits.mean(IdleCause.HOST_WAIT)
    in_zone = float(waits.host_wait_in_zone_ns.mean())
    kernel = waits.mean(IdleCause.KERNEL_WAIT)
    other = waits.mean(IdleCause.OTHER)
    steps = analysis.window_steps
    figures = HostBoundFigures(
        steps=len(steps),
        step_ns=scale.median_step_ns,
        busy_ns=float(waits.busy_ns.mean()),
        host_wait_ns=host,
        host_wait_in_zone_ns=in_zone,
        kernel_wait_ns=kernel,
        other_ns=other,
        device=waits.device,
    )
    status, weight = scale.weigh(
        host > in_zone and host >= max(kernel, other), host - in_zone
    )
    worst = int(np.argmax(waits.idle_ns[IdleCause.HOST_WAIT]))
    return Finding(
        FindingId.HOST_BOUND,
        status,
        figures,
        ShowStep(steps[worst].number) if steps else None,
        weight=weight,
    )


def many_small_launches(
    analysis: Analysis, scale: Scale | None = None, waits: DeviceWaits | None = None
) -> Finding:
    """Many short kernels per step, weighed by what launching them costs the step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.SMALL_LAUNCHES, trace)
    every_kernel = kernel_events(trace)
    if every_kernel.size == 0:
        return Finding(
            FindingId.SMALL_LAUNCHES,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_KERNELS),
        )
    # A graph replays its kernels from one call: they are not launches.
    replayed = analysis.graph_work[every_kernel]
    graph_kernels = int(replayed.sum())
    kernels = every_kernel[~replayed]
    if kernels.size == 0:
        steps_seen = len(analysis.window_steps)
        return Finding(
            FindingId.SMALL_LAUNCHES,
            FindingStatus.NOT_SEEN,
            LaunchFigures(
                0, [0] * steps_seen, 0.0, 0.0, steps_seen, graph_kernels=graph_kernels
            ),
        )
    durations = trace.duration_ns[kernels]
    median_ns = median(durations)
    steps: list[Step] = analysis.window_steps
    launched_at = issued_at(trace, kernels, analysis.launch_call, analysis.gpu_owner)
    order = np.argsort(launched_at, kind="stable")
    sorted_at = launched_at[order]
    short = durations < SHORT_KERNEL_NS
    short_share: float | None = None
    launch_share: float | None = None
    starts, ends = step_windows(analysis)
    if steps:
        first = np.searchsorted(sorted_at, starts, side="left")
        last = np.searchsorted(sorted_at, ends, side="left")
        counts = (last - first).tolist()
        # Kernels launched in some step: the union of the steps' ranges of sorted_at.
        depth = np.zeros(kernels.size + 1, dtype=np.int64)
        np.add.at(depth, first, 1)
        np.add.at(depth, last, -1)
        in_window = np.zeros(kernels.size, dtype=bool)
        in_window[order] = np.cumsum(depth[:-1]) > 0
        short_share, launch_share, launch_time = _launch_shares(
            analysis, kernels, short, starts, ends
        )
    else:
        counts = [int(kernels.size)]
        in_window = np.ones(kernels.size, dtype=bool)
        # Without steps the shares say nothing; the cost reads the span.
        *_, launch_time = _launch_shares(analysis, kernels, short, starts, ends)
    launch_ns = float(launch_time.mean())
    waits = waits or device_waits(analysis)
    device_wait = (
        None
        if waits is None
        else waits.mean(IdleCause.HOST_WAIT) + waits.mean(IdleCause.KERNEL_WAIT)
    )
    per_step = float(statistics.median(counts))
    busiest = int(np.argmax(counts))
    names = Counter(trace.name_id[kernels[in_window]].tolist())
    kernel = trace.names[names.most_common(1)[0][0]] if names else None
    anchor: Anchor | None = None
    if kernel is not None:
        anchor = ShowKernel(kernel, steps[busiest].number if steps else None)
    elif steps:
        anchor = ShowStep(steps[busiest].number)
    seen = per_step >= MANY_KERNELS_PER_STEP and median_ns < SMALL_KERNEL_NS
    cost = launch_ns if device_wait is None else min(launch_ns, device_wait)
    status, weight = scale.weigh(seen, cost)
    return Finding(
        FindingId.SMALL_LAUNCHES,
        status,
        LaunchFigures(
            int(kernels.size),
            counts,
            per_step,
            median_ns,
            len(steps),
            short_kernels=int((short & in_window).sum()),
            short_share=short_share,
            launch_share=launch_share,
            kernel=kernel,
            launch_ns_per_step=launch_ns,
            device_wait_ns_per_step=device_wait,
            graph_kernels=graph_kernels,
        ),
        anchor,
        weight=weight,
    )


def _launch_shares(
    analysis: Analysis,
    kernels: Int64Array,
    short: npt.NDArray[np.bool_],
    starts: Int64Array,
    ends: Int64Array,
) -> tuple[float | None, float | None, Int64Array]:
    """Medians over steps: short kernels' share of device time, and the share of wall
    time when a call that launched a kernel runs on the host; and that launch time
    in each step."""
    trace = analysis.trace
    short_events = kernels[short]
    short_time = Intervals.union_of(
        trace.start_ns[short_events], trace.end_ns[short_events]
    ).covered_in(starts, ends)
    busy = analysis.busy_all_devices.covered_in(starts, ends)
    with_busy = busy > 0
    short_share = (
        median(short_time[with_busy] / busy[with_busy]) if with_busy.any() else None
    )
    launched_by = analysis.launch_call[kernels]
    # The distinct calls, in event order, by a mask (np.unique sorts a million of them).
    launching = np.zeros(trace.event_count, dtype=bool)
    launching[launched_by[launched_by >= 0]] = True
    calls = np.flatnonzero(launching)
    launch_time = Intervals.union_of(
        trace.start_ns[calls], trace.end_ns[calls]
    ).covered_in(starts, ends)
    walls = ends - starts
    with_wall = walls > 0
    launch_share = (
        median(launch_time[with_wall] / walls[with_wall]) if with_wall.any() else None
    )
    return short_share, launch_share, launch_time

"""How loaded each device is, step by step: the reading of a saturated device.

Per device and per window step (`Analysis.window_steps`; the capture's span
as one step without steps):

- **busy share**: the union of the device's work (kernels, copies, sets, on
  every stream, CUDA-graph replays included: `Analysis.busy_by_device`) inside
  the step, over the step's length. Streams that overlap count once;
- **queue depth**: the device's launched-but-not-started ops (summed over its
  streams, steptrace's launch-queue rules: `figures/queue.py`), averaged over
  the step's time: the sum over ops of the part of `[launch call start, op
  start)` inside the step, over the step's length. A CUDA-graph replay has no
  launch of its own and is not queued;
- **launch lead**: the median of op start minus its launch call's start, over
  the ops starting in the step: how long before it runs the host issued it;
- **top kernels**: the device work holding the busy time, by name, summed
  over the window's steps (work starting in a step) and divided by their
  number.

The host **runs ahead** when the median queue depth is at least
`HOST_AHEAD_DEPTH` (more than one op waits on average: the device, not the
host, sets the pace), or at least one with a median launch lead of at least
`HOST_AHEAD_LEAD_SHARE` of the median step (ops are issued long before they
run). A long lead over an empty queue is not the host running ahead: the op
waited on something else (another stream's event, a clock skew). A device busy most of the step while the host runs ahead is saturated:
speeding the host up cannot shorten the step; the device work must shrink.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.figures.analysis import Analysis
from tui.core.figures.launches import step_index
from tui.core.figures.queue import queue_input
from tui.core.model.steps import Step

Int64Array = npt.NDArray[np.int64]

HOST_AHEAD_DEPTH = 2.0
HOST_AHEAD_LEAD_SHARE = 0.1
SATURATED_SHARE = 0.8  # the busy share from which a device reads as saturated
TOP_KERNELS = 5


@dataclass(frozen=True)
class KernelTime:
    """Device work of one name: its time per step (work starting in a window step)."""

    name: str
    ns_per_step: float


@dataclass(frozen=True)
class StepLoad:
    """One device in one step (`step` None: the whole capture, without steps)."""

    step: int | None
    start_ns: int
    step_ns: int
    busy_ns: int
    queue_depth: float | None  # None: no op of the device has its launch call
    launch_lead_ns: int | None  # None: no op with its launch call starts in the step

    @property
    def busy_share(self) -> float:
        """The busy part of the step (0 for an empty step)."""
        return self.busy_ns / self.step_ns if self.step_ns > 0 else 0.0


@dataclass(frozen=True)
class DeviceLoad:
    """One device over the window: per step, and the medians read from them."""

    device: int | None
    steps: tuple[StepLoad, ...]
    busy_share_median: float
    queue_depth_median: float | None
    launch_lead_median_ns: int | None
    host_ahead: bool
    top_kernels: tuple[KernelTime, ...]

    @property
    def saturated(self) -> bool:
        """Busy at least `SATURATED_SHARE` of the median step while the host runs ahead."""
        return self.busy_share_median >= SATURATED_SHARE and self.host_ahead


def _median(values: Sequence[float]) -> float | None:
    return float(np.median(np.array(values, dtype=np.float64))) if values else None


def _windows(analysis: Analysis, steps: Sequence[Step] | None) -> list[StepLoad]:
    """Empty loads giving each step's number and bounds (the capture without steps)."""
    chosen = analysis.window_steps if steps is None else list(steps)
    if chosen:
        return [
            StepLoad(step.number, step.start_ns, step.duration_ns, 0, None, None)
            for step in chosen
        ]
    trace = analysis.trace
    start = int(trace.start_ns.min()) if trace.event_count else 0
    return [StepLoad(None, start, trace.span_ns - start, 0, None, None)]


def device_load(
    analysis: Analysis, steps: Sequence[Step] | None = None
) -> tuple[DeviceLoad, ...]:
    """Each device's load over `steps` (default: the window's steps); empty
    without device work (not observed, never 0)."""
    trace = analysis.trace
    if not trace.gpu_observed:
        return ()
    windows = _windows(analysis, steps)
    starts = np.array([w.start_ns for w in windows], dtype=np.int64)
    ends = starts + np.array([w.step_ns for w in windows], dtype=np.int64)
    ops = queue_input(trace, analysis.launch_call, analysis.graph_work)
    op_device = np.array(
        [ops.devices[int(index)] for index in ops.stream.tolist()], dtype=object
    )
    work = np.flatnonzero(trace.device_work_mask)
    work_device = np.array(
        [trace.tracks[int(track)].device for track in trace.track[work].tolist()],
        dtype=object,
    )
    work_step = step_index(trace.start_ns[work], starts, ends)
    return tuple(
        _one_device(
            analysis,
            device,
            windows,
            (starts, ends),
            (ops.call_ns[op_device == device], ops.start_ns[op_device == device]),
            work[(work_device == device) & (work_step >= 0)],
        )
        for device in analysis.devices
    )


def _one_device(
    analysis: Analysis,
    device: int | None,
    windows: list[StepLoad],
    bounds: tuple[Int64Array, Int64Array],
    launched: tuple[Int64Array, Int64Array],
    work: Int64Array,
) -> DeviceLoad:
    starts, ends = bounds
    busy = analysis.busy_by_device.get(device, Intervals.empty())
    busy_ns = busy.covered_in(starts, ends)
    depth = _queue_depth(launched, starts, ends)
    leads = _launch_leads(launched, starts, ends)
    loads = tuple(
        StepLoad(
            window.step,
            window.start_ns,
            window.step_ns,
            int(busy_ns[index]),
            depth[index],
            leads[index],
        )
        for index, window in enumerate(windows)
    )
    depth_median = _median([d for d in depth if d is not None])
    lead_values = [lead for lead in leads if lead is not None]
    lead_median = _median(lead_values)
    step_median = _median([window.step_ns for window in windows]) or 0.0
    long_lead = (
        lead_median is not None
        and step_median > 0
        and lead_median >= HOST_AHEAD_LEAD_SHARE * step_median
    )
    host_ahead = depth_median is not None and (
        depth_median >= HOST_AHEAD_DEPTH or (depth_median >= 1.0 and long_lead)
    )
    return DeviceLoad(
        device=device,
        steps=loads,
        busy_share_median=_median([load.busy_share for load in loads]) or 0.0,
        queue_depth_median=depth_median,
        launch_lead_median_ns=None if lead_median is None else int(lead_median),
        host_ahead=host_ahead,
        top_kernels=_top_kernels(analysis, work, len(windows)),
    )


def _queue_depth(
    launched: tuple[Int64Array, Int64Array], starts: Int64Array, ends: Int64Array
) -> list[float | None]:
    """Per step, the time-averaged count of ops launched and not yet started."""
    call_ns, start_ns = launched
    if call_ns.size == 0:
        return [None] * starts.size
    result: list[float | None] = []
    for low, high in zip(starts.tolist(), ends.tolist(), strict=True):
        held = np.minimum(start_ns, high) - np.maximum(call_ns, low)
        total = int(np.maximum(held, 0).sum())
        result.append(total / (high - low) if high > low else None)
    return result


def _launch_leads(
    launched: tuple[Int64Array, Int64Array], starts: Int64Array, ends: Int64Array
) -> list[int | None]:
    """Per step, the median launch-to-start time of the ops starting in it."""
    call_ns, start_ns = launched
    step = step_index(start_ns, starts, ends)
    leads = np.maximum(start_ns - call_ns, 0)
    result: list[int | None] = []
    for index in range(starts.size):
        mine = leads[step == index]
        result.append(int(np.median(mine)) if mine.size else None)
    return result


def _top_kernels(
    analysis: Analysis, work: Int64Array, steps: int
) -> tuple[KernelTime, ...]:
    """The names holding most of the device's time, per step."""
    trace = analysis.trace
    if work.size == 0:
        return ()
    names, group = np.unique(trace.name_id[work], return_inverse=True)
    sums = np.bincount(group.reshape(-1), weights=trace.duration_ns[work])
    times = sorted(
        (
            (-float(total), trace.names[int(name)])
            for name, total in zip(names.tolist(), sums.tolist(), strict=True)
            if total > 0
        )
    )[:TOP_KERNELS]
    return tuple(KernelTime(name, -total / max(steps, 1)) for total, name in times)

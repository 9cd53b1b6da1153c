"""Many small launches: the step launches many short kernels.

Launching can cost the step only while the device waits on the host or
between kernels (`device_waits.py`: host wait, and kernel wait, gaps under
30 µs, the signature of launch overhead), so its cost is the smaller of the
launch calls' host time and those waits, per step. Where the device never
waits on the host, launching is hidden behind the device and weighs nothing.
Kernels a CUDA graph replays are not launches and are left out, as HTA
leaves them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import median
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus, IdleCause
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import kernel_events
from tui.core.figures.launches import SHORT_KERNEL_NS, issued_at
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.device_waits import (
    busiest_device_time,
    device_waits,
    step_windows,
)
from tui.core.findings.finding import (
    Anchor,
    Figures,
    Finding,
    ShowKernel,
    ShowStep,
    gpu_not_observed,
    kernels_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import (
    MANY_KERNELS_PER_STEP,
    SMALL_KERNEL_NS,
    Scale,
    scale_of,
)

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class LaunchFigures(Figures):
    """How many kernels a step launches, how long they run, what launching costs.

    Shares are medians over the steps: the share of a step's device time
    (busy, a union) when a kernel under 10 µs runs, and the share of its wall
    time when a call that launched a kernel runs on the host (a union over
    threads). None when there are no steps or no device time.
    """

    kernels: int
    kernels_per_step: list[int]
    median_kernels_per_step: float
    median_kernel_ns: float
    steps: int
    short_kernels: int = 0
    short_share: float | None = None
    launch_share: float | None = None
    kernel: str | None = None  # the kernel name launched most often
    launch_ns_per_step: float | None = None
    """Host time of the launch calls per step (a union over threads)."""
    device_wait_ns_per_step: float | None = None
    """Per step, the busiest device's idle waiting on the host or between
    kernels (HTA's host wait and kernel wait, all its streams as one)."""
    graph_kernels: int = 0
    """Kernels replayed by a CUDA graph: not launches, left out."""


@dataclass(frozen=True)
class _Launched:
    """Where the launches fall: kernels launched per window step, whether each
    kernel was launched in one, the shares (`LaunchFigures`) and the launch
    calls' host time in each step."""

    counts: list[int]
    in_window: BoolArray
    short_share: float | None
    launch_share: float | None
    launch_time: Int64Array


def many_small_launches(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """Many short kernels per step, weighed by what launching them costs the step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.SMALL_LAUNCHES, trace)
    every_kernel = kernel_events(trace)
    if every_kernel.size == 0:
        return kernels_not_observed(FindingId.SMALL_LAUNCHES)
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
    figures, cost = _launch_figures(analysis, kernels, graph_kernels)
    seen = (
        figures.median_kernels_per_step >= MANY_KERNELS_PER_STEP
        and figures.median_kernel_ns < SMALL_KERNEL_NS
    )
    # Few or long kernels: launching them is no pattern, and weighs nothing here.
    status, weight = scale.weigh(seen, cost if seen else None)
    anchor = _busiest_step_anchor(analysis, figures)
    return Finding(
        FindingId.SMALL_LAUNCHES,
        status,
        figures,
        anchor,
        weight=weight,
        claim=_launch_claim(analysis),
    )


def _launch_claim(analysis: Analysis) -> Claim | None:
    """The device's waits on the host and between kernels: launching can cost
    the step only there."""
    time = busiest_device_time(analysis)
    if time is None:
        return None
    gaps = time[1]
    waits = gaps[IdleCause.HOST_WAIT].union(gaps[IdleCause.KERNEL_WAIT])
    return Claim(waits, ClaimSpace.DEVICE_IDLE, CostBound.LAUNCH_WAITS)


def _launch_figures(
    analysis: Analysis, kernels: Int64Array, graph_kernels: int
) -> tuple[LaunchFigures, float]:
    """The launches' figures, and what launching costs per step: the launch calls'
    host time, at most the device's waits on the host and between kernels."""
    trace = analysis.trace
    durations = trace.duration_ns[kernels]
    short = durations < SHORT_KERNEL_NS
    launched = _launched(analysis, kernels, short)
    launch_ns = float(launched.launch_time.mean())
    waits = device_waits(analysis)
    device_wait = (
        None
        if waits is None
        else waits.mean(IdleCause.HOST_WAIT) + waits.mean(IdleCause.KERNEL_WAIT)
    )
    names = Counter(trace.name_id[kernels[launched.in_window]].tolist())
    figures = LaunchFigures(
        int(kernels.size),
        launched.counts,
        float(statistics.median(launched.counts)),
        median(durations),
        len(analysis.window_steps),
        short_kernels=int((short & launched.in_window).sum()),
        short_share=launched.short_share,
        launch_share=launched.launch_share,
        kernel=trace.names[names.most_common(1)[0][0]] if names else None,
        launch_ns_per_step=launch_ns,
        device_wait_ns_per_step=device_wait,
        graph_kernels=graph_kernels,
    )
    cost = launch_ns if device_wait is None else min(launch_ns, device_wait)
    return figures, cost


def _busiest_step_anchor(analysis: Analysis, figures: LaunchFigures) -> Anchor | None:
    """The kernel launched most often, from the step launching the most kernels."""
    steps = analysis.window_steps
    busiest = int(np.argmax(figures.kernels_per_step))
    if figures.kernel is not None:
        return ShowKernel(figures.kernel, steps[busiest].number if steps else None)
    return ShowStep(steps[busiest].number) if steps else None


def _launched(analysis: Analysis, kernels: Int64Array, short: BoolArray) -> _Launched:
    """Kernels launched per window step (by when they were issued) and the shares;
    without steps, the capture's span as one step, and no shares."""
    trace = analysis.trace
    starts, ends = step_windows(analysis)
    if not analysis.window_steps:
        # Without steps the shares say nothing; the cost reads the span.
        *_, launch_time = _launch_shares(analysis, kernels, short, starts, ends)
        every = np.ones(kernels.size, dtype=bool)
        return _Launched([int(kernels.size)], every, None, None, launch_time)
    launched_at = issued_at(trace, kernels, analysis.launch_call, analysis.gpu_owner)
    order = np.argsort(launched_at, kind="stable")
    sorted_at = launched_at[order]
    first = np.searchsorted(sorted_at, starts, side="left")
    last = np.searchsorted(sorted_at, ends, side="left")
    # Kernels launched in some step: the union of the steps' ranges of sorted_at.
    depth = np.zeros(kernels.size + 1, dtype=np.int64)
    np.add.at(depth, first, 1)
    np.add.at(depth, last, -1)
    in_window = np.zeros(kernels.size, dtype=bool)
    in_window[order] = np.cumsum(depth[:-1]) > 0
    short_share, launch_share, launch_time = _launch_shares(
        analysis, kernels, short, starts, ends
    )
    counts = (last - first).tolist()
    return _Launched(counts, in_window, short_share, launch_share, launch_time)


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


RULE = FindingRule(
    FindingId.SMALL_LAUNCHES,
    LaunchFigures,
    (ShowKernel, ShowStep),
    many_small_launches,
)

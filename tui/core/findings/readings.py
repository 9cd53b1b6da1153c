"""The method's readings, computed from a capture: figures and a place to show, no words.

Each reading is a *possible* observation, never a proven cause. When the
capture lacks what a reading needs (no GPU events, no steps, no data zone) it
is NOT_OBSERVED with the reason, instead of reporting zero. The wording lives
on the report floor (`report/findings.py`), so the app, the CLI and the
report word them alike and never branch on ids to find figures.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import (
    CollectiveSide,
    CopyDirection,
    FindingId,
    FindingStatus,
    GapKind,
    HostMemory,
    Word,
)
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import CopyGroup, CopyReading
from tui.core.figures.kernels import kernel_events
from tui.core.figures.launches import SHORT_KERNEL_NS, issued_at
from tui.core.figures.shapes import operator_shape_split, shapes_in_trace
from tui.core.model.observed import gpu_missing_reason
from tui.core.model.steps import Step

# A data zone where the device idles for at least this share of it is worth a look.
IDLE_SHARE_WORTH_A_LOOK = 0.10
# Kernel counts and durations under which launches read as "many small".
MANY_KERNELS_PER_STEP = 50
SMALL_KERNEL_NS = 20_000
# An operator holding at least this share of the time reads as dominating.
DOMINANT_SHARE = 0.30


class MissingReason(Word):
    """Why a reading cannot be made from this capture."""

    NO_DATA_ZONE = "no_data_zone"
    NO_GPU = "no_gpu"
    TOO_FEW_STEPS = "too_few_steps"
    NO_KERNELS = "no_kernels"
    NO_OPERATOR_TIME = "no_operator_time"
    ONE_RANK = "one_rank"
    NO_COLLECTIVES = "no_collectives"


@dataclass(frozen=True)
class Missing:
    """What the capture lacks for a reading, with the detail the capture gives."""

    reason: MissingReason
    detail: str = ""


# -- where a finding points ----------------------------------------------------


@dataclass(frozen=True)
class ShowGap:
    """Select a gap of the data zone (its index in `Analysis.gaps`)."""

    index: int


@dataclass(frozen=True)
class ShowOperator:
    """Select an operator in the operator table."""

    name: str


@dataclass(frozen=True)
class ShowEvents:
    """Mark every event with this name on the timeline; select event `select` when given."""

    name: str
    select: int | None = None


@dataclass(frozen=True)
class ShowStep:
    """Fit a step."""

    number: int


@dataclass(frozen=True)
class ShowKernel:
    """Show the kernels of one name (in step `step` when given): the Kernels view's row."""

    name: str
    step: int | None = None


Anchor = ShowGap | ShowOperator | ShowEvents | ShowStep | ShowKernel


# -- figures of each reading ---------------------------------------------------


@dataclass(frozen=True)
class IdleFigures:
    """Device idle (or CPU wait) inside the data zone."""

    kind: GapKind
    zones: tuple[str, ...]
    zone_ns: int
    idle_ns: int
    share: float
    gaps: int
    idle_ns_per_step: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RepeatedCopy:
    """One host-to-device copy issued in every window step, with its cost per step."""

    name: str
    bytes: int | None
    host_memory: HostMemory | None
    path: tuple[str, ...]
    count_per_step: float
    ns_per_step: float
    event: int  # its first occurrence in the window


@dataclass(frozen=True)
class CopyFigures:
    """Host-to-device copies of the same size from the same operator path in every step.

    `name`, `bytes` and `per_step` (copies per step) describe the costliest
    one, `copies` lists them all, costliest per step first.
    """

    steps: int
    distinct_copies: int
    repeated_copies: int
    name: str | None = None
    bytes: int | None = None
    per_step: int | None = None
    copies: tuple[RepeatedCopy, ...] = ()

    @property
    def ns_per_step(self) -> float | None:
        """Time per step of all repeated copies together (sum of their per-step medians)."""
        return sum(copy.ns_per_step for copy in self.copies) if self.copies else None


@dataclass(frozen=True)
class LaunchFigures:
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


@dataclass(frozen=True)
class DominantFigures:
    """The operator holding the largest share of self time.

    With recorded shapes: its input shapes holding most of its time, how
    many calls had them, their share of its time, how many shapes it had.
    """

    operator: str
    share: float
    self_ns: int
    total_ns: int
    calls: int
    unit: str  # "GPU" or "CPU": the clock the share is taken on
    shapes_recorded: bool = False
    input_shapes: str | None = None
    shape_calls: int | None = None
    shape_share: float | None = None
    shape_count: int | None = None


@dataclass(frozen=True)
class LateRankFigures:
    """The rank that reaches the collectives last in the most steps, and a peer to compare.

    `median_wait_ns` is the other ranks' median wait in the steps it was
    last; zone and compute figures are medians per step (None when unknown).
    """

    rank: int
    late_steps: int
    steps: int
    median_wait_ns: float
    median_step_ns: float
    peer: int | None
    side: CollectiveSide
    """Where its collectives were seen: communication kernels or CPU ops."""
    zone_ns: float | None = None
    peer_zone_ns: float | None = None
    compute_ns: float | None = None
    peer_compute_ns: float | None = None


Figures = IdleFigures | CopyFigures | LaunchFigures | DominantFigures | LateRankFigures


@dataclass(frozen=True)
class Finding:
    """A reading: possible, not seen, or not observed (with what is missing)."""

    id: FindingId
    status: FindingStatus
    figures: Figures | None = None
    anchor: Anchor | None = None
    missing: Missing | None = None

    @property
    def observed(self) -> bool:
        """Whether the reading is a possible observation worth a check."""
        return self.status is FindingStatus.POSSIBLE


def _status(worth_a_look: bool) -> FindingStatus:
    return FindingStatus.POSSIBLE if worth_a_look else FindingStatus.NOT_SEEN


def _no_gpu(finding_id: FindingId, analysis: Analysis) -> Finding:
    return Finding(
        finding_id,
        FindingStatus.NOT_OBSERVED,
        missing=Missing(MissingReason.NO_GPU, gpu_missing_reason(analysis.trace) or ""),
    )


def idle_in_data_zone(analysis: Analysis) -> Finding:
    """Device idle (or CPU wait) while the data zone runs."""
    reading = analysis.zone_reading
    zones = reading.choice.names
    if not reading.found:
        return Finding(
            FindingId.GPU_IDLE_DATA_ZONE,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_DATA_ZONE, ", ".join(zones)),
        )
    zone_ns = reading.total_zone_ns
    idle_ns = reading.total_gap_ns
    share = idle_ns / zone_ns if zone_ns else 0.0
    per_step: dict[str, int] = {}
    for gap in reading.gaps:
        key = "outside steps" if gap.step is None else str(gap.step)
        per_step[key] = per_step.get(key, 0) + gap.duration_ns
    gaps = analysis.gaps
    biggest = max(range(len(gaps)), key=lambda i: gaps[i].duration_ns, default=None)
    return Finding(
        FindingId.GPU_IDLE_DATA_ZONE,
        _status(share >= IDLE_SHARE_WORTH_A_LOOK),
        IdleFigures(reading.kind, zones, zone_ns, idle_ns, share, len(gaps), per_step),
        ShowGap(biggest) if biggest is not None else None,
    )


def repeated_copy(analysis: Analysis) -> Finding:
    """The same host-to-device copy (direction, size, operator path) in every window step."""
    trace = analysis.trace
    if not trace.gpu_observed:
        return _no_gpu(FindingId.REPEATED_COPY, analysis)
    steps = analysis.window_steps
    if len(steps) < 2:
        return Finding(
            FindingId.REPEATED_COPY,
            FindingStatus.NOT_OBSERVED,
            CopyFigures(len(steps), 0, 0),
            missing=Missing(MissingReason.TOO_FEW_STEPS, str(len(steps))),
        )
    reading = CopyReading.of(analysis)
    host_to_device = [
        group
        for group in reading.groups
        if group.direction is CopyDirection.HOST_TO_DEVICE
    ]
    repeated = [group for group in host_to_device if group.repeated]
    if not repeated:
        return Finding(
            FindingId.REPEATED_COPY,
            FindingStatus.NOT_SEEN,
            CopyFigures(len(steps), len(host_to_device), 0),
        )
    repeated.sort(key=lambda group: (-group.median_ns_per_step, -(group.bytes or 0)))
    copies = tuple(_repeated_copy(reading, group) for group in repeated)
    costliest = copies[0]
    return Finding(
        FindingId.REPEATED_COPY,
        FindingStatus.POSSIBLE,
        CopyFigures(
            len(steps),
            len(host_to_device),
            len(repeated),
            costliest.name,
            costliest.bytes,
            int(min(repeated[0].per_step_count.tolist())),
            copies,
        ),
        ShowEvents(costliest.name, select=costliest.event),
    )


def _repeated_copy(reading: CopyReading, group: CopyGroup) -> RepeatedCopy:
    position = reading.first_in_window(group)
    return RepeatedCopy(
        name=group.name,
        bytes=group.bytes,
        host_memory=group.host_memory,
        path=group.path,
        count_per_step=group.median_count_per_step,
        ns_per_step=group.median_ns_per_step,
        event=int(reading.columns.events[position]),
    )


def many_small_launches(analysis: Analysis) -> Finding:
    """Many short kernels per step, and what launching them costs the host."""
    trace = analysis.trace
    if not trace.gpu_observed:
        return _no_gpu(FindingId.SMALL_LAUNCHES, analysis)
    kernels = kernel_events(trace)
    if kernels.size == 0:
        return Finding(
            FindingId.SMALL_LAUNCHES,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_KERNELS),
        )
    durations = trace.duration_ns[kernels]
    median_ns = float(np.median(durations))
    steps: list[Step] = analysis.window_steps
    launched_at = issued_at(trace, kernels, analysis.launch_call, analysis.gpu_owner)
    order = np.argsort(launched_at, kind="stable")
    sorted_at = launched_at[order]
    short = durations < SHORT_KERNEL_NS
    short_share: float | None = None
    launch_share: float | None = None
    if steps:
        starts = np.array([step.start_ns for step in steps], dtype=np.int64)
        ends = np.array([step.end_ns for step in steps], dtype=np.int64)
        first = np.searchsorted(sorted_at, starts, side="left")
        last = np.searchsorted(sorted_at, ends, side="left")
        counts = (last - first).tolist()
        # Kernels launched in some step: the union of the steps' ranges of sorted_at.
        depth = np.zeros(kernels.size + 1, dtype=np.int64)
        np.add.at(depth, first, 1)
        np.add.at(depth, last, -1)
        in_window = np.zeros(kernels.size, dtype=bool)
        in_window[order] = np.cumsum(depth[:-1]) > 0
        short_share, launch_share = _launch_shares(
            analysis, kernels, short, starts, ends
        )
    else:
        counts = [int(kernels.size)]
        in_window = np.ones(kernels.size, dtype=bool)
    per_step = float(statistics.median(counts))
    busiest = int(np.argmax(counts))
    names = Counter(trace.name_id[kernels[in_window]].tolist())
    kernel = trace.names[names.most_common(1)[0][0]] if names else None
    anchor: Anchor | None = None
    if kernel is not None:
        anchor = ShowKernel(kernel, steps[busiest].number if steps else None)
    elif steps:
        anchor = ShowStep(steps[busiest].number)
    return Finding(
        FindingId.SMALL_LAUNCHES,
        _status(per_step >= MANY_KERNELS_PER_STEP and median_ns < SMALL_KERNEL_NS),
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
        ),
        anchor,
    )


def _launch_shares(
    analysis: Analysis,
    kernels: np.ndarray,
    short: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
) -> tuple[float | None, float | None]:
    """Medians over steps: short kernels' share of device time, and the share of wall
    time when a call that launched a kernel runs on the host."""
    trace = analysis.trace
    short_events = kernels[short]
    short_time = Intervals.union_of(
        trace.start_ns[short_events], trace.end_ns[short_events]
    ).covered_in(starts, ends)
    busy = analysis.busy_all_devices.covered_in(starts, ends)
    with_busy = busy > 0
    short_share = (
        float(np.median(short_time[with_busy] / busy[with_busy]))
        if with_busy.any()
        else None
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
        float(np.median(launch_time[with_wall] / walls[with_wall]))
        if with_wall.any()
        else None
    )
    return short_share, launch_share


def dominant_operator(analysis: Analysis) -> Finding:
    """One operator holding a large share of the self time."""
    steps = analysis.window_steps
    start = steps[0].start_ns if steps else None
    end = steps[-1].end_ns if steps else None
    table = analysis.op_table(start, end)
    # Steps contain everything; self time already keeps zones from hiding operators.
    keep = np.array([name != "ProfilerStep*" for name in table.names], dtype=bool)
    if table.self_gpu_ns is not None and int(table.self_gpu_ns[keep].sum()) > 0:
        column, unit = table.self_gpu_ns, "GPU"
    else:
        column, unit = table.self_cpu_ns, "CPU"
    values = np.where(keep, column, 0)
    total = int(values.sum())
    if total <= 0:
        return Finding(
            FindingId.DOMINANT_OP,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_OPERATOR_TIME),
        )
    top = int(np.argmax(values))
    share = int(values[top]) / total
    name = table.names[top]
    per_event = analysis.self_gpu_ns if unit == "GPU" else analysis.self_cpu_ns
    split = operator_shape_split(analysis, name, per_event, start, end)
    return Finding(
        FindingId.DOMINANT_OP,
        _status(share >= DOMINANT_SHARE),
        DominantFigures(
            name,
            share,
            int(values[top]),
            total,
            int(table.calls[top]),
            unit,
            shapes_recorded=shapes_in_trace(analysis.trace),
            input_shapes=None if split is None else str(split.shapes),
            shape_calls=None if split is None else split.calls,
            shape_share=None if split is None else split.share,
            shape_count=None if split is None else split.shape_count,
        ),
        ShowOperator(name),
    )


def compute_findings(analysis: Analysis) -> list[Finding]:
    """The readings in the method's order."""
    return [
        idle_in_data_zone(analysis),
        repeated_copy(analysis),
        many_small_launches(analysis),
        dominant_operator(analysis),
    ]

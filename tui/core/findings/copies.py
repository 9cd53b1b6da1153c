"""The copies' readings: a constant re-sent every step, and copies from pageable memory.

An **input copy** moves the batch: issued inside a data zone, or after one
ends and before any kernel of the step is issued. It is not a repeated
constant, however alike every step's batch looks; the repeated-copy reading
leaves such groups out. A **repeated constant** is the same bytes copied
from the same operator path inside the compute in every window step.

A **pageable** host-to-device copy is staged by the driver and blocks the
host: its cost is its device time per step, its bandwidth bytes over time;
pinned memory and `non_blocking` are the next check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import CopyDirection, FindingId, FindingStatus, HostMemory
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import (
    DIRECTIONS,
    HOST_MEMORIES,
    CopyGroup,
    CopyReading,
)
from tui.core.figures.kernels import kernel_events
from tui.core.figures.launches import issued_at
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.finding import (
    Figures,
    Finding,
    Missing,
    MissingReason,
    ShowEvents,
    gpu_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


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
class CopyFigures(Figures):
    """Host-to-device copies of the same size from the same operator path in every step.

    `name`, `bytes` and `per_step` (copies per step) describe the costliest
    one, `copies` lists them all, costliest per step first.
    """

    steps: int
    distinct_copies: int
    repeated_copies: int
    input_copies: int = 0
    """Groups left out because they move the batch (input copies)."""
    name: str | None = None
    bytes: int | None = None
    per_step: int | None = None
    copies: tuple[RepeatedCopy, ...] = ()

    @property
    def ns_per_step(self) -> float | None:
        """Time per step of all repeated copies together (sum of their per-step medians)."""
        return sum(copy.ns_per_step for copy in self.copies) if self.copies else None


@dataclass(frozen=True)
class PageableFigures(Figures):
    """Host-to-device copies from pageable memory in the window, per step (medians).

    `input_share` is the share of their time held by input copies (issued in
    a data zone, or after it before any other device work of the step: the
    batch); `name`, `event`, `bytes` describe the costliest group.
    """

    steps: int
    count_per_step: float
    bytes_per_step: int | None
    ns_per_step: float
    bytes_per_s: float | None
    input_share: float
    name: str
    event: int
    path: tuple[str, ...] = ()


BoolArray = npt.NDArray[np.bool_]


def input_copies(analysis: Analysis, reading: CopyReading) -> BoolArray:
    """For each copy of `reading.columns`: whether it moves the batch (see the module)."""
    columns = reading.columns
    trace = analysis.trace
    count = len(columns)
    zone = analysis.zone_reading.zone
    if count == 0 or not analysis.zone_reading.found or len(zone) == 0:
        return np.zeros(count, dtype=bool)
    issued = issued_at(trace, columns.events, analysis.launch_call, analysis.gpu_owner)
    # The last zone interval starting at or before each copy was issued.
    last = np.searchsorted(zone.starts, issued, side="right") - 1
    has_zone = last >= 0
    safe = np.maximum(last, 0)
    zone_end = zone.ends[safe]
    inside = has_zone & (issued < zone_end)
    # After the zone: no kernel issued between its end and the copy, same step.
    kernels = kernel_events(trace)
    kernel_issued = np.sort(
        issued_at(trace, kernels, analysis.launch_call, analysis.gpu_owner)
    )
    between = np.searchsorted(kernel_issued, issued, side="left") - np.searchsorted(
        kernel_issued, zone_end, side="left"
    )
    steps = reading.steps
    step_starts = np.array([step.start_ns for step in steps] + [0], dtype=np.int64)
    own_step_start = step_starts[columns.step]  # -1 (no step) reads the trailing 0
    same_step = (columns.step < 0) | (zone_end >= own_step_start)
    right_after = has_zone & ~inside & (between == 0) & same_step
    result: BoolArray = inside | right_after
    return result


def _is_input(group: CopyGroup, inputs: BoolArray) -> bool:
    """A group moves the batch when most of its copies do."""
    return bool(inputs[group.positions].mean() > 0.5) if group.count else False


def repeated_copy(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """The same host-to-device copy (direction, size, operator path) in every window
    step, input copies left out; its cost is their device time per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.REPEATED_COPY, trace)
    steps = analysis.window_steps
    if len(steps) < 2:
        return Finding(
            FindingId.REPEATED_COPY,
            FindingStatus.NOT_OBSERVED,
            CopyFigures(len(steps), 0, 0),
            missing=Missing(MissingReason.TOO_FEW_STEPS, str(len(steps))),
        )
    reading = CopyReading.of(analysis)
    inputs = input_copies(analysis, reading)
    host_to_device = [
        group
        for group in reading.groups
        if group.direction is CopyDirection.HOST_TO_DEVICE
    ]
    repeated_all = [group for group in host_to_device if group.repeated]
    repeated = [group for group in repeated_all if not _is_input(group, inputs)]
    left_out = len(repeated_all) - len(repeated)
    if not repeated:
        return Finding(
            FindingId.REPEATED_COPY,
            FindingStatus.NOT_SEEN,
            CopyFigures(len(steps), len(host_to_device), 0, input_copies=left_out),
        )
    repeated.sort(key=lambda group: (-group.median_ns_per_step, -(group.bytes or 0)))
    copies = tuple(_repeated_copy(reading, group) for group in repeated)
    costliest = copies[0]
    figures = CopyFigures(
        len(steps),
        len(host_to_device),
        len(repeated),
        input_copies=left_out,
        name=costliest.name,
        bytes=costliest.bytes,
        per_step=int(min(repeated[0].per_step_count.tolist())),
        copies=copies,
    )
    status, weight = scale.weigh(True, figures.ns_per_step)
    events = reading.columns.events[
        np.concatenate([group.positions for group in repeated])
    ]
    return Finding(
        FindingId.REPEATED_COPY,
        status,
        figures,
        ShowEvents(costliest.name, select=costliest.event),
        weight=weight,
        claim=_copy_claim(analysis, events),
    )


def _copy_claim(analysis: Analysis, events: npt.NDArray[np.int64]) -> Claim:
    """The copies' device time: what moving them elsewhere could give back."""
    trace = analysis.trace
    return Claim(
        Intervals.union_of(trace.start_ns[events], trace.end_ns[events]),
        ClaimSpace.DEVICE_WORK,
        CostBound.COPY_TIME,
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


def pageable_copy(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """Host-to-device copies from pageable memory in the window steps, per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.PAGEABLE_COPY, trace)
    reading = CopyReading.of(analysis)
    columns = reading.columns
    window = {step.event for step in analysis.window_steps}
    step_in_window = np.array(
        [step.event in window for step in reading.steps] + [not window], dtype=bool
    )
    pageable = (
        (columns.direction == DIRECTIONS.index(CopyDirection.HOST_TO_DEVICE))
        & (columns.host_memory == HOST_MEMORIES.index(HostMemory.PAGEABLE))
        & step_in_window[columns.step]
    )
    if not pageable.any():
        return Finding(FindingId.PAGEABLE_COPY, FindingStatus.NOT_SEEN)
    steps = max(len(window), 1)
    events = columns.events[pageable]
    starts, ends = trace.start_ns[events], trace.end_ns[events]
    time_ns = Intervals.union_of(starts, ends).total_ns
    sizes = columns.bytes[pageable]
    known = sizes >= 0
    inputs = input_copies(analysis, reading)[pageable]
    input_ns = Intervals.union_of(starts[inputs], ends[inputs]).total_ns
    known_ns = Intervals.union_of(starts[known], ends[known]).total_ns
    groups = [
        group
        for group in reading.groups
        if group.direction is CopyDirection.HOST_TO_DEVICE
        and group.host_memory is HostMemory.PAGEABLE
    ]
    costliest = groups[0]  # groups come largest time first
    figures = PageableFigures(
        steps=len(window),
        count_per_step=int(pageable.sum()) / steps,
        bytes_per_step=int(sizes[known].sum()) // steps if known.any() else None,
        ns_per_step=time_ns / steps,
        bytes_per_s=(
            float(sizes[known].sum()) * 1e9 / known_ns
            if known.any() and known_ns > 0
            else None
        ),
        input_share=input_ns / time_ns if time_ns else 0.0,
        name=costliest.name,
        event=int(columns.events[reading.first_in_window(costliest)]),
        path=costliest.path,
    )
    status, weight = scale.weigh(True, figures.ns_per_step)
    return Finding(
        FindingId.PAGEABLE_COPY,
        status,
        figures,
        ShowEvents(costliest.name, select=figures.event),
        weight=weight,
        claim=_copy_claim(analysis, events),
    )


REPEATED_RULE = FindingRule(
    FindingId.REPEATED_COPY, CopyFigures, (ShowEvents,), repeated_copy
)
PAGEABLE_RULE = FindingRule(
    FindingId.PAGEABLE_COPY, PageableFigures, (ShowEvents,), pageable_copy
)

"""What bounds the step: the critical path's time that is not the device computing.

The critical path of each window step (`figures/critical`; the capture as
one step without steps) is read in its adjusted form: step and user
annotations are not CPU work, the autograd thread is joined to the forward,
gaps other streams or CUDA graphs fill are not gaps (HTA's own reading is
kept beside it by `steptrace critical`). The path is split into operators'
time (cpu_bound), kernels' (gpu_compute_bound, NCCL kernels'
gpu_communication_bound), gaps between a stream's kernels and launch
delays. The class holding most of the steps' paths says what the step is
bound by; the cost is the path time of the largest class that is not the
device's own work, per step. It claims the step's device idle: shortening
the host's chain gives back at most the time the device waits.

The reading drops to `possible` when the path covers little of the step or
contradicts the device's own figures (`PathFlag`), and says so; on a
saturated device (`device_bound.py`) gaps and launch delays are not read as
what bounds the step (the host runs ahead: the device sets the pace).
`top` names an operator or a kernel, never a step range. The whole
window's path is read too: its class agrees with the steps', or the
figures say it does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import (
    AdjustedPath,
    BoundBy,
    Correction,
    CriticalPath,
    PathFlag,
    critical_paths,
)
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.device_bound import busiest_load
from tui.core.findings.device_waits import busiest_device_time, step_windows
from tui.core.findings.finding import (
    Figures,
    Finding,
    ShowEvents,
    gpu_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of
from tui.core.model.trace import Kind


@dataclass(frozen=True)
class CriticalPathFigures(Figures):
    """The window steps' adjusted critical paths (`figures/critical`), per step.

    `bound_by` is the class holding most of the paths, `overhead` the largest
    class that is not the device's own work (operators, gaps between kernels,
    launch delays), `top` the operator or kernel holding most of that
    overhead; `shares` each class's percentage of the paths' time.
    `coverage` is the median path's share of its step; `flags` what holds in
    at least half the steps (low coverage, CPU-bound on a busy device);
    `corrected` what the adjusted reading changed in HTA's; `window_bound_by`
    the whole window's path class (None: not read), `saturated` whether the
    device is saturated (gaps and launch delays are then not read as bounds).
    """

    steps: int
    path_ns_per_step: float
    bound_by: BoundBy
    overhead: BoundBy
    overhead_ns_per_step: float
    shares: tuple[tuple[BoundBy, float], ...]
    top: str | None = None
    coverage: float | None = None
    flags: tuple[PathFlag, ...] = ()
    corrected: tuple[Correction, ...] = ()
    window_bound_by: BoundBy | None = None
    saturated: bool = False

    @property
    def window_agrees(self) -> bool:
        """Whether the whole window's path is bound by the same class as the steps'."""
        return self.window_bound_by is None or self.window_bound_by is self.bound_by


# The classes that are the device's own work, not overhead on the chain.
DEVICE_WORK = (BoundBy.GPU_COMPUTE, BoundBy.GPU_COMMUNICATION)
# On a saturated device the host runs ahead: gaps and launch delays do not bound it.
HOST_AHEAD_CLASSES = (BoundBy.KERNEL_KERNEL, BoundBy.LAUNCH)


@dataclass(frozen=True)
class _Paths:
    """Each window step's adjusted path (HTA's where the adjusted one is refused)
    and the whole window's; without steps, the capture's as the one step."""

    steps: tuple[CriticalPath, ...]
    adjusted: tuple[AdjustedPath, ...]
    window: CriticalPath | None


def _read_paths(analysis: Analysis) -> _Paths:
    """The window's paths, adjusted, read once per analysis (`Analysis.memo`)."""
    steps = analysis.window_steps
    paths = critical_paths(
        analysis.trace,
        steps,
        window=bool(steps),
        busy=analysis.busy_by_device,
        adjusted=True,
    )
    if not steps:
        whole = paths.window_adjusted
        if whole is not None:
            return _Paths((whole.path,), (whole,), None)
        return _Paths(() if paths.window is None else (paths.window,), (), None)
    chosen: list[CriticalPath] = []
    adjusted: list[AdjustedPath] = []
    for step in paths.steps:
        if step.adjusted is not None:
            chosen.append(step.adjusted.path)
            adjusted.append(step.adjusted)
        elif step.path is not None:
            chosen.append(step.path)
    window = paths.window_adjusted.path if paths.window_adjusted else paths.window
    return _Paths(tuple(chosen), tuple(adjusted), window)


def _not_an_operator(analysis: Analysis) -> set[str]:
    """Names the path's top never gives: step ranges and user annotations."""
    trace = analysis.trace
    ids = np.unique(trace.name_id[trace.kind == Kind.USER_ANNOTATION])
    names = {trace.names[int(index)] for index in ids.tolist()}
    return names | {name for name in trace.names if name.startswith("ProfilerStep")}


def _device_idle(analysis: Analysis) -> Claim | None:
    """The window steps' device idle (the busiest device's)."""
    time = busiest_device_time(analysis)
    if time is None:
        return None
    starts, ends = step_windows(analysis)
    idle = Intervals.union_of(starts, ends).subtract(time[0])
    # All the step's device idle: the other readings name parts of it.
    return Claim(idle, ClaimSpace.DEVICE_IDLE, CostBound.DEVICE_IDLE, umbrella=True)


def _flags(adjusted: tuple[AdjustedPath, ...]) -> tuple[PathFlag, ...]:
    """The flags raised in at least half the steps."""
    return tuple(
        flag
        for flag in PathFlag
        if adjusted
        and 2 * sum(flag in path.flags for path in adjusted) >= len(adjusted)
    )


def critical_path(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """The steps' critical paths weighed by their largest overhead class per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.CRITICAL_PATH, trace)
    read = analysis.memo(_read_paths)
    paths = read.steps
    path_ns = sum(path.path_ns for path in paths)
    if path_ns <= 0:
        status, weight = scale.weigh(False, None)
        return Finding(FindingId.CRITICAL_PATH, status, weight=weight)
    load = busiest_load(analysis)
    saturated = load is not None and load.saturated
    bound_ns = dict.fromkeys(BoundBy, 0)
    for path in paths:
        for kind, ns in path.bound_ns:
            bound_ns[kind] += ns
    readable = [
        kind for kind in BoundBy if not (saturated and kind in HOST_AHEAD_CLASSES)
    ]
    overhead = max(
        (kind for kind in readable if kind not in DEVICE_WORK),
        key=lambda kind: bound_ns[kind],
    )
    skipped = _not_an_operator(analysis)
    named: dict[str, int] = {}
    for path in paths:
        for part in path.top:
            if part.bound_by is overhead and part.name not in skipped:
                named[part.name] = named.get(part.name, 0) + part.ns
    per_step = len(paths)
    overhead_ns = bound_ns[overhead]
    status, weight = scale.weigh(overhead_ns > 0, overhead_ns / per_step)
    flags = _flags(read.adjusted)
    if flags and status is FindingStatus.LIKELY:
        status = FindingStatus.POSSIBLE
    top = max(named, key=lambda name: named[name]) if named else None
    coverage = [path.coverage for path in read.adjusted if path.coverage is not None]
    window = read.window
    figures = CriticalPathFigures(
        steps=len(analysis.window_steps),
        path_ns_per_step=path_ns / per_step,
        bound_by=max(readable, key=lambda kind: bound_ns[kind]),
        overhead=overhead,
        overhead_ns_per_step=overhead_ns / per_step,
        shares=tuple((kind, 100.0 * bound_ns[kind] / path_ns) for kind in BoundBy),
        top=top,
        coverage=float(np.median(coverage)) if coverage else None,
        flags=flags,
        corrected=tuple(
            correction
            for correction in Correction
            if any(
                done.correction is correction
                for path in read.adjusted
                for done in path.corrected
            )
        ),
        window_bound_by=None if window is None else _bound_by(window, readable),
        saturated=saturated,
    )
    seen = status is not FindingStatus.NOT_SEEN
    anchor = ShowEvents(top) if seen and top is not None else None
    return Finding(
        FindingId.CRITICAL_PATH,
        status,
        figures,
        anchor,
        weight=weight,
        claim=_device_idle(analysis),
    )


def _bound_by(path: CriticalPath, readable: list[BoundBy]) -> BoundBy | None:
    """The readable class holding most of a path (None for an empty one)."""
    if path.path_ns <= 0:
        return None
    held = dict(path.bound_ns)
    return max(readable, key=lambda kind: held[kind])


RULE = FindingRule(
    FindingId.CRITICAL_PATH, CriticalPathFigures, (ShowEvents,), critical_path
)

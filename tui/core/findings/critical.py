"""What bounds the step: the critical path's time that is not the device computing.

HTA's critical path (`figures/critical`) of each window step (the capture as
one step without steps) is split into operators' time (cpu_bound), kernels'
(gpu_compute_bound, NCCL kernels' gpu_communication_bound), gaps between a
stream's kernels and launch delays. The class holding most of the steps'
paths says what the step is bound by; the cost is the path time of the
largest class that is not the device's own work (operators, gaps or launch
delays) per step, capped at the median step by `Scale`: an upper bound of
what removing that overhead from the chain could save (another chain may
then become the longest).
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import BoundBy, CriticalPath, critical_paths
from tui.core.findings.finding import (
    Figures,
    Finding,
    ShowEvents,
    gpu_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


@dataclass(frozen=True)
class CriticalPathFigures(Figures):
    """The window steps' critical paths (HTA's, `figures/critical`), per step.

    `bound_by` is the class holding most of the paths, `overhead` the largest
    class that is not the device's own work (operators, gaps between kernels,
    launch delays), `top` the event holding most of that overhead; `shares`
    each class's percentage of the paths' time.
    """

    steps: int
    path_ns_per_step: float
    bound_by: BoundBy
    overhead: BoundBy
    overhead_ns_per_step: float
    shares: tuple[tuple[BoundBy, float], ...]
    top: str | None = None


# The classes that are the device's own work, not overhead on the chain.
DEVICE_WORK = (BoundBy.GPU_COMPUTE, BoundBy.GPU_COMMUNICATION)


def _step_paths(analysis: Analysis) -> list[CriticalPath]:
    """Each window step's path; the whole capture's without steps."""
    steps = analysis.window_steps
    if not steps:
        whole = critical_paths(analysis.trace, []).window
        return [] if whole is None else [whole]
    paths = critical_paths(analysis.trace, steps, window=False)
    return [step.path for step in paths.steps if step.path is not None]


def critical_path(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """The steps' critical paths weighed by their largest overhead class per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.CRITICAL_PATH, trace)
    paths = analysis.memo(_step_paths)
    path_ns = sum(path.path_ns for path in paths)
    if path_ns <= 0:
        status, weight = scale.weigh(False, None)
        return Finding(FindingId.CRITICAL_PATH, status, weight=weight)
    bound_ns = dict.fromkeys(BoundBy, 0)
    named: dict[str, int] = {}
    for path in paths:
        for kind, ns in path.bound_ns:
            bound_ns[kind] += ns
    overhead = max(
        (kind for kind in BoundBy if kind not in DEVICE_WORK),
        key=lambda kind: bound_ns[kind],
    )
    for path in paths:
        for part in path.top:
            if part.bound_by is overhead:
                named[part.name] = named.get(part.name, 0) + part.ns
    per_step = len(paths)
    overhead_ns = bound_ns[overhead]
    status, weight = scale.weigh(overhead_ns > 0, overhead_ns / per_step)
    top = max(named, key=lambda name: named[name]) if named else None
    figures = CriticalPathFigures(
        steps=len(analysis.window_steps),
        path_ns_per_step=path_ns / per_step,
        bound_by=max(BoundBy, key=lambda kind: bound_ns[kind]),
        overhead=overhead,
        overhead_ns_per_step=overhead_ns / per_step,
        shares=tuple((kind, 100.0 * bound_ns[kind] / path_ns) for kind in BoundBy),
        top=top,
    )
    seen = status is not FindingStatus.NOT_SEEN
    anchor = ShowEvents(top) if seen and top is not None else None
    return Finding(FindingId.CRITICAL_PATH, status, figures, anchor, weight=weight)


RULE = FindingRule(
    FindingId.CRITICAL_PATH, CriticalPathFigures, (ShowEvents,), critical_path
)

"""The data zone's reading: the device idles while the batch is read, weighed by that idle.

Its cost is the idle per step: the window's idle inside the data zone over
its steps (an upper bound of what a faster input pipeline could save). The
gaps are weighed too: how many are at least a sliver (`SLIVER_NS`) and what
share of the idle they hold, so a thousand slivers never read as a thousand
problems. How the batch is loaded comes from the DataLoader's own range
names: `_SingleProcessDataLoaderIter` loads on the main thread
(num_workers=0), `_MultiProcessingDataLoaderIter` in worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import DataLoading, FindingId, FindingStatus, GapKind
from tui.core.figures.analysis import Analysis
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.finding import (
    Figures,
    Finding,
    Missing,
    MissingReason,
    ShowGap,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import SLIVER_NS, Scale, scale_of
from tui.core.model.trace import Trace


@dataclass(frozen=True)
class IdleFigures(Figures):
    """Device idle (or untraced time) inside the data zone."""

    kind: GapKind
    zones: tuple[str, ...]
    zone_ns: int
    idle_ns: int
    share: float
    gaps: int
    idle_ns_per_step: dict[str, int] = field(default_factory=dict)
    sizeable_gaps: int = 0
    """Gaps of at least `SLIVER_NS`: the ones worth listing."""
    sizeable_share: float = 0.0
    """Their share of the idle time; the slivers hold the rest."""
    loading: DataLoading | None = None
    """How the DataLoader ranges say the data is loaded (None: no such range)."""


_LOADER_ITERATORS = (
    ("_SingleProcessDataLoaderIter", DataLoading.MAIN_THREAD),
    ("_MultiProcessingDataLoaderIter", DataLoading.WORKERS),
)


def data_loading(trace: Trace) -> DataLoading | None:
    """Where the DataLoader ranges say batches are loaded; None without such a range.

    Workers win when both appear (a capture holding two loaders).
    """
    found: set[DataLoading] = set()
    for name in trace.names:
        if name.startswith("enumerate(DataLoader)#"):
            for marker, loading in _LOADER_ITERATORS:
                if marker in name:
                    found.add(loading)
    if DataLoading.WORKERS in found:
        return DataLoading.WORKERS
    return DataLoading.MAIN_THREAD if found else None


def idle_in_data_zone(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """Device idle (or untraced time) while the data zone runs, per step."""
    scale = scale or scale_of(analysis)
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
    window = {str(step.number) for step in analysis.window_steps}
    if window:
        in_window = sum(ns for key, ns in per_step.items() if key in window)
        cost = in_window / len(window)
    else:
        cost = float(idle_ns)
    gaps = analysis.gaps
    sizeable = [gap.duration_ns for gap in gaps if gap.duration_ns >= SLIVER_NS]
    gap_total = sum(gap.duration_ns for gap in gaps)
    biggest = max(range(len(gaps)), key=lambda i: gaps[i].duration_ns, default=None)
    status, weight = scale.weigh(idle_ns > 0, cost)
    space = (
        ClaimSpace.DEVICE_IDLE if reading.kind is GapKind.GPU_IDLE else ClaimSpace.HOST
    )
    claim = Claim(
        Intervals.union_of(
            [gap.start_ns for gap in gaps], [gap.end_ns for gap in gaps]
        ),
        space,
        CostBound.DEVICE_IDLE_IN_ZONE
        if reading.kind is GapKind.GPU_IDLE
        else CostBound.UNTRACED_IN_ZONE,
    )
    return Finding(
        FindingId.GPU_IDLE_DATA_ZONE,
        status,
        IdleFigures(
            reading.kind,
            zones,
            zone_ns,
            idle_ns,
            share,
            len(gaps),
            per_step,
            sizeable_gaps=len(sizeable),
            sizeable_share=sum(sizeable) / gap_total if gap_total else 0.0,
            loading=data_loading(analysis.trace),
        ),
        ShowGap(biggest) if biggest is not None else None,
        weight=weight,
        claim=claim,
    )


RULE = FindingRule(
    FindingId.GPU_IDLE_DATA_ZONE, IdleFigures, (ShowGap,), idle_in_data_zone
)

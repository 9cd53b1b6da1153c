"""Host synchronisations: the host waits on the device, then the device waits on the host.

A sync (`figures/syncs.py`) blocks the host until the device's queue is
drained; afterwards the device idles until the host issues work again. The
pattern is any sync in the window's steps; its cost is what the syncs cost
the device: the device idle after each sync until new work arrives (per
device, a union over the syncs, cut at the step's end), per window step
(the capture as one step without steps). The host's blocked time is not
the cost: while the host waits the device works, and a device busy
through the wait gives nothing back when the sync goes. A pageable upload
whose call outlasts its copy drained the stream and counts as a sync: its
idle after is its cost here, its copy time the pageable copy's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus, SyncKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.sync_reading import SyncReading
from tui.core.figures.syncs import SYNC_KINDS
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.finding import (
    Figures,
    Finding,
    Missing,
    MissingReason,
    ShowSyncs,
    gpu_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of
from tui.core.model.trace import Kind


@dataclass(frozen=True)
class SyncFigures(Figures):
    """The host's synchronisations in the window, per step (`figures/syncs.py`).

    `name`, `event` and `kind` describe the costliest sync (blocked + idle
    after); `operator` the causing operator holding the most of that cost
    (None when none encloses a sync), `operator_ns_per_step` its cost.
    """

    steps: int
    syncs: int
    syncs_per_step: float
    blocked_ns_per_step: float
    idle_after_ns_per_step: float
    name: str
    event: int
    kind: SyncKind
    operator: str | None = None
    operator_ns_per_step: float = 0.0


def host_sync(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """The window's syncs weighed by the device idle after them, per step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.HOST_SYNC, trace)
    reading = SyncReading.of(analysis)
    columns = reading.columns
    if not len(columns) and not _runtime_recorded(analysis):
        return Finding(
            FindingId.HOST_SYNC,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_RUNTIME_CALLS),
        )
    steps = analysis.window_steps
    chosen = reading.in_window if steps else np.ones(len(columns), dtype=bool)
    positions = np.flatnonzero(chosen)
    per_step = max(len(steps), 1)
    cost = columns.cost_ns
    status, weight = scale.weigh(
        positions.size > 0, reading.device_idle_after_ns_per_step
    )
    if positions.size == 0:
        return Finding(FindingId.HOST_SYNC, status, weight=weight)
    costliest = int(positions[np.argmax(cost[positions])])
    event = int(columns.events[costliest])
    operator, operator_ns = _costliest_operator(reading, positions)
    figures = SyncFigures(
        steps=len(steps),
        syncs=int(positions.size),
        syncs_per_step=positions.size / per_step,
        blocked_ns_per_step=int(columns.blocked_ns[positions].sum()) / per_step,
        idle_after_ns_per_step=int(
            np.maximum(columns.idle_after_ns[positions], 0).sum()
        )
        / per_step,
        name=trace.event_name(event),
        event=event,
        kind=SYNC_KINDS[int(columns.kind[costliest])],
        operator=operator,
        operator_ns_per_step=operator_ns / per_step,
    )
    idle = np.maximum(columns.idle_after_ns[positions], 0)
    ends = columns.end_ns[positions]
    claim = Claim(
        Intervals.union_of(ends, ends + idle),
        ClaimSpace.DEVICE_IDLE,
        CostBound.IDLE_AFTER_SYNCS,
    )
    return Finding(
        FindingId.HOST_SYNC,
        status,
        figures,
        ShowSyncs(event),
        weight=weight,
        claim=claim,
    )


def _costliest_operator(
    reading: SyncReading, positions: np.ndarray
) -> tuple[str | None, int]:
    """The causing operator (by name) whose syncs cost the most, and that cost."""
    columns = reading.columns
    causes = columns.cause[positions]
    known = causes >= 0
    if not known.any():
        return None, 0
    trace = reading.trace
    names = np.array(
        [trace.event_name(int(event)) for event in causes[known].tolist()],
        dtype=object,
    )
    unique, group = np.unique(names, return_inverse=True)
    sums = np.bincount(group, weights=columns.cost_ns[positions][known])
    best = int(np.argmax(sums))
    return str(unique[best]), int(sums[best])


def _runtime_recorded(analysis: Analysis) -> bool:
    """Whether the capture holds runtime or driver calls (without them no sync can show)."""
    trace = analysis.trace
    calls = (trace.kind == Kind.RUNTIME) | (trace.kind == Kind.DRIVER)
    return bool((calls & analysis.on_cpu).any())


RULE = FindingRule(FindingId.HOST_SYNC, SyncFigures, (ShowSyncs,), host_sync)

"""The run's reading: one rank reaches the collectives late in most steps.

A possible observation, never a cause: that rank's input or its compute may
be slower, and the next check compares its data zone and kernels with a
peer's. The figures come from `RunAnalysis`; the words from the report floor.
"""

from __future__ import annotations

import statistics
from collections import Counter

from tui.core.base.vocab import CollectiveSide, FindingId, FindingStatus
from tui.core.findings.finding import (
    Finding,
    Missing,
    MissingReason,
    ShowStep,
)
from tui.core.findings.late_rank import LateRankFigures
from tui.core.findings.weights import DEFAULT_MIN_SHARE, LATE_STEP_SHARE, Scale
from tui.core.runs.across import RunAnalysis


def late_rank(run: RunAnalysis, min_share: float = DEFAULT_MIN_SHARE) -> Finding:
    """Whether one rank reaches the collectives last in most steps, weighed by the
    wait it costs the others per step against the median step."""
    if len(run.ranks) < 2:
        return Finding(
            FindingId.LATE_RANK,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.ONE_RANK, str(len(run.ranks))),
        )
    read = [step for step in run.steps if step.straggler is not None]
    if not read:
        return Finding(
            FindingId.LATE_RANK,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_COLLECTIVES),
        )
    counts = Counter(step.straggler for step in read)
    rank, late_steps = min(counts.items(), key=lambda item: (-item[1], item[0]))
    assert rank is not None
    its_steps = [step for step in read if step.straggler == rank]
    waits = [
        statistics.median(step.wait_ns.values()) if step.wait_ns else 0
        for step in its_steps
    ]
    median_wait = float(statistics.median(waits))
    median_step = float(
        statistics.median(
            statistics.median(step.duration_ns.values()) for step in its_steps
        )
    )
    peer = _peer(run, rank)
    side = run.row(rank)
    figures = LateRankFigures(
        rank=rank,
        late_steps=late_steps,
        steps=len(run.steps),
        median_wait_ns=median_wait,
        median_step_ns=median_step,
        peer=peer,
        side=(side.summary.collective_side or CollectiveSide.CPU)
        if side
        else CollectiveSide.CPU,
        zone_ns=_median_zone(run, rank),
        peer_zone_ns=None if peer is None else _median_zone(run, peer),
        compute_ns=_median_compute(run, rank),
        peer_compute_ns=None if peer is None else _median_compute(run, peer),
    )
    seen = late_steps > LATE_STEP_SHARE * len(run.steps) and median_wait > 0
    scale = Scale(median_step, len(run.steps), min_share)
    # Without a rank late in most steps, the wait is no late rank's cost.
    status, weight = scale.weigh(seen, median_wait if seen else None)
    longest = max(its_steps, key=lambda step: max(step.wait_ns.values(), default=0))
    return Finding(
        FindingId.LATE_RANK, status, figures, ShowStep(longest.number), weight=weight
    )


def _peer(run: RunAnalysis, late: int) -> int | None:
    """The rank to compare with: the one that reaches the collectives first most often."""
    firsts = Counter(
        min(step.arrival_ns, key=lambda rank: (step.arrival_ns[rank], rank))
        for step in run.steps
        if len(step.arrival_ns) >= 2
    )
    firsts.pop(late, None)
    if firsts:
        return min(firsts.items(), key=lambda item: (-item[1], item[0]))[0]
    others = [row.rank for row in run.ranks if row.rank != late]
    return others[0] if others else None


def _median_zone(run: RunAnalysis, rank: int) -> float | None:
    row = run.row(rank)
    if row is None:
        return None
    numbers = _numbers(run)
    values = [
        step.zone_ns
        for step in row.summary.steps
        if step.zone_ns is not None and step.number in numbers
    ]
    return float(statistics.median(values)) if values else None


def _median_compute(run: RunAnalysis, rank: int) -> float | None:
    row = run.row(rank)
    if row is None:
        return None
    numbers = _numbers(run)
    values = [
        step.breakdown.compute_ns
        for step in row.summary.steps
        if step.breakdown is not None and step.number in numbers
    ]
    return float(statistics.median(values)) if values else None


def _numbers(run: RunAnalysis) -> set[int]:
    return {step.number for step in run.steps}

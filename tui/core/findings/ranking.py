"""Disjoint costs: each finding keeps the part of the step no finding above it holds.

Findings are ranked by the cost their own figures give (`by_cost`). Walking
that order, a finding's claim (`claims.py`) is clipped to the window's
steps; its cost becomes the smaller of its own cost and its claim's time
that no finding ranked above already claims (times the claim's `scale`), per
step. Then the costs are capped cumulatively: a finding keeps at most what
the median step leaves after the costs ranked above it, so the costs of the
findings that fire add up to at most the median step. A finding without a
claim keeps its own cost, capped only. A claim marked `umbrella` (the
device's whole work) is walked after the findings that claim parts of the
device's work, so it keeps what they do not name.

Each seen finding carries how its cost was bounded (`Bounded`); the statuses
are weighed again from the disjoint costs (never above the rule's own: a
rule that drops a reading to possible keeps it there), and the list is
sorted by them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.claims import Bounded, ClaimSpace
from tui.core.findings.device_waits import step_windows
from tui.core.findings.finding import Finding, by_cost
from tui.core.findings.weights import Scale

_STATUS_ORDER = list(FindingStatus)


def claim_order(findings: list[Finding]) -> list[Finding]:
    """The seen findings by their own cost, an umbrella claim after the device
    work claims ranked below it; then the others as `by_cost` leaves them."""
    ranked = by_cost(findings)
    seen = [finding for finding in ranked if finding.seen]
    rest = [finding for finding in ranked if not finding.seen]
    umbrellas = [f for f in seen if f.claim is not None and f.claim.umbrella]
    order = [f for f in seen if f not in umbrellas]
    for umbrella in umbrellas:
        parts = [
            index
            for index, finding in enumerate(order)
            if finding.claim is not None
            and finding.claim.space is ClaimSpace.DEVICE_WORK
        ]
        order.insert(parts[-1] + 1 if parts else 0, umbrella)
    return order + rest


def disjoint_costs(
    findings: list[Finding], analysis: Analysis, scale: Scale
) -> list[Finding]:
    """The findings with disjoint, cumulatively capped costs, costliest first."""
    starts, ends = step_windows(analysis)
    window = Intervals.union_of(starts, ends)
    steps = max(starts.size, 1)
    held = Intervals.empty()
    holders: list[tuple[FindingId, Intervals]] = []
    left = scale.median_step_ns if scale.median_step_ns > 0 else float("inf")
    ranked: list[Finding] = []
    for finding in claim_order(findings):
        if not finding.seen or finding.weight is None:
            ranked.append(finding)
            continue
        read = finding.weight.cost_ns_per_step
        cost = read
        held_ns = 0.0
        held_by: tuple[FindingId, ...] = ()
        claim = finding.claim
        if claim is not None:
            mine = claim.time.intersect(window)
            own = mine.subtract(held)
            claimed_ns = _per_step(mine, starts, ends, steps) * claim.scale
            own_ns = _per_step(own, starts, ends, steps) * claim.scale
            cost = min(read, own_ns)
            held_ns = claimed_ns - own_ns
            held_by = tuple(
                holder for holder, time in holders if time.intersect(mine).total_ns > 0
            )
            held = held.union(mine)
            holders.append((finding.id, mine))
        capped = max(cost - left, 0.0)
        cost -= capped
        left -= cost
        status, weight = scale.weigh(True, cost)
        status = max(status, finding.status, key=_STATUS_ORDER.index)
        bound = Bounded(
            None if claim is None else claim.how,
            read,
            held_ns_per_step=held_ns,
            held_by=held_by,
            capped_ns_per_step=capped,
        )
        ranked.append(
            dataclasses.replace(finding, status=status, weight=weight, bound=bound)
        )
    return by_cost(ranked)


def _per_step(
    time: Intervals, starts: np.ndarray, ends: np.ndarray, steps: int
) -> float:
    """The time inside the window's steps, per step."""
    return float(time.covered_in(starts, ends).sum()) / steps

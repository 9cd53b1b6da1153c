"""Disjoint costs: each finding keeps the part of the step no finding before it holds.

Findings are walked by the cost their own figures give (`by_cost`), the
specific claims first and the umbrella claims after them: an umbrella
(`Claim.umbrella`) holds a whole kind of time (the device's idle waiting
on the host, the step's device idle, the device's busy time) of which the
specific findings name parts (the data zone's idle, the idle after syncs,
the kernels off Tensor Cores), so it keeps what they do not name. Walking
that order, a finding's claim (`claims.py`) is clipped to the window's
steps; its cost becomes the smaller of its own cost and its claim's time
that no finding walked before already holds (times the claim's `scale`),
per step. It then holds only the time its cost takes: when its cost is
less than what is left of its claim, the earliest part of it in each step,
in the same proportion, so a small cost never hides a large claim from the
findings after it. Then the costs are capped cumulatively: a finding keeps
at most what the median step leaves after the costs walked before it, so
the costs of the findings that fire add up to at most the median step. A
finding without a claim keeps its own cost, capped only.

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
from tui.core.findings.claims import Bounded
from tui.core.findings.device_waits import step_windows
from tui.core.findings.finding import Finding, by_cost
from tui.core.findings.weights import Scale

_STATUS_ORDER = list(FindingStatus)


def claim_order(findings: list[Finding]) -> list[Finding]:
    """The seen findings by their own cost, the umbrella claims after the others;
    then the rest as `by_cost` leaves them."""
    ranked = by_cost(findings)
    seen = [finding for finding in ranked if finding.seen]
    rest = [finding for finding in ranked if not finding.seen]
    umbrellas = [f for f in seen if f.claim is not None and f.claim.umbrella]
    return [f for f in seen if f not in umbrellas] + umbrellas + rest


def disjoint_costs(
    findings: list[Finding], analysis: Analysis, scale: Scale
) -> list[Finding]:
    """The findings with disjoint, cumulatively capped costs, costliest first."""
    if analysis.window_steps or analysis.trace.event_count:
        starts, ends = step_windows(analysis)
    else:  # nothing to claim in: no steps, no events
        starts = ends = np.zeros(0, dtype=np.int64)
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
            taken = _take(own, cost / own_ns if own_ns > 0 else 0.0, starts, ends)
            held = held.union(taken)
            holders.append((finding.id, taken))
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


def _take(
    own: Intervals, share: float, starts: np.ndarray, ends: np.ndarray
) -> Intervals:
    """The earliest `share` of `own`'s time in each step (all of it from 1 on)."""
    if share >= 1.0 or not own:
        return own
    if share <= 0.0 or starts.size == 0:
        return Intervals.empty()
    pieces = own.split_at(np.concatenate([starts, ends]))
    step = pieces.assign(starts, ends)
    inside = step >= 0
    piece_starts = pieces.starts[inside]
    piece_ends = pieces.ends[inside]
    step = step[inside]
    lengths = piece_ends - piece_starts
    before = np.cumsum(lengths) - lengths
    first = np.searchsorted(step, step, side="left")
    before_in_step = before - before[first]
    budget = np.bincount(step, weights=lengths, minlength=starts.size) * share
    left = budget[step] - before_in_step
    keep = left > 0
    cut_ends = np.minimum(piece_ends, piece_starts + np.floor(left).astype(np.int64))
    return Intervals.union_of(piece_starts[keep], cut_ends[keep])


def _per_step(
    time: Intervals, starts: np.ndarray, ends: np.ndarray, steps: int
) -> float:
    """The time inside the window's steps, per step."""
    return float(time.covered_in(starts, ends).sum()) / steps

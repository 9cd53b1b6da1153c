"""What moved between two sides: each finding's per-step figure before and after,
and in how many run pairs it moved the way the whole change went.

A verdict names the mechanism that moved; the findings' costs are the figures
(the part of the median step each could give back, never counted twice). A
finding not seen in a run reads 0 there; one not observed (its evidence
missing) reads None, never 0.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.findings.finding import Finding

# A finding moved in a run pair when its figure changed by at least this share
# of the before side's median step, the way the whole change went.
MOVE_SHARE = 0.01


def run_figure(finding: Finding) -> float | None:
    """A finding's per-step figure in one run: its cost, 0 when not seen, None when
    not observed."""
    if finding.status is FindingStatus.NOT_OBSERVED:
        return None
    cost = finding.cost_ns_per_step
    return 0.0 if cost is None else float(cost)


@dataclass(frozen=True)
class Mechanism:
    """One finding's per-step figure on both sides and how consistently it moved."""

    finding: FindingId
    before_ns_per_step: float | None
    """The median of the before runs' figures (None: not observed in a run)."""
    after_ns_per_step: float | None
    moved_in: int
    """Run pairs where it moved the way `change_ns_per_step` goes, by at least the floor."""
    pairs: int
    moved: bool
    """Whether it moved by at least the floor in every run pair: a mechanism to name."""
    example: Finding
    """One side's reading of it (after's when seen there), for its words."""

    @property
    def change_ns_per_step(self) -> float | None:
        """After minus before, per step (None when a side is not observed)."""
        if self.before_ns_per_step is None or self.after_ns_per_step is None:
            return None
        return self.after_ns_per_step - self.before_ns_per_step


def _median(values: list[float | None]) -> float | None:
    if not values or any(value is None for value in values):
        return None
    return float(statistics.median(value for value in values if value is not None))


def _pairs(before: int, after: int) -> list[tuple[int, int]]:
    """Run pairs in order; the shorter side's last run pairs with the rest."""
    return [
        (min(index, before - 1), min(index, after - 1))
        for index in range(max(before, after))
    ]


def mechanisms(
    before: Sequence[Sequence[Finding]],
    after: Sequence[Sequence[Finding]],
    step_ns: float | None,
) -> tuple[Mechanism, ...]:
    """Every finding either side read, largest change per step first.

    `before` and `after` hold each run's findings; `step_ns` is the before
    side's median step, whose `MOVE_SHARE` is the least a move counts for.
    """
    floor = MOVE_SHARE * step_ns if step_ns else 0.0
    by_run = [
        [{finding.id: finding for finding in run} for run in side]
        for side in (before, after)
    ]
    ids = list(
        dict.fromkeys(
            finding.id for side in (before, after) for run in side for finding in run
        )
    )
    found = []
    for finding_id in ids:
        figures = [
            [run_figure(run[finding_id]) if finding_id in run else 0.0 for run in side]
            for side in by_run
        ]
        first, second = _median(figures[0]), _median(figures[1])
        change = None if first is None or second is None else second - first
        pairs = _pairs(len(before), len(after))
        moved_in = 0
        for one, two in pairs:
            was, now = figures[0][one], figures[1][two]
            if change is None or was is None or now is None:
                continue
            step = now - was
            if abs(step) >= floor and step * change > 0:
                moved_in += 1
        example = next(
            (
                run[finding_id]
                for side in (by_run[1], by_run[0])
                for run in side
                if finding_id in run and run[finding_id].seen
            ),
            next(
                run[finding_id] for side in by_run for run in side if finding_id in run
            ),
        )
        found.append(
            Mechanism(
                finding_id,
                first,
                second,
                moved_in,
                len(pairs),
                change is not None
                and abs(change) >= floor
                and change != 0
                and moved_in == len(pairs),
                example,
            )
        )
    found.sort(key=lambda entry: -abs(entry.change_ns_per_step or 0.0))
    return tuple(found)

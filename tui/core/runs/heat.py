"""How each rank's steps compare with the other ranks': heat levels, steps late, waits.

A pure function of `RunAnalysis` (the ranks' summaries), so the ranks
screen, the CLI and a run summarised on a cluster read the same levels. A
level compares one rank's step time with that step's median over the ranks;
the bands are wide enough that clock jitter reads as "near the median".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.base.vocab import HeatLevel
from tui.core.runs.across import RunAnalysis, StepAcross

# Up to this share away from the step's median, a step time is near it...
NEAR_SHARE = 0.03
# ...then slower up to +10 %, slow up to +25 %, and slowest beyond.
SLOWER_SHARE = 0.10
SLOW_SHARE = 0.25

# A rank is an outlier of the run (`runs.many`) when its median over the
# steps lies above the median of the ranks' medians by more than
# OUTLIER_MADS robust standard deviations: the median absolute deviation
# times MAD_TO_SD (1.4826 makes it the standard deviation of normal data, so
# one straggling rank among hundreds cannot widen the bound as it would a
# standard deviation). 3.5 is Iglewicz and Hoaglin's cut for the modified
# z-score. The bound is never closer to the median than NEAR_SHARE of the
# median step (the band read as clock jitter above), so that ranks all
# within jitter (a MAD near 0) have no outlier.
OUTLIER_MADS = 3.5
MAD_TO_SD = 1.4826


def heat_level(duration_ns: float, median_ns: float) -> HeatLevel:
    """The band of a step time relative to the step's median over the ranks."""
    if median_ns <= 0:
        return HeatLevel.NEAR
    change = duration_ns / median_ns - 1.0
    if change < -NEAR_SHARE:
        return HeatLevel.FASTER
    if change <= NEAR_SHARE:
        return HeatLevel.NEAR
    if change <= SLOWER_SHARE:
        return HeatLevel.SLOWER
    if change <= SLOW_SHARE:
        return HeatLevel.SLOW
    return HeatLevel.SLOWEST


def change_pct(duration_ns: float, median_ns: float) -> float | None:
    """A step time's change from the step's median, in % (None without a median)."""
    if median_ns <= 0:
        return None
    return 100.0 * (duration_ns / median_ns - 1.0)


@dataclass(frozen=True)
class RankHeat:
    """One rank across the run's steps."""

    rank: int
    median_ns: float | None
    late_steps: int  # steps where it reached the collectives last
    total_wait_ns: (
        int | None
    )  # its waits summed over the steps (None: never at a collective)
    levels: tuple[HeatLevel | None, ...]  # per step of the run; None: not recorded


@dataclass(frozen=True)
class RunHeat:
    """Every rank's heat levels, steps late and total wait, in rank order."""

    steps: tuple[int, ...]
    read_steps: int  # steps with a straggler
    ranks: tuple[RankHeat, ...]

    @classmethod
    def of(cls, run: RunAnalysis) -> RunHeat:
        """Read the levels of a run."""
        read = sum(1 for step in run.steps if step.straggler is not None)
        ranks = tuple(
            RankHeat(
                row.rank,
                row.summary.step_median_ns,
                sum(1 for step in run.steps if step.straggler == row.rank),
                _total_wait(run.steps, row.rank),
                tuple(_level(step, row.rank) for step in run.steps),
            )
            for row in run.ranks
        )
        return cls(tuple(step.number for step in run.steps), read, ranks)

    def rank(self, rank: int) -> RankHeat | None:
        """One rank's figures, if it was loaded."""
        return next((item for item in self.ranks if item.rank == rank), None)

    def to_json(self) -> dict[str, Any]:
        """Levels by rank, with the bands they come from."""
        return {
            "bands_pct": {
                "near": 100 * NEAR_SHARE,
                "slower": 100 * SLOWER_SHARE,
                "slow": 100 * SLOW_SHARE,
            },
            "steps": list(self.steps),
            "ranks": [
                {
                    "rank": item.rank,
                    "median_us": None if item.median_ns is None else us(item.median_ns),
                    "late_steps": item.late_steps,
                    "total_wait_us": None
                    if item.total_wait_ns is None
                    else us(item.total_wait_ns),
                    "levels": [
                        None if level is None else level.value for level in item.levels
                    ],
                }
                for item in self.ranks
            ],
        }


def _level(step: StepAcross, rank: int) -> HeatLevel | None:
    duration = step.duration_ns.get(rank)
    return None if duration is None else heat_level(duration, step.median_ns)


def _total_wait(steps: tuple[StepAcross, ...], rank: int) -> int | None:
    """A rank's waits over the steps; a step where it was the straggler counts 0."""
    present = [step for step in steps if rank in step.arrival_ns]
    if not present:
        return None
    return sum(step.wait_ns.get(rank, 0) for step in present)

"""`steptrace ranks`: a run's step times per rank, stragglers, waits and GPU breakdowns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.breakdown.gpu import Breakdown
from tui.core.findings.finding import Finding
from tui.core.runs.across import RankRow, RunAnalysis, StepAcross
from tui.core.runs.heat import MAD_TO_SD, NEAR_SHARE, OUTLIER_MADS
from tui.core.runs.late_rank import late_rank
from tui.core.runs.many import ManyRanks, SpreadAcross
from tui.core.runs.rank_summary import RankStep


@dataclass(frozen=True)
class RanksResult:
    """Everything `steptrace ranks` says about a run."""

    run: RunAnalysis
    finding: Finding
    many: ManyRanks

    @classmethod
    def of(cls, run: RunAnalysis) -> RanksResult:
        """The result of a run read across its ranks."""
        return cls(run, late_rank(run), ManyRanks.of(run))

    def to_json(self, finding: dict[str, Any]) -> dict[str, Any]:
        """The JSON `steptrace ranks --json` prints (documented in docs/ranks.md).

        `finding` is the run's reading in words, from the report floor
        (`ranks_json` there gives it).
        """
        run = self.run
        return {
            "folder": str(run.folder),
            "world_size": run.world_size,
            "unit": run.unit,
            "ranks": [_rank_json(row) for row in run.ranks],
            "steps": [_step_json(step) for step in run.steps],
            "finding": finding,
            "many_ranks": _many_json(self.many),
            "warnings": [*run.limits, *run.warnings],
        }


def _many_json(many: ManyRanks) -> dict[str, Any]:
    """The figures of a run read as distributions (`runs.many`)."""
    return {
        "steps": many.steps,
        "outlier_rule": {
            "mads": OUTLIER_MADS,
            "mad_to_sd": MAD_TO_SD,
            "floor_pct": 100 * NEAR_SHARE,
        },
        "step_time": _spread_json(many.step_time, "us", us),
        "wait": _spread_json(many.wait, "us", us),
        "idle_share": _spread_json(many.idle_share, "pct", lambda share: 100 * share),
        "waited_for": [
            {
                "rank": item.rank,
                "late_steps": item.late_steps,
                "wait_us": us(item.wait_ns),
            }
            for item in many.waited_for
        ],
        "hosts": None
        if many.hosts is None
        else [
            {
                "host": group.host,
                "ranks": list(group.ranks),
                "median_us": None if group.median_ns is None else us(group.median_ns),
            }
            for group in many.hosts
        ],
        "without_host": list(many.without_host),
        "order": list(many.order),
    }


def _spread_json(
    spread: SpreadAcross, unit: str, scale: Callable[[float], float]
) -> dict[str, Any]:
    def value(number: float | None) -> float | None:
        return None if number is None else scale(number)

    return {
        f"median_{unit}": value(spread.median),
        f"p90_{unit}": value(spread.p90),
        f"max_{unit}": value(spread.max),
        f"mad_{unit}": value(spread.mad),
        f"bound_{unit}": value(spread.bound),
        "outliers": list(spread.outliers),
        "top": list(spread.top),
        "not_observed": list(spread.not_observed),
        "ranks": [
            {
                "rank": item.rank,
                f"median_{unit}": value(item.median),
                f"p90_{unit}": value(item.p90),
                f"max_{unit}": value(item.max),
                "steps": item.steps,
            }
            for item in spread.ranks
        ],
    }


def _breakdown_json(breakdown: Breakdown | None) -> dict[str, Any] | None:
    return None if breakdown is None else breakdown.to_json()


def _rank_json(row: RankRow) -> dict[str, Any]:
    summary = row.summary
    median = summary.step_median_ns
    return {
        "rank": row.rank,
        "file": str(row.path),
        "rank_source": row.source.value,
        "gpu_observed": summary.gpu_observed,
        "gpu_missing_reason": summary.gpu_missing_reason,
        "collectives": None
        if summary.collective_side is None
        else summary.collective_side.value,
        "step_median_us": None if median is None else us(median),
        "breakdown": _breakdown_json(summary.breakdown),
        "breakdown_steptrace": _breakdown_json(summary.breakdown_steptrace),
        "steps": [_rank_step_json(step) for step in summary.steps],
    }


def _rank_step_json(step: RankStep) -> dict[str, Any]:
    arrival = step.collectives.arrival_ns
    return {
        "step": step.number,
        "phase": step.phase.value,
        "duration_us": us(step.duration_ns),
        "zone_us": None if step.zone_ns is None else us(step.zone_ns),
        "arrival_us": None if arrival is None else us(arrival),
        "collective_us": us(step.collectives.busy_ns),
        "breakdown": _breakdown_json(step.breakdown),
        "breakdown_steptrace": _breakdown_json(step.breakdown_steptrace),
    }


def _step_json(step: StepAcross) -> dict[str, Any]:
    return {
        "step": step.number,
        "duration_us": {str(rank): us(ns) for rank, ns in step.duration_ns.items()},
        "median_us": us(step.median_ns),
        "spread_us": us(step.spread_ns),
        "straggler": step.straggler,
        "arrival_us": {str(rank): us(ns) for rank, ns in step.arrival_ns.items()},
        "wait_us": {str(rank): us(ns) for rank, ns in step.wait_ns.items()},
    }

"""`steptrace ranks`: a run's step times per rank, stragglers, waits and GPU breakdowns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.breakdown.gpu import Breakdown
from tui.core.findings.finding import Finding
from tui.core.runs.across import RankRow, RunAnalysis, StepAcross
from tui.core.runs.late_rank import late_rank
from tui.core.runs.rank_summary import RankStep


@dataclass(frozen=True)
class RanksResult:
    """Everything `steptrace ranks` says about a run."""

    run: RunAnalysis
    finding: Finding

    @classmethod
    def of(cls, run: RunAnalysis) -> RanksResult:
        """The result of a run read across its ranks."""
        return cls(run, late_rank(run))

    def to_json(self, finding: dict[str, Any]) -> dict[str, Any]:
        """The JSON `steptrace ranks --json` prints (documented in the README).

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
            "warnings": [*run.limits, *run.warnings],
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

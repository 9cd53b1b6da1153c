"""`steptrace diff`: two captures compared — comparability, steps and verdict, operators,
data zone, kernels.

The rows of each table are read by position from the core's aligned columns
(`OpsDiff`, `KernelsDiff`), so a comparison screen can show the same rows in
the same order: by change per kept step when both sides have kept steps, else
by change over the whole trace. GPU figures of a side without GPU events are
None (JSON null), never 0. Its text is the report floor's (`report/diff.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.base.units import us
from tui.core.base.vocab import SortKey, TimeDevice
from tui.core.diff import Rate, StartupFigures, StepFigures, TraceDiff
from tui.core.diff.facts import Check
from tui.core.diff.mechanisms import Mechanism
from tui.core.diff.side import CaptureSide, ZoneFigures
from tui.core.figures.analysis import Analysis

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
# The per-step operator columns of the JSON: name, sort key, clock.
PER_STEP_COLUMNS = (
    ("self_cpu", SortKey.SELF, TimeDevice.CPU),
    ("total_cpu", SortKey.TOTAL, TimeDevice.CPU),
    ("self_gpu", SortKey.SELF, TimeDevice.GPU),
    ("total_gpu", SortKey.TOTAL, TimeDevice.GPU),
)


def _cell(values: FloatArray | None, row: int) -> float | None:
    return None if values is None else float(values[row])


def _check_json(check: Check) -> dict[str, Any]:
    """One comparability check: both values and whether they agree (null: not recorded)."""
    return {
        "check": check.check,
        "before": list(check.before)
        if isinstance(check.before, tuple)
        else check.before,
        "after": list(check.after) if isinstance(check.after, tuple) else check.after,
        "same": check.same,
    }


def _us_or_none(value: float | int | None) -> float | None:
    return None if value is None else us(value)


@dataclass(frozen=True)
class DiffResult:
    """A trace diff with the column its tables are sorted by."""

    diff: TraceDiff
    sort: SortKey
    device: TimeDevice
    limit: int | None

    @classmethod
    def of(
        cls,
        before: Analysis,
        after: Analysis,
        *,
        sort: SortKey | str = SortKey.SELF,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
        by_shape: bool = False,
    ) -> DiffResult:
        """Compare two analysed captures (operators by name and input shapes with `by_shape`)."""
        return cls.of_runs(
            (before,),
            (after,),
            sort=sort,
            device=device,
            limit=limit,
            by_shape=by_shape,
        )

    @classmethod
    def of_runs(
        cls,
        before: tuple[Analysis, ...],
        after: tuple[Analysis, ...],
        *,
        sort: SortKey | str = SortKey.SELF,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
        by_shape: bool = False,
    ) -> DiffResult:
        """Compare two sides of one or more analysed captures (runs) each."""
        return cls.from_diff(
            TraceDiff.of_runs(before, after, by_shape=by_shape),
            sort=sort,
            device=device,
            limit=limit,
        )

    @classmethod
    def from_diff(
        cls,
        diff: TraceDiff,
        *,
        sort: SortKey | str = SortKey.SELF,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
    ) -> DiffResult:
        """Wrap a computed diff; GPU sorting only when both sides observed GPU work."""
        return cls(diff, SortKey(sort), diff.ops.device_for(device), limit)

    @property
    def op_rows(self) -> Int64Array:
        """Operator rows in order (largest absolute change per kept step first), cut at the limit."""
        order = self.diff.ops.order_per_step(self.sort, self.device)
        return order if self.limit is None else order[: self.limit]

    @property
    def kernel_rows(self) -> Int64Array:
        """Kernel rows in order (largest absolute change of time per kept step first), cut at the limit."""
        order = self.diff.kernels.order()
        return order if self.limit is None else order[: self.limit]

    # -- JSON ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """What `steptrace diff --json` prints (documented in docs/diff.md)."""
        diff = self.diff
        steps = diff.steps
        return {
            "comparable": diff.comparable,
            "warnings": [warning.message for warning in diff.warnings],
            "checks": [
                {
                    "check": warning.check.value,
                    "breaks_comparability": warning.breaks_comparability,
                    "message": warning.message,
                }
                for warning in diff.warnings
            ],
            "comparability": [_check_json(check) for check in diff.checks],
            "traces": {"before": diff.before.path, "after": diff.after.path},
            "gpu_observed": {
                "before": diff.before.gpu_observed,
                "after": diff.after.gpu_observed,
            },
            "steps": {
                "before": _steps_json(steps.before),
                "after": _steps_json(steps.after),
                "change_pct": None
                if steps.change_pct is None
                else round(steps.change_pct, 1),  # as the text shows it
                "verdict": steps.verdict.value,
                "reason": steps.reason,
                "test": None
                if steps.test is None
                else {"name": steps.test.name, "p": steps.test.p},
                "unit": steps.unit,
                "runs": {"before": steps.runs[0], "after": steps.runs[1]},
                "run_figures": {
                    "before": [_run_json(run) for run in diff.before_runs],
                    "after": [_run_json(run) for run in diff.after_runs],
                },
                "startup": {
                    "before": _startup_json(steps.before.startup),
                    "after": _startup_json(steps.after.startup),
                },
            },
            "sort": {"column": self.sort.value, "device": self.device.value},
            "group_by": "shape" if diff.ops.by_shape else "name",
            "ops": self._ops_json(),
            "zone": {
                "before": _zone_json(diff.zone.before),
                "after": _zone_json(diff.zone.after),
            },
            "kernels": self._kernels_json(),
            "mechanisms": [_mechanism_json(entry) for entry in diff.mechanisms],
        }

    def _ops_json(self) -> list[dict[str, Any]]:
        ops = self.diff.ops
        rows = []
        for row in self.op_rows.tolist():
            entry: dict[str, Any] = {
                "name": ops.names[row],
                "status": ops.presence[row].value,
            }
            if ops.input_shapes is not None:
                entry["input_shapes"] = ops.input_shapes[row]
            for word, table in (("before", ops.before), ("after", ops.after)):
                entry[f"calls_{word}"] = int(table.calls[row])
            for column in ("self_cpu", "total_cpu", "self_gpu", "total_gpu"):
                for word, table in (("before", ops.before), ("after", ops.after)):
                    values = getattr(table, f"{column}_ns")
                    entry[f"{column}_us_{word}"] = (
                        None if values is None else us(int(values[row]))
                    )
            for word in ("before", "after"):
                entry[f"calls_per_step_{word}"] = _cell(
                    ops.per_step_column(word, SortKey.CALLS, TimeDevice.CPU), row
                )
            for column, key, clock in PER_STEP_COLUMNS:
                for word in ("before", "after"):
                    values = ops.per_step_column(word, key, clock)
                    entry[f"{column}_us_per_step_{word}"] = (
                        None if values is None else us(float(values[row]))
                    )
            rows.append(entry)
        return rows

    def _kernels_json(self) -> list[dict[str, Any]]:
        kernels = self.diff.kernels

        def cell(values: Int64Array | None, row: int, time: bool) -> Any:
            if values is None:
                return None
            return us(int(values[row])) if time else int(values[row])

        def per_step(values: FloatArray | None, row: int, time: bool) -> Any:
            if values is None:
                return None
            return us(float(values[row])) if time else float(values[row])

        return [
            {
                "name": kernels.names[row],
                "status": kernels.presence[row].value,
                "matched_by": kernels.matched_by[row],
                "names_before": kernels.names_before[row],
                "names_after": kernels.names_after[row],
                "count_before": cell(kernels.count_before, row, False),
                "count_after": cell(kernels.count_after, row, False),
                "total_us_before": cell(kernels.total_before_ns, row, True),
                "total_us_after": cell(kernels.total_after_ns, row, True),
                "count_per_step_before": per_step(
                    kernels.per_step_count_before, row, False
                ),
                "count_per_step_after": per_step(
                    kernels.per_step_count_after, row, False
                ),
                "total_us_per_step_before": per_step(
                    kernels.per_step_total_before_ns, row, True
                ),
                "total_us_per_step_after": per_step(
                    kernels.per_step_total_after_ns, row, True
                ),
            }
            for row in self.kernel_rows.tolist()
        ]


def _run_json(run: CaptureSide) -> dict[str, Any]:
    """One run (capture) of a side: its kept steps' median, the figure the verdict reads."""
    kept = run.steps.kept
    return {
        "trace": run.path,
        "n": run.steps.count,
        "kept": len(kept.kept),
        "median_us_of_kept": _us_or_none(run.steps.kept_median_ns),
        "set_aside": [entry.step for entry in kept.set_aside],
    }


def _mechanism_json(entry: Mechanism) -> dict[str, Any]:
    """One finding's per-step figure on both sides and in how many run pairs it moved."""
    return {
        "id": entry.finding.value,
        "before_us_per_step": _us_or_none(entry.before_ns_per_step),
        "after_us_per_step": _us_or_none(entry.after_ns_per_step),
        "change_us_per_step": _us_or_none(entry.change_ns_per_step),
        "moved_in": f"{entry.moved_in}/{entry.pairs}",
        "moved": entry.moved,
    }


def _steps_json(side: StepFigures) -> dict[str, Any]:
    stats = side.stats
    rate = Rate.of(side.samples_per_s())
    kept = side.kept
    return {
        "kept": list(kept.kept),
        "set_aside": [
            {"step": entry.step, "duration_us": us(entry.duration_ns), "why": entry.why}
            for entry in kept.set_aside
        ],
        "n": side.count,
        "median_us": None if stats is None else us(stats.median_ns),
        "min_us": None if stats is None else us(stats.min_ns),
        "max_us": None if stats is None else us(stats.max_ns),
        "steps": list(side.numbers),
        "durations_us": [us(value) for value in side.durations_ns],
        "samples_per_step": side.samples_per_step,
        "samples_per_s": None
        if rate is None
        else {"median": rate.median, "min": rate.min, "max": rate.max},
    }


def _startup_json(startup: StartupFigures) -> dict[str, Any]:
    return {
        "before_first_step_ms": startup.before_first_step_ms,
        "steps": [
            {
                "step": entry.step,
                "phase": entry.phase,
                "ms": entry.ms,
                "source": entry.source,
            }
            for entry in startup.steps
        ],
    }


def _zone_json(side: ZoneFigures) -> dict[str, Any]:
    summary = side.summary
    return {
        "total_zone_us": us(summary.total_zone_ns),
        "total_gap_us": _us_or_none(summary.total_gap_ns),
        "kind": summary.kind.value,
        "zones": list(summary.names),
        "source": summary.source.value,
        "median_zone_us_per_step": _us_or_none(side.median_zone_ns),
        "median_gap_us_per_step": _us_or_none(side.median_gap_ns),
        "mean_zone_us_per_kept_step": _us_or_none(side.mean_kept_zone_ns),
        "mean_gap_us_per_kept_step": _us_or_none(side.mean_kept_gap_ns),
        "steps": [
            {
                "step": figure.step,
                "zone_us": us(figure.zone_ns),
                "gap_us": _us_or_none(figure.gap_ns),
            }
            for figure in side.steps
        ],
    }

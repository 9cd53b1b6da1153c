"""`steptrace syncs`: every host synchronisation, its cause, the host time blocked
and the device idle after it; per kind, per causing operator, per step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.sync_reading import SyncReading, SyncTotals
from tui.core.figures.syncs import SYNC_KINDS
from tui.core.model.observed import gpu_missing_reason

# The costliest syncs listed one by one in JSON (the text lists fewer).
TOP_SYNCS = 20


def _totals_json(totals: SyncTotals) -> dict[str, Any]:
    return {
        "count": totals.count,
        "blocked_us": us(totals.blocked_ns),
        "idle_after_us": us(totals.idle_after_ns),
        "followed": totals.followed,
    }


@dataclass(frozen=True)
class SyncsResult:
    """The syncs of a capture; `reading` None when GPU work was not observed."""

    gpu_observed: bool
    gpu_missing_reason: str | None
    reading: SyncReading | None

    @classmethod
    def of(cls, analysis: Analysis) -> SyncsResult:
        """Read the syncs of an analysed trace."""
        trace = analysis.trace
        if not trace.gpu_observed:
            return cls(False, gpu_missing_reason(trace), None)
        return cls(True, None, SyncReading.of(analysis))

    def top_syncs(self) -> list[dict[str, Any]]:
        """The costliest syncs (blocked + idle after), costliest first."""
        reading = self.reading
        if reading is None:
            return []
        columns = reading.columns
        trace_names = reading.trace.event_name
        rows = []
        for position in reading.top[:TOP_SYNCS].tolist():
            idle = int(columns.idle_after_ns[position])
            step = int(columns.step[position])
            path = int(columns.path[position])
            stack = int(columns.stack[position])
            device = int(columns.device[position])
            rows.append(
                {
                    "name": trace_names(int(columns.events[position])),
                    "kind": SYNC_KINDS[int(columns.kind[position])].value,
                    "start_us": us(int(columns.start_ns[position])),
                    "blocked_us": us(int(columns.blocked_ns[position])),
                    "idle_after_us": None if idle < 0 else us(idle),
                    "device": None if device < 0 else device,
                    "step": None if step < 0 else reading.steps[step].number,
                    "operator": _name_or_none(
                        trace_names, int(columns.cause[position])
                    ),
                    "reading": _name_or_none(
                        trace_names, int(columns.reading[position])
                    ),
                    "path": list(columns.paths[path]) if path >= 0 else [],
                    "stack": list(columns.stacks[stack]) if stack >= 0 else [],
                }
            )
        return rows

    def to_json(self) -> dict[str, Any]:
        """What `steptrace syncs --json` prints."""
        reading = self.reading
        if reading is None:
            return {
                "gpu_observed": False,
                "gpu_missing_reason": self.gpu_missing_reason,
                "total": None,
                "queries": None,
                "kinds": None,
                "causes": None,
                "steps": None,
                "top": None,
                "reads": None,
            }
        return {
            "gpu_observed": True,
            "gpu_missing_reason": None,
            "total": _totals_json(reading.total),
            "queries": reading.columns.queries,
            "kinds": [
                {"kind": kind.value, **_totals_json(totals)}
                for kind, totals in reading.by_kind.items()
            ],
            "causes": [
                {
                    "operator": row.name,
                    "reading": row.reading,
                    "path": list(row.path),
                    "kinds": [kind.value for kind in row.kinds],
                    **_totals_json(row.totals),
                }
                for row in reading.by_cause
            ],
            "steps": [
                {"step": step.number, "phase": step.phase.value, **_totals_json(totals)}
                for step, totals in zip(reading.steps, reading.step_totals, strict=True)
            ],
            "top": self.top_syncs(),
            "reads": [
                {"operator": row.name, "calls": row.calls, "waited": row.waited}
                for row in reading.reads
            ],
        }


def _name_or_none(names: Callable[[int], str], event: int) -> str | None:
    return None if event < 0 else names(event)

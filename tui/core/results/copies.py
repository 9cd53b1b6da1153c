"""`steptrace copies`: host↔device and device copies and sets, per step and per issuing operator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import CopyGroup, CopyReading, CopyTotals
from tui.core.model.observed import gpu_missing_reason

PATH_SEPARATOR = " > "


def _totals_json(rows: list[CopyTotals]) -> list[dict[str, Any]]:
    return [
        {
            "direction": row.direction.value,
            "count": row.count,
            "bytes": row.bytes,
            "unknown_size": row.unknown_size,
            "time_us": us(row.time_ns),
            "pageable": row.pageable,
            "pinned": row.pinned,
        }
        for row in rows
    ]


def _group_json(group: CopyGroup) -> dict[str, Any]:
    return {
        "direction": group.direction.value,
        "host_memory": None if group.host_memory is None else group.host_memory.value,
        "bytes": group.bytes,
        "name": group.name,
        "operator": group.operator,
        "path": list(group.path),
        "count": group.count,
        "time_us": us(group.time_ns),
        "repeated": group.repeated,
    }


@dataclass(frozen=True)
class CopiesResult:
    """The copies of a capture; `reading` None when GPU work was not observed."""

    gpu_observed: bool
    gpu_missing_reason: str | None
    reading: CopyReading | None

    @classmethod
    def of(cls, analysis: Analysis) -> CopiesResult:
        """Read the copies of an analysed trace."""
        trace = analysis.trace
        if not trace.gpu_observed:
            return cls(False, gpu_missing_reason(trace), None)
        return cls(True, None, CopyReading.of(analysis))

    def to_json(self) -> dict[str, Any]:
        """What `steptrace copies --json` prints."""
        reading = self.reading
        if reading is None:
            return {
                "gpu_observed": False,
                "gpu_missing_reason": self.gpu_missing_reason,
                "directions": None,
                "steps": None,
                "groups": None,
                "repeated": None,
            }
        return {
            "gpu_observed": True,
            "gpu_missing_reason": None,
            "directions": _totals_json(reading.totals),
            "steps": [
                {
                    "step": step.number,
                    "phase": step.phase.value,
                    "directions": _totals_json(totals),
                }
                for step, totals in zip(reading.steps, reading.step_totals, strict=True)
            ],
            "groups": [_group_json(group) for group in reading.groups],
            "repeated": [
                {
                    **_group_json(group),
                    "steps": len(reading.window),
                    "count_per_step": group.median_count_per_step,
                    "bytes_per_step": None
                    if group.bytes is None
                    else group.bytes * group.median_count_per_step,
                    "time_us_per_step": us(group.median_ns_per_step),
                    "first_start_us": us(
                        int(reading.columns.start_ns[reading.first_in_window(group)])
                    ),
                }
                for group in reading.repeated
            ],
        }

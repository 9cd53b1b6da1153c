"""`steptrace copies`: host↔device and device copies and sets, per step and per issuing operator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, size_text, us
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import CopyGroup, CopyReading, CopyTotals
from tui.core.results.observed import gpu_missing_reason
from tui.core.results.text import TEXT_WIDTH, cut_middle, fill

PATH_SEPARATOR = " > "
# Rows of the per-issuer table in text (JSON has them all).
TEXT_GROUPS = 20
TEXT_REPEATED = 10


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


def _size(value: int | None) -> str:
    return "size ?" if value is None else size_text(value)


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

    def to_text(self) -> str:
        """Totals, per step, repeated copies and the biggest issuers, at 80 columns."""
        reading = self.reading
        if reading is None:
            return "\n".join(
                fill(
                    "copies: not observed — " + printable(str(self.gpu_missing_reason)),
                    "",
                    "  ",
                )
            )
        if not reading.totals:
            return "no copy or set in this capture (the device ran kernels only)"
        header = (
            f"{'direction':<14} {'count':>8} {'bytes':>10} {'time':>11} "
            f"{'pageable':>9} {'pinned':>7}"
        )
        lines = [
            "copies and sets (time: union of their intervals; bytes: from the trace)",
            header,
            "-" * len(header),
        ]
        for row in reading.totals:
            unknown = f" (+{row.unknown_size} ?)" if row.unknown_size else ""
            lines.append(
                f"{row.direction.label:<14} {row.count:>8} "
                f"{size_text(row.bytes):>10} {duration_text(row.time_ns):>11} "
                f"{row.pageable:>9} {row.pinned:>7}{unknown}"
            )
        if reading.steps:
            lines += ["", "per step (copies issued in the step)"]
            for step, totals in zip(reading.steps, reading.step_totals, strict=True):
                label = f"{step.number:>8} {step.phase.value:<8} "
                if not totals:
                    lines.append(label + "none")
                for row in totals:
                    lines.append(
                        f"{label}{row.direction.label:<14} {row.count:>6}× "
                        f"{size_text(row.bytes):>10} {duration_text(row.time_ns):>11}"
                    )
                    label = " " * len(label)
        lines += ["", *self._repeated_lines(reading)]
        lines += ["", "by issuing operator path (largest time first)"]
        header = (
            f"{'direction':<14} {'memory':<8} {'size':>10} {'count':>6} {'time':>11}"
            "  issued by"
        )
        lines += [header, "-" * TEXT_WIDTH]
        room = TEXT_WIDTH - (len(header) - len("issued by"))
        for group in reading.groups[:TEXT_GROUPS]:
            memory = "–" if group.host_memory is None else group.host_memory.value
            operator = _path_text(group)
            lines.append(
                f"{group.direction.label:<14} {memory:<8} {_size(group.bytes):>10} "
                f"{group.count:>6} {duration_text(group.time_ns):>11}  "
                f"{cut_middle(operator, room)}"
            )
        if len(reading.groups) > TEXT_GROUPS:
            lines.append(f"… {len(reading.groups) - TEXT_GROUPS} more (--json)")
        return "\n".join(lines)

    @staticmethod
    def _repeated_lines(reading: CopyReading) -> list[str]:
        steps = len(reading.window)
        if steps < 2:
            return fill(
                f"repeated copies: need at least two steps in the window (it has {steps})"
            )
        repeated = reading.repeated
        if not repeated:
            return fill(
                f"repeated copies: none — no copy of the same direction and size from "
                f"the same operator path in all {steps} window steps"
            )
        lines = fill(
            f"repeated in each of the {steps} window steps (same direction, size and "
            "operator path): constants re-sent every step are among these"
        )
        for group in repeated[:TEXT_REPEATED]:
            memory = "" if group.host_memory is None else f" {group.host_memory.value}"
            lines.append(
                f"  {group.direction.label}{memory} {_size(group.bytes)} "
                f"×{group.median_count_per_step:g}/step, "
                f"{duration_text(group.median_ns_per_step)}/step"
            )
            lines.append("    " + cut_middle(_path_text(group), TEXT_WIDTH - 4))
        if len(repeated) > TEXT_REPEATED:
            lines.append(f"  … {len(repeated) - TEXT_REPEATED} more (--json)")
        return lines


def _path_text(group: CopyGroup) -> str:
    """The issuing path, outermost first, as people read it."""
    return printable(PATH_SEPARATOR.join(group.path) or "(no operator)")

"""`steptrace kernels`: kernels per name, their share of device busy time and how they were launched."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, us
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import (
    KernelStats,
    kernel_events,
    kernel_stats,
    readable_kernel_name,
    short_kernel_name,
)
from tui.core.figures.launches import LATE_START_NS, SHORT_KERNEL_NS, SLOW_LAUNCH_NS
from tui.core.results.observed import gpu_missing_reason
from tui.core.results.text import TEXT_WIDTH, distinct_cuts, fill

_SHORT_WIDTH = 22


def _us_or_none(nanoseconds: float) -> float | None:
    return None if math.isnan(nanoseconds) else us(nanoseconds)


@dataclass(frozen=True)
class KernelsResult:
    """Kernels per name in a scope (the whole trace or one step); `stats` None when GPU work was not observed."""

    gpu_observed: bool
    gpu_missing_reason: str | None
    step: int | None
    stats: KernelStats | None
    limit: int | None = None

    @classmethod
    def of(
        cls,
        analysis: Analysis,
        *,
        step: int | None = None,
        limit: int | None = None,
    ) -> KernelsResult:
        """Kernels starting in step `step` (its number), or in the whole trace.

        Raises KeyError when the trace has no such step.
        """
        trace = analysis.trace
        if not trace.gpu_observed:
            return cls(False, gpu_missing_reason(trace), step, None, limit)
        scope: tuple[int, int] | None = None
        if step is not None:
            matching = [item for item in analysis.steps if item.number == step]
            if not matching:
                raise KeyError(step)
            scope = (matching[0].start_ns, matching[0].end_ns)
        kernels = kernel_events(trace, *(scope or (None, None)))
        stats = kernel_stats(
            trace, kernels, analysis.launch_call, analysis.busy_all_devices, scope
        )
        return cls(True, None, step, stats, limit)

    def _rows(self) -> list[int]:
        if self.stats is None:
            return []
        rows: list[int] = self.stats.order().tolist()
        return rows if self.limit is None else rows[: self.limit]

    def to_json(self) -> dict[str, Any]:
        """What `steptrace kernels --json` prints."""
        stats = self.stats
        if stats is None:
            return {
                "gpu_observed": False,
                "gpu_missing_reason": self.gpu_missing_reason,
                "step": self.step,
                "device_busy_us": None,
                "kernels": None,
            }
        table = stats.table
        rows = []
        for row in self._rows():
            share = stats.busy_share(row)
            rows.append(
                {
                    "name": table.names[row],
                    "count": int(table.count[row]),
                    "total_us": us(int(table.total_ns[row])),
                    "min_us": us(int(table.min_ns[row])),
                    "median_us": us(float(table.median_ns[row])),
                    "max_us": us(int(table.max_ns[row])),
                    "busy_pct": None if share is None else 100.0 * share,
                    "launch_us_median": _us_or_none(float(stats.launch_median_ns[row])),
                    "launch_delay_us_median": _us_or_none(
                        float(stats.delay_median_ns[row])
                    ),
                    "short_count": int(stats.short_count[row]),
                    "launched": int(stats.linked[row]),
                    "slow_launches": int(stats.slow_launches[row]),
                    "late_starts": int(stats.late_starts[row]),
                }
            )
        return {
            "gpu_observed": True,
            "gpu_missing_reason": None,
            "step": self.step,
            "device_busy_us": us(stats.busy_ns),
            "kernels": rows,
        }

    def to_text(self) -> str:
        """Two tables at 80 columns: durations and busy share, then launches."""
        stats = self.stats
        scope = "whole trace" if self.step is None else f"step {self.step}"
        if stats is None:
            return "\n".join(
                fill(
                    "kernels: not observed — "
                    + printable(str(self.gpu_missing_reason)),
                    "",
                    "  ",
                )
            )
        table = stats.table
        rows = self._rows()
        full = [printable(readable_kernel_name(table.names[row])) for row in rows]
        names = distinct_cuts(full, TEXT_WIDTH - 6)
        short = distinct_cuts(
            [printable(short_kernel_name(table.names[row])) for row in rows],
            _SHORT_WIDTH,
        )
        count = int(table.count.sum())
        lines = fill(
            f"{len(table)} kernel names, {count:,} kernels ({scope}); device busy "
            f"{duration_text(stats.busy_ns)} (union of kernels, copies, sets)"
        )
        if not rows:
            lines.append("  (no kernel: the device ran copies or sets only)")
            return "\n".join(lines)
        header = (
            f"{'#':>4}  {'count':>7} {'total':>10} {'min':>10} {'median':>10} "
            f"{'max':>10} {'busy%':>6}"
        )
        lines += ["", "kernels by total time", header, "-" * len(header)]
        for rank, (name, row) in enumerate(zip(names, rows, strict=True), start=1):
            share = stats.busy_share(row)
            busy = "–" if share is None else f"{100 * share:.1f}"
            lines.append(f"{rank:>4}  {name}")
            lines.append(
                f"{'':>4}  {int(table.count[row]):>7} "
                f"{duration_text(int(table.total_ns[row])):>10} "
                f"{duration_text(int(table.min_ns[row])):>10} "
                f"{duration_text(float(table.median_ns[row])):>10} "
                f"{duration_text(int(table.max_ns[row])):>10} {busy:>6}"
            )
        header = (
            f"{'#':>4} {'name':<{_SHORT_WIDTH}} {'call med':>10} {'delay med':>10} "
            f"{'<10µs':>6} {'call>50µs':>9} {'delay>100µs':>11}"
        )
        lines += ["", "launches", header, "-" * len(header)]
        for rank, (name, row) in enumerate(zip(short, rows, strict=True), start=1):
            lines.append(
                f"{rank:>4} {name:<{_SHORT_WIDTH}} "
                f"{_median_text(float(stats.launch_median_ns[row])):>10} "
                f"{_median_text(float(stats.delay_median_ns[row])):>10} "
                f"{int(stats.short_count[row]):>6} "
                f"{_flag(int(stats.slow_launches[row])):>9} "
                f"{_flag(int(stats.late_starts[row])):>11}"
            )
        if len(rows) < len(table):
            lines.append(f"… {len(table) - len(rows)} more (--limit)")
        summary = stats.launches
        lines.append("")
        lines += fill(
            f"call med: median duration of the CPU launch call; delay med: from the "
            f"call's end to the kernel's start (never below 0). Flags count calls over "
            f"{SLOW_LAUNCH_NS // 1000} µs and delays over {LATE_START_NS // 1000} µs "
            f"(HTA's thresholds), <10µs kernels shorter than {SHORT_KERNEL_NS // 1000}"
            f" µs; {summary.linked:,} of {summary.events:,} kernels have their launch "
            "call in the trace."
        )
        return "\n".join(lines)


def _median_text(nanoseconds: float) -> str:
    return "–" if math.isnan(nanoseconds) else duration_text(nanoseconds)


def _flag(count: int) -> str:
    return f"{count} !" if count else "0"

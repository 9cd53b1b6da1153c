"""`steptrace kernels`: kernels per name, their share of device busy time and how they were launched."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.kept import kept_figure, kept_value
from tui.core.figures.kernels import (
    KernelStats,
    kernel_events,
    kernel_stats,
    kernel_stats_bytes,
    kernel_stats_from,
)
from tui.core.figures.set_aside import SetAside, set_aside_on_devices
from tui.core.model.observed import gpu_missing_reason

KERNEL_STATS_ROOTS = (
    "results/kernels.py",
    "figures/kernels.py",
    "figures/launches.py",
    "figures/analysis.py",
    "model/derived.py",
)
"""The code of the whole trace's kernel stats: `kernel_stats` and what it is
given (the kernels, their launch calls and graph replays, device busy)."""


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
    set_aside: SetAside | None = None

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
        scope: tuple[int, int] | None = None
        if step is not None:
            matching = [item for item in analysis.steps if item.number == step]
            if not matching:
                raise KeyError(step)
            scope = (matching[0].start_ns, matching[0].end_ns)
        if scope is None:  # the whole trace's figures are kept in its cache entry
            set_aside = kept_figure(
                trace,
                "set_aside",
                ("figures/set_aside.py",),
                SetAside,
                lambda: set_aside_on_devices(trace),
            )
        else:
            set_aside = set_aside_on_devices(trace, *scope)
        if not trace.gpu_observed:
            missing = gpu_missing_reason(trace)
            return cls(False, missing, step, None, limit, set_aside)

        def compute() -> KernelStats:
            return kernel_stats(
                trace,
                kernel_events(trace, *(scope or (None, None))),
                analysis.launch_call,
                analysis.busy_all_devices,
                scope,
                analysis.graph_replays,
            )

        stats = (
            kept_value(
                trace,
                "kernel_stats",
                KERNEL_STATS_ROOTS,
                compute,
                kernel_stats_bytes,
                kernel_stats_from,
            )
            if scope is None
            else compute()  # a step's: one of many, each cheaper
        )
        return cls(True, None, step, stats, limit, set_aside)

    def rows(self) -> list[int]:
        """The rows shown, by total time, cut at the limit (none without GPU work)."""
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
                "set_aside": set_aside_json(self.set_aside),
            }
        table = stats.table
        rows = []
        for row in self.rows():
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
                    "graph": bool(stats.graph_count[row]),
                    "graph_count": int(stats.graph_count[row]),
                    "graph_ids": list(stats.graph_ids[row]),
                }
            )
        return {
            "gpu_observed": True,
            "gpu_missing_reason": None,
            "step": self.step,
            "device_busy_us": us(stats.busy_ns),
            "kernels": rows,
            "set_aside": set_aside_json(self.set_aside),
        }


def set_aside_json(set_aside: SetAside | None) -> dict[str, Any] | None:
    """Events on device tracks that are not device work: count, time, per name."""
    if set_aside is None:
        return None
    return {
        "count": set_aside.count,
        "total_us": us(set_aside.total_ns),
        "names": [
            {"name": name, "count": count, "total_us": us(total)}
            for name, count, total in set_aside.names
        ],
    }

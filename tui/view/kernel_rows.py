"""The Kernels tab in words and order: columns, sort, filter, a row's cells, the
details of one kernel. Textual-free; the figures are `KernelsResult`'s, as
`steptrace kernels` prints them."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from rich.text import Text

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import KernelSort
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import (
    KernelStats,
    readable_kernel_name,
    short_kernel_name,
)
from tui.core.figures.launches import LATE_START_NS, SHORT_KERNEL_NS, SLOW_LAUNCH_NS
from tui.core.results.kernels import KernelsResult
from tui.report.kernel_names import kernel_labels

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

SORTS = list(KernelSort)
"""The order `o` cycles through."""
COLUMNS: list[tuple[str, int, KernelSort | None]] = [
    ("Count", 8, KernelSort.COUNT),
    ("Total", 11, KernelSort.TOTAL),
    ("Median", 11, KernelSort.MEDIAN),
    ("Max", 11, KernelSort.MAX),
    ("Busy%", 6, None),
    ("Delay med", 11, KernelSort.DELAY),
]
"""The figure columns after the name: title, width, the sort it shows."""
DROPPED_FIRST = (4, 3, 2, 5)
"""Columns left out, in this order, when the name would be narrower than NAME_MIN."""
NAME_MIN = 28


def visible_columns(width: int, sort: KernelSort) -> list[int]:
    """The figure columns shown at `width` cells: all when the name keeps
    NAME_MIN cells, else fewer (never the one sorted by, Count and Total stay)."""
    shown = list(range(len(COLUMNS)))
    for column in DROPPED_FIRST:
        if width - sum(COLUMNS[i][1] + 1 for i in shown) >= NAME_MIN:
            break
        if COLUMNS[column][2] is not sort:
            shown.remove(column)
    return shown


LAUNCHERS_SHOWN = 8


def _median(value: float, replayed: bool = False) -> str:
    """A launch median; `graph` where the only launches were CUDA graph replays."""
    if math.isnan(value):
        return "graph" if replayed else "–"
    return duration_text(value)


@dataclass
class KernelRows:
    """The rows of one `KernelsResult` (GPU observed): names people read, and orders."""

    result: KernelsResult
    stats: KernelStats
    readable: list[str]
    """Each kernel's readable name, escaped (what the name column shows)."""
    _search: list[str]
    _by_name: Int64Array
    _labels: dict[int, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, result: KernelsResult) -> KernelRows:
        """Rows of a result whose GPU work was observed."""
        stats = result.stats
        assert stats is not None, "no rows when GPU work was not observed"
        names = stats.table.names
        readable = [printable(readable_kernel_name(name)) for name in names]
        search = [
            f"{shown}\n{name}".lower()
            for shown, name in zip(readable, names, strict=True)
        ]
        by_name = np.array(
            sorted(range(len(names)), key=readable.__getitem__), dtype=np.int64
        )
        return cls(result, stats, readable, search, by_name)

    def __len__(self) -> int:
        return len(self.readable)

    def column(self, sort: KernelSort) -> Int64Array | FloatArray:
        """The figure a sort reads (NaN delays sort as the smallest)."""
        table = self.stats.table
        if sort is KernelSort.COUNT:
            return table.count
        if sort is KernelSort.MEDIAN:
            return table.median_ns
        if sort is KernelSort.MAX:
            return table.max_ns
        if sort is KernelSort.DELAY:
            return np.nan_to_num(self.stats.delay_median_ns, nan=-1.0)
        return table.total_ns

    def order(self, sort: KernelSort, descending: bool, needle: str = "") -> Int64Array:
        """Rows kept by the filter (case-insensitive, readable or full name), in
        the sort's order; ties in name order."""
        rows = self._by_name
        if needle:
            lowered = needle.lower()
            keep = np.fromiter(
                (lowered in self._search[row] for row in rows.tolist()),
                dtype=bool,
                count=rows.size,
            )
            rows = rows[keep]
        if sort is KernelSort.NAME:
            return rows[::-1] if descending else rows
        key = self.column(sort)[rows]
        return rows[np.argsort(-key if descending else key, kind="stable")]

    def labels(self, width: int) -> list[str]:
        """Every name fitted to `width` cells by the kernel-name rule, never two alike."""
        cached = self._labels.get(width)
        if cached is None:
            cached = kernel_labels(self.stats.table.names, width)
            self._labels[width] = cached
        return cached

    def cells(self, row: int) -> list[str]:
        """The figures of a row, in COLUMNS order."""
        table = self.stats.table
        share = self.stats.busy_share(row)
        return [
            f"{int(table.count[row]):,}",
            duration_text(int(table.total_ns[row])),
            duration_text(float(table.median_ns[row])),
            duration_text(int(table.max_ns[row])),
            "–" if share is None else f"{100 * share:.1f}",
            _median(
                float(self.stats.delay_median_ns[row]),
                int(self.stats.graph_count[row]) > 0,
            ),
        ]

    def events(self, row: int) -> Int64Array:
        """The kernels of a row, in time order."""
        return self.stats.table.events[row]

    def short_name(self, row: int) -> str:
        """The name with its template arguments folded, escaped."""
        return printable(short_kernel_name(self.stats.table.names[row]))


def launchers(analysis: Analysis, events: Int64Array) -> list[tuple[str, int]]:
    """The CPU operators that launched these device events, most frequent first
    (`(not linked)` for those without one)."""
    owners = analysis.gpu_owner[events]
    trace = analysis.trace
    counts: Counter[str] = Counter()
    linked = owners[owners >= 0]
    if linked.size:
        ids, tally = np.unique(trace.name_id[linked], return_counts=True)
        for name_id, count in zip(ids.tolist(), tally.tolist(), strict=True):
            counts[trace.names[name_id]] += count
    missing = int((owners < 0).sum())
    if missing:
        counts["(not linked)"] += missing
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def kernel_details(rows: KernelRows, row: int, analysis: Analysis) -> Text:
    """One kernel: its names, durations, share of busy time, launch figures and
    the operators that launched it (trace strings escaped)."""
    stats = rows.stats
    table = stats.table
    name = table.names[row]
    text = Text()
    text.append(rows.short_name(row) + "\n", style="bold")

    def line(label: str, value: str) -> None:
        text.append(f"{label:<16}", style="bold")
        text.append(value + "\n")

    line("readable name", rows.readable[row])
    line("full name", printable(name))
    scope = "whole trace" if rows.result.step is None else f"step {rows.result.step}"
    line("scope", scope)
    count = int(table.count[row])
    line("count", f"{count:,}")
    line("total", duration_text(int(table.total_ns[row])))
    line(
        "min/median/max",
        f"{duration_text(int(table.min_ns[row]))} / "
        f"{duration_text(float(table.median_ns[row]))} / "
        f"{duration_text(int(table.max_ns[row]))}",
    )
    share = stats.busy_share(row)
    line(
        "device busy",
        "–"
        if share is None
        else f"{100 * share:.1f}% of {duration_text(stats.busy_ns)} (when it runs)",
    )
    text.append("\nlaunches\n", style="bold underline")
    line("launch call", f"{int(stats.linked[row]):,} of {count:,} in the trace")
    replayed = int(stats.graph_count[row])
    if replayed:
        graphs = ", ".join(str(graph) for graph in stats.graph_ids[row])
        line(
            "graph replays",
            f"{replayed:,} (CUDA graph{' ' + graphs if graphs else ''}; "
            "no launch of their own)",
        )
    line("call median", _median(float(stats.launch_median_ns[row]), replayed > 0))
    line("delay median", _median(float(stats.delay_median_ns[row]), replayed > 0))
    line(
        f"< {SHORT_KERNEL_NS // 1000} µs",
        plural(int(stats.short_count[row]), "kernel") + " shorter",
    )
    line(
        f"call > {SLOW_LAUNCH_NS // 1000} µs",
        plural(int(stats.slow_launches[row]), "call"),
    )
    line(
        f"delay > {LATE_START_NS // 1000} µs",
        plural(int(stats.late_starts[row]), "kernel"),
    )
    text.append("\nlaunched by\n", style="bold underline")
    found = launchers(analysis, rows.events(row))
    for operator, times in found[:LAUNCHERS_SHOWN]:
        text.append(f"{times:>8,}  ", style="bold")
        text.append(printable(operator) + "\n")
    if len(found) > LAUNCHERS_SHOWN:
        text.append(f"  … {len(found) - LAUNCHERS_SHOWN} more operators\n")
    text.append(
        "\nEnter in the table marks its occurrences on the timeline; n/N visit "
        "them, the status line naming the operator that launched each.",
        style="italic",
    )
    return text

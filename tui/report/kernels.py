"""`steptrace kernels` in words: durations and busy share, then launches, at 80 columns."""

from __future__ import annotations

import math

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.launches import LATE_START_NS, SHORT_KERNEL_NS, SLOW_LAUNCH_NS
from tui.core.results.kernels import KernelsResult
from tui.report.fit import pad_end
from tui.report.kernel_names import kernel_labels
from tui.report.text import TEXT_WIDTH, fill

_SHORT_WIDTH = 22


def kernels_text(result: KernelsResult) -> str:
    """Two tables at 80 columns: durations and busy share, then launches."""
    stats = result.stats
    scope = "whole trace" if result.step is None else f"step {result.step}"
    if stats is None:
        return "\n".join(
            fill(
                "kernels: not observed — " + printable(str(result.gpu_missing_reason)),
                "",
                "  ",
            )
        )
    table = stats.table
    rows = result.rows()
    raw = [table.names[row] for row in rows]
    names = kernel_labels(raw, TEXT_WIDTH - 6)
    short = kernel_labels(raw, _SHORT_WIDTH)
    count = int(table.count.sum())
    lines = fill(
        f"{len(table)} kernel names, {count:,} kernels ({scope}); device busy "
        f"{duration_text(stats.busy_ns)} (union of kernels, copies, sets)"
    )
    lines += set_aside_lines(result)
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
        replayed = int(stats.graph_count[row]) > 0
        lines.append(
            f"{rank:>4} {pad_end(name, _SHORT_WIDTH)} "
            f"{_median_text(float(stats.launch_median_ns[row]), replayed):>10} "
            f"{_median_text(float(stats.delay_median_ns[row]), replayed):>10} "
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
        "call in the trace"
        + (
            f", {summary.graph_replays:,} replayed by CUDA graphs, left out of "
            "launch figures (one graph launch call, many kernels)."
            if summary.graph_replays
            else "."
        )
    )
    return "\n".join(lines)


def set_aside_lines(result: KernelsResult) -> list[str]:
    """What sits on device tracks without being device work, counted by name."""
    set_aside = result.set_aside
    if set_aside is None or set_aside.count == 0:
        return []
    names = ", ".join(
        f"{printable(name)} ×{count:,}" for name, count, _ in set_aside.names[:6]
    )
    more = len(set_aside.names) - 6
    if more > 0:
        names += f" and {more:,} more"
    return fill(
        f"set aside: {set_aside.count:,} waits and runtime calls on device tracks, "
        f"{duration_text(set_aside.total_ns)}, neither kernels nor busy time "
        f"({names})",
        "",
        "  ",
    )


def _median_text(nanoseconds: float, replayed: bool = False) -> str:
    """A launch median; `graph` where the only launches were graph replays."""
    if math.isnan(nanoseconds):
        return "graph" if replayed else "–"
    return duration_text(nanoseconds)


def _flag(count: int) -> str:
    return f"{count} !" if count else "0"

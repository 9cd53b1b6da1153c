"""`steptrace summary` in words: the capture, its steps, device busy and data zone."""

from __future__ import annotations

from rich.cells import cell_len

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.results.summary import SummaryResult
from tui.report.fit import fit_end
from tui.report.gpu_idle import gpu_idle_lines
from tui.report.step_split import step_breakdown_lines
from tui.report.text import (
    STEP_ROWS_SHOWN,
    TEXT_WIDTH,
    fill,
    more_steps_line,
)
from tui.report.zones import zone_lines


def summary_text(result: SummaryResult) -> str:
    """`steptrace summary` for people, at most 80 columns; the capture's warnings
    are only counted, as the command prints them on stderr first."""
    lines: list[str] = []
    lines += fill(printable(result.trace_path), "trace     ")
    if result.capture.question:
        lines += fill(printable(result.capture.question), "question  ")
    gpu = (
        "observed"
        if result.gpu_observed
        else f"not observed — {printable(str(result.gpu_missing_reason))}"
    )
    lines += fill(gpu, "GPU       ")
    lines.append(
        f"events    {result.events:,} with a duration   "
        f"span {duration_text(result.span_ns)}"
    )
    stats = result.stats
    if stats:
        lines += fill(
            f"{stats.count} in the window: median {duration_text(stats.median_ns)}, "
            f"min {duration_text(stats.min_ns)}, max {duration_text(stats.max_ns)} "
            "per step",
            "steps     ",
        )
        if stats.count < 10:
            lines.append("          (few steps show the mechanism, not a distribution)")
    else:
        lines.append("steps     none found (no ProfilerStep#N ranges)")
    if result.device_busy_ns is not None:
        lines += fill(
            f"{duration_text(result.device_busy_ns)} on the device "
            "(union of kernels, copies, sets)",
            "busy      ",
        )
    lines += gpu_idle_lines(result.gpu_idle)
    lines += zone_lines(result.zone)
    if result.steps:
        lines.append("")
        lines.append(
            f"{'step':>8} {'phase':<8} {'duration':>11} {'gap':>11}  data zone"
        )
        for row in result.steps[:STEP_ROWS_SHOWN]:
            gap = "–" if row.gap_ns is None else duration_text(row.gap_ns)
            line = (
                f"{row.number:>8} {row.phase.value:<8} "
                f"{duration_text(row.duration_ns):>11} {gap:>11}  "
            )
            entries = [
                (printable(zone.name), duration_text(zone.duration_ns))
                for zone in row.zones
            ]
            cell = _zones_cell(entries, TEXT_WIDTH - len(line)) if entries else "–"
            lines.append(line + cell)
        lines += more_steps_line(len(result.steps), STEP_ROWS_SHOWN)
    split = step_breakdown_lines(result.step_breakdown)
    if split:
        lines += ["", *split]
    if result.warnings:
        count = len(result.warnings)
        lines.append("")
        lines += fill(
            f"{count} printed on stderr before this summary "
            f"(--json lists {'it' if count == 1 else 'them'})",
            "warnings  ",
        )
    return "\n".join(lines)


def _zones_cell(entries: list[tuple[str, str]], room: int) -> str:
    """`name duration` per zone while they fit whole, then `+N` for the rest;
    a first zone too long keeps its duration and cuts its name."""
    shown: list[str] = []
    for index, (name, duration) in enumerate(entries):
        left = len(entries) - index - 1
        more = f", +{left}" if left else ""
        entry = f"{name} {duration}"
        if cell_len(", ".join([*shown, entry]) + more) <= room:
            shown.append(entry)
            continue
        if not shown:
            room_for_name = room - cell_len(f" {duration}{more}")
            shown.append(f"{fit_end(name, max(room_for_name, 1))} {duration}")
            index += 1
        left = len(entries) - index
        return ", ".join(shown) + (f", +{left}" if left else "")
    return ", ".join(shown)

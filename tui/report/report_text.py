"""`steptrace report` for a terminal: the same sections as the Markdown, at 80 columns."""

from __future__ import annotations

import textwrap

from tui.core.base.textsafe import printable
from tui.core.base.units import NOT_OBSERVED, duration_text
from tui.report.findings import (
    finding_lines,
    no_gpu_line,
    one_by_one,
    set_aside_text,
)
from tui.report.fit import pad_end
from tui.report.gpu_idle import gpu_idle_report_line
from tui.report.markdown import SIMPLIFIED_MEANS, scenario_parts
from tui.report.notes import render_text
from tui.report.queue import queue_report_line
from tui.report.report import UNIT_RULE, ReportResult, share_text
from tui.report.step_split import step_breakdown_lines
from tui.report.text import fill, startup_parts


def report_text(result: ReportResult) -> str:
    """The report for a terminal, at most 80 columns."""
    capture = result.capture
    summary = result.summary
    lines: list[str] = []
    lines += fill(printable(summary.trace_path), "report    ")
    lines += ["", "question"]
    lines += fill(printable(capture.question or "not recorded"), "  ", "  ")
    lines += ["", "scenario"]
    parts = scenario_parts(capture.scenario)
    lines += fill(printable("; ".join(parts) or "not recorded"), "  ", "  ")
    if capture.scenario.inputs_simplified:
        note = capture.scenario.simplified_note
        detail = f" ({printable(note)})" if note else ""
        lines += fill(f"inputs simplified{detail}. {SIMPLIFIED_MEANS}", "  ", "  ")
    lines += ["", "unit"]
    unit = printable(capture.unit_name)
    if capture.samples_per_step:
        unit += f" (one step = {capture.samples_per_step} samples)"
    lines += fill(f"{unit}. {UNIT_RULE}", "  ", "  ")
    lines += ["", "window and start-up"]
    lines += _window_text(result)
    lines += _split_text(result)
    untraced = result.untraced_note()
    if untraced is not None:
        lines += fill(untraced, "  ", "  ")
    idle = gpu_idle_report_line(summary.gpu_idle)
    if idle is not None:
        lines += ["", *fill(idle, "  ", "  ")]
    queue = queue_report_line(result.queue)
    if queue is not None:
        lines += fill(queue, "  ", "  ")
    split = step_breakdown_lines(summary.step_breakdown)
    if split:
        lines += ["", *split]
    lines += _findings_text(result)
    lines += ["", "notes"]
    notes_text = render_text(result.notes)
    lines += notes_text.rstrip().splitlines() if notes_text else ["  no notes yet"]
    lines += ["", "instrumentation"]
    options = result.instrumentation()
    for label, text in options:
        lines += fill(printable(text), f"  {label.lower()}: ", "    ")
    if not options:
        lines.append("  not recorded (no capture description)")
    lines += ["", "resources: what this capture says"]
    for line in result.resources_says():
        lines += fill(printable(line), "  - ", "    ")
    lines += ["", "resources: what it cannot say"]
    for line in result.cannot_say():
        lines += fill(line, "  - ", "    ")
    if summary.warnings:
        lines += ["", "warnings"]
        for warning in summary.warnings:
            lines += fill(printable(warning), "  - ", "    ")
    return "\n".join(lines)


def _split_text(result: ReportResult) -> list[str]:
    """Step time, CPU busy, GPU busy, data zone and waiting, and what CPU busy counts."""
    lines = ["", "CPU time, GPU work and waiting (kept apart, never added)"]
    lines.append(f"  {'':<38} {'median':>11} {'total':>11} {'share':>6}")
    for row in result.split_rows():
        missing = "n/o" if row.missing == NOT_OBSERVED else "–"
        median = missing if row.total_ns is None else duration_text(row.median_ns)
        total = missing if row.total_ns is None else duration_text(row.total_ns)
        # A label longer than its column wraps, never cut; the figures sit
        # on its last line.
        *above, last = textwrap.wrap(printable(row.label), 38) or [""]
        lines += [f"  {line}" for line in above]
        lines.append(
            f"  {pad_end(last, 38)} {median:>11} {total:>11} {share_text(row.share):>6}"
        )
    lines += fill(result.cpu_note(), "  ", "  ")
    return lines


def _findings_text(result: ReportResult) -> list[str]:
    """Each finding with its words; those needing GPU events one line."""
    lines = [
        "",
        "findings, costliest first (possible observation → hypothesis → next check)",
    ]
    if result.weighed.set_aside:
        lines += fill(set_aside_text(result.weighed.set_aside), "  ", "  ")
    apart, no_gpu = one_by_one(result.findings)
    for finding in apart:
        lines += finding_lines(finding, "  ")
    if no_gpu:
        lines += fill(no_gpu_line(no_gpu), "  - ", "    ")
    return lines


def _window_text(result: ReportResult) -> list[str]:
    summary = result.summary
    lines: list[str] = []
    window = result.capture.window
    if window is not None:
        lines.append(
            f"  schedule: wait {window.wait}, warmup {window.warmup}, "
            f"active {window.active}"
        )
    for row in summary.steps:
        lines.append(
            f"  step {row.number:>6} {row.phase.value:<8} "
            f"{duration_text(row.duration_ns):>12}"
        )
    stats = summary.stats
    if stats is None:
        lines.append("  no complete step was recorded")
    else:
        lines += fill(
            f"{stats.count} in the window: median "
            f"{duration_text(stats.median_ns)}, range "
            f"{duration_text(stats.min_ns)}–{duration_text(stats.max_ns)} per "
            "step; a few steps show the mechanism, not a distribution",
            "  ",
            "  ",
        )
    startup = result.capture.startup
    if startup.before_first_step_ms is not None or startup.steps:
        parts = startup_parts(startup.before_first_step_ms, startup.steps)
        lines += fill("start-up, kept apart: " + ", ".join(parts), "  ", "  ")
    return lines

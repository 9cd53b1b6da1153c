"""`steptrace report --md`: the report as Markdown, in the method's order.

Question, scenario, unit; window and start-up; CPU time, GPU work and
waiting kept apart; the findings (possible observation → hypothesis → next
check); the notes with their verdicts; the instrumentation and its cost; and
what the capture says — and cannot say — about resources. `markdown_report`
is the one entry point (the CLI's `--md` and the app's export write it).
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.core.base.units import duration_text
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding
from tui.notes.model import Note
from tui.report.findings import no_gpu_line, one_by_one, set_aside_text, words
from tui.report.gpu_idle import gpu_idle_report_line
from tui.report.markdown import (
    capture_lines,
    gpu_line,
    md_cell,
    md_inline,
    startup_lines,
    steps_table,
    window_sentence,
)
from tui.report.notes import notes_section
from tui.report.queue import queue_report_line
from tui.report.report import (
    FINDINGS_RULE,
    SPLIT_RULE,
    UNIT_RULE,
    ReportResult,
    share_text,
)
from tui.report.step_split import step_breakdown_markdown


def markdown_report(
    analysis: Analysis, notes: Sequence[Note] = (), *, trace_name: str | None = None
) -> str:
    """The whole report as Markdown: the one entry point for the CLI and the app's export."""
    return report_markdown(ReportResult.of(analysis, notes), trace_name)


def report_markdown(result: ReportResult, trace_name: str | None = None) -> str:
    """The report as Markdown (what `--md` prints and the app exports)."""
    name = trace_name or result.summary.trace_path
    capture = result.capture
    lines = [f"# Report — {md_inline(name)}", ""]
    lines += ["## Capture", "", *capture_lines(capture)]
    if capture.step_contents:
        lines.append(
            f"- **One step contains:** {md_inline(', '.join(capture.step_contents))}"
        )
    lines += ["", UNIT_RULE]
    lines += ["", "## Window and start-up", ""]
    if capture.window is not None:
        window = capture.window
        lines += [
            f"Schedule: wait {window.wait}, warmup {window.warmup}, "
            f"active {window.active}.",
            "",
        ]
    lines += steps_table(result.summary)
    lines.append(window_sentence(result.summary))
    startup = startup_lines(result.summary)
    if startup and startup[0]:
        lines.append("")
    lines += startup
    lines += ["", "## CPU time, GPU work and waiting", "", SPLIT_RULE, ""]
    lines += [
        "| per window step | median | window total | share of the window |",
        "|---|---:|---:|---:|",
    ]
    for row in result.split_rows():
        missing = row.missing if row.total_ns is None else None
        lines.append(
            f"| {md_cell(row.label)} "
            f"| {missing or duration_text(row.median_ns)} "
            f"| {missing or duration_text(row.total_ns)} "
            f"| {share_text(row.share)} |"
        )
    lines += ["", md_inline(result.cpu_note())]
    untraced = result.untraced_note()
    if untraced is not None:
        lines += ["", untraced]
    lines += ["", gpu_line(result.summary)]
    idle = gpu_idle_report_line(result.summary.gpu_idle)
    if idle is not None:
        lines += ["", idle]
    queue = queue_report_line(result.queue)
    if queue is not None:
        lines += ["", queue]
    split = step_breakdown_markdown(result.summary.step_breakdown)
    if split:
        lines += ["", "## Step time as TensorBoard splits it", "", *split]
    lines += ["", "## Findings", "", FINDINGS_RULE]
    if result.weighed.set_aside:
        lines += ["", md_inline(set_aside_text(result.weighed.set_aside))]
    lines += _findings_markdown(result.findings)
    lines += ["", "## Notes", "", *notes_section(result.notes)]
    lines += ["", "## Instrumentation", ""]
    options = result.instrumentation()
    if options:
        lines += [f"- **{label}:** {md_inline(text)}" for label, text in options]
    else:
        lines.append(
            "Not recorded (no capture description). Shapes, stacks and memory "
            "add cost, and recording shapes can keep tensors alive."
        )
    lines += ["", "## Resources", "", "What this capture says:", ""]
    lines += [f"- {md_inline(line)}" for line in result.resources_says()]
    lines += ["", "What it cannot say:", ""]
    lines += [f"- {line}" for line in result.cannot_say()]
    if result.summary.warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {md_inline(warning)}" for warning in result.summary.warnings]
    return "\n".join(lines) + "\n"


def _findings_markdown(findings: tuple[Finding, ...]) -> list[str]:
    lines: list[str] = []
    others = []
    apart, no_gpu = one_by_one(findings)
    for finding in apart:
        said = words(finding)
        if not finding.observed:
            others.append(f"- {md_inline(_aside(finding))}")
            continue
        lines += ["", f"### {md_inline(said.title)} ({said.status_label})", ""]
        if said.cost:
            lines.append(f"- **Cost:** {md_inline(said.cost)}")
        lines += [
            f"- **Possible observation:** {md_inline(said.observation)}",
            f"- **Hypothesis:** {md_inline(said.hypothesis)}",
            f"- **Next check:** {md_inline(said.next_check)}",
        ]
    if not lines:
        lines += ["", "No reading stands out in this capture."]
    if no_gpu:
        others.append(f"- {md_inline(no_gpu_line(no_gpu))}")
    if others:
        lines += [
            "",
            "Minor, not seen, or not observed in this capture:",
            "",
            *others,
        ]
    return lines


def _aside(finding: Finding) -> str:
    """A reading that is not a possible observation: its title and why."""
    said = words(finding)
    label = "" if finding.missing is not None else f" ({said.status_label})"
    cost = f" ({said.cost})" if said.cost else ""
    return f"{said.title}{label}: {said.observation}{cost}"

"""Markdown shared by the report and the notes export: safe text, the capture and its window.

Untrusted text (trace strings, notes, the description) goes through
`printable`; inside tables `|` and line breaks are escaped so a string cannot
break a row. Sections read typed results (`SummaryResult`), never JSON read
back.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import StepPhase
from tui.core.model.description import CaptureDescription, Scenario
from tui.core.results.summary import SummaryResult

SIMPLIFIED_MEANS = (
    "A simplified input isolates behaviour but no longer represents the full load."
)
FEW_STEPS_MEAN = "A few steps show the mechanism; they do not establish a distribution."


def md_inline(text: str) -> str:
    """Untrusted text made safe for one Markdown line (line breaks → spaces).

    Control characters are escaped, and so is what Markdown or HTML acts on
    (backslash, `[ ] < > & ! |`): a pasted report loads nothing from outside,
    links nowhere and runs nothing; rendered, the text reads as written.
    """
    return printable(_escape_active(" ".join(text.splitlines())))


def md_cell(text: str) -> str:
    """Untrusted text made safe for one Markdown table cell.

    As `md_inline`, with line breaks as `<br>`; `|` is escaped too, so a
    string cannot break a row. An empty cell stays empty.
    """
    return "<br>".join(printable(_escape_active(line)) for line in text.splitlines())


# Backslashes are escaped with the rest, so a typed `\[` or `\|` cannot undo
# the escape that follows it. This runs before `printable`, whose escapes
# (`\x1b`, `\u202e`) are a backslash and a letter: text in Markdown.
_ACTIVE = re.compile(r"([\\\[\]<>&!|])")
_LINK_TEXT = re.compile(r"([`*_])")


def _escape_active(text: str) -> str:
    return _ACTIVE.sub(r"\\\1", text)


def md_link(text: str, target: str) -> str:
    """A Markdown link whose text and target cannot break out of it (nor out of a cell)."""
    shown = _LINK_TEXT.sub(r"\\\1", md_cell(text))
    return f"[{shown}](<{quote(target, safe='/:._-~')}>)"


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def scenario_parts(scenario: Scenario) -> list[str]:
    """The known scenario fields as `label value` (untrusted, not escaped)."""
    fields: list[tuple[str, object]] = [
        ("shapes", scenario.shapes),
        ("batch size", scenario.batch_size),
        ("precision", scenario.precision),
        ("mode", scenario.mode),
        ("compiled", scenario.compiled),
        ("data source", scenario.data_source),
    ]
    return [
        f"{label} {_yes_no(value) if isinstance(value, bool) else value}"
        for label, value in fields
        if value is not None
    ]


def simplified_line(scenario: Scenario) -> str | None:
    """What simplified inputs mean, when the capture says its inputs were simplified."""
    if not scenario.inputs_simplified:
        return None
    note = scenario.simplified_note
    detail = f" ({md_inline(note)})" if note else ""
    return f"- **Inputs simplified:** yes{detail}. {SIMPLIFIED_MEANS}"


def unit_line(capture: CaptureDescription) -> str:
    """The capture's unit; the tables below are always in ms per step."""
    line = f"- **Unit:** {md_inline(capture.unit_name)}"
    if capture.present and capture.samples_per_step is not None:
        line += f"; one step = {capture.samples_per_step} samples"
    if capture.unit_name != "ms/step":
        line += "; the figures below are in ms/step"
    return line


def capture_lines(capture: CaptureDescription) -> list[str]:
    """Question, scenario (and what simplified inputs mean) and unit, as bullets."""
    if not capture.present:
        return [
            "- No capture description in this trace: its question, scenario and "
            "unit were not recorded.",
            unit_line(capture),
        ]
    lines = [
        f"- **Question:** {md_inline(capture.question)}"
        if capture.question
        else "- **Question:** not recorded"
    ]
    parts = scenario_parts(capture.scenario)
    simplified = simplified_line(capture.scenario)
    if parts:
        lines.append(f"- **Scenario:** {md_inline('; '.join(parts))}")
    elif simplified is None:
        lines.append("- **Scenario:** not recorded")
    if simplified is not None:
        lines.append(simplified)
    lines.append(unit_line(capture))
    return lines


def steps_table(summary: SummaryResult) -> list[str]:
    """Every step with its phase and time: start-up steps stay listed, apart from the window."""
    if not summary.steps:
        return []
    lines = ["| step | phase | time |", "|---:|---|---:|"]
    for row in summary.steps:
        lines.append(
            f"| {row.number} | {row.phase.value} | {duration_text(row.duration_ns)} |"
        )
    return [*lines, ""]


def window_sentence(summary: SummaryResult) -> str:
    """The active window's count, median and range."""
    stats = summary.stats
    if stats is None:
        return "Active window: no complete step was recorded."
    plural = "s" if stats.count != 1 else ""
    return (
        f"Active window: {stats.count} step{plural}, "
        f"median {duration_text(stats.median_ns)} per step, range "
        f"{duration_text(stats.min_ns)}–{duration_text(stats.max_ns)}. {FEW_STEPS_MEAN}"
    )


def startup_lines(summary: SummaryResult) -> list[str]:
    """Start-up kept apart: steps before the window (in the trace, or timed by the collector)."""
    lines = []
    if any(row.phase is StepPhase.STARTUP for row in summary.steps):
        lines.append("Start-up steps are kept apart and are not in these figures.")
    startup = summary.capture.startup
    if startup.before_first_step_ms is not None or startup.steps:
        lines += [
            "",
            "Start-up timed by the collector (kept apart, not in these figures):",
            "",
        ]
        if startup.before_first_step_ms is not None:
            lines.append(
                "- before the first step: "
                + duration_text(startup.before_first_step_ms * 1e6)
            )
        lines += [
            f"- step {entry.step} ({md_inline(entry.phase)}): "
            + duration_text(entry.ms * 1e6)
            for entry in startup.steps
        ]
    return lines


def gpu_line(summary: SummaryResult) -> str:
    """Whether GPU activity was observed, and why not when it was not."""
    if summary.gpu_observed:
        return "GPU activity: observed."
    reason = summary.gpu_missing_reason
    because = f" — {md_inline(reason)}" if reason else ""
    return (
        f"GPU activity: not observed{because}. GPU figures read "
        "“not observed”, never 0."
    )


def warning_lines(warnings: list[str]) -> list[str]:
    """The load's warnings, one bullet each."""
    if not warnings:
        return []
    return ["", "Warnings:"] + [f"- {md_inline(warning)}" for warning in warnings]


def window_lines(summary: SummaryResult) -> list[str]:
    """Steps table, the window's median and range, start-up apart, GPU observed, warnings."""
    lines = steps_table(summary)
    lines.append(window_sentence(summary))
    lines += startup_lines(summary)
    if lines[-1].startswith("- "):
        lines.append("")  # a line right after a list would join its last item
    lines.append(gpu_line(summary))
    lines += warning_lines(summary.warnings)
    return lines

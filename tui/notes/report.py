"""Notes as text for a terminal and as a Markdown report to paste in a ticket.

Note text and trace strings are untrusted: control characters become visible
escapes (`printable`), and in Markdown tables `|` and line breaks are escaped
so a note cannot break the table. Figures are raw values with their range;
nothing here computes or claims a speed-up.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tui.core.textsafe import printable
from tui.notes.model import Note, Result

NOTES_COLUMNS = ("observation", "hypothesis", "next check", "status", "result")

_SCENARIO_KEYS = (
    ("shapes", "shapes"),
    ("batch_size", "batch size"),
    ("precision", "precision"),
    ("mode", "mode"),
    ("compiled", "compiled"),
    ("data_source", "data source"),
)


def md_inline(text: str) -> str:
    """Untrusted text made safe for one Markdown line (line breaks → spaces)."""
    return printable(" ".join(text.splitlines()))


def md_cell(text: str) -> str:
    """Untrusted text made safe for one Markdown table cell.

    Line breaks become `<br>`, `|` becomes `\\|` (backslashes right before it
    are doubled, so a typed `\\|` cannot end the cell), control characters
    are escaped; an empty cell stays empty.
    """
    lines = [printable(line) for line in text.splitlines()]
    return _PIPE.sub(_escape_pipe, "<br>".join(lines))


_PIPE = re.compile(r"(\\*)\|")


def _escape_pipe(match: re.Match[str]) -> str:
    return match.group(1) * 2 + "\\|"


def _number(value: float) -> str:
    return f"{value:g}"


def format_figures(values: Sequence[float], unit: str | None = None) -> str:
    """Raw values with their median and range, e.g. `12.1, 12.4 ms (median …)`."""
    if not values:
        return ""
    suffix = f" {unit}" if unit else ""
    raw = ", ".join(_number(v) for v in values) + suffix
    if len(values) == 1:
        return raw
    return (
        f"{raw} (median {_number(statistics.median(values))}, "
        f"range {_number(min(values))}–{_number(max(values))}{suffix})"
    )


def format_result(result: Result | None) -> str:
    """A result as one plain line: its text, then before/after raw figures."""
    if result is None or result.is_empty:
        return ""
    parts = [result.text] if result.text else []
    if result.before:
        parts.append(f"before: {format_figures(result.before, result.unit)}")
    if result.after:
        parts.append(f"after: {format_figures(result.after, result.unit)}")
    return "; ".join(parts)


def _status_label(note: Note) -> str:
    if note.conflict_of:
        return f"{note.status} (conflict copy of {note.conflict_of[:8]})"
    return note.status


def _observation(note: Note) -> str:
    if note.anchor is None:
        return note.observation
    where = note.anchor.describe()
    return f"{where} — {note.observation}" if note.observation else where


def notes_table(notes: Iterable[Note]) -> list[str]:
    """The Markdown table observation | hypothesis | next check | status | result.

    The observation cell starts with the note's anchor (step, op, range...).
    """
    lines = [
        "| " + " | ".join(NOTES_COLUMNS) + " |",
        "|" + "---|" * len(NOTES_COLUMNS),
    ]
    for note in notes:
        cells = (
            _observation(note),
            note.hypothesis,
            note.next_check,
            _status_label(note),
            format_result(note.result),
        )
        lines.append("| " + " | ".join(md_cell(cell) for cell in cells) + " |")
    return lines


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(item) for item in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_value(item)}" for key, item in value.items())
    return str(value)


def _capture_lines(description: Mapping[str, Any] | None, unit: str) -> list[str]:
    if description is None:
        return [
            "- No capture description in this trace: its question, scenario and "
            "unit were not recorded.",
            f"- **Unit:** {md_inline(unit)}",
        ]
    lines = []
    question = description.get("question")
    lines.append(
        f"- **Question:** {md_inline(_value(question))}"
        if question
        else "- **Question:** not recorded"
    )
    scenario = description.get("scenario")
    if isinstance(scenario, Mapping):
        parts = [
            f"{label} {_value(scenario[key])}"
            for key, label in _SCENARIO_KEYS
            if scenario.get(key) is not None
        ]
        if parts:
            lines.append(f"- **Scenario:** {md_inline('; '.join(parts))}")
        if scenario.get("inputs_simplified"):
            note = scenario.get("simplified_note")
            detail = f" ({md_inline(_value(note))})" if note else ""
            lines.append(
                f"- **Inputs simplified:** yes{detail}. A simplified input isolates "
                "behaviour but no longer represents the full load."
            )
    else:
        lines.append("- **Scenario:** not recorded")
    step_unit = description.get("unit")
    step_unit = step_unit if isinstance(step_unit, Mapping) else {}
    chosen = step_unit.get("name")
    unit_line = f"- **Unit:** {md_inline(_value(chosen or unit))}"
    samples = step_unit.get("samples_per_step")
    if samples is not None:
        unit_line += f"; one step = {md_inline(_value(samples))} samples"
    if chosen and chosen != unit:
        unit_line += f"; the figures below are in {md_inline(unit)}"
    lines.append(unit_line)
    return lines


def _window_lines(summary: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    steps = summary.get("steps") or []
    if steps:
        lines += ["| step | phase | time (ms) |", "|---:|---|---:|"]
        for step in steps:
            lines.append(
                f"| {md_cell(_value(step.get('step')))} "
                f"| {md_cell(_value(step.get('phase')))} "
                f"| {float(step.get('duration_ms', 0.0)):.2f} |"
            )
        lines.append("")
    stats = summary.get("step_stats")
    if stats:
        count = int(stats["count"])
        lines.append(
            f"Active window: {count} step{'s' if count != 1 else ''}, "
            f"median {float(stats['median_ms']):.2f} ms/step, "
            f"range {float(stats['min_ms']):.2f}–{float(stats['max_ms']):.2f} ms. "
            "A few steps show the mechanism; they do not establish a distribution."
        )
    else:
        lines.append("Active window: no complete step was recorded.")
    if any(step.get("phase") == "startup" for step in steps):
        lines.append("Start-up steps are kept apart and are not in these figures.")
    if summary.get("gpu_observed"):
        lines.append("GPU activity: observed.")
    else:
        reason = summary.get("gpu_missing_reason")
        because = f" — {md_inline(str(reason))}" if reason else ""
        lines.append(
            f"GPU activity: not observed{because}. GPU figures read "
            "“not observed”, never 0."
        )
    warnings = summary.get("warnings") or []
    if warnings:
        lines += ["", "Warnings:"]
        lines += [f"- {md_inline(str(warning))}" for warning in warnings]
    return lines


def render_markdown(
    notes: Sequence[Note],
    summary: Mapping[str, Any] | None,
    *,
    trace_name: str | None = None,
    figures_unavailable: str | None = None,
) -> str:
    """The notes report in Markdown: capture, window figures, then the table.

    `summary` is `tui.core.report.summary_dict(trace)`; when it is None the
    report says the figures are unavailable (with `figures_unavailable` as the
    reason) and still lists every note. Tombstones are left out.
    """
    live = [note for note in notes if not note.deleted]
    name = trace_name
    if name is None and summary is not None:
        name = str(summary.get("trace") or "")
    title = f"# Notes — {md_inline(name)}" if name else "# Notes"
    lines = [title, "", "## Capture", ""]
    if summary is None:
        reason = f" ({md_inline(figures_unavailable)})" if figures_unavailable else ""
        lines.append(f"Capture figures unavailable{reason}.")
    else:
        description = summary.get("description")
        unit = str(summary.get("unit") or "ms/step")
        lines += _capture_lines(
            description if isinstance(description, Mapping) else None, unit
        )
        lines += ["", "## Window", ""]
        lines += _window_lines(summary)
    lines += ["", "## Notes", ""]
    if live:
        open_count = sum(note.status == "open" for note in live)
        lines.append(
            f"{len(live)} note{'s' if len(live) != 1 else ''}, {open_count} open."
        )
        lines.append("")
        lines += notes_table(live)
    else:
        lines.append("No notes yet.")
    return "\n".join(lines) + "\n"


def _field_lines(label: str, text: str) -> list[str]:
    parts = text.splitlines() or [""]
    first = f"  {label:<12} {printable(parts[0])}"
    return [first] + [f"  {'':<12} {printable(part)}" for part in parts[1:]]


def render_text(notes: Sequence[Note]) -> str:
    """Live notes as plain terminal text, every untrusted string escaped."""
    live = [note for note in notes if not note.deleted]
    blocks: list[str] = []
    for note in live:
        head = f"{note.short_id}  [{note.status}]"
        if note.anchor is not None:
            head += f"  {printable(note.anchor.describe())}"
        if note.conflict_of:
            head += f"  (conflict copy of {printable(note.conflict_of[:8])})"
        lines = [head]
        for label, text in (
            ("hypothesis", note.hypothesis),
            ("observation", note.observation),
            ("next check", note.next_check),
            ("result", format_result(note.result)),
            ("author", note.author or ""),
        ):
            if text:
                lines += _field_lines(label + ":", text)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")

"""Notes as text for a terminal and as a Markdown report to paste in a ticket.

Note text and trace strings are untrusted: control characters become visible
escapes (`printable`), and in Markdown tables `|` and line breaks are escaped
so a note cannot break the table. Figures are raw values with their range;
nothing here computes or claims a speed-up: a tested hypothesis shows the
verdict of its diff, and a change in % only when that verdict is an order.
"""

from __future__ import annotations

import statistics
import textwrap
from collections.abc import Iterable, Sequence

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import FindingId, Verdict
from tui.core.results.summary import SummaryResult
from tui.notes.link import Moved
from tui.notes.model import Note, Result, Status, TestedBy
from tui.report.finding_words.registry import text_of
from tui.report.markdown import (
    capture_lines,
    md_cell,
    md_inline,
    md_link,
    window_lines,
)
from tui.report.text import TEXT_WIDTH

__all__ = [
    "NOTES_COLUMNS",
    "format_figures",
    "format_result",
    "md_cell",
    "md_inline",
    "notes_section",
    "notes_table",
    "render_markdown",
    "render_text",
    "tested_by_text",
]

NOTES_COLUMNS = ("observation", "hypothesis", "next check", "status", "result")


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


def _ms(values: Sequence[float]) -> tuple[str, str, str]:
    """Median, min and max of step times in ms, each with its unit."""
    return tuple(  # type: ignore[return-value]
        duration_text(value * 1e6)
        for value in (statistics.median(values), min(values), max(values))
    )


# The findings a tested-by line names as what moved (largest change first).
MOVED_SHOWN = 2


def _moved_text(entry: Moved) -> str:
    """One finding that moved: its title, change per step and run pairs."""
    try:
        title = entry.title or text_of(FindingId(entry.finding)).wording.title
    except (KeyError, ValueError):
        title = entry.finding
    title = printable(title)
    change = entry.change_us_per_step * 1000
    sign = "+" if change > 0 else ""
    return f"{title} {sign}{duration_text(change)} per step in {entry.moved_in} runs"


def tested_by_text(tested: TestedBy) -> str:
    """The verdict of the diff that tested a hypothesis, with both windows' median
    and range, the runs and what moved.

    A change in % is shown only with a verdict of (likely) faster or slower: an
    inconclusive or not comparable diff never reads as a speed-up.
    """
    parts: list[str] = [tested.verdict.value]
    if tested.verdict is Verdict.INCONCLUSIVE:
        parts[0] += " (the ranges of step times overlap)"
    sides = []
    for word, values in (("before", tested.before_ms), ("after", tested.after_ms)):
        if values:
            median, low, high = _ms(values)
            count = len(values)
            sides.append(
                f"{word} median {median} per step, range {low}–{high}, "
                f"{count} step{'s' if count != 1 else ''}"
            )
        else:
            sides.append(f"{word}: no step in the window")
    parts.append("; ".join(sides))
    if tested.verdict.ordered and tested.change_pct is not None:
        parts.append(f"median {tested.change_pct:+.1f}%")
    if tested.runs is not None:
        parts.append(f"runs: {tested.runs[0]} before, {tested.runs[1]} after")
    if tested.moved:
        parts.append(
            "what moved: "
            + "; ".join(_moved_text(entry) for entry in tested.moved[:MOVED_SHOWN])
        )
    text = " — ".join(parts)
    if not tested.comparable:
        reasons = "; ".join(tested.warnings) or "see steptrace diff"
        text += f"; the captures are not comparable: {reasons}"
    return text


def format_result(result: Result | None) -> str:
    """A result as one plain line: its text, the before/after raw figures, the diff's verdict."""
    if result is None or result.is_empty:
        return ""
    parts = [result.text] if result.text else []
    if result.before:
        parts.append(f"before: {format_figures(result.before, result.unit)}")
    if result.after:
        parts.append(f"after: {format_figures(result.after, result.unit)}")
    if result.tested_by is not None:
        parts.append(
            f"tested by {result.tested_by.name}: {tested_by_text(result.tested_by)}"
        )
    return "; ".join(parts)


def _result_cell(result: Result | None) -> str:
    """The result cell of the notes table: a tested-by capture becomes a link to it."""
    if result is None or result.tested_by is None:
        return md_cell(format_result(result))
    tested = result.tested_by
    plain = format_result(Result(result.text, result.before, result.after, result.unit))
    link = (
        f"tested by {md_link(tested.name, tested.path)}: "
        f"{md_cell(tested_by_text(tested))}"
    )
    return f"{md_cell(plain)}; {link}" if plain else link


def _status_label(note: Note) -> str:
    if note.conflict_of:
        return f"{note.status} (conflict copy of {note.conflict_of[:8]})"
    return note.status.value


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
        cells = [
            md_cell(cell)
            for cell in (
                _observation(note),
                note.hypothesis,
                note.next_check,
                _status_label(note),
            )
        ]
        cells.append(_result_cell(note.result))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def notes_section(notes: Sequence[Note]) -> list[str]:
    """The live notes as Markdown: how many, how many open, then the table."""
    live = [note for note in notes if not note.deleted]
    if not live:
        return ["No notes yet."]
    open_count = sum(note.status is Status.OPEN for note in live)
    return [
        f"{len(live)} note{'s' if len(live) != 1 else ''}, {open_count} open.",
        "",
        *notes_table(live),
    ]


def render_markdown(
    notes: Sequence[Note],
    summary: SummaryResult | None,
    *,
    trace_name: str | None = None,
    figures_unavailable: str | None = None,
) -> str:
    """The notes report in Markdown: capture, window figures, then the table.

    `summary` is the capture's `SummaryResult`; when it is None the report
    says the figures are unavailable (with `figures_unavailable` as the
    reason) and still lists every note. Tombstones are left out.
    """
    name = trace_name
    if name is None and summary is not None:
        name = summary.trace_path
    title = f"# Notes — {md_inline(name)}" if name else "# Notes"
    lines = [title, "", "## Capture", ""]
    if summary is None:
        reason = f" ({md_inline(figures_unavailable)})" if figures_unavailable else ""
        lines.append(f"Capture figures unavailable{reason}.")
    else:
        lines += capture_lines(summary.capture)
        lines += ["", "## Window", ""]
        lines += window_lines(summary)
    lines += ["", "## Notes", ""]
    lines += notes_section(notes)
    return "\n".join(lines) + "\n"


def _field_lines(label: str, text: str) -> list[str]:
    """A labelled field: its own line breaks kept, long lines wrapped at 80 columns."""
    lines: list[str] = []
    for index, part in enumerate(text.splitlines() or [""]):
        head = f"  {label if index == 0 else '':<12} "
        lines += textwrap.wrap(
            printable(part),
            width=TEXT_WIDTH,
            initial_indent=head,
            subsequent_indent=" " * len(head),
            break_long_words=True,
            break_on_hyphens=False,
        ) or [head.rstrip()]
    return lines


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
        tested = note.result.tested_by if note.result is not None else None
        if tested is not None:
            lines += _field_lines("tested by:", tested.path)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")

"""`steptrace syncs` in words: per kind, per causing operator, per step, the costliest."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.figures.sync_reading import SyncReading, SyncTotals
from tui.core.results.copies import PATH_SEPARATOR
from tui.core.results.syncs import SyncsResult
from tui.report.text import TEXT_WIDTH, cut_middle, fill

# Rows of the per-operator table and of the costliest syncs in text (JSON has more).
TEXT_CAUSES = 15
TEXT_TOP = 10

DEFINITIONS = (
    "blocked: the host call's duration; idle after: the device's idle from the"
    " sync's end to its next kernel, copy or set (0 when work runs across the"
    " end; –: no device work follows)"
)


def _figures(totals: SyncTotals) -> str:
    idle = duration_text(totals.idle_after_ns) if totals.followed else "–"
    return f"{totals.count:>6} {duration_text(totals.blocked_ns):>11} {idle:>11}"


def syncs_text(result: SyncsResult) -> str:
    """Per kind, per causing operator, per step and the costliest syncs, at 80 columns."""
    reading = result.reading
    if reading is None:
        return "\n".join(
            fill(
                "syncs: not observed — " + printable(str(result.gpu_missing_reason)),
                "",
                "  ",
            )
        )
    columns = reading.columns
    queries = (
        f" ({plural(columns.queries, 'event query', 'event queries')} left out: the"
        " host polled, it did not wait)"
        if columns.queries
        else ""
    )
    if not len(columns):
        return "\n".join(
            fill("no host synchronisation in this capture" + queries, "", "  ")
        )
    lines = _kind_lines(reading, queries)
    lines += _cause_lines(reading)
    lines += _step_lines(reading)
    lines += _costliest_lines(reading)
    lines += _read_lines(reading)
    return "\n".join(lines)


def _kind_lines(reading: SyncReading, queries: str) -> list[str]:
    """The totals, what the figures mean, and the table by kind of sync."""
    header = f"{'kind':<40} {'count':>6} {'blocked':>11} {'idle after':>11}"
    lines = fill(
        f"{plural(len(reading.columns), 'host synchronisation')}: the host waited"
        f" {duration_text(reading.total.blocked_ns)}, the device then idled"
        f" {duration_text(reading.total.idle_after_ns)}{queries}",
        "",
        "  ",
    )
    lines += fill(DEFINITIONS, "", "")
    lines += ["", header, "-" * len(header)]
    for kind, totals in reading.by_kind.items():
        lines.append(f"{kind.value:<40} {_figures(totals)}")
    return lines


def _cause_lines(reading: SyncReading) -> list[str]:
    """The table by causing operator, with each one's path, the first TEXT_CAUSES rows."""
    lines = ["", "by causing operator (the outermost enclosing operator)"]
    header = f"{'operator':<40} {'count':>6} {'blocked':>11} {'idle after':>11}"
    lines += [header, "-" * len(header)]
    for row in reading.by_cause[:TEXT_CAUSES]:
        name = printable(row.name or "(no operator)")
        lines.append(f"{cut_middle(name, 40):<40} {_figures(row.totals)}")
        if row.path:
            path = printable(PATH_SEPARATOR.join(row.path))
            lines.append("    " + cut_middle(path, TEXT_WIDTH - 4))
    if len(reading.by_cause) > TEXT_CAUSES:
        lines.append(f"… {len(reading.by_cause) - TEXT_CAUSES} more (--json)")
    return lines


def _step_lines(reading: SyncReading) -> list[str]:
    """The totals of each step's syncs; nothing when the capture has no steps."""
    if not reading.steps:
        return []
    lines = ["", "per step (syncs called in the step)"]
    for step, totals in zip(reading.steps, reading.step_totals, strict=True):
        label = f"{step.number:>8} {step.phase.value:<8}"
        lines.append(f"{label:<40} {_figures(totals)}")
    return lines


def _costliest_lines(reading: SyncReading) -> list[str]:
    """The TEXT_TOP costliest syncs, each with its cause and the code that called it."""
    columns = reading.columns
    lines = ["", "the costliest (blocked + idle after)"]
    for position in reading.top[:TEXT_TOP].tolist():
        idle = int(columns.idle_after_ns[position])
        step_at = int(columns.step[position])
        cause = int(columns.cause[position])
        where = "" if step_at < 0 else f", in step {reading.steps[step_at].number}"
        lines.append(
            "  "
            + cut_middle(
                printable(reading.trace.event_name(int(columns.events[position])))
                + f" {duration_text(int(columns.blocked_ns[position]))} blocked, "
                + ("no device work after" if idle < 0 else duration_text(idle))
                + (" idle after" if idle >= 0 else "")
                + where,
                TEXT_WIDTH - 2,
            )
        )
        if cause >= 0:
            lines.append(
                "    "
                + cut_middle(
                    "under " + printable(reading.trace.event_name(cause)),
                    TEXT_WIDTH - 4,
                )
            )
        stack = int(columns.stack[position])
        if stack >= 0:
            frames = columns.stacks[stack]
            lines.append(
                "    " + cut_middle("at " + printable(frames[-1]), TEXT_WIDTH - 4)
            )
    return lines


def _read_lines(reading: SyncReading) -> list[str]:
    """The operators that read device values, with how many of their calls waited."""
    waited = [row for row in reading.reads if row.calls]
    if not waited:
        return []
    lines = ["", "operators that read device values: calls (calls that waited)"]
    lines += fill(
        ", ".join(
            f"{printable(row.name)} {row.calls:,} ({row.waited:,})" for row in waited
        ),
        "  ",
        "  ",
    )
    return lines

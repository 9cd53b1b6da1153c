"""Export the method report from the main screen: `markdown_report`, written next
to the trace under a fresh name, off the UI thread.

The file is written whole through `safe_write.write_fresh`, never over an
existing one: `<trace>.report.md`, then `<trace>.report-1.md`, ... An export
is allowed in a served app (as the share dialog's scrubbed copy is): it writes
a new file next to the trace and runs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.screen import Screen

from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis

TRIES = 1000


@dataclass
class ReportWritten(Message):
    """The report export ended: where it went, or why it was not written."""

    path: Path | None
    error: str | None = None


def report_stem(trace: Path) -> str:
    """The trace's name without `.json` / `.json.gz`."""
    stem = trace.name
    for ending in (".gz", ".json"):
        if stem.endswith(ending) and len(stem) > len(ending):
            stem = stem[: -len(ending)]
    return stem


def write_report(trace: Path, markdown: str) -> Path:
    """Write `markdown` next to `trace` under the first free name; its path.

    A name taken meanwhile (by another session) is skipped, never replaced.
    OSError when the folder cannot be written.
    """
    from tui.core.base.safe_write import write_fresh

    stem = report_stem(trace)
    data = markdown.encode("utf-8")
    for number in range(TRIES):
        suffix = "" if number == 0 else f"-{number}"
        candidate = trace.with_name(f"{stem}.report{suffix}.md")
        try:
            return write_fresh(candidate, data)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free report name next to {trace}")


def export(host: Screen[Any], path: Path, analysis: Analysis, notes: list[Any]) -> None:
    """Build the report of what a screen shows (its data zone, its notes) and
    write it next to the trace at `path`, in a worker of `host` (posted
    `ReportWritten`)."""

    def job() -> None:
        from tui.report.report_markdown import markdown_report

        try:
            markdown = markdown_report(analysis, notes, trace_name=path.name)
            host.post_message(ReportWritten(write_report(path, markdown)))
        except OSError as error:
            host.post_message(
                ReportWritten(None, f"report not written: {error.strerror or error}")
            )
        except Exception as error:  # the user must hear of any failure
            host.post_message(
                ReportWritten(
                    None,
                    f"report not written: unexpected {type(error).__name__}: {error} "
                    "(a steptrace bug: please report it)",
                )
            )

    host.notify("Writing the report…")
    host.run_worker(
        job, thread=True, exclusive=True, exit_on_error=False, group="report"
    )


def written(
    host: Screen[Any], message: ReportWritten, say: Callable[[Text], None]
) -> None:
    """Say where the report went (on the status line, through `say`), or why it
    was not written."""
    if message.path is None:
        host.notify(
            printable(message.error or "report not written"),
            severity="error",
            markup=False,
        )
        return
    text = Text("Report written to ")
    text.append(printable(str(message.path)), style="bold")
    say(text)
    host.notify(f"Report written to {printable(str(message.path))}", markup=False)

"""The share dialog: what in the trace identifies people or places, then a
scrubbed copy written next to it.

Checking and writing read the whole trace (seconds on a big one), so both run
in thread workers that only post messages. Every value shown comes from the
trace: it goes through `printable` into a `Text`, never through markup.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.report.fit import fit_end
from tui.scrub import (
    CheckReport,
    KindSummary,
    ScrubError,
    ScrubOptions,
    ScrubReport,
    check_file,
    scrub_file,
)

GZIP_MAGIC = b"\x1f\x8b"
EXAMPLES_SHOWN = 3
EXAMPLE_WIDTH = 70
# What each kind of the scrub report means, in the user's words.
KIND_WORDS = {
    "secret": "tokens, keys, passwords",
    "email": "e-mail addresses",
    "user": "user names",
    "host": "host names and addresses",
    "url": "URLs",
    "path": "file paths",
    "metadata": "job / cluster metadata",
    "log": "profiler log lines",
    "unknown-key": "unknown top-level keys",
    "process": "process and thread names",
    "zone": "free-form zone names",
    "shape": "input shapes and values",
}
# The worker failures that are the user's to read, not the app's to crash on.
EXPECTED_ERRORS = (ScrubError, TraceLoadError, OSError, MemoryError, ValueError)


@dataclass
class ScrubChecked(Message):
    """A scrub check finished: what in the trace identifies people or places."""

    report: CheckReport


@dataclass
class ScrubWritten(Message):
    """A scrubbed copy was written: what it replaced, removed or kept."""

    report: ScrubReport


@dataclass
class ScrubFailed(Message):
    """A scrub check or write failed with a one-line reason (stage: check or write)."""

    stage: str
    reason: str


def _is_gzip(path: Path) -> bool:
    """Whether the trace is gzip by its bytes, as the scrubber decides it."""
    try:
        with path.open("rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError:
        return path.name.endswith(".gz")


def fresh_copy_path(trace: Path) -> Path:
    """A name next to the trace that does not exist yet:
    `<name>.scrubbed.json[.gz]`, then `<name>.scrubbed-1.json[.gz]`, ..."""
    suffix = ".json.gz" if _is_gzip(trace) else ".json"
    stem = trace.name
    for ending in (".gz", ".json"):
        if stem.endswith(ending) and len(stem) > len(ending):
            stem = stem[: -len(ending)]
    candidate = trace.with_name(f"{stem}.scrubbed{suffix}")
    counter = 0
    while os.path.lexists(candidate):
        counter += 1
        candidate = trace.with_name(f"{stem}.scrubbed-{counter}{suffix}")
    return candidate


def one_line(error: BaseException) -> str:
    """The first line of an error, safe for the terminal."""
    lines = str(error).strip().splitlines()
    return printable(lines[0] if lines else type(error).__name__)


def _clip(text: str) -> str:
    return fit_end(printable(text), EXAMPLE_WIDTH)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _counts(summary: KindSummary) -> str:
    values = _plural(len(summary.values), "value")
    return f"{values} in {_plural(summary.places, 'place')}"


def check_text(report: CheckReport) -> Text:
    """What a check found, by kind, with counts and a few examples."""
    if report.clean:
        return Text(
            "Nothing identifying found: no user, host, path, secret or job data.",
            style="bold",
        )
    text = Text()
    for index, summary in enumerate(report.kinds):
        if index:
            text.append("\n")
        text.append(f"{summary.kind:<12}", style="bold")
        text.append(f" {_counts(summary)}  ")
        text.append(KIND_WORDS.get(summary.kind, ""), style="italic")
        if summary.scrubbed:
            text.append("  replaced")
        else:
            text.append("  kept (tick Rename zones)", style="bold")
        for example in summary.examples[:EXAMPLES_SHOWN]:
            text.append(f"\n    {_clip(example.where)}: ", style="dim")
            text.append(_clip(example.text))
    return text


def scrub_text(report: ScrubReport) -> Text:
    """What the copy no longer holds, counts only, and where it is."""
    text = Text()
    text.append("Wrote ", style="bold")
    text.append(printable(str(report.destination)), style="bold")
    if report.compressed:
        text.append(" (gzip)")
    if not report.changed:
        text.append("\n  nothing identifying found to replace")
    for summary in report.changed:
        text.append(f"\n  {summary.kind:<12}", style="bold")
        text.append(f" {_counts(summary)}: replaced or removed")
    for summary in report.kept:
        text.append(f"\n  {summary.kind:<12}", style="bold")
        text.append(f" {_counts(summary)}: kept")
    return text


class ScrubDialog(ModalScreen[None]):
    """Check a trace for identifying data and write a scrubbed copy to share."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "write", "Write the scrubbed copy"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, trace_path: Path, *, served: bool = False) -> None:
        """`served`: a browser's app, which writes the copy only next to the
        trace under a fresh name (its user is not the host's: no path is asked)."""
        super().__init__()
        self.trace_path = trace_path
        self.served = served
        self.checking = False
        self.writing = False
        self.check_report: CheckReport | None = None
        self.scrub_report: ScrubReport | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scrub-box", classes="dialog"):
            yield Static(
                Text.assemble(
                    ("Share a scrubbed copy of ", "bold"),
                    printable(str(self.trace_path)),
                ),
                markup=False,
            )
            yield Static("", id="scrub-status", markup=False)
            yield ProgressBar(
                total=None, show_eta=False, show_percentage=False, id="scrub-progress"
            )
            yield Static("", id="scrub-findings", markup=False)
            with Horizontal(id="scrub-options"):
                yield Checkbox("Rename free-form zones", compact=True, id="scrub-zones")
                yield Checkbox(
                    "Drop input shapes and values", compact=True, id="scrub-shapes"
                )
            if self.served:
                yield Label(
                    "Copy to: next to the trace, under a fresh name "
                    "(a served app writes nowhere else)"
                )
                yield Static(
                    printable(str(fresh_copy_path(self.trace_path))),
                    id="scrub-output-shown",
                    markup=False,
                )
            else:
                yield Label("Copy to (never overwritten)")
                yield Input(
                    str(fresh_copy_path(self.trace_path)),
                    compact=True,
                    id="scrub-output",
                )
            yield Static("", id="scrub-result", classes="hidden", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    "Write copy (Ctrl+S)",
                    id="scrub-write",
                    variant="primary",
                    compact=True,
                )
                yield Button("Close (Esc)", id="scrub-close", compact=True)

    def on_mount(self) -> None:
        if self.served:
            self.query_one("#scrub-write", Button).focus()
        else:
            self.query_one("#scrub-output", Input).focus()
        self.start_check()

    # -- state shown -----------------------------------------------------------

    def options(self) -> ScrubOptions:
        """The options the checkboxes say."""
        return ScrubOptions(
            zones=self.query_one("#scrub-zones", Checkbox).value,
            shapes=self.query_one("#scrub-shapes", Checkbox).value,
        )

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#scrub-status", Static)
        status.update(Text(text))
        status.set_class(error, "error")

    def _busy(self) -> None:
        """The progress bar shows while a check or a write runs."""
        self.query_one(ProgressBar).set_class(
            not (self.checking or self.writing), "hidden"
        )
        if self.writing:
            self._status("writing…")
        elif self.checking:
            self._status("checking…")

    # -- checking --------------------------------------------------------------

    def start_check(self) -> None:
        """Check again with the current options."""
        self.checking = True
        self._busy()
        self.check(self.options())

    @work(thread=True, exclusive=True, exit_on_error=False, group="scrub-check")
    def check(self, options: ScrubOptions) -> None:
        """List what identifies people or places; a superseded check posts nothing."""
        try:
            report = check_file(self.trace_path, options)
        except EXPECTED_ERRORS as error:
            if not get_current_worker().is_cancelled:
                self.post_message(ScrubFailed("check", one_line(error)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(ScrubChecked(report))

    def on_scrub_checked(self, message: ScrubChecked) -> None:
        if message.report.options != self.options():
            return
        self.checking = False
        self._busy()
        report = self.check_report = message.report
        if report.clean:
            self._status("Clean: nothing in this trace identifies people or places.")
        else:
            self._status(
                f"Found {_plural(len(report.kinds), 'kind')} of identifying data;"
                " the copy replaces what is marked replaced."
            )
        self.query_one("#scrub-findings", Static).update(check_text(report))

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.start_check()

    # -- writing ---------------------------------------------------------------

    def action_write(self) -> None:
        """Write the copy, refusing a path that exists; a served app's goes
        next to the trace under the first free name, taken now."""
        if self.writing:
            return
        if self.served:
            destination = fresh_copy_path(self.trace_path)
            self.query_one("#scrub-output-shown", Static).update(
                printable(str(destination))
            )
            self._start_write(destination)
            return
        value = self.query_one("#scrub-output", Input).value.strip()
        if not value:
            self._status("Type where to write the copy.", error=True)
            return
        destination = Path(value).expanduser()
        if os.path.lexists(destination):
            self._status(
                f"{printable(str(destination))} already exists: not overwritten.",
                error=True,
            )
            return
        self._start_write(destination)

    def _start_write(self, destination: Path) -> None:
        self.writing = True
        self.query_one("#scrub-result", Static).add_class("hidden")
        self._busy()
        self.write(destination, self.options())

    @work(thread=True, exclusive=True, exit_on_error=False, group="scrub-write")
    def write(self, destination: Path, options: ScrubOptions) -> None:
        """Write the scrubbed copy; never over an existing file."""
        try:
            report = scrub_file(self.trace_path, destination, options)
        except EXPECTED_ERRORS as error:
            self.post_message(ScrubFailed("write", one_line(error)))
            return
        self.post_message(ScrubWritten(report))

    def on_scrub_written(self, message: ScrubWritten) -> None:
        self.writing = False
        self._busy()
        self.scrub_report = message.report
        self._status("Copy written; what it no longer holds is listed below.")
        result = self.query_one("#scrub-result", Static)
        result.update(scrub_text(message.report))
        result.remove_class("hidden")

    # -- failures and closing --------------------------------------------------

    def on_scrub_failed(self, message: ScrubFailed) -> None:
        self._failed(message.stage, message.reason)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """An unexpected error in a worker is shown as one line, like the others."""
        worker = event.worker
        if event.state != WorkerState.ERROR or worker.is_cancelled:
            return
        stage = "check" if worker.group == "scrub-check" else "write"
        reason = one_line(worker.error) if worker.error is not None else "failed"
        self._failed(stage, reason)

    def _failed(self, stage: str, reason: str) -> None:
        if stage == "check":
            self.checking = False
        else:
            self.writing = False
        self._busy()
        self._status(f"Could not {stage}: {reason}", error=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_write()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "scrub-write":
            self.action_write()
        else:
            self.action_close()

    def action_close(self) -> None:
        self.dismiss(None)

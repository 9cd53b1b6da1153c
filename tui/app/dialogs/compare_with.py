"""Ask for the capture to compare the open one with: a path, completed as typed.

Relative paths start from the open trace's folder; Tab (or →) takes the
completion shown, whole; an edit clears the last refusal. A path that is missing, a folder or unreadable is refused with a
clear line, and the dialog stays open.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from tui.core.base.textsafe import printable

TRACE_ENDINGS = (".json", ".json.gz", ".gz")
NOTES_MARK = ".notes."
LISTED_AT_MOST = 2000


def resolve_in(folder: Path, typed: str) -> Path:
    """Where a typed path leads: `~` expanded, relative paths from `folder`."""
    path = Path(os.path.expanduser(typed.strip()))
    return path if path.is_absolute() else folder / path


def _rank(name: str, is_dir: bool) -> tuple[int, str]:
    """Traces first, then folders, then other files; by name within each."""
    if is_dir:
        return 1, name
    trace = name.endswith(TRACE_ENDINGS) and NOTES_MARK not in name
    return (0 if trace else 2), name


def complete_path(folder: Path, typed: str) -> str | None:
    """`typed` completed with the name of an existing entry (a folder ends in `/`).

    One match: that entry; several: their longest common beginning when it is
    longer than what was typed, else the first (traces first). None without a
    match or when the folder cannot be read.
    """
    head, _, prefix = typed.rpartition("/")
    where = resolve_in(folder, head + "/") if head or typed.startswith("/") else folder
    matches: list[tuple[tuple[int, str], bool]] = []
    try:
        with os.scandir(where) as entries:
            for count, entry in enumerate(entries):
                if count >= LISTED_AT_MOST:
                    break
                name = entry.name
                if not name.startswith(prefix) or (
                    name.startswith(".") and not prefix.startswith(".")
                ):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                matches.append((_rank(name, is_dir), is_dir))
    except OSError:
        return None
    if not matches:
        return None
    matches.sort()
    names = [rank[1] for rank, _ in matches]
    before = typed[: len(typed) - len(prefix)]
    if len(matches) == 1:
        (_, name), is_dir = matches[0]
        return before + name + ("/" if is_dir else "")
    common = names[0]
    for name in names[1:]:
        while not name.startswith(common):
            common = common[:-1]
    if len(common) > len(prefix):
        return before + common
    (_, name), is_dir = matches[0]
    return before + name + ("/" if is_dir else "")


def suggest_path(folder: Path, typed: str) -> str | None:
    """The completion shown and taken by Tab: `complete_path` again until it
    stops growing or names a folder. A common beginning alone (`seed_long.`)
    would show the rest as a suggestion that is not text (Enter: no such file)."""
    suggestion = complete_path(folder, typed)
    for _ in range(16):
        if suggestion is None or suggestion.endswith("/"):
            break
        longer = complete_path(folder, suggestion)
        if longer is None or longer == suggestion:
            break
        suggestion = longer
    return suggestion


def capture_problem(path: Path) -> str | None:
    """Why `path` cannot be compared with (one line), or None when it can be read."""
    if path.is_dir():
        return "is a folder: give one trace file"
    if not path.exists():
        return "no such file"
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    return None


def inside(folder: Path, path: Path) -> bool:
    """Whether `path`, links and `..` resolved, lies in `folder` itself."""
    try:
        return path.resolve().parent == folder.resolve()
    except OSError:
        return False


class PathSuggester(Suggester):
    """Completes paths from the open trace's folder."""

    def __init__(self, folder: Path) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.folder = folder

    async def get_suggestion(self, value: str) -> str | None:
        """The completion of what is typed, if any entry matches."""
        return suggest_path(self.folder, value) if value else None


class CompareWithDialog(ModalScreen[Path | None]):
    """Which capture to compare the open one with (the open one is *before*)."""

    CSS_PATH = Path(__file__).parent.parent / "comparison.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete the path", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, trace: Path, *, confined: bool = False) -> None:
        """`confined`: only captures inside the trace's folder (a served app
        must not become a way to read any file of the server)."""
        super().__init__()
        self.trace = trace
        self.folder = trace.resolve().parent
        self.confined = confined

    def compose(self) -> ComposeResult:
        with Vertical(id="compare-box", classes="dialog"):
            title = Text("Compare ", style="bold")
            title.append(printable(self.trace.name))
            title.append(" (before) with another capture (after)")
            yield Static(title, markup=False)
            yield Static(
                Text.assemble(
                    ("from ", "italic"), printable(str(self.folder)), ("/", "")
                ),
                markup=False,
            )
            yield Input(
                placeholder="path of the other trace (.json or .json.gz)",
                suggester=PathSuggester(self.folder),
                id="compare-path",
            )
            yield Static("", id="compare-problem", markup=False)
            yield Static(
                Text("Enter: compare   Tab: complete   Esc: cancel", style="italic"),
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_complete(self) -> None:
        """Take the completion shown (as → at the end of the path does), whole:
        computed again, not read from the field (in a burst of keys the
        suggestion may not be shown yet)."""
        field = self.query_one(Input)
        completed = suggest_path(self.folder, field.value) if field.value else None
        if completed and completed != field.value:
            field.value = completed
            field.cursor_position = len(completed)

    def on_input_changed(self, event: Input.Changed) -> None:
        """An edited path is a new question: the last refusal goes."""
        event.stop()
        self.query_one("#compare-problem", Static).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        problem = self.query_one("#compare-problem", Static)
        if not typed:
            problem.update(Text("Type the path of the other capture.", style="bold"))
            return
        path = resolve_in(self.folder, typed)
        reason = capture_problem(path)
        if reason is None and self.confined and not inside(self.folder, path):
            reason = (
                "outside the trace's folder: a served app compares only captures "
                "that sit beside the open one"
            )
        if reason is not None:
            problem.update(
                Text.assemble((printable(typed), "bold"), f": {printable(reason)}")
            )
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        """Close without comparing."""
        self.dismiss(None)

"""The comparison's `l`: record it as the result of an open note of the before
capture ("tested by"), saved by that capture's notes keeper off the UI thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from tui.app.dialogs.tested_by import TestedByDialog
from tui.app.screens.comparison_data import Comparison
from tui.app.screens.notes_keeper import NotesKeeper
from tui.core.base.textsafe import printable
from tui.notes.model import Status


def link(
    app: App[Any], keeper: NotesKeeper, before: Path, comparison: Comparison
) -> None:
    """Ask which open note of the capture at `before` (kept by `keeper`) the
    comparison tests, then record it."""
    from tui.notes.tested_by import tested_by_of
    from tui.report.diff import mechanism_title
    from tui.report.notes import tested_by_text

    if keeper.store is None:
        app.notify("Notes are unavailable for the before capture.", severity="warning")
        return
    notes = [note for note in keeper.notes.values() if note.status is Status.OPEN]
    if not notes:
        app.notify(
            "No open note in the before capture: write one there first "
            "(Esc, then m on what the hypothesis is about).",
            severity="warning",
        )
        return
    after = comparison.after.path
    preview = tested_by_text(
        tested_by_of(comparison.diff, after, before, title=mechanism_title)
    )

    def chosen(note_id: str | None) -> None:
        if note_id is not None:
            record(keeper, comparison, note_id)

    app.push_screen(TestedByDialog(notes, printable(Path(after).name), preview), chosen)


def record(keeper: NotesKeeper, comparison: Comparison, note_id: str) -> None:
    """Record the diff in the note's result, and save, off the UI thread."""
    from tui.report.notes import tested_by_text

    diff = comparison.diff
    after = comparison.after.path

    def link_note(store: Any) -> str:
        from tui.notes.hashing import sha256_file
        from tui.notes.tested_by import record_tested_by
        from tui.report.diff import mechanism_title

        try:
            sha256: str | None = sha256_file(after)
        except OSError:
            sha256 = None
        note = record_tested_by(
            store, note_id, diff, after, after_sha256=sha256, title=mechanism_title
        )
        tested = note.result.tested_by if note.result is not None else None
        said = tested_by_text(tested) if tested is not None else ""
        return f"Note {note.short_id} tested by {after.name}: {said}"

    keeper.run(link_note)

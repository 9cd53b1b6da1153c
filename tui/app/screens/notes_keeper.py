"""The main screen's notes: open the sidecar store, write, edit, change status,
delete with confirmation, and save, keeping the notes pane in step.

Kept apart from the screen so navigation and note keeping stay readable; the
screen still decides what a new note is anchored to and how to jump to it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.screen import Screen

from tui.app.dialogs.confirm import ConfirmDialog
from tui.app.dialogs.note_form import NoteDraft, NoteForm
from tui.app.widgets.notes_pane import NotesPane
from tui.core.textsafe import printable

STATUS_CYCLE = ("open", "confirmed", "refuted", "dropped")
EMPTY = "no notes yet: m writes one on the current selection (a in this list)"


class NotesKeeper:
    """Owns the capture's NotesStore for one main screen."""

    def __init__(self, screen: Screen[Any], pane: NotesPane, trace_path: Path) -> None:
        self.screen = screen
        self.pane = pane
        self.trace_path = trace_path
        self.store: Any = None

    def open(self) -> bool:
        """Load the notes; False (and a line in the pane) when they cannot be read."""
        from tui.notes import NotesError, NotesStore

        try:
            self.store = NotesStore.open(self.trace_path)
        except (NotesError, OSError) as error:
            self.store = None
            self.pane.show_notes([], f"notes unavailable: {printable(str(error))}")
            return False
        for problem in self.store.problems:
            self.screen.notify(printable(problem), severity="warning", markup=False)
        self.refresh()
        return True

    def trace_hashed(self, sha256: str) -> None:
        """Warn when the trace changed since the notes were written."""
        if self.store is not None and self.store.set_trace_sha256(sha256):
            self.screen.notify(
                "The trace changed since these notes were written.",
                severity="warning",
            )

    def refresh(self) -> None:
        """Show the live notes in the pane."""
        if self.store is not None:
            self.pane.show_notes(self.store.notes, EMPTY)

    def save(self) -> None:
        """Merge and write the sidecar; say where when it had to fall back."""
        from tui.notes import NotesError

        try:
            result = self.store.save()
        except (NotesError, OSError) as error:
            self.screen.notify(
                f"notes not saved: {printable(str(error))}",
                severity="error",
                markup=False,
            )
        else:
            if result.fell_back:
                self.screen.notify(
                    f"notes saved to {printable(str(result.path))}", markup=False
                )
        self.refresh()

    def write(self, anchor: Any, label: str, draft: NoteDraft) -> None:
        """Ask for a new note on `anchor` and save it."""
        if self.store is None:
            self.screen.notify(
                "Notes are unavailable for this capture.", severity="warning"
            )
            return

        def saved(result: NoteDraft | None) -> None:
            if result is None:
                return
            self.store.add(
                result.hypothesis,
                observation=result.observation,
                next_check=result.next_check,
                anchor=anchor,
                status=result.status,
            )
            self.save()
            self.screen.notify("Note saved.")

        self.screen.app.push_screen(NoteForm(label, draft), saved)

    def act(
        self, action: str, note_id: str | None, jump: Callable[[Any], None]
    ) -> None:
        """Edit, cycle the status of, delete or jump to one note."""
        store = self.store
        if store is None or note_id is None:
            return
        note = store.get(note_id)
        if action == "edit":

            def edited(result: NoteDraft | None) -> None:
                if result is not None:
                    store.update(
                        note.id,
                        hypothesis=result.hypothesis,
                        observation=result.observation,
                        next_check=result.next_check,
                        status=result.status,
                    )
                    self.save()

            label = note.anchor.describe() if note.anchor else "the capture"
            # Notes may come from someone else's sidecar: escapes stay visible.
            draft = NoteDraft(
                printable(note.hypothesis),
                printable(note.observation),
                printable(note.next_check),
                note.status,
            )
            self.screen.app.push_screen(NoteForm(label, draft), edited)
        elif action == "status":
            position = STATUS_CYCLE.index(note.status)
            store.update(
                note.id, status=STATUS_CYCLE[(position + 1) % len(STATUS_CYCLE)]
            )
            self.save()
        elif action == "delete":

            def confirmed(answer: bool | None) -> None:
                if answer:
                    store.delete(note.id)
                    self.save()

            question = Text("Delete the note ")
            question.append(printable(note.hypothesis[:60]), style="bold")
            question.append("?")
            self.screen.app.push_screen(ConfirmDialog(question), confirmed)
        elif action == "jump" and note.anchor is not None:
            jump(note.anchor)

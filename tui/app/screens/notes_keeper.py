"""The main screen's notes: write, edit, change status, delete with confirmation,
remember the data zone, and save, keeping the notes pane in step.

Every touch of the store runs in a worker thread, one at a time (a save may
wait for another session's lock and fsync); the pane shows the notes each job
posts back. Kept apart from the screen so navigation stays readable; the
screen still decides what a new note is anchored to and how to jump to it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message
from textual.screen import Screen

from tui.app.dialogs.confirm import ConfirmDialog
from tui.app.dialogs.note_form import NoteDraft, NoteForm
from tui.app.screens.kept_dialogs import KeptDialogs
from tui.app.widgets.notes_pane import NoteCommand, NotesPane
from tui.core.base.textsafe import printable
from tui.notes.model import STATUSES

if TYPE_CHECKING:
    from tui.notes import Note

EMPTY = "no notes yet: m writes one on the current selection (a in this list)"

# A job changes the store and says what to tell the user (None: nothing).
Job = Callable[[Any], str | None]


@dataclass
class NotesUpdated(Message):
    """A notes job ran (edit, save, hash): the notes now, and what to tell."""

    notes: list[Note]
    notice: str | None = None
    error: str | None = None


class NotesKeeper:
    """Owns the capture's NotesStore for one main screen."""

    def __init__(
        self,
        screen: Screen[Any],
        trace_path: Path,
        store: Any,
        problem: str | None,
        dialogs: KeptDialogs,
    ) -> None:
        """`dialogs`: where the note form is kept (built once, shown again)."""
        self.screen = screen
        self.dialogs = dialogs
        self.pane: NotesPane | None = None
        """Where the notes show, once the screen is mounted (`open`)."""
        self.trace_path = trace_path
        self.store = store
        self.problem = problem
        self.notes: dict[str, Any] = {}
        self._lock = threading.Lock()

    def open(self, pane: NotesPane) -> None:
        """Show the notes read by the load worker in `pane`, say what was wrong,
        hash the trace."""
        self.pane = pane
        if self.store is None:
            pane.show_notes(
                [], f"notes unavailable: {printable(self.problem or 'unknown')}"
            )
            return
        for problem in self.store.problems:
            self.screen.notify(printable(problem), severity="warning", markup=False)
        self._show(list(self.store.notes))
        self.screen.run_worker(
            self._hash, thread=True, group="notes-hash", exit_on_error=False
        )

    def _hash(self) -> None:
        """Hash the trace file so the notes can tell if it changed (off the UI)."""
        digest = hashlib.sha256()
        try:
            with open(self.trace_path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            return
        sha256 = digest.hexdigest()

        def record(store: Any) -> str | None:
            if store.set_trace_sha256(sha256):
                return "The trace changed since these notes were written."
            return None

        self._job(record, save=False)

    def run(self, job: Job, *, save: bool = True) -> None:
        """Run `job` on the store then save, in a worker, after any job before it."""
        if self.store is None:
            self.screen.notify(
                "Notes are unavailable for this capture.", severity="warning"
            )
            return
        self.screen.run_worker(
            lambda: self._job(job, save=save),
            thread=True,
            group="notes",
            exit_on_error=False,
        )

    def _job(self, job: Job, *, save: bool) -> None:
        from tui.notes import NotesError

        store = self.store
        notice: str | None = None
        error: str | None = None
        with self._lock:
            try:
                notice = job(store)
                if save:
                    result = store.save()
                    if result.fell_back:
                        notice = f"notes saved to {result.path}"
            except (NotesError, OSError) as failure:
                error = f"notes not saved: {failure}"
            notes = list(store.notes)
        self.screen.post_message(NotesUpdated(notes, notice, error))

    def updated(self, message: NotesUpdated) -> None:
        """A job ended: show the notes, and what it had to say."""
        self._show(message.notes)
        if message.error:
            self.screen.notify(printable(message.error), severity="error", markup=False)
        elif message.notice:
            self.screen.notify(printable(message.notice), markup=False)

    def _show(self, notes: list[Any]) -> None:
        self.notes = {note.id: note for note in notes}
        if self.pane is not None:
            self.pane.show_notes(notes, EMPTY)

    def remember_zone(self, names: Sequence[str]) -> None:
        """Keep the data zone chosen for this trace in its notes file."""
        if self.store is not None:
            self.run(lambda store: store.set_zone(list(names)) and None)

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

            def add(store: Any) -> str:
                store.add(
                    result.hypothesis,
                    observation=result.observation,
                    next_check=result.next_check,
                    anchor=anchor,
                    status=result.status,
                )
                return "Note saved."

            self.run(add)

        self.screen.app.push_screen(self._form(label, draft), saved)

    def _form(self, label: str, draft: NoteDraft) -> NoteForm:
        """The note form, showing `draft` on `label`."""
        form = self.dialogs.get(NoteForm, lambda: NoteForm(label, draft))
        form.reset(label, draft)
        return form

    def act(
        self, action: NoteCommand, note_id: str | None, jump: Callable[[Any], None]
    ) -> None:
        """Edit, cycle the status of, delete or jump to one note."""
        note = self.notes.get(note_id or "")
        if self.store is None or note is None:
            return
        if action is NoteCommand.EDIT:

            def edited(result: NoteDraft | None) -> None:
                if result is not None:
                    self.run(
                        lambda store: (
                            store.update(
                                note.id,
                                hypothesis=result.hypothesis,
                                observation=result.observation,
                                next_check=result.next_check,
                                status=result.status,
                            )
                            and None
                        )
                    )

            label = note.anchor.describe() if note.anchor else "the capture"
            # Notes may come from someone else's sidecar: escapes stay visible.
            draft = NoteDraft(
                printable(note.hypothesis),
                printable(note.observation),
                printable(note.next_check),
                note.status,
            )
            self.screen.app.push_screen(self._form(label, draft), edited)
        elif action is NoteCommand.STATUS:

            def cycle(store: Any) -> None:
                current = store.get(note.id).status
                position = STATUSES.index(current)
                store.update(note.id, status=STATUSES[(position + 1) % len(STATUSES)])

            self.run(cycle)
        elif action is NoteCommand.DELETE:

            def confirmed(answer: bool | None) -> None:
                if answer:
                    self.run(lambda store: store.delete(note.id) and None)

            question = Text("Delete the note ")
            question.append(printable(note.hypothesis[:60]), style="bold")
            question.append("?")
            self.screen.app.push_screen(ConfirmDialog(question), confirmed)
        elif action is NoteCommand.JUMP and note.anchor is not None:
            jump(note.anchor)

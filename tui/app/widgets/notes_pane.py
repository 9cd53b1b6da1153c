"""The notes pane: the capture's hypotheses with their status, anchor and observation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.core.base.textsafe import printable
from tui.core.base.vocab import Word
from tui.notes import Note
from tui.notes.model import Status
from tui.report.notes import tested_by_text

STATUS_STYLE = {
    Status.OPEN: "bold",
    Status.CONFIRMED: "bold underline",
    Status.REFUTED: "strike",
    Status.DROPPED: "dim",
}


def note_text(note: Note) -> Text:
    """Status, anchor and hypothesis of one note, then what was observed, the
    next check and the result when written (user text stays text)."""
    text = Text()
    text.append(f"[{note.status}]", style=STATUS_STYLE[note.status])
    text.append(" ")
    if note.anchor is not None:
        text.append(printable(note.anchor.describe()), style="italic")
        text.append(": ")
    text.append(printable(note.hypothesis or "(no hypothesis)"))
    if note.observation:
        text.append("\n  observation: ", style="italic")
        text.append(printable(note.observation))
    if note.next_check:
        text.append("\n  next check: ", style="italic")
        text.append(printable(note.next_check))
    if note.result is not None and note.result.text:
        text.append("\n  result: ", style="italic")
        text.append(printable(note.result.text))
    tested = note.result.tested_by if note.result is not None else None
    if tested is not None:
        text.append("\n  tested by ", style="italic")
        text.append(printable(tested.path), style="underline")
        text.append(": ")
        text.append(printable(tested_by_text(tested)), style="bold")
    return text


class NoteCommand(Word):
    """What a key of the notes pane asks the screen to do with a note."""

    ADD = "add"
    EDIT = "edit"
    STATUS = "status"
    DELETE = "delete"
    JUMP = "jump"


@dataclass
class NoteAction(Message):
    """The notes pane asks the screen to add, edit, cycle status, delete or jump."""

    action: NoteCommand
    note_id: str | None


class NotesPane(OptionList):
    """Notes of this capture; keys edit them, Enter jumps to the anchor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "note('add')", "Add note"),
        Binding("e", "note('edit')", "Edit note"),
        Binding("s", "note('status')", "Next status"),
        Binding("delete,x", "note('delete')", "Delete note"),
        Binding("enter", "note('jump')", "Jump to anchor", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.note_ids: list[str] = []

    def show_notes(self, notes: list[Note], empty: str) -> None:
        """Replace the list; `empty` explains what to do when there are none."""
        keep = self.highlighted
        self.clear_options()
        self.note_ids = [note.id for note in notes]
        if notes:
            self.add_options([Option(note_text(note), id=note.id) for note in notes])
            self.highlighted = 0 if keep is None else min(keep, len(notes) - 1)
        else:
            self.add_option(Option(Text(empty, style="italic"), disabled=True))

    @property
    def current_id(self) -> str | None:
        """The highlighted note's id."""
        if self.highlighted is None or self.highlighted >= len(self.note_ids):
            return None
        return self.note_ids[self.highlighted]

    def action_note(self, action: str) -> None:
        """Ask the screen to act on the highlighted note (`action`: a `NoteCommand`)."""
        self.post_message(NoteAction(NoteCommand(action), self.current_id))

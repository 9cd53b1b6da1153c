"""The note form: a hypothesis on the current selection, its observation,
next check and status."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from tui.app.widgets.form_field import FormField
from tui.core.base.textsafe import printable
from tui.notes.model import STATUSES, Status


@dataclass(frozen=True)
class NoteDraft:
    """What the form gives back; the screen turns it into a stored note."""

    hypothesis: str
    observation: str
    next_check: str
    status: Status


FIELDS: tuple[tuple[str, Callable[[NoteDraft], str]], ...] = (
    ("#note-hypothesis", lambda draft: draft.hypothesis),
    ("#note-observation", lambda draft: draft.observation),
    ("#note-next-check", lambda draft: draft.next_check),
)
"""The form's text fields and what each shows of a draft."""


class NoteForm(ModalScreen[NoteDraft | None]):
    """Write or edit a note; Tab and Enter go to the next field (in a burst of
    keys too), Ctrl+S saves, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save note"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, anchor_label: str, draft: NoteDraft) -> None:
        super().__init__()
        self.anchor_label = anchor_label
        self.draft = draft

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            yield Static(self._title(), id="note-title", markup=False)
            yield Label("Hypothesis")
            yield FormField(self.draft.hypothesis, compact=True, id="note-hypothesis")
            yield Label("Observation")
            yield FormField(self.draft.observation, compact=True, id="note-observation")
            yield Label("Next check")
            yield FormField(self.draft.next_check, compact=True, id="note-next-check")
            yield Label("Status")
            yield Select(
                [(status.value, status) for status in STATUSES],
                value=self.draft.status,
                allow_blank=False,
                compact=True,
                id="note-status",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    "Save (Ctrl+S)", id="note-save", variant="primary", compact=True
                )
                yield Button("Cancel (Esc)", id="note-cancel", compact=True)

    def _title(self) -> Text:
        return Text.assemble(("Note on ", "bold"), printable(self.anchor_label))

    def reset(self, anchor_label: str, draft: NoteDraft) -> None:
        """Show the form again for another note (a form kept and shown again)."""
        self.anchor_label = anchor_label
        self.draft = draft
        if not self.is_mounted:
            return  # compose reads them
        self.query_one("#note-title", Static).update(self._title())
        for field_id, value in FIELDS:
            field = self.query_one(field_id, Input)
            field.value = value(draft)
            field.cursor_position = len(field.value)
        self.query_one("#note-status", Select).value = draft.status
        self.set_focus(self.query_one("#note-hypothesis", Input))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "note-save":
            self.action_save()
        else:
            self.action_cancel()

    def action_save(self) -> None:
        hypothesis = self.query_one("#note-hypothesis", Input).value.strip()
        if not hypothesis:
            self.notify("A note needs a hypothesis.", severity="warning")
            self.query_one("#note-hypothesis", Input).focus()
            return
        status = self.query_one("#note-status", Select).value
        self.dismiss(
            NoteDraft(
                hypothesis,
                self.query_one("#note-observation", Input).value.strip(),
                self.query_one("#note-next-check", Input).value.strip(),
                status if isinstance(status, Status) else Status.OPEN,
            )
        )

    def action_cancel(self) -> None:
        self.dismiss(None)

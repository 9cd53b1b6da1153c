"""Choose which open note of the before capture the after capture tested.

The dialog shows what will be recorded (the diff's verdict, both windows'
median and range, the comparability warnings — worded by the notes report, so
it reads as it will in the notes and the report) and lists the open notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.app.widgets.notes_pane import note_text
from tui.core.base.textsafe import printable
from tui.notes import Note


class TestedByDialog(ModalScreen[str | None]):
    """Pick a hypothesis; Enter links it to the other capture, Esc cancels."""

    CSS_PATH = Path(__file__).parent.parent / "comparison.tcss"

    __test__ = False  # not a pytest class, whatever its name

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Link the highlighted note", show=False),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, notes: Sequence[Note], after_name: str, preview: str) -> None:
        """`notes`: the open notes; `preview`: the words the link will record."""
        super().__init__()
        self.notes = list(notes)
        self.after_name = after_name
        self.preview = preview

    def compose(self) -> ComposeResult:
        with Vertical(id="tested-by-box", classes="dialog"):
            title = Text("Tested by ", style="bold")
            title.append(printable(self.after_name))
            title.append(": which hypothesis did this capture test?")
            yield Static(title, markup=False)
            said = Text("It records: ", style="italic")
            said.append(printable(self.preview))
            yield Static(said, id="tested-by-preview", markup=False)
            yield OptionList(
                *[Option(note_text(note), id=note.id) for note in self.notes],
                id="tested-by-notes",
                markup=False,
            )
            yield Static(
                Text("Enter: link   Esc: cancel", style="italic"), markup=False
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_choose(self) -> None:
        """Link the highlighted note."""
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(self.notes[options.highlighted].id)

    def action_cancel(self) -> None:
        """Close without linking."""
        self.dismiss(None)

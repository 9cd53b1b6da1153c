"""The figures of one row of a bottom tab (a kernel, a group of copies) in full:
names too long for a table column, and what the row's columns leave out."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.widgets.key_footer import KeyFooter


class FiguresScreen(ModalScreen[None]):
    """One row's figures, scrollable; Esc closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,v", "dismiss", "Close"),
        Binding("up", "scroll(-1)", "Scroll up", show=False),
        Binding("down", "scroll(1)", "Scroll down", show=False),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, title: str, figures: Text) -> None:
        """`figures` holds trace strings already escaped."""
        super().__init__()
        self.title_text = title
        self.figures = figures

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="figures-box"):
            yield Static(
                Text(self.title_text, style="bold underline"),
                markup=False,
            )
            yield Static(self.figures, id="figures-text", markup=False)
        yield KeyFooter()

    def action_scroll(self, lines: int) -> None:
        """Scroll the figures by lines."""
        box = self.query_one("#figures-box", VerticalScroll)
        box.scroll_relative(y=lines, animate=False)

    def action_help(self) -> None:
        """List this screen's keys."""
        from tui.app.screens.help import HelpScreen

        self.app.push_screen(HelpScreen([(self.title_text, self.BINDINGS)]))

"""The load-error screen: why the file could not be opened, in one clear line."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from tui.app.widgets.key_footer import KeyFooter
from tui.core.base.textsafe import printable


class LoadErrorScreen(Screen[None]):
    """Shows the path and the reason; Esc goes back when a capture is open, q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__()
        self.path = path
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(Text("Could not open this trace", style="bold"), markup=False)
            yield Static(
                Text.assemble(("file    ", "bold"), printable(str(self.path))),
                markup=False,
            )
            yield Static(
                Text.assemble(("reason  ", "bold"), printable(self.reason)),
                id="error-reason",
                markup=False,
            )
            yield Static(
                Text(
                    "steptrace reads PyTorch profiler (Kineto / Chrome trace) JSON,"
                    " plain or .gz. Esc goes back, q quits.",
                    style="italic",
                ),
                markup=False,
            )
        yield KeyFooter()

    def _capture_behind(self) -> bool:
        return len(self.app.screen_stack) > 2

    def action_quit(self) -> None:
        """Quit; the exit status says the file could not be opened."""
        self.app.exit(return_code=0 if self._capture_behind() else 2)

    def action_back(self) -> None:
        if self._capture_behind():
            self.dismiss(None)
        else:
            self.app.exit(return_code=2)

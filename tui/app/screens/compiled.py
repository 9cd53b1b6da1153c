"""torch.compile over the explorer: the compiled regions per step, the
compilations and the graph breaks, as `steptrace compiled` words them.

Opened with C from the main screen. Esc closes.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.widgets.key_footer import KeyFooter
from tui.core.results.compiled import CompiledResult
from tui.report.compiled import compiled_text

TITLE = "torch.compile"


class CompiledScreen(ModalScreen[None]):
    """The compiled regions, compilations and graph breaks; Esc closes."""

    DEFAULT_CSS = """
    CompiledScreen { align: center middle; background: $background; }
    #compiled-box {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; padding: 0 1; background: $surface;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,C", "dismiss", "Close"),
    ]

    def __init__(self, result: CompiledResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="compiled-box"):
            yield Static(Text(TITLE, style="bold underline"), markup=False)
            yield Static(Text(compiled_text(self.result)), markup=False, id="compiled")
        yield KeyFooter()

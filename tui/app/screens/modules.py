"""The model's modules over the explorer: the nn.Module tree of the window.

Opened with M from the main screen; the rows are `ModuleTreeView`, the figures
those of `steptrace modules`. Esc closes.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.module_tree import ModuleTreeView
from tui.core.figures.modules import ModuleTree

TITLE = "nn.Module tree"
MEANING = (
    "Per step of the window: a module's calls, its self time (what its child "
    "modules leave), its total and its backward time (the backward functions "
    "tied to its forward operators). Figures: steptrace modules."
)


class ModulesScreen(ModalScreen[None]):
    """The module tree, folded and sorted in place; Esc closes."""

    DEFAULT_CSS = """
    ModulesScreen { align: center middle; background: $background; }
    #modules-box {
        width: 95%; max-width: 120; height: 90%;
        border: round $primary; padding: 0 1; background: $surface;
    }
    #modules-box > ModuleTreeView { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,M", "dismiss", "Close"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, tree: ModuleTree) -> None:
        super().__init__()
        self.modules = tree

    def compose(self) -> ComposeResult:
        with Vertical(id="modules-box"):
            yield Static(Text(TITLE, style="bold underline"), markup=False)
            yield ModuleTreeView(self.modules, id="module-tree")
            yield Static(Text(MEANING, style="italic"), markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(ModuleTreeView).focus()

    def action_help(self) -> None:
        """List this screen's keys."""
        from tui.app.screens.help import HelpScreen

        self.app.push_screen(
            HelpScreen([(TITLE, [*self.BINDINGS, *ModuleTreeView.BINDINGS])])
        )

"""The step as TensorBoard shows it: each step's bar of parts, over the explorer.

Opened with B from the main screen; the bars are `StepSplitBars`, the figures
those of `steptrace summary`'s `step_breakdown`. Esc closes.
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
from tui.app.widgets.step_split_bars import StepSplitBars
from tui.core.figures.step_split import StepBreakdown

TITLE = "Step time as TensorBoard splits it"
MEANING = (
    "Each step here is TensorBoard's: the CPU-side step extended to the end of "
    "the device work it launched, so it can be longer than the CPU-side step "
    "the header's steps, the headline and the findings use. Where parts "
    "overlap, the first in the legend's order counts. Comm: nccl/gloo "
    "collectives; CPU Exec: other CPU operators; Other: none of these. "
    "Figures: steptrace summary."
)


class StepSplitScreen(ModalScreen[None]):
    """Each step's Kernel, Memcpy, … Other as a bar; Esc closes."""

    DEFAULT_CSS = """
    StepSplitScreen { align: center middle; background: $background; }
    #step-split-box {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; padding: 0 1; background: $surface;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,B", "dismiss", "Close"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, breakdown: StepBreakdown, current: int | None = None) -> None:
        """`current`: the step number the main screen is on (marked)."""
        super().__init__()
        self.breakdown = breakdown
        self.current = current

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="step-split-box"):
            yield Static(Text(TITLE, style="bold underline"), markup=False)
            yield StepSplitBars(self.breakdown, self.current, id="step-split-bars")
            yield Static(Text(MEANING, style="italic"), markup=False)
        yield KeyFooter()

    def action_help(self) -> None:
        """List this screen's keys."""
        from tui.app.screens.help import HelpScreen

        self.app.push_screen(HelpScreen([(TITLE, self.BINDINGS)]))

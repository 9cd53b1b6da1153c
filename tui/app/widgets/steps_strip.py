"""The steps strip: each step's duration, and median/min/max of the window."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from tui.core.analysis import Analysis, step_stats
from tui.core.report import format_duration_ns

CAVEAT = "few steps show the mechanism, not a distribution"


def _ms(nanoseconds: float) -> str:
    return f"{nanoseconds / 1e6:.1f}ms"


class StepsStrip(Widget):
    """Steps as cells (current one reversed) and the window's figures."""

    current: reactive[int | None] = reactive(None)

    def __init__(self, analysis: Analysis, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis = analysis

    def render(self) -> Text:
        steps = self.analysis.steps
        text = Text(no_wrap=True, overflow="ellipsis")
        if not steps:
            text.append("Steps ", style="bold")
            text.append("none: no ProfilerStep#N in this capture; ")
            text.append("figures cover the whole window", style="italic")
            return text
        text.append("Steps ", style="bold")
        for index, step in enumerate(steps):
            label = f"#{step.number} {_ms(step.duration_ns)}"
            if step.phase == "startup":
                label += " start-up"
            style = "reverse bold" if index == self.current else ""
            if step.phase == "startup":
                style += " italic"
            text.append(f" {label} ", style=style.strip())
            text.append("│", style="dim")
        text.append("\n")
        active = self.analysis.active_steps
        stats = step_stats([step.duration_ns for step in active])
        if stats is not None:
            text.append(f"{stats['count']} active: ", style="bold")
            text.append(
                f"median {format_duration_ns(stats['median_ns'])}"
                f"  min {format_duration_ns(stats['min_ns'])}"
                f"  max {format_duration_ns(stats['max_ns'])}  "
            )
        text.append(f"({CAVEAT})", style="italic")
        return text

"""The steps strip: each step's duration, and median/min/max of the window."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tui.core.base.units import duration_text
from tui.core.base.vocab import StepPhase
from tui.core.figures.analysis import Analysis

CAVEAT = "few steps show the mechanism, not a distribution"
STEPS_LABEL = "CPU-side steps "
"""The steps are ProfilerStep ranges on the host: `B` says TensorBoard's longer ones."""


@dataclass
class StepChosen(Message):
    """A step was chosen in the steps strip (index into Analysis.steps)."""

    index: int


def startup_text(analysis: Analysis) -> str:
    """Start-up figures from the capture description, kept apart from the window."""
    startup = analysis.trace.capture.startup
    parts = []
    if startup.before_first_step_ms is not None:
        parts.append(
            f"before first step {duration_text(startup.before_first_step_ms * 1e6)}"
        )
    for entry in startup.steps:
        parts.append(f"{entry.phase[:10]} {duration_text(entry.ms * 1e6)}")
    return ", ".join(parts)


class StepsStrip(Widget):
    """Steps as cells (current one reversed) and the window's figures."""

    current: reactive[int | None] = reactive(None)

    def __init__(self, analysis: Analysis, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis = analysis
        # (first cell, end cell, step index) of each step drawn on the first line.
        self._cells: list[tuple[int, int, int]] = []

    def render(self) -> Text:
        steps = self.analysis.steps
        text = Text(no_wrap=True, overflow="ellipsis")
        if not steps:
            text.append("Steps ", style="bold")
            text.append("none: no ProfilerStep#N in this capture; ")
            text.append("figures cover the whole window", style="italic")
            return text
        text.append(STEPS_LABEL, style="bold")
        self._cells = []
        # Only the cells that fit are built (a capture can hold thousands of
        # steps); the window slides so that the current step stays in view.
        width = max(self.size.width, 40)
        first = 0 if self.current is None else max(0, self.current - 3)
        position = text.cell_len
        if first > 0:
            text.append("… ", style="dim")
            position += 2
        for index in range(first, len(steps)):
            if position >= width:
                break
            step = steps[index]
            label = f"#{step.number} {duration_text(step.duration_ns)}"
            if step.phase is StepPhase.STARTUP:
                label += " start-up"
            style = "reverse bold" if index == self.current else ""
            if step.phase is StepPhase.STARTUP:
                style += " italic"
            cell = f" {label} "
            text.append(cell, style=style.strip())
            self._cells.append((position, position + len(cell), index))
            position += len(cell)
            text.append("│", style="dim")
            position += 1
        startup = startup_text(self.analysis)
        if startup:
            text.append(" start-up ", style="bold")
            text.append(startup, style="italic")
        text.append("\n")
        stats = self.analysis.step_stats()
        line = Text()
        if stats is not None:
            line.append(f"{stats.count} active: ", style="bold")
            line.append(
                f"median {duration_text(stats.median_ns)}"
                f"  min {duration_text(stats.min_ns)}"
                f"  max {duration_text(stats.max_ns)}"
            )
            samples = self.analysis.trace.capture.samples_per_step
            if samples and stats.median_ns > 0:
                rate = samples / (stats.median_ns / 1e9)
                line.append(f"  ({rate:,.0f} samples/s at the median)")
        caveat = f"({CAVEAT})"
        # The caveat gets its own line rather than being cut on narrow terminals.
        if line.cell_len + 2 + len(caveat) > max(self.size.width - 2, 20):
            line.append("\n")
        else:
            line.append("  ")
        line.append(caveat, style="italic")
        text.append_text(line)
        return text

    def on_click(self, event: events.Click) -> None:
        """A click on a step's cell chooses it (the keys are [ and ])."""
        if event.y != 0:
            return
        x = event.x - self.styles.padding.left
        for begin, end, index in self._cells:
            if begin <= x < end:
                self.post_message(StepChosen(index))
                return

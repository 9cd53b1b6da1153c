"""The header line: which capture, which question, which unit, what was observed."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tui.core.analysis import Analysis
from tui.core.results import gpu_missing_reason
from tui.core.textsafe import printable


def _text(value: Any) -> str:
    return printable(str(value))


def header_text(
    analysis: Analysis, *, served: bool = False, capture_allowed: bool = True
) -> Text:
    """Capture name, question, unit, window and GPU observed (or why not);
    first, when `served` (the app runs for a browser), a mark that says so."""
    trace = analysis.trace
    capture = trace.capture
    line = Text(no_wrap=False, overflow="ellipsis")
    if served:
        mark = " served, captures on " if capture_allowed else " served "
        line.append(mark, style="bold reverse")
        line.append(" ")
    line.append(_text(trace.path.name), style="bold")
    if capture.question:
        line.append("  Q: ", style="bold")
        line.append(_text(capture.question))
    samples = capture.samples_per_step
    unit = _text(capture.unit_name) + (f" ({samples} samples/step)" if samples else "")
    line.append("  unit ", style="bold")
    line.append(unit)
    steps = analysis.steps
    active = analysis.active_steps
    line.append("  window ", style="bold")
    if capture.window is not None:
        line.append(f"{capture.window.short()}, {len(steps)} steps")
    elif steps:
        line.append(f"{len(active)} active of {len(steps)} steps")
    else:
        line.append("no steps")
    if capture.scenario.inputs_simplified:
        line.append("  ")
        line.append("simplified inputs", style="italic underline")
    line.append("  ")
    if trace.gpu_observed:
        line.append(" GPU observed ", style="bold reverse")
    else:
        line.append(" GPU not observed ", style="bold reverse")
        line.append(" " + _text(gpu_missing_reason(trace) or ""), style="italic")
    return line


class HeaderLine(Static):
    """One or two lines on top of the main screen; texts from the trace stay text."""

    def __init__(self, analysis: Analysis, *, id: str | None = None) -> None:
        super().__init__(header_text(analysis), id=id, markup=False)
        self.analysis = analysis

    def on_mount(self) -> None:
        """Mark a served app (`steptrace serve`), so the user knows the mode."""
        if getattr(self.app, "served", False):
            self.update(
                header_text(
                    self.analysis,
                    served=True,
                    capture_allowed=getattr(self.app, "capture_allowed", False),
                )
            )

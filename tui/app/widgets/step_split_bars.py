"""TensorBoard's step split as bars: one line per step, then the average.

A Line-API widget over `StepBreakdown` (`tui.core.figures.step_split`): each
bar splits the step, extended to its device work, into Kernel, Memcpy,
Memset, Comm, Runtime, DataLoader, CPU Exec and Other, as torch-tb-profiler's
overview does; bars are as long as their steps against the longest. No trace
text is drawn: step numbers and figures only.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tui.core.figures.step_split import (
    PARTS,
    StepBreakdown,
    StepSplit,
    StepSplitAverage,
)
from tui.view.step_bars import (
    GLYPHS,
    LEGEND_ENTRIES,
    bar_cells,
    largest_parts_text,
    step_label,
    total_text,
)

BAR_WIDTH_MAX = 60
_LABEL_WIDTH = 7
_TOTAL_WIDTH = 9
# The label, the total and the spaces around them and after the bar.
_FIXED_WIDTH = _LABEL_WIDTH + 1 + _TOTAL_WIDTH + 1 + 1
# Room kept for the two largest parts' shares: `DataLoader 45% CPU Exec 30%`.
_SHARES_WIDTH = 27
_PART_CLASS = {part: f"step-split-bars--{part.replace('_', '-')}" for part in PARTS}


class StepSplitBars(Widget):
    """Each step's Kernel / Memcpy / … / Other, as a bar of cells."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "step-split-bars--header",
        "step-split-bars--current",
        "step-split-bars--dim",
        *_PART_CLASS.values(),
    }

    # Okabe-Ito colours (told apart with any colour vision); glyphs carry the parts.
    DEFAULT_CSS = """
    StepSplitBars { height: auto; }
    StepSplitBars > .step-split-bars--header { text-style: bold; }
    StepSplitBars > .step-split-bars--current { text-style: bold reverse; }
    StepSplitBars > .step-split-bars--dim { text-style: italic; }
    StepSplitBars > .step-split-bars--kernel { color: #0072b2; }
    StepSplitBars > .step-split-bars--memcpy { color: #cc79a7; }
    StepSplitBars > .step-split-bars--memset { color: #d55e00; }
    StepSplitBars > .step-split-bars--communication { color: #e69f00; }
    StepSplitBars > .step-split-bars--runtime { color: #f0e442; }
    StepSplitBars > .step-split-bars--dataloader { color: #009e73; }
    StepSplitBars > .step-split-bars--cpu-exec { color: #56b4e9; }
    StepSplitBars > .step-split-bars--other { color: #999999; }
    """

    def __init__(
        self,
        breakdown: StepBreakdown,
        current: int | None = None,
        *,
        id: str | None = None,
    ) -> None:
        """`current`: the step number to mark (the main screen's step)."""
        super().__init__(id=id)
        self.breakdown = breakdown
        self.current = current
        self.rows: list[StepSplit | StepSplitAverage] = list(breakdown.steps)
        if len(breakdown.steps) > 1:
            self.rows.append(breakdown.average)
        self.notes = _notes(breakdown)
        self._styles: LRUCache[str, Style] = LRUCache(64)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style + self.get_component_rich_style(name)
            self._styles[name] = style
        return style

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The legend (wrapped to `width`), a line per row, the notes."""
        return len(legend_lines(width)) + len(self.rows) + len(self.notes)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        legend = legend_lines(width)
        if y < len(legend):
            return Strip(
                [Segment(legend[y], self._style("step-split-bars--header"))]
            ).adjust_cell_length(width, base)
        index = y - len(legend)
        if index >= len(self.rows):
            note = index - len(self.rows)
            if note < len(self.notes):
                dim = self._style("step-split-bars--dim")
                return Strip([Segment(self.notes[note], dim)]).adjust_cell_length(
                    width, base
                )
            return Strip.blank(width, base)
        figures = self.rows[index]
        is_current = isinstance(figures, StepSplit) and figures.step == self.current
        label_style = self._style("step-split-bars--current") if is_current else base
        segments = [
            Segment(step_label(figures).rjust(_LABEL_WIDTH), label_style),
            Segment(f" {total_text(figures):>{_TOTAL_WIDTH}} ", base),
        ]
        bar_width = max(min(BAR_WIDTH_MAX, width - _FIXED_WIDTH - _SHARES_WIDTH), 10)
        longest = max(step.total_ns for step in self.breakdown.steps)
        used = 0
        for part, cells in bar_cells(figures, longest, bar_width):
            if cells:
                segments.append(
                    Segment(GLYPHS[part] * cells, self._style(_PART_CLASS[part]))
                )
                used += cells
        segments.append(
            Segment(" " * (bar_width - used) + " " + largest_parts_text(figures), base)
        )
        return Strip(segments).adjust_cell_length(width, base)


def legend_lines(width: int) -> list[str]:
    """The parts' glyphs and names, as many to a line as `width` holds."""
    lines: list[str] = []
    for entry in LEGEND_ENTRIES:
        if lines and len(lines[-1]) + 1 + len(entry) <= width:
            lines[-1] += " " + entry
        else:
            lines.append(entry)
    return lines


def _notes(breakdown: StepBreakdown) -> list[str]:
    """What shaped the steps, under the bars."""
    notes = []
    if not breakdown.device_observed:
        notes.append(
            "no kernel, copy or set in this capture: device parts not observed"
        )
    if breakdown.whole_capture:
        notes.append(
            "no ProfilerStep#N: the whole capture is one step, as TensorBoard does"
        )
    if breakdown.left_out_steps:
        numbers = ", ".join(str(number) for number in breakdown.left_out_steps)
        notes.append(
            f"left out, as TensorBoard does (device work not captured): {numbers}"
        )
    return notes

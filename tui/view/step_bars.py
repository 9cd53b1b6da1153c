"""TensorBoard's step split as bars of cells: one bar per step, one glyph per part.

Textual-free. A step's bar is as long, against the longest step's, as the
step is; its cells are shared out among the parts by largest remainder, so
each part that holds at least half a cell gets one and the bar is exactly as
wide as the step calls for. Each part has its own glyph, so a bar reads
without colour.
"""

from __future__ import annotations

from tui.core.base.units import duration_text
from tui.core.figures.step_split import PARTS, StepSplit, StepSplitAverage

GLYPHS = {
    "kernel": "█",
    "memcpy": "▓",
    "memset": "▒",
    "communication": "▚",
    "runtime": "▞",
    "dataloader": "▄",
    "cpu_exec": "▀",
    "other": "░",
}
NAMES = {
    "kernel": "Kernel",
    "memcpy": "Memcpy",
    "memset": "Memset",
    "communication": "Comm",
    "runtime": "Runtime",
    "dataloader": "DataLoader",
    "cpu_exec": "CPU Exec",
    "other": "Other",
}
LEGEND_ENTRIES = tuple(f"{GLYPHS[part]} {NAMES[part]}" for part in PARTS)
LEGEND = " ".join(LEGEND_ENTRIES)


def part_figures(figures: StepSplit | StepSplitAverage) -> list[tuple[str, float]]:
    """(part, ns) in priority order."""
    return [(part, float(getattr(figures, f"{part}_ns"))) for part in PARTS]


def bar_cells(
    figures: StepSplit | StepSplitAverage, longest_ns: float, width: int
) -> list[tuple[str, int]]:
    """(part, cells) in priority order: the bar is `width` cells for the longest
    step, as many fewer as the step is shorter."""
    parts = part_figures(figures)
    total = sum(ns for _, ns in parts)
    if width <= 0 or total <= 0 or longest_ns <= 0:
        return [(part, 0) for part, _ in parts]
    length = round(width * min(float(figures.total_ns) / longest_ns, 1.0))
    exact = [ns * length / total for _, ns in parts]
    cells = [int(value) for value in exact]
    by_remainder = sorted(
        range(len(parts)), key=lambda index: (-(exact[index] - cells[index]), index)
    )
    for index in by_remainder[: length - sum(cells)]:
        cells[index] += 1
    return [(part, count) for (part, _), count in zip(parts, cells, strict=True)]


def largest_parts_text(figures: StepSplit | StepSplitAverage, count: int = 2) -> str:
    """`Kernel 45% CPU Exec 30%`: the largest parts' shares of the step."""
    total = float(figures.total_ns)
    if total <= 0:
        return ""
    largest = sorted(part_figures(figures), key=lambda item: -item[1])[:count]
    return " ".join(
        f"{NAMES[part]} {100.0 * ns / total:.0f}%" for part, ns in largest if ns > 0
    )


def step_label(figures: StepSplit | StepSplitAverage) -> str:
    """The row's name: the step number, `all` for the whole capture, `average`."""
    if isinstance(figures, StepSplitAverage):
        return "average"
    return "all" if figures.step is None else str(figures.step)


def total_text(figures: StepSplit | StepSplitAverage) -> str:
    """The step's length as every duration reads."""
    return duration_text(figures.total_ns)

"""A rank's device time as a bar of cells: compute, communication, memory, other, idle.

Textual-free. Each part gets its own glyph, so the bar reads without
colour; cells are shared out by largest remainder, so a bar is exactly as
wide as asked and a part that takes any time gets a cell when it holds at
least half of one.
"""

from __future__ import annotations

from tui.core.figures.breakdown.split import PART_NAMES, DeviceSplit

GLYPHS = {
    "compute": "█",
    "communication": "▓",
    "memory": "▒",
    "other": "╳",
    "idle": "░",
}
SHORT = {
    "compute": "comp",
    "communication": "comm",
    "memory": "mem",
    "other": "other",
    "idle": "idle",
}
LEGEND = " ".join(f"{GLYPHS[name]} {name}" for name in PART_NAMES)


def bar_cells(split: DeviceSplit, width: int) -> list[tuple[str, int]]:
    """(part name, cells) in `PART_NAMES` order, adding up to `width`."""
    parts = split.parts()
    total = sum(ns for _, ns in parts)
    if width <= 0 or total <= 0:
        return [(name, 0) for name, _ in parts]
    exact = [ns * width / total for _, ns in parts]
    cells = [int(value) for value in exact]
    left = width - sum(cells)
    by_remainder = sorted(
        range(len(parts)), key=lambda index: (-(exact[index] - cells[index]), index)
    )
    for index in by_remainder[:left]:
        cells[index] += 1
    return [(name, count) for (name, _), count in zip(parts, cells, strict=True)]


def shares_text(split: DeviceSplit) -> str:
    """`comp 42% comm 30% idle 28%`: each part that takes time, in short."""
    return " ".join(
        f"{SHORT[name]} {split.share(ns):.0f}%" for name, ns in split.parts() if ns > 0
    )

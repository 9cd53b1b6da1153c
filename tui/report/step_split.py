"""TensorBoard's step split in words: one table, a row per step and the average.

All figures of the table share one unit (the one the longest step calls for),
so a row reads across and fits 80 columns with all eight parts.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.core.figures.step_split import (
    PARTS,
    StepBreakdown,
    StepSplit,
    StepSplitAverage,
)
from tui.core.results.step_split import DEVICE_PARTS
from tui.report.text import STEP_ROWS_SHOWN, fill, more_steps_line

HEADERS = {
    "kernel": "Kernel",
    "memcpy": "Memcpy",
    "memset": "Memset",
    "communication": "Comm",
    "runtime": "Runtime",
    "dataloader": "DataLoader",
    "cpu_exec": "CPU Exec",
    "other": "Other",
}
TITLE = "step time as TensorBoard splits it"
MEANING = (
    "where parts overlap, the first in the row's order counts (Comm: nccl/gloo "
    "collectives; CPU Exec: other CPU operators; Other: none of these)"
)
STEPS_ARE = (
    "steps: every ProfilerStep#N, start-up ones too, each ending with the device "
    "work it launched"
)
WHOLE_CAPTURE = "no ProfilerStep#N: the whole capture is one step, as TensorBoard does"
NO_DEVICE = "–: not observed, no kernel, copy or set in this capture"
_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3))
_NUMBER_WIDTH = 5
_STEP_WIDTH = 7


def _unit(breakdown: StepBreakdown) -> tuple[str, float]:
    """The unit the longest step calls for."""
    longest = max(step.total_ns for step in breakdown.steps)
    for name, scale in _UNITS:
        if longest >= scale:
            return name, scale
    return "µs", 1e3


def _figure(value_ns: float, scale: float) -> str:
    """At most 4 significant digits in the table's unit, no exponent."""
    value = value_ns / scale
    if value == 0:
        return "0"
    if value < 0.001:
        return "<0.001"
    return f"{value:.4g}" if value >= 1 else f"{value:.3f}"


def _cells(
    label: str,
    figures: StepSplit | StepSplitAverage,
    scale: float,
    device_observed: bool,
) -> list[str]:
    """The step label, the total and each part (– where not observed)."""
    cells = [label, _figure(figures.total_ns, scale)]
    for part in PARTS:
        observed = device_observed or part not in DEVICE_PARTS
        value = getattr(figures, f"{part}_ns")
        cells.append(_figure(value, scale) if observed else "–")
    return cells


def _rows(
    breakdown: StepBreakdown, scale: float
) -> tuple[list[list[str]], list[list[str]]]:
    """The first `STEP_ROWS_SHOWN` steps' rows, and the average's (over every step)."""
    observed = breakdown.device_observed
    rows = [
        _cells("all" if step.step is None else str(step.step), step, scale, observed)
        for step in breakdown.steps[:STEP_ROWS_SHOWN]
    ]
    average = (
        [_cells("average", breakdown.average, scale, observed)]
        if len(breakdown.steps) > 1
        else []
    )
    return rows, average


def _notes(breakdown: StepBreakdown) -> list[str]:
    """What the steps are, what the parts mean, and what shaped the figures."""
    notes = [WHOLE_CAPTURE if breakdown.whole_capture else STEPS_ARE, MEANING]
    if not breakdown.device_observed:
        notes.append(NO_DEVICE)
    if breakdown.left_out_steps:
        numbers = ", ".join(str(number) for number in breakdown.left_out_steps)
        notes.append(
            f"step(s) {numbers} left out, as TensorBoard does: too little of the "
            "device work they launched was captured"
        )
    return notes


def step_breakdown_lines(breakdown: StepBreakdown | None) -> list[str]:
    """The table for `summary` and the report's text (empty without a split)."""
    if breakdown is None or not breakdown.steps:
        return []
    unit, scale = _unit(breakdown)
    headers = ["step", "total", *(HEADERS[part] for part in PARTS)]
    widths = [_STEP_WIDTH] + [max(len(name), _NUMBER_WIDTH) for name in headers[1:]]
    lines = [f"{TITLE}, {unit}"]
    steps, average = _rows(breakdown, scale)

    def line(row: list[str]) -> str:
        return " ".join(
            cell.rjust(width) for cell, width in zip(row, widths, strict=True)
        )

    lines += [line(row) for row in [headers, *steps]]
    lines += more_steps_line(len(breakdown.steps), STEP_ROWS_SHOWN)
    lines += [line(row) for row in average]
    for note in _notes(breakdown):
        lines += fill(note, "  ", "  ")
    return lines


def step_breakdown_markdown(breakdown: StepBreakdown | None) -> list[str]:
    """The same table in Markdown (empty without a split)."""
    if breakdown is None or not breakdown.steps:
        return []
    unit, scale = _unit(breakdown)
    headers: Sequence[str] = [
        "step",
        f"total ({unit})",
        *(HEADERS[part] for part in PARTS),
    ]
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---:" for _ in headers) + "|",
    ]
    steps, average = _rows(breakdown, scale)
    lines += ["| " + " | ".join(row) + " |" for row in [*steps, *average]]
    more = len(breakdown.steps) - len(steps)
    if more > 0:
        lines += ["", f"{more:,} more steps are left out here (every step in --json)."]
    for note in _notes(breakdown):
        lines += ["", note[0].upper() + note[1:] + "."]
    return lines

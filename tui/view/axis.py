"""The time axis: tick positions and labels, the cursor mark, and positions in words.

Times are relative to the start of the trace, in the unit the zoom calls for,
so the ruler and the status line read alike.
"""

from __future__ import annotations

import math

TICK_SPACING = 14
"""About this many cells between two ticks."""
TICK_GLYPH = "╵"
CURSOR_GLYPH = "▼"
_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3))


def tick_step(span_ns: float, cells: int, spacing: int = TICK_SPACING) -> float:
    """A 1-2-5 step giving a tick about every `spacing` cells."""
    raw = span_ns * spacing / max(cells, 1)
    power = 10 ** math.floor(math.log10(max(raw, 1e-9)))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return float(factor * power)
    return float(10 * power)


def unit_for(value_ns: float) -> tuple[str, float]:
    """The unit that writes `value_ns` with few digits before the point."""
    for unit, scale in _UNITS:
        if abs(value_ns) >= scale:
            return unit, scale
    return "ns", 1.0


def tick_label(value_ns: float, step_ns: float, unit: str, scale: float) -> str:
    """A tick's time, with the decimals its step needs."""
    decimals = max(0, -math.floor(math.log10(step_ns / scale) + 1e-9))
    return f"{value_ns / scale:.{decimals}f}{unit}"


def position_text(time_ns: int, span_ns: int) -> str:
    """A position from the trace start: the unit fits the position, the digits
    fit the zoom (about a thousandth of the view): `270.6 ms` in a 590 ms
    view, `2.71 s` in a 43 s view, `2.706161714 s` in a 1 µs view."""
    unit, scale = unit_for(max(abs(time_ns), span_ns, 1))
    resolution = max(span_ns, 1) / 1000
    decimals = max(0, math.ceil(math.log10(scale / resolution) - 1e-9))
    return f"{time_ns / scale:.{decimals}f} {unit}"


def ruler(start_ns: int, end_ns: int, width: int, cursor_cell: int) -> str:
    """The axis line: ticks with their times, and the cursor mark, which never
    lands on a label (a label in its way goes before its tick, or is left out)."""
    if width <= 0:
        return ""
    span = max(end_ns - start_ns, 1)
    chars = [" "] * width
    cursor_cell = min(max(cursor_cell, 0), width - 1)
    step = tick_step(span, width)
    unit, scale = unit_for(max(abs(start_ns), abs(end_ns), step))
    tick = math.ceil(start_ns / step) * step
    free_from = 0
    while tick < end_ns:
        cell = int((tick - start_ns) * width / span)
        text = tick_label(tick, step, unit, scale)
        # "╵text" from the tick on, else "text╵" ending at it; on the cursor's
        # cell the cursor stands for the tick ("▼text", "text▼").
        for first, stop in ((cell, cell + 1 + len(text)), (cell - len(text), cell + 1)):
            text_cells = (first + 1, stop) if first == cell else (first, stop - 1)
            tick_free = cell != cursor_cell
            if (
                first >= free_from
                and stop <= width
                and not text_cells[0] <= cursor_cell < text_cells[1]
            ):
                chars[text_cells[0] : text_cells[1]] = list(text)
                if tick_free:
                    chars[cell] = TICK_GLYPH
                free_from = stop + 1
                break
        else:
            if free_from <= cell < width and cell != cursor_cell:
                chars[cell] = TICK_GLYPH
                free_from = cell + 1
        tick += step
    chars[cursor_cell] = CURSOR_GLYPH
    return "".join(chars)

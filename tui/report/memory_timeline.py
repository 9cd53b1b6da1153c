"""`steptrace memory --timeline` in words: one sparkline per device over the
window, its peak, when, and the operator holding it."""

from __future__ import annotations

import numpy as np

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, size_text
from tui.core.figures.memory_timeline import DeviceTimeline, bucket_maxima
from tui.report.fit import fit_end
from tui.report.text import TEXT_WIDTH, cut_middle, fill

LEVEL_GLYPHS = "▁▂▃▄▅▆▇█"
_LABEL = 9
SPARK_WIDTH = TEXT_WIDTH - _LABEL


def sparkline(
    timeline: DeviceTimeline, width: int = SPARK_WIDTH, reserved: bool = False
) -> str:
    """Each column the highest level in its slice of the window, in eighths of the
    peak (blank: nothing allocated or unknown)."""
    levels = timeline.reserved if reserved else timeline.device.allocated
    if levels is None:
        return ""
    _, maxima = bucket_maxima(
        timeline.device.time_ns, levels, timeline.start_ns, timeline.end_ns, width
    )
    top = int(maxima.max()) if maxima.size else 0
    if top <= 0:
        return " " * width
    steps = np.ceil(maxima * (len(LEVEL_GLYPHS) / top)).astype(np.int64)
    glyphs = np.array([" ", *LEVEL_GLYPHS])
    return "".join(glyphs[np.clip(steps, 0, len(LEVEL_GLYPHS))].tolist())


def timeline_lines(timelines: list[DeviceTimeline], scope: str) -> list[str]:
    """Per device its sparkline(s) and peak, at 80 columns."""
    if not timelines:
        return []
    span = timelines[0].end_ns - timelines[0].start_ns
    lines = [
        "",
        *fill(
            f"over {scope}, {duration_text(span)}: each column the highest level "
            f"in 1/{SPARK_WIDTH} of it, in eighths of the peak"
        ),
    ]
    for timeline in timelines:
        label = fit_end(printable(timeline.device.label), _LABEL - 1)
        if timeline.peak_bytes is None:
            lines.append(f"{label:<{_LABEL}}level unknown")
            continue
        lines.append(f"{label:<{_LABEL}}{sparkline(timeline)}")
        if timeline.peak_reserved_bytes:
            lines.append(f"{'reserved':<{_LABEL}}{sparkline(timeline, reserved=True)}")
        lines += _peak_lines(timeline)
    return lines


def _peak_lines(timeline: DeviceTimeline) -> list[str]:
    """The peak, when in the window, and the operator and path holding it."""
    assert timeline.peak_bytes is not None and timeline.peak_ns is not None
    at = duration_text(timeline.peak_ns - timeline.start_ns)
    said = f"peak {size_text(timeline.peak_bytes)} allocated, {at} into it"
    if timeline.peak_reserved_bytes:
        said += f"; reserved peak {size_text(timeline.peak_reserved_bytes)}"
    lines = fill(said, " " * _LABEL, " " * _LABEL)
    operator = timeline.operator
    if operator is None:
        lines += fill("in no CPU event", " " * _LABEL)
        return lines
    lines.append(
        " " * _LABEL + cut_middle("in " + printable(operator.name), TEXT_WIDTH - _LABEL)
    )
    if len(operator.path) > 1:
        path = " > ".join(printable(name) for name in operator.path[:-1])
        lines.append(" " * _LABEL + cut_middle("under " + path, TEXT_WIDTH - _LABEL))
    return lines

"""Critical-path analysis as HTA 0.5.0 computes it: per step and over the window,
the longest chain of dependent CPU and device work and what bounds its time.

`frame` reads the trace as HTA does, `graph` builds the dependency graph of a
window, `path` finds the longest path and splits it (DEFINITIONS.md §13).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tui.core.figures.critical.frame import HtaFrame
from tui.core.figures.critical.graph import FrameWide, build_graph
from tui.core.figures.critical.path import (
    BoundBy,
    CriticalPath,
    PathPart,
    PathRefused,
    summarise,
)
from tui.core.model.steps import Step
from tui.core.model.trace import Trace

__all__ = [
    "BoundBy",
    "CriticalPath",
    "CriticalPaths",
    "PathPart",
    "StepPath",
    "critical_paths",
]


@dataclass(frozen=True)
class StepPath:
    """One step's critical path, or why there is none."""

    number: int
    path: CriticalPath | None
    refused: str | None = None


@dataclass(frozen=True)
class CriticalPaths:
    """The window's path (all steps together; the whole capture without steps)
    and each step's."""

    window: CriticalPath | None
    window_refused: str | None
    steps: tuple[StepPath, ...]
    whole_capture: bool  # no step: the window is the whole capture


def _path(
    frame: HtaFrame, window: tuple[int, int], wide: FrameWide
) -> tuple[CriticalPath | None, str | None]:
    try:
        return summarise(frame, build_graph(frame, window, wide), window), None
    except PathRefused as refused:
        return None, str(refused)


def critical_paths(
    trace: Trace,
    steps: Sequence[Step],
    only: int | None = None,
    window: bool = True,
) -> CriticalPaths:
    """The critical path over the steps' range (not computed without `window`)
    and per step (`only`: that step alone)."""
    frame = HtaFrame.of(trace)
    wide = FrameWide.of(frame)
    if not steps:
        kept = frame.kept.nonzero()[0]
        capture = (
            (int(frame.start_ns[kept].min()), int(frame.end_ns[kept].max()))
            if kept.size
            else (0, 0)
        )
        path, refused = _path(frame, capture, wide)
        return CriticalPaths(path, refused, (), True)
    windows = [
        (int(frame.start_ns[step.event]), int(frame.end_ns[step.event]))
        for step in steps
    ]
    span = (min(w[0] for w in windows), max(w[1] for w in windows))
    whole, refused = _path(frame, span, wide) if window else (None, None)
    per_step = []
    for step, bounds in zip(steps, windows, strict=True):
        if only is not None and step.number != only:
            continue
        path, why = _path(frame, bounds, wide)
        per_step.append(StepPath(step.number, path, why))
    return CriticalPaths(whole, refused, tuple(per_step), False)

"""Critical-path analysis as HTA 0.5.0 computes it: per step and over the window,
the longest chain of dependent CPU and device work and what bounds its time.

`frame` reads the trace as HTA does, `graph` builds the dependency graph of a
window, `path` finds the longest path and splits it (DEFINITIONS.md §13);
`adjusted` reads the same window again where HTA's rules mislead (step and
user annotations as CPU work, the autograd thread left unjoined, gaps other
streams fill), beside HTA's reading, never in its place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tui.core.figures.critical.adjusted import (
    AdjustedPath,
    Busy,
    Corrected,
    Correction,
    PathFlag,
    adjusted_path,
    annotation_rows,
    device_busy,
    disturbing,
)
from tui.core.figures.critical.frame import BoolArray, HtaFrame, Int64Array
from tui.core.figures.critical.graph import FrameWide, build_graph
from tui.core.figures.critical.path import (
    BoundBy,
    CriticalPath,
    PathPart,
    PathRefused,
    longest_path,
    split_path,
)
from tui.core.model.steps import Step
from tui.core.model.trace import Trace

__all__ = [
    "AdjustedPath",
    "BoundBy",
    "Corrected",
    "Correction",
    "CriticalPath",
    "CriticalPaths",
    "PathFlag",
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
    adjusted: AdjustedPath | None = None
    adjusted_refused: str | None = None  # why the corrected graph has no path


@dataclass(frozen=True)
class CriticalPaths:
    """The window's path (all steps together; the whole capture without steps)
    and each step's."""

    window: CriticalPath | None
    window_refused: str | None
    steps: tuple[StepPath, ...]
    whole_capture: bool  # no step: the window is the whole capture
    window_adjusted: AdjustedPath | None = None
    window_adjusted_refused: str | None = None


@dataclass(frozen=True)
class _Reader:
    """What every window of one trace reads: HTA's frame and its wide figures;
    for the adjusted reading (None: none), the annotations it leaves out, each
    device's busy time and the starts of the annotations that change a graph."""

    frame: HtaFrame
    wide: FrameWide
    adjusting: tuple[BoolArray, Busy, Int64Array] | None

    def read(
        self, window: tuple[int, int]
    ) -> tuple[CriticalPath | None, str | None, AdjustedPath | None, str | None]:
        """HTA's path of the window and the adjusted one, or why there is none."""
        frame = self.frame
        graph = build_graph(frame, window, self.wide)
        try:
            nodes = longest_path(graph)
        except PathRefused as refused:
            return None, str(refused), None, None
        path = split_path(frame, graph, nodes, window)
        if self.adjusting is None:
            return path, None, None, None
        annotations, busy, moving = self.adjusting
        first = int(np.searchsorted(moving, window[0], side="left"))
        changes = first < moving.size and moving[first] <= window[1]
        try:
            adjusted = adjusted_path(
                frame,
                self.wide,
                window,
                path,
                busy,
                annotations,
                (graph, nodes),
                changes,
            )
        except PathRefused as refused:
            return path, None, None, str(refused)
        return path, None, adjusted, None


def critical_paths(
    trace: Trace,
    steps: Sequence[Step],
    only: int | None = None,
    window: bool = True,
    busy: Busy | None = None,
    adjusted: bool = False,
) -> CriticalPaths:
    """The critical path over the steps' range (not computed without `window`)
    and per step (`only`: that step alone); with `adjusted`, each with its
    adjusted reading, `busy` giving each device's busy time
    (`Analysis.busy_by_device`; read from the trace when not given)."""
    frame = HtaFrame.of(trace)
    adjusting = None
    if adjusted:
        annotations = annotation_rows(frame)
        adjusting = (
            annotations,
            device_busy(trace) if busy is None else busy,
            disturbing(frame, annotations),
        )
    reader = _Reader(frame, FrameWide.of(frame), adjusting)
    if not steps:
        kept = frame.kept.nonzero()[0]
        capture = (
            (int(frame.start_ns[kept].min()), int(frame.end_ns[kept].max()))
            if kept.size
            else (0, 0)
        )
        path, refused, corrected, why = reader.read(capture)
        return CriticalPaths(path, refused, (), True, corrected, why)
    windows = [
        (int(frame.start_ns[step.event]), int(frame.end_ns[step.event]))
        for step in steps
    ]
    span = (min(w[0] for w in windows), max(w[1] for w in windows))
    whole, refused, corrected, why = (
        reader.read(span) if window else (None, None, None, None)
    )
    per_step = []
    for step, bounds in zip(steps, windows, strict=True):
        if only is not None and step.number != only:
            continue
        per_step.append(StepPath(step.number, *reader.read(bounds)))
    return CriticalPaths(whole, refused, tuple(per_step), False, corrected, why)

"""`steptrace critical`: the critical path of the window and of each step, with
what bounds it (HTA 0.5.0's classes), and its JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import (
    BoundBy,
    CriticalPath,
    CriticalPaths,
    critical_paths,
)
from tui.core.model.observed import gpu_missing_reason


@dataclass(frozen=True)
class CriticalResult:
    """The paths (None without device work: a path of host work alone says
    nothing HTA's classes split), and the step asked for (None: every step)."""

    paths: CriticalPaths | None
    step: int | None
    gpu_missing_reason: str | None = None

    @classmethod
    def of(cls, analysis: Analysis, step: int | None = None) -> CriticalResult:
        """The window's path and each step's (only `step`'s when given)."""
        missing = gpu_missing_reason(analysis.trace)
        if missing is not None:
            return cls(None, step, missing)
        return cls(critical_paths(analysis.trace, analysis.steps, step), step)

    def to_json(self) -> dict[str, Any]:
        """As documented in docs/device.md (`critical --json`)."""
        paths = self.paths
        if paths is None:
            return {
                "rules": "hta",
                "gpu_missing_reason": self.gpu_missing_reason,
                "whole_capture": None,
                "window": None,
                "steps": [],
            }
        return {
            "rules": "hta",
            "gpu_missing_reason": None,
            "whole_capture": paths.whole_capture,
            "window": path_json(paths.window, paths.window_refused),
            "steps": [
                {"step": step.number, **path_json(step.path, step.refused)}
                for step in paths.steps
            ],
        }


def path_json(path: CriticalPath | None, refused: str | None) -> dict[str, Any]:
    """One path: its time, each class's share of it (percent), the events
    holding most of it; `refused` says why there is none."""
    if path is None:
        return {"path_us": None, "bound_by": None, "top": [], "refused": refused}
    return {
        "path_us": us(path.path_ns),
        "start_us": us(path.start_ns),
        "end_us": us(path.end_ns),
        "bound_by": {kind.value: path.share(kind) or 0.0 for kind in BoundBy},
        "bound_by_us": {kind.value: us(ns) for kind, ns in path.bound_ns},
        "top": [
            {"name": part.name, "kind": part.bound_by.value, "us": us(part.ns)}
            for part in path.top
        ],
    }

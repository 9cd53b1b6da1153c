"""`steptrace critical`: the critical path of the window and of each step, with
what bounds it (HTA 0.5.0's classes), and its JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import (
    AdjustedPath,
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
        paths = critical_paths(
            analysis.trace,
            analysis.steps,
            step,
            busy=analysis.busy_by_device,
            adjusted=True,
        )
        return cls(paths, step)

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
            "window": {
                **path_json(paths.window, paths.window_refused),
                "adjusted": adjusted_json(
                    paths.window_adjusted, paths.window_adjusted_refused
                ),
            },
            "steps": [
                {
                    "step": step.number,
                    **path_json(step.path, step.refused),
                    "adjusted": adjusted_json(step.adjusted, step.adjusted_refused),
                }
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


def adjusted_json(
    adjusted: AdjustedPath | None, refused: str | None
) -> dict[str, Any] | None:
    """The adjusted reading beside HTA's (None where HTA's has no path): the
    same figures as `path_json`, what was corrected and how much path time
    moved, the path's coverage of the window and the flags of both readings."""
    if adjusted is None:
        return None if refused is None else {"path_us": None, "refused": refused}
    return {
        **path_json(adjusted.path, None),
        "corrected": [
            {
                "what": item.correction.value,
                "count": item.count,
                "moved_us": us(item.moved_ns),
                "change_us": {kind.value: us(ns) for kind, ns in item.change_ns},
            }
            for item in adjusted.corrected
        ],
        "coverage": adjusted.coverage,
        "device_busy_share": adjusted.device_busy_share,
        "flags": [flag.value for flag in adjusted.flags],
        "hta_coverage": adjusted.hta_coverage,
        "hta_flags": [flag.value for flag in adjusted.hta_flags],
    }

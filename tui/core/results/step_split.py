"""The JSON of TensorBoard's step split (`step_breakdown` in `summary --json` and the report)."""

from __future__ import annotations

from typing import Any

from tui.core.base.units import us
from tui.core.figures.step_split import (
    PARTS,
    StepBreakdown,
    StepSplit,
    StepSplitAverage,
)

# Parts of device work: null where the capture holds no kernel, copy or set.
DEVICE_PARTS = frozenset({"kernel", "memcpy", "memset"})


def _parts_json(
    figures: StepSplit | StepSplitAverage, device_observed: bool
) -> dict[str, float | None]:
    """`total_us` and each part's `<part>_us` of a step or the average."""
    parts: dict[str, float | None] = {"total_us": us(figures.total_ns)}
    for part in PARTS:
        value = getattr(figures, f"{part}_ns")
        observed = device_observed or part not in DEVICE_PARTS
        parts[f"{part}_us"] = us(value) if observed else None
    return parts


def step_breakdown_json(breakdown: StepBreakdown | None) -> dict[str, Any] | None:
    """`step_breakdown` as documented in docs/commands.md; None without a step or operator."""
    if breakdown is None:
        return None
    observed = breakdown.device_observed
    return {
        "steps": [
            {
                "step": step.step,
                "start_us": us(step.start_ns),
                **_parts_json(step, observed),
            }
            for step in breakdown.steps
        ],
        "average": _parts_json(breakdown.average, observed),
        "device_observed": observed,
        "whole_capture": breakdown.whole_capture,
        "left_out_steps": list(breakdown.left_out_steps),
    }

"""Two captures compared: the pure figures behind `steptrace diff` (no I/O, no Textual).

`TraceDiff.of(before, after)` takes two `Analysis` objects; each side is first
reduced to a `CaptureSide` summary, so a run of many ranks can diff rank
summaries with `TraceDiff.between` the same way.
"""

from tui.core.diff.comparability import DiffWarning, comparability
from tui.core.diff.side import CaptureSide, ZoneFigures
from tui.core.diff.steps import (
    FEW_STEPS,
    KeptVerdict,
    RankTest,
    Rate,
    StartupFigures,
    StepFigures,
    StepsDiff,
    kept_verdict,
)
from tui.core.diff.tables import KernelsDiff, KernelTotals, OpsDiff
from tui.core.diff.trace_diff import TraceDiff, ZoneDiff, shared_zone

__all__ = [
    "FEW_STEPS",
    "CaptureSide",
    "DiffWarning",
    "KeptVerdict",
    "KernelTotals",
    "KernelsDiff",
    "OpsDiff",
    "RankTest",
    "Rate",
    "StartupFigures",
    "StepFigures",
    "StepsDiff",
    "TraceDiff",
    "ZoneDiff",
    "ZoneFigures",
    "comparability",
    "kept_verdict",
    "shared_zone",
]

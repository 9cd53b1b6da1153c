"""The views the main screen opens from its analysis: each step's split, the
nn.Module tree, torch.compile's regions, and the critical path it marks.

Each is built on first use, its figures' modules loaded then (not when the
explorer starts); the screen pushes or shows what comes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tui.app.screens import anchors
from tui.core.figures.analysis import Analysis
from tui.core.model.trace import Trace

if TYPE_CHECKING:
    from tui.app.screens.compiled import CompiledScreen
    from tui.app.screens.modules import ModulesScreen
    from tui.app.screens.step_split import StepSplitScreen


def step_split_view(
    analysis: Analysis, current_step: int | None
) -> StepSplitScreen | None:
    """Each step's time as TensorBoard splits it; None with no step to split."""
    from tui.app.screens.step_split import StepSplitScreen

    breakdown = analysis.step_breakdown  # as `summary` computed (and kept) it
    if breakdown is None:
        return None
    current = None if current_step is None else analysis.steps[current_step].number
    return StepSplitScreen(breakdown, current)


def modules_view(analysis: Analysis) -> ModulesScreen:
    """The nn.Module tree of the window (as `steptrace modules` says)."""
    from tui.app.screens.modules import ModulesScreen
    from tui.core.figures.modules import module_tree

    return ModulesScreen(module_tree(analysis))


def compiled_view(analysis: Analysis) -> CompiledScreen:
    """torch.compile's regions, compilations and graph breaks (as `steptrace
    compiled` says)."""
    from tui.app.screens.compiled import CompiledScreen
    from tui.core.results.compiled import CompiledResult

    return CompiledScreen(CompiledResult.of(analysis))


def critical_path_visit(
    trace: Trace, analysis: Analysis, current_step: int | None
) -> tuple[anchors.Visit, str] | None:
    """The current step's critical path (HTA's; the whole capture without
    steps) as a visit in time order, and the line saying what bounds it; None
    when there is none (no device work in the step)."""
    from tui.core.figures.critical import critical_paths
    from tui.report.critical import critical_line

    steps = analysis.steps
    index = current_step if current_step is not None else 0
    chosen = [steps[index]] if steps else []
    paths = critical_paths(trace, chosen, window=not chosen)
    path = paths.steps[0].path if chosen else paths.window
    if path is None or path.path_ns <= 0 or not trace.gpu_observed:
        return None
    where = f"step {chosen[0].number}" if chosen else "the capture"
    events = np.array(path.events, dtype=np.int64)
    events = events[np.argsort(trace.start_ns[events], kind="stable")]
    return anchors.Visit(events, "critical path:", None), critical_line(path, where)

"""torch.compile breaks the graph: a step runs several compiled frames with
eager work between them.

Each break leaves Python and eager operators between two compiled graphs, and
the graphs around it cannot be fused. Its cost is the time between the
regions of different frames per window step (`figures/compiled.py`): an upper
bound of what one graph could give back. Its anchor fits the first step
breaking.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.compiled import CompiledFigures
from tui.core.findings.finding import Figures, Finding, ShowStep
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


@dataclass(frozen=True)
class GraphBreakFigures(Figures):
    """Window steps running several compiled frames.

    `compiled`: the capture shows compiled regions; `steps_breaking` the steps
    running more than one frame; `most_frames` the most frames one step ran;
    `between_ns_per_step` the time between regions of different frames, per
    window step; `compile_ids` the ids the breaking steps ran.
    """

    compiled: bool
    window_steps: int
    steps_breaking: tuple[int, ...] = ()
    most_frames: int = 0
    between_ns_per_step: float = 0.0
    compile_ids: tuple[str, ...] = ()


def graph_breaks(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """Several compiled frames in a step, weighed by the eager time between them."""
    scale = scale or scale_of(analysis)
    figures = CompiledFigures.of(analysis)
    breaking = figures.graph_break_steps
    steps = len(figures.steps)
    between = sum(step.between_ns for step in breaking)
    per_step = between / steps if steps else 0.0
    ids = sorted({cid for step in breaking for cid in step.compile_ids})
    found = GraphBreakFigures(
        compiled=bool(figures.regions),
        window_steps=steps,
        steps_breaking=tuple(step.step for step in breaking),
        most_frames=max((step.frames for step in figures.steps), default=0),
        between_ns_per_step=per_step,
        compile_ids=tuple(ids),
    )
    if not breaking:
        return Finding(FindingId.GRAPH_BREAK, FindingStatus.NOT_SEEN, found)
    status, weight = scale.weigh(True, per_step)
    return Finding(
        FindingId.GRAPH_BREAK,
        status,
        found,
        ShowStep(breaking[0].step),
        weight=weight,
    )


RULE = FindingRule(FindingId.GRAPH_BREAK, GraphBreakFigures, (ShowStep,), graph_breaks)

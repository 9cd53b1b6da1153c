"""torch.compile compiles inside the window: a compile or a recompile
(a new input shape, a guard failing) stops the step while Dynamo traces the
frame again and the backend compiles it.

Its cost is the window's compile time (the outermost compile ranges torch
records, `figures/compiled.py`) per window step: a warm-up compile belongs
before the window, a recompile is avoided by marking the changing dimension
dynamic or by padding the shapes. Its figures name the steps it hit and the
compile ids it made; its anchor fits the step holding the most compile time.
It claims the compile ranges' host time: an operator running inside them (the
tracing's own dispatch) is the compile's, not the step's.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.compiled import CompiledFigures
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.finding import Figures, Finding, ShowStep
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


@dataclass(frozen=True)
class CompilationFigures(Figures):
    """The compilations inside the window's steps.

    `compiled`: the capture shows torch.compile at all (a compiled region or
    a compilation); `compile_ns` the window's compile time, `backend_ns` the
    backend's part of it; `steps_hit` the steps compiling, `compile_ids` the
    ids compiled there and `recompile_ids` those recompiling a frame.
    """

    compiled: bool
    window_steps: int
    compilations: int
    compile_ns: int
    backend_ns: int
    compile_ns_per_step: float
    steps_hit: tuple[int, ...] = ()
    compile_ids: tuple[str, ...] = ()
    recompile_ids: tuple[str, ...] = ()


def compilation(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """A compile or a recompile inside the window, weighed by its time per step."""
    scale = scale or scale_of(analysis)
    figures = CompiledFigures.of(analysis)
    inside = [item for item in figures.compilations if item.in_window]
    steps = len(analysis.window_steps)
    compile_ns = sum(item.duration_ns for item in inside)
    per_step = compile_ns / steps if steps else float(compile_ns)
    ids = tuple(item.compile_id for item in inside if item.compile_id is not None)
    hit: dict[int, int] = {}
    for item in inside:
        if item.step is not None:
            hit[item.step] = hit.get(item.step, 0) + item.duration_ns
    found = CompilationFigures(
        compiled=figures.present,
        window_steps=steps,
        compilations=len(inside),
        compile_ns=compile_ns,
        backend_ns=sum(item.backend_ns for item in inside),
        compile_ns_per_step=per_step,
        steps_hit=tuple(sorted(hit)),
        compile_ids=ids,
        recompile_ids=tuple(
            item.compile_id
            for item in inside
            if item.recompile and item.compile_id is not None
        ),
    )
    if not inside:
        return Finding(FindingId.COMPILATION, FindingStatus.NOT_SEEN, found)
    status, weight = scale.weigh(True, per_step)
    costliest = max(hit, key=lambda step: (hit[step], -step)) if hit else None
    return Finding(
        FindingId.COMPILATION,
        status,
        found,
        None if costliest is None else ShowStep(costliest),
        weight=weight,
        claim=Claim(
            Intervals.union_of(
                [item.start_ns for item in inside],
                [item.start_ns + item.duration_ns for item in inside],
            ),
            ClaimSpace.HOST,
            CostBound.COMPILE_TIME,
        ),
    )


RULE = FindingRule(FindingId.COMPILATION, CompilationFigures, (ShowStep,), compilation)

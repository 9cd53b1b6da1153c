"""The graph-break words: a step runs several compiled frames, eager work between."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import FindingId
from tui.core.findings.graph_breaks import GraphBreakFigures
from tui.report.finding_words.wording import FindingText, Wording, over_steps


def _graph_break_text(figures: GraphBreakFigures, seen: bool) -> str:
    if not figures.compiled:
        return "no torch.compile region in this capture"
    if not seen:
        return "each step runs one compiled frame: no graph break"
    ids = ", ".join(printable(cid) for cid in figures.compile_ids)
    return (
        f"{plural(len(figures.steps_breaking), 'step')} of"
        f" {figures.window_steps} run several compiled frames (up to"
        f" {figures.most_frames}: {ids}); the time between them is"
        f" {duration_text(figures.between_ns_per_step)} per step"
        f" ({over_steps(figures.window_steps)})"
    )


TEXT = FindingText(
    FindingId.GRAPH_BREAK,
    GraphBreakFigures,
    Wording(
        "torch.compile breaks the graph",
        "code Dynamo cannot trace may split the model into several compiled"
        " graphs with eager work between them, which no graph fuses",
        "list the breaks and their reasons (TORCH_LOGS=graph_breaks, or"
        " torch._dynamo.explain), remove them where you can (fullgraph=True"
        " says where) and compare the step time",
    ),
    _graph_break_text,
)

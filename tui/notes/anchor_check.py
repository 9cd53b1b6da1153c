"""Whether a note's anchor points at something in its capture, and what is closest when not.

A note anchored on `step:999` or `op:aten::nonexistent` used to be saved as
given: a note on nothing, found out only when the app could not jump to it.
The CLI asks here before it saves; its words are `tui.report.notes`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from tui.core.base.vocab import FindingId
from tui.core.figures.analysis import Analysis
from tui.notes.model import Anchor, AnchorKind

CLOSEST_COUNT = 3
# The similarity floor of a suggested name (difflib's ratio), as for zone names.
CLOSEST_CUTOFF = 0.6


@dataclass(frozen=True)
class AnchorMiss:
    """An anchor that points at nothing in the capture, and the anchors closest to it
    that do point at something (none when nothing is close).

    `steps`: the first and last step numbers the capture holds (None: no step);
    `span_ns`: from the trace start to its last event's end.
    """

    anchor: Anchor
    closest: tuple[Anchor, ...]
    steps: tuple[int, int] | None
    span_ns: int


def anchor_miss(anchor: Anchor, analysis: Analysis) -> AnchorMiss | None:
    """None when `anchor` points at something in the analysed capture; else what is
    closest. An event anchor (made by the app from an event on screen) is not checked."""
    numbers = [step.number for step in analysis.steps]
    steps = (min(numbers), max(numbers)) if numbers else None
    span_ns = analysis.trace.span_ns
    closest: tuple[Anchor, ...]
    if anchor.kind is AnchorKind.STEP:
        if anchor.step in numbers:
            return None
        nearest = sorted(numbers, key=lambda number: abs(number - (anchor.step or 0)))
        closest = tuple(Anchor.at_step(number) for number in nearest[:1])
    elif anchor.kind is AnchorKind.OP:
        operators = analysis.op_table().names
        if anchor.name in operators:
            return None
        closest = tuple(Anchor.on_op(name) for name in _like(anchor.name, operators))
    elif anchor.kind is AnchorKind.RANGE:
        if (anchor.start_ns or 0) <= span_ns:
            return None
        closest = (Anchor.over_range(0, span_ns),)
    elif anchor.kind is AnchorKind.FINDING:
        known = [finding.value for finding in FindingId]
        if anchor.finding_id in known:
            return None
        closest = tuple(
            Anchor.on_finding(finding) for finding in _like(anchor.finding_id, known)
        )
    else:
        return None
    return AnchorMiss(anchor, closest, steps, span_ns)


def _like(name: str | None, present: Sequence[str]) -> list[str]:
    """The names most like `name` by spelling, above the similarity floor."""
    return difflib.get_close_matches(
        name or "", present, n=CLOSEST_COUNT, cutoff=CLOSEST_CUTOFF
    )

"""The dominant operator's words: one operator (or collective) holds most of the self time."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import FindingId
from tui.core.findings.dominant import DominantFigures
from tui.report.finding_words.wording import FindingText, Wording

_COLLECTIVE = Wording(
    "One collective dominates",
    "a collective's time holds the wait for the slowest rank, not only the transfer",
    "read the ranks' arrival at it: steptrace ranks RUN_FOLDER (one trace per rank)",
)


def _reword(figures: DominantFigures, seen: bool, wording: Wording) -> Wording:
    """A collective's time holds the wait for its peers: the ranks are the check."""
    return _COLLECTIVE if figures.collective else wording


def _dominant_text(figures: DominantFigures) -> str:
    text = (
        f"{printable(figures.operator)} holds {figures.share:.0%} of the self"
        f" {figures.unit} time of operators ({duration_text(figures.self_ns)} of"
        f" {duration_text(figures.total_ns)}, {plural(figures.calls, 'call')})"
    )
    if figures.input_shapes is not None and figures.shape_share is not None:
        others = (figures.shape_count or 1) - 1
        rest = (
            "its only shapes"
            if others == 0
            else f"{others} other shape{'' if others == 1 else 's'}"
        )
        text += (
            f"; input shapes {printable(figures.input_shapes)} in"
            f" {plural(figures.shape_calls or 0, 'call')} hold"
            f" {figures.shape_share:.0%} of it"
            f" ({rest})"
        )
    elif not figures.shapes_recorded:
        text += "; input shapes not recorded (record_shapes was off)"
    if figures.collective:
        text += "; a collective: its time holds the wait for the other ranks"
    if figures.waiting_ranges:
        names = ", ".join(printable(name) for name in figures.waiting_ranges)
        text += (
            f"; {names} left out: a range that waits on a collective or a sync, not"
            " an operator (read the collectives and the late rank: steptrace ranks"
            " RUN_FOLDER, or the syncs: steptrace syncs TRACE)"
        )
    return text


TEXT = FindingText(
    FindingId.DOMINANT_OP,
    DominantFigures,
    Wording(
        "One operator dominates",
        "its input shapes or its algorithm may decide the step time",
        "time the same operator alone with the same inputs, then with others",
    ),
    lambda figures, _seen: _dominant_text(figures),
    _reword,
)

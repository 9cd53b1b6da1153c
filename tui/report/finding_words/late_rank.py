"""The late rank's words: one rank reaches the collectives last in most steps."""

from __future__ import annotations

from tui.core.base.units import duration_text
from tui.core.base.vocab import CollectiveSide, FindingId
from tui.core.findings.late_rank import LateRankFigures
from tui.report.finding_words.wording import FindingText, Wording


def _late_rank_text(figures: LateRankFigures, observed: bool) -> str:
    side = " (CPU-side collectives only)" if figures.side is CollectiveSide.CPU else ""
    if not observed:
        return (
            "no rank reached the collectives last in most steps"
            f" (rank {figures.rank}: last in {figures.late_steps} of"
            f" {figures.steps} steps, median wait"
            f" {duration_text(figures.median_wait_ns)}){side}"
        )
    share = (
        figures.median_wait_ns / figures.median_step_ns
        if figures.median_step_ns > 0
        else 0.0
    )
    text = (
        f"rank {figures.rank} reached the collectives last in {figures.late_steps} of"
        f" {figures.steps} steps; the other ranks waited a median"
        f" {duration_text(figures.median_wait_ns)} in them ({share:.0%} of a"
        f" {duration_text(figures.median_step_ns)} step){side}"
    )
    if figures.peer is not None:
        for label, mine, theirs in (
            ("its data zone took", figures.zone_ns, figures.peer_zone_ns),
            ("its compute took", figures.compute_ns, figures.peer_compute_ns),
        ):
            if mine is not None and theirs is not None:
                text += (
                    f"; {label} {duration_text(mine)} per step against"
                    f" {duration_text(theirs)} on rank {figures.peer}"
                )
    return text


TEXT = FindingText(
    FindingId.LATE_RANK,
    LateRankFigures,
    Wording(
        "One rank reaches the collectives late",
        "that rank's input or its compute may be slower",
        "compare that rank's data zone and kernels with a peer's",
    ),
    _late_rank_text,
)

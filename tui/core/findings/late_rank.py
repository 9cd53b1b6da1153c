"""The run's reading: one rank reaches the collectives late in most steps.

Its figures are declared here with the other findings'; it is read on a run
of ranks, not on one capture (`tui.core.runs.late_rank`).
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.vocab import CollectiveSide, FindingId
from tui.core.findings.finding import Figures, ShowStep
from tui.core.findings.rule import FindingRule


@dataclass(frozen=True)
class LateRankFigures(Figures):
    """The rank that reaches the collectives last in the most steps, and a peer to compare.

    `median_wait_ns` is the other ranks' median wait in the steps it was
    last; zone and compute figures are medians per step (None when unknown).
    """

    rank: int
    late_steps: int
    steps: int
    median_wait_ns: float
    median_step_ns: float
    peer: int | None
    side: CollectiveSide
    """Where its collectives were seen: communication kernels or CPU ops."""
    zone_ns: float | None = None
    peer_zone_ns: float | None = None
    compute_ns: float | None = None
    peer_compute_ns: float | None = None


RULE = FindingRule(FindingId.LATE_RANK, LateRankFigures, (ShowStep,), None)

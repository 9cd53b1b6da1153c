"""A run read across its ranks: step times per rank, stragglers and waits.

Built from the per-rank summaries alone (`rank_summary`), so it is the same
whether they came from this machine's workers or from a cluster.

- A step counts when every loaded rank recorded it as active.
- Its **straggler** is the rank that reaches the step's collectives last,
  arrival measured from each rank's own step start (clocks of different
  hosts never meet).
- Every other rank's **wait** is its time in the step's collectives beyond
  the straggler's own time in them: the straggler, arriving last, waits for
  nobody, so its time is what the collectives cost without waiting.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.core.base.textsafe import printable
from tui.core.base.vocab import CollectiveSide, RankSource
from tui.core.runs.discover import RunLayout
from tui.core.runs.pool import RankOutcome
from tui.core.runs.rank_summary import RankSummary


@dataclass(frozen=True)
class RankRow:
    """One rank of the run and its summary."""

    rank: int
    path: Path
    source: RankSource
    summary: RankSummary


@dataclass(frozen=True)
class StepAcross:
    """One step seen across the ranks."""

    number: int
    duration_ns: dict[int, int]
    median_ns: float
    spread_ns: int
    arrival_ns: dict[int, int]  # ranks that reached a collective in the step
    straggler: int | None
    wait_ns: dict[int, int]  # every other rank with collectives in the step


@dataclass(frozen=True)
class RunAnalysis:
    """The figures of a run across its ranks, and what they cannot show."""

    folder: Path
    world_size: int | None
    unit: str
    ranks: tuple[RankRow, ...]
    steps: tuple[StepAcross, ...]
    limits: tuple[str, ...]
    warnings: tuple[str, ...]

    @classmethod
    def of(cls, layout: RunLayout, outcomes: Sequence[RankOutcome]) -> RunAnalysis:
        """Put the ranks' summaries side by side."""
        warnings = list(layout.warnings)
        by_path = {outcome.path: outcome for outcome in outcomes}
        rows: list[RankRow] = []
        for item in layout.files:
            outcome = by_path.get(str(item.path))
            if outcome is None or outcome.summary is None:
                reason = "not loaded" if outcome is None else outcome.error
                warnings.append(f"rank {item.rank} left out: {printable(str(reason))}")
                continue
            summary = outcome.summary
            if summary.rank is not None and summary.rank != item.rank:
                warnings.append(
                    f"{printable(item.path.name)} is counted as rank {item.rank} "
                    f"but its trace says rank {summary.rank}"
                )
            rows.append(RankRow(item.rank, item.path, item.source, summary))
        steps = _common_steps(rows, warnings)
        across = tuple(_step_across(number, rows) for number in steps)
        units = {row.summary.unit for row in rows}
        if len(units) > 1:
            warnings.append("ranks state different units: " + ", ".join(sorted(units)))
        limits = _limits(rows, across)
        return cls(
            layout.folder,
            layout.world_size,
            sorted(units)[0] if units else "ms/step",
            tuple(rows),
            across,
            tuple(limits),
            tuple(warnings),
        )

    def row(self, rank: int) -> RankRow | None:
        """The row of a rank, if it was loaded."""
        for row in self.ranks:
            if row.rank == rank:
                return row
        return None


def _common_steps(rows: list[RankRow], warnings: list[str]) -> list[int]:
    """Active step numbers every rank recorded; the others are named in a warning."""
    if not rows:
        return []
    sets = [{step.number for step in row.summary.active_steps} for row in rows]
    common = set.intersection(*sets)
    partial = sorted(set.union(*sets) - common)
    if partial:
        shown = ", ".join(str(number) for number in partial[:12])
        more = f" (+{len(partial) - 12})" if len(partial) > 12 else ""
        warnings.append(
            f"step(s) {shown}{more} are not recorded by every rank: left out"
        )
    for row, numbers in zip(rows, sets, strict=True):
        if not numbers:
            warnings.append(f"rank {row.rank} recorded no steps (no ProfilerStep#N)")
    return sorted(common)


def _step_across(number: int, rows: list[RankRow]) -> StepAcross:
    durations: dict[int, int] = {}
    arrivals: dict[int, int] = {}
    busy: dict[int, int] = {}
    for row in rows:
        step = row.summary.step(number)
        if step is None:
            continue
        durations[row.rank] = step.duration_ns
        if step.collectives.arrival_ns is not None:
            arrivals[row.rank] = step.collectives.arrival_ns
            busy[row.rank] = step.collectives.busy_ns
    values = list(durations.values())
    straggler = None
    waits: dict[int, int] = {}
    if len(arrivals) >= 2:
        # The latest arrival; on a tie, the lowest rank.
        straggler = min(arrivals, key=lambda rank: (-arrivals[rank], rank))
        waits = {
            rank: max(0, time_ns - busy[straggler])
            for rank, time_ns in busy.items()
            if rank != straggler
        }
    return StepAcross(
        number,
        durations,
        float(statistics.median(values)) if values else 0.0,
        max(values) - min(values) if values else 0,
        arrivals,
        straggler,
        waits,
    )


def _limits(rows: list[RankRow], steps: tuple[StepAcross, ...]) -> list[str]:
    """What the figures cannot show, from what the captures hold."""
    limits: list[str] = []
    sides = {row.summary.collective_side for row in rows}
    if len(rows) < 2:
        limits.append("one rank only: no straggler and no wait can be read")
    if rows and sides == {None}:
        limits.append(
            "no collective (communication kernel, gloo:*, c10d::*, nccl:* op) in any "
            "rank: no straggler and no wait can be read"
        )
    elif CollectiveSide.GPU not in sides and CollectiveSide.CPU in sides:
        limits.append(
            "no communication kernel in any rank (CPU-only capture, or GPU "
            "collection unavailable): arrivals and waits are CPU-side only (gloo, "
            "c10d, nccl CPU ops); waits on the device are not observed"
        )
    elif CollectiveSide.GPU in sides and CollectiveSide.CPU in sides:
        cpu = [
            str(row.rank)
            for row in rows
            if row.summary.collective_side is CollectiveSide.CPU
        ]
        limits.append(
            f"rank(s) {', '.join(cpu)} show collectives on the CPU only, the others "
            "on the GPU: their arrivals are not comparable"
        )
    if any(step.straggler is not None for step in steps):
        limits.append(
            "arrival is measured from each rank's own step start: a rank whose step "
            "began late is not seen as late; a wait is time in collectives beyond the "
            "straggler's, so a slower link reads as a wait too"
        )
    return limits

"""A run's collectives per rank, each one's time split into wait and transfer.

Each rank's collectives are read as for one trace (`collective_bandwidth`).
In every step all ranks recorded, the k-th collective a rank issued (launch
call, or its own start for a CPU one) is matched with the k-th of every other
rank, when all issued as many in that step; a step where they differ is left
out and named. Of a matched collective, the straggler is the rank reaching it
last, arrival measured from each rank's own step start (clocks of different
hosts never meet), and, as `across` reads a step: the straggler waits for
nobody, so its time in the collective is the transfer; every other rank's time
beyond it is wait (arrival skew). A rank's bandwidth over its transfer time
alone is then what its link moved when the data was there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis
from tui.core.figures.collective_bandwidth import (
    CollectiveBandwidth,
    CollectiveCall,
    collective_bandwidth,
)
from tui.core.ingest.load import load_trace
from tui.core.runs.discover import discover_run


@dataclass(frozen=True)
class RankCollectives:
    """One rank's collectives, and per matched call its wait (the rest is
    transfer), filled once by the matching."""

    rank: int
    path: Path
    reading: CollectiveBandwidth
    wait_ns: dict[int, int] = field(default_factory=dict)  # call's event → wait

    def split(self, calls: Sequence[CollectiveCall]) -> tuple[int, int, int]:
        """Wait, transfer and how many of `calls` were matched."""
        matched = [call for call in calls if call.event in self.wait_ns]
        wait = sum(self.wait_ns[call.event] for call in matched)
        return wait, sum(call.duration_ns for call in matched) - wait, len(matched)


@dataclass(frozen=True)
class RunCollectives:
    """Every rank's collectives, how many were matched across ranks, and why
    the others were not."""

    folder: Path
    ranks: list[RankCollectives]
    matched_steps: int
    warnings: list[str]


def _issued(analysis: Analysis, calls: list[CollectiveCall]) -> list[int]:
    """When each call was issued: its launch call's start, or its own."""
    launch = analysis.launch_call
    trace = analysis.trace
    return [
        int(trace.start_ns[int(launch[call.event])])
        if int(launch[call.event]) >= 0
        else call.start_ns
        for call in calls
    ]


def _per_step(analysis: Analysis, calls: list[CollectiveCall]) -> dict[int, list[int]]:
    """Step number → indices of the calls issued in it, in issue order."""
    issued = np.array(_issued(analysis, calls), dtype=np.int64)
    order = np.argsort(issued, kind="stable")
    steps: dict[int, list[int]] = {}
    for step in analysis.active_steps:
        inside = order[(issued[order] >= step.start_ns) & (issued[order] < step.end_ns)]
        steps[step.number] = inside.tolist()
    return steps


def read_run_collectives(folder: str | Path) -> RunCollectives:
    """Read each rank of a run folder (in this process) and split its collectives."""
    layout = discover_run(folder)
    warnings = list(layout.warnings)
    ranks: list[RankCollectives] = []
    by_rank: dict[int, tuple[Analysis, dict[int, list[int]]]] = {}
    for item in layout.files:
        try:
            analysis = Analysis(load_trace(item.path))
        except TraceLoadError as problem:
            warnings.append(f"rank {item.rank} left out: {printable(str(problem))}")
            continue
        reading = collective_bandwidth(analysis)
        ranks.append(RankCollectives(item.rank, item.path, reading))
        by_rank[item.rank] = (analysis, _per_step(analysis, reading.calls))
    matched = _match(ranks, by_rank, warnings) if len(ranks) >= 2 else 0
    if len(ranks) < 2:
        warnings.append("one rank only: no wait can be read")
    return RunCollectives(layout.folder, ranks, matched, warnings)


def _match(
    ranks: list[RankCollectives],
    by_rank: dict[int, tuple[Analysis, dict[int, list[int]]]],
    warnings: list[str],
) -> int:
    """Match the k-th collective of each common step across ranks; set waits."""
    common = set.intersection(*(set(by_rank[row.rank][1]) for row in ranks))
    matched = 0
    uneven: list[int] = []
    for number in sorted(common):
        counts = {len(by_rank[row.rank][1][number]) for row in ranks}
        if len(counts) != 1:
            uneven.append(number)
            continue
        matched += 1
        for position in range(counts.pop()):
            _split_one(ranks, by_rank, number, position)
    if uneven:
        shown = ", ".join(str(number) for number in uneven[:12])
        warnings.append(
            f"step(s) {shown}: the ranks issued different numbers of collectives; "
            "left out of the wait split"
        )
    return matched


def _split_one(
    ranks: list[RankCollectives],
    by_rank: dict[int, tuple[Analysis, dict[int, list[int]]]],
    number: int,
    position: int,
) -> None:
    """One matched collective: the straggler's time is the transfer."""
    arrival: dict[int, int] = {}
    calls: dict[int, CollectiveCall] = {}
    for row in ranks:
        analysis, steps = by_rank[row.rank]
        call = row.reading.calls[steps[number][position]]
        step = next(s for s in analysis.active_steps if s.number == number)
        arrival[row.rank] = call.start_ns - step.start_ns
        calls[row.rank] = call
    straggler = min(arrival, key=lambda rank: (-arrival[rank], rank))
    transfer = calls[straggler].duration_ns
    for row in ranks:
        call = calls[row.rank]
        row.wait_ns[call.event] = max(0, call.duration_ns - transfer)

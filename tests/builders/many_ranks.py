"""Runs of many ranks made of per-rank summaries alone (no trace is written or read).

The ranks screen and `runs.many` read summaries only, so a 512-rank run
costs milliseconds here. In every step every rank leaves its collective at
`end_ns` from its own step start: rank r's time in it is `end_ns - arrival`,
the straggler is the latest arrival and each other rank waits the
difference of the arrivals, as in `builders.runs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from tui.core.base.vocab import CollectiveSide, RankSource, StepPhase
from tui.core.figures.breakdown.gpu import Breakdown
from tui.core.figures.collectives import StepCollectives
from tui.core.runs.across import RunAnalysis
from tui.core.runs.discover import RankFile, RunLayout
from tui.core.runs.pool import RankOutcome
from tui.core.runs.rank_summary import RankStep, RankSummary

END_NS = 900_000
MS = 1_000_000


def idle_breakdown(span_ns: int, idle_share: float) -> Breakdown:
    """A step's device breakdown with this idle share (the rest compute)."""
    idle = round(span_ns * idle_share)
    return Breakdown(span_ns, idle, span_ns - idle, 0, None, (), ())


def summary_run(
    durations: Mapping[int, Sequence[int]],
    *,
    arrivals: Mapping[int, Sequence[int]] | None = None,
    idle: Mapping[int, Sequence[float]] | None = None,
    name: str = "rank-{rank}.pt.trace.json",
    names: Mapping[int, str] | None = None,
    folder: Path = Path("/synthetic/run"),
    end_ns: int = END_NS,
) -> RunAnalysis:
    """A run whose rank r has steps 1.. of `durations[r]` ns; `arrivals[r]` (ns from
    its step start) at one collective per step; `idle[r]` its device idle share per
    step (a rank not in `idle` has no device work); `names[r]` its file's name."""
    files = []
    outcomes = []
    for rank, rank_durations in durations.items():
        path = folder / ((names or {}).get(rank) or name.format(rank=rank))
        steps = []
        start = 0
        for index, duration in enumerate(rank_durations):
            arrival = None if arrivals is None else arrivals[rank][index]
            collectives = StepCollectives(
                arrival, 0 if arrival is None else end_ns - arrival, 1
            )
            shares = None if idle is None else idle.get(rank)
            breakdown = (
                None if shares is None else idle_breakdown(duration, shares[index])
            )
            steps.append(
                RankStep(
                    index + 1,
                    StepPhase.ACTIVE,
                    start,
                    duration,
                    None,
                    collectives,
                    breakdown,
                    breakdown,
                )
            )
            start += duration
        gpu = idle is not None and rank in idle
        whole = (
            idle_breakdown(start, sum(idle[rank]) / len(idle[rank]))
            if idle is not None and rank in idle and idle[rank]
            else None
        )
        summary = RankSummary(
            str(path), 0, rank, len(durations), "ms/step", gpu,
            None if gpu else "no device op",
            None if arrivals is None else CollectiveSide.GPU,
            (), tuple(steps), whole, whole, 0, (),
        )  # fmt: skip
        files.append(RankFile(path, rank, RankSource.DISTRIBUTED_INFO, 0))
        outcomes.append(RankOutcome(str(path), summary, None, 0.0))
    layout = RunLayout(folder, tuple(files), len(durations), ())
    return RunAnalysis.of(layout, outcomes)


def spread_run(
    ranks: int, steps: int, *, slow: int, late: int, no_gpu: int, per_host: int = 8
) -> RunAnalysis:
    """A run whose figures are known by construction, for pictures of many ranks.

    Every step takes 48 ms within ±0.5 % (a fixed jitter), rank `slow` 30 %
    more; every rank reaches the collective 5–5.1 ms into its step, rank
    `late` at 40 ms in three steps of four (everyone leaves at 45 ms); device
    idle share 10–19.9 %, rank `no_gpu` without device work. Files are named
    as tensorboard_trace_handler names them, `per_host` ranks a host.
    """

    def jitter(rank: int, index: int) -> int:
        return (rank * 7919 + index * 104729) % 1000

    durations = {
        rank: [
            int(48 * MS * (1.3 if rank == slow else 1.0))
            + 480 * (jitter(rank, i) - 500)
            for i in range(steps)
        ]
        for rank in range(ranks)
    }
    arrivals = {
        rank: [
            40 * MS if rank == late and i % 4 else 5 * MS + 100 * jitter(rank, i)
            for i in range(steps)
        ]
        for rank in range(ranks)
    }
    idle = {
        rank: [0.1 + jitter(rank, i) / 10_000 for i in range(steps)]
        for rank in range(ranks)
        if rank != no_gpu
    }
    names = {
        rank: f"node{rank // per_host:03d}_{2000 + rank}.17331000{rank:05d}.pt.trace.json"
        for rank in range(ranks)
    }
    return summary_run(
        durations,
        arrivals=arrivals,
        idle=idle,
        names=names,
        end_ns=45 * MS,
        folder=Path(f"/synthetic/job-{ranks}"),
    )

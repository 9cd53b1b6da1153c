"""A run of many ranks read as distributions: per-rank spreads, outliers, the top ranks, hosts.

Past a few dozen ranks a table of every rank × step stops being readable;
these figures say the same things in a screenful. A pure function of
`RunAnalysis` (and of `RunHeat`'s steps late), over the run's common steps:

- per rank, the **median, p90 and max** of its step times, of its waits in
  the collectives (a step where it was the straggler counts 0, as
  `heat`'s total wait does) and of its device idle share (idle ÷ span of
  each step's breakdown, steptrace's definitions; not observed without
  device work, never 0);
- across the ranks, the median of those medians, the **robust bound**
  (median + `OUTLIER_MADS` × 1.4826 × MAD, never closer than
  `NEAR_SHARE` of the median step: `heat`) and the ranks beyond it;
- the **top-k** ranks by median, and the ranks **waited for most**: steps
  late as `RunHeat` counts them, weighed by the median of their peers'
  waits in those steps (as the late-rank reading weighs them);
- the **order** of a heat map (slowest median first), grouped by **host**
  when every file's name states one (the host of the slowest rank first).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from tui.core.runs.across import RankRow, RunAnalysis
from tui.core.runs.discover import host_in_name
from tui.core.runs.heat import MAD_TO_SD, NEAR_SHARE, OUTLIER_MADS

# Past this many ranks, the text and the ranks screen show these figures
# instead of (the text) or beside (the screen) a table of every rank.
MANY_RANKS = 32
# How many ranks each top list names.
TOP_K = 5
# A rank's p90: linear interpolation between the closest values (numpy's default).
P90 = 90.0


@dataclass(frozen=True)
class RankSpread:
    """One rank's figure over the common steps (None: not observed in any step)."""

    rank: int
    median: float | None
    p90: float | None
    max: float | None
    steps: int  # steps with a value


@dataclass(frozen=True)
class SpreadAcross:
    """One per-rank figure across the ranks: spreads, robust bound, outliers, top-k."""

    ranks: tuple[RankSpread, ...]  # in rank order
    median: float | None  # median of the ranks' medians
    p90: float | None  # p90 of the ranks' medians
    max: float | None  # the largest rank median
    mad: float | None  # median absolute deviation of the ranks' medians
    bound: float | None  # beyond it, a rank's median is an outlier
    outliers: tuple[int, ...]  # largest median first
    top: tuple[int, ...]  # the TOP_K largest medians (ties: lowest rank first)
    not_observed: tuple[int, ...]  # ranks without a value in any step

    def of_rank(self, rank: int) -> RankSpread | None:
        """A rank's spread."""
        return next((item for item in self.ranks if item.rank == rank), None)


@dataclass(frozen=True)
class WaitedFor:
    """A rank its peers waited for: steps it was last at the collectives, and their cost."""

    rank: int
    late_steps: int
    wait_ns: float  # summed over its late steps: the median of its peers' waits


@dataclass(frozen=True)
class HostGroup:
    """The ranks one host ran, slowest median step time first."""

    host: str
    ranks: tuple[int, ...]
    median_ns: float | None  # the median of its ranks' median step times


@dataclass(frozen=True)
class ManyRanks:
    """The figures of a run of many ranks."""

    steps: int  # the common steps the figures are read over
    read_steps: int  # steps with a straggler
    step_time: SpreadAcross  # ns
    wait: SpreadAcross  # ns
    idle_share: SpreadAcross  # 0..1
    waited_for: tuple[WaitedFor, ...]  # the TOP_K waited for most
    hosts: tuple[HostGroup, ...] | None  # None: not every rank's host is known
    without_host: tuple[int, ...]  # ranks whose file name states no host
    order: tuple[int, ...]  # slowest median step time first, within hosts if known

    @classmethod
    def of(cls, run: RunAnalysis, top_k: int = TOP_K) -> ManyRanks:
        """Read a run's ranks as distributions."""
        step_median = _median([float(step.median_ns) for step in run.steps])
        floor_ns = NEAR_SHARE * (step_median or 0.0)
        durations, waits = _per_rank(run)
        step_time = spread_across(
            run.ranks, lambda row: durations.get(row.rank, []), floor_ns, top_k
        )
        wait = spread_across(
            run.ranks, lambda row: waits.get(row.rank, []), floor_ns, top_k
        )
        numbers = [step.number for step in run.steps]
        idle = spread_across(
            run.ranks, lambda row: _idle_shares(row, numbers), NEAR_SHARE, top_k
        )
        medians = {item.rank: item.median for item in step_time.ranks}
        by_median = sorted(
            (row.rank for row in run.ranks), key=lambda rank: _slowest(medians, rank)
        )
        hosts, without = _hosts(run.ranks, by_median, medians)
        order = (
            tuple(rank for group in hosts for rank in group.ranks)
            if hosts is not None
            else tuple(by_median)
        )
        return cls(
            len(run.steps),
            sum(1 for step in run.steps if step.straggler is not None),
            step_time,
            wait,
            idle,
            _waited_for(run, top_k),
            hosts,
            without,
            order,
        )

    def host_of(self, rank: int) -> str | None:
        """The host of a rank, when the run is grouped by host."""
        return self._host_by_rank.get(rank)

    @cached_property
    def _host_by_rank(self) -> dict[int, str]:
        return {rank: group.host for group in self.hosts or () for rank in group.ranks}


def spread_across(
    rows: Sequence[RankRow],
    values_of: Callable[[RankRow], list[float]],
    floor: float,
    top_k: int = TOP_K,
) -> SpreadAcross:
    """Each rank's median, p90 and max of `values_of`, and the run's robust bound.

    `floor`: the least distance from the median to the bound (what reads as
    jitter), so that ranks that differ only by jitter have no outlier.
    """
    spreads = tuple(_spread(row.rank, values_of(row)) for row in rows)
    medians = {item.rank: item.median for item in spreads if item.median is not None}
    values = list(medians.values())
    center = _median(values)
    mad = None if center is None else _median([abs(value - center) for value in values])
    bound = (
        None
        if center is None or mad is None
        else center + max(OUTLIER_MADS * MAD_TO_SD * mad, floor)
    )
    ranked = sorted(medians, key=lambda rank: (-medians[rank], rank))
    return SpreadAcross(
        spreads,
        center,
        None if not values else percentile(sorted(values), P90),
        max(values, default=None),
        mad,
        bound,
        tuple(rank for rank in ranked if bound is not None and medians[rank] > bound),
        tuple(ranked[:top_k]),
        tuple(item.rank for item in spreads if item.median is None),
    )


def _spread(rank: int, values: list[float]) -> RankSpread:
    if not values:
        return RankSpread(rank, None, None, None, 0)
    ordered = sorted(values)
    return RankSpread(
        rank,
        float(statistics.median(ordered)),
        percentile(ordered, P90),
        ordered[-1],
        len(ordered),
    )


def percentile(ordered: Sequence[float], pct: float) -> float:
    """numpy's default (linear) percentile of sorted values: a hundred times
    quicker than numpy on the few values of one rank."""
    place = (len(ordered) - 1) * pct / 100.0
    low = math.floor(place)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (place - low) * (ordered[high] - ordered[low]))


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _slowest(medians: dict[int, float | None], rank: int) -> tuple[int, float, int]:
    """Sort key: the largest median first, ranks without one last, ties by rank."""
    median = medians.get(rank)
    return (1, 0.0, rank) if median is None else (0, -median, rank)


def _per_rank(
    run: RunAnalysis,
) -> tuple[dict[int, list[float]], dict[int, list[float]]]:
    """Each rank's step times, and its wait in each step it reached a collective
    (0 where it was last), in one pass over the steps."""
    durations: dict[int, list[float]] = {}
    waits: dict[int, list[float]] = {}
    for step in run.steps:
        for rank, duration in step.duration_ns.items():
            durations.setdefault(rank, []).append(float(duration))
        for rank in step.arrival_ns:
            waits.setdefault(rank, []).append(float(step.wait_ns.get(rank, 0)))
    return durations, waits


def idle_share(row: RankRow, number: int) -> float | None:
    """A rank's device idle share in a step (idle ÷ span, steptrace's breakdown);
    None where it has no device work."""
    step = row.summary.step(number)
    breakdown = None if step is None else step.breakdown_steptrace
    if breakdown is None or breakdown.span_ns <= 0:
        return None
    return breakdown.idle_ns / breakdown.span_ns


def _idle_shares(row: RankRow, numbers: list[int]) -> list[float]:
    """Idle shares in the common steps with device work."""
    return [
        share for number in numbers if (share := idle_share(row, number)) is not None
    ]


def _waited_for(run: RunAnalysis, top_k: int) -> tuple[WaitedFor, ...]:
    """The ranks last at the collectives (steps late as `RunHeat` counts them),
    most waited for first (ties: more steps, lower rank)."""
    cost: dict[int, float] = {}
    late: Counter[int] = Counter()
    for step in run.steps:
        if step.straggler is not None:
            peers = (
                float(statistics.median(step.wait_ns.values())) if step.wait_ns else 0.0
            )
            cost[step.straggler] = cost.get(step.straggler, 0.0) + peers
            late[step.straggler] += 1
    found = [WaitedFor(rank, steps, cost[rank]) for rank, steps in late.items()]
    found.sort(key=lambda item: (-item.wait_ns, -item.late_steps, item.rank))
    return tuple(found[:top_k])


def _hosts(
    rows: Sequence[RankRow],
    by_median: list[int],
    medians: dict[int, float | None],
) -> tuple[tuple[HostGroup, ...] | None, tuple[int, ...]]:
    """Ranks grouped by the host their file name states (the host of the slowest
    rank first); None when any rank's host is unknown."""
    host_of = {row.rank: host_in_name(row.path.name) for row in rows}
    without = tuple(rank for rank, host in host_of.items() if host is None)
    if without or not rows:
        return None, without
    members: dict[str, list[int]] = {}
    for rank in by_median:
        members.setdefault(str(host_of[rank]), []).append(rank)
    groups = [
        HostGroup(
            host,
            tuple(ranks),
            _median([value for rank in ranks if (value := medians[rank]) is not None]),
        )
        for host, ranks in members.items()
    ]
    # The host of the slowest rank first (then by its ranks' median, by name).
    groups.sort(
        key=lambda group: (
            _slowest(medians, group.ranks[0])[:2],
            -(group.median_ns or 0.0),
            group.host,
        )
    )
    return tuple(groups), ()

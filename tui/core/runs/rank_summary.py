"""One rank's trace in, one small JSON-serialisable summary out: the unit of work of a run.

`summarise_trace` is a pure function of the loaded columns and
`summarise_file` adds the load; their result holds every figure the run
needs (steps, arrivals at the collectives, breakdowns whole and per step),
in integer nanoseconds, so `from_json(to_json())` gives it back exactly.
A process pool here, or Dask/Ray on a cluster, can map `summarise_file` over
hundreds of rank files and hand the summaries to `runs.across`.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import BreakdownRules, CacheUse, CollectiveSide, StepPhase
from tui.core.figures.analysis import Analysis
from tui.core.figures.breakdown.gpu import Breakdown, breakdowns
from tui.core.figures.breakdown.rows import device_rows
from tui.core.figures.collectives import StepCollectives, find_collectives
from tui.core.model.observed import gpu_missing_reason
from tui.core.model.trace import Trace

SUMMARY_FORMAT = 1
# A trace's own warnings kept in its summary (the rest are counted).
KEPT_WARNINGS = 20


@dataclass(frozen=True)
class RankStep:
    """One step of one rank: its time, data zone, collectives and breakdowns."""

    number: int
    phase: StepPhase
    start_ns: int
    duration_ns: int
    zone_ns: int | None
    collectives: StepCollectives
    breakdown: Breakdown | None
    breakdown_steptrace: Breakdown | None

    def to_json(self) -> dict[str, Any]:
        """Exact JSON form (integer ns)."""
        return {
            "step": self.number,
            "phase": self.phase.value,
            "start_ns": self.start_ns,
            "duration_ns": self.duration_ns,
            "zone_ns": self.zone_ns,
            "arrival_ns": self.collectives.arrival_ns,
            "collective_ns": self.collectives.busy_ns,
            "collectives": self.collectives.count,
            "breakdown": _record(self.breakdown),
            "breakdown_steptrace": _record(self.breakdown_steptrace),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RankStep:
        """Read back `to_json`."""
        return cls(
            int(data["step"]),
            StepPhase(data["phase"]),
            int(data["start_ns"]),
            int(data["duration_ns"]),
            data["zone_ns"],
            StepCollectives(
                data["arrival_ns"], int(data["collective_ns"]), int(data["collectives"])
            ),
            _breakdown(data["breakdown"]),
            _breakdown(data["breakdown_steptrace"]),
        )


@dataclass(frozen=True)
class RankSummary:
    """Everything a run needs from one rank's trace."""

    file: str
    file_size: int
    rank: int | None  # from the trace's distributedInfo (or its capture description)
    world_size: int | None
    unit: str
    gpu_observed: bool
    gpu_missing_reason: str | None
    collective_side: CollectiveSide | None
    zones: tuple[str, ...]  # the data zone's names that occur in this rank
    steps: tuple[RankStep, ...]
    breakdown: Breakdown | None
    breakdown_steptrace: Breakdown | None
    events: int
    warnings: tuple[str, ...]

    @property
    def active_steps(self) -> list[RankStep]:
        """The steps of the recorded window."""
        return [step for step in self.steps if step.phase is StepPhase.ACTIVE]

    @property
    def step_median_ns(self) -> float | None:
        """Median duration of the active steps."""
        durations = [step.duration_ns for step in self.active_steps]
        return float(statistics.median(durations)) if durations else None

    def step(self, number: int) -> RankStep | None:
        """The step with this number, if the rank recorded it."""
        return self._by_number.get(number)

    @cached_property
    def _by_number(self) -> dict[int, RankStep]:
        return {step.number: step for step in reversed(self.steps)}

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (integer ns) that `from_json` reads back exactly."""
        return {
            "format": SUMMARY_FORMAT,
            "file": self.file,
            "file_size": self.file_size,
            "rank": self.rank,
            "world_size": self.world_size,
            "unit": self.unit,
            "gpu_observed": self.gpu_observed,
            "gpu_missing_reason": self.gpu_missing_reason,
            "collective_side": None
            if self.collective_side is None
            else self.collective_side.value,
            "zones": list(self.zones),
            "steps": [step.to_json() for step in self.steps],
            "breakdown": _record(self.breakdown),
            "breakdown_steptrace": _record(self.breakdown_steptrace),
            "events": self.events,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RankSummary:
        """Read back `to_json`; ValueError for another format."""
        if data.get("format") != SUMMARY_FORMAT:
            raise ValueError(f"not a rank summary of format {SUMMARY_FORMAT}")
        side = data["collective_side"]
        return cls(
            str(data["file"]),
            int(data["file_size"]),
            data["rank"],
            data["world_size"],
            str(data["unit"]),
            bool(data["gpu_observed"]),
            data["gpu_missing_reason"],
            None if side is None else CollectiveSide(side),
            tuple(data["zones"]),
            tuple(RankStep.from_json(step) for step in data["steps"]),
            _breakdown(data["breakdown"]),
            _breakdown(data["breakdown_steptrace"]),
            int(data["events"]),
            tuple(data["warnings"]),
        )


def _record(breakdown: Breakdown | None) -> dict[str, Any] | None:
    return None if breakdown is None else breakdown.to_record()


def _breakdown(record: Mapping[str, Any] | None) -> Breakdown | None:
    return None if record is None else Breakdown.from_record(dict(record))


def _distributed(trace: Trace) -> tuple[int | None, int | None]:
    """(rank, world size) from distributedInfo, else from the capture description."""
    info = trace.metadata.get("distributedInfo")
    info = info if isinstance(info, Mapping) else {}
    declared = trace.capture.distributed
    rank = info.get("rank")
    world_size = info.get("world_size")
    if type(rank) is not int or rank < 0:
        rank = declared.rank if declared else None
    if type(world_size) is not int or world_size < 1:
        world_size = declared.world_size if declared else None
    return rank, world_size


def _zone_time(
    analysis: Analysis, windows: Sequence[tuple[int, int]]
) -> tuple[int, list[int | None]]:
    """How many data-zone occurrences there are, and the zone time (its union) in each step.

    The same zone as `Analysis.zone_reading` (candidates named by the zone
    choice), without its gaps, which a run does not need.
    """
    trace = analysis.trace
    events = np.flatnonzero(
        analysis.zone_candidate_mask
        & np.isin(trace.name_id, analysis.zone_choice.name_ids(trace))
    )
    if events.size == 0:
        return 0, [None] * len(windows)
    starts = trace.start_ns[events]
    zone = Intervals.union_of(starts, starts + trace.duration_ns[events])
    covered = zone.covered_in(
        [start for start, _ in windows], [end for _, end in windows]
    )
    return int(events.size), [int(value) for value in covered.tolist()]


def summarise_trace(trace: Trace, zones: Sequence[str] | None = None) -> RankSummary:
    """The summary of one loaded rank trace (a pure function of its columns)."""
    analysis = Analysis(trace, list(zones) if zones else None)
    steps = analysis.steps
    windows = [(step.start_ns, step.end_ns) for step in steps]
    gpu = trace.gpu_observed
    if gpu:
        whole, per_step = breakdowns(device_rows(trace, BreakdownRules.HTA), windows)
        rows = device_rows(trace, BreakdownRules.STEPTRACE, analysis.launch_call)
        whole_own, per_step_own = breakdowns(rows, windows)
    else:
        whole = whole_own = None
        per_step = per_step_own = [None] * len(steps)
    collectives = find_collectives(trace, analysis.on_cpu, analysis.launch_call)
    zone_events, zone_per_step = _zone_time(analysis, windows)
    rank_steps = []
    for step, zone_ns, at_collectives, mine, own in zip(
        steps,
        zone_per_step,
        collectives.in_steps(steps),
        per_step,
        per_step_own,
        strict=True,
    ):
        rank_steps.append(
            RankStep(
                step.number,
                step.phase,
                step.start_ns,
                step.duration_ns,
                zone_ns,
                at_collectives,
                mine,
                own,
            )
        )
    rank, world_size = _distributed(trace)
    warnings = list(trace.warnings[:KEPT_WARNINGS])
    if len(trace.warnings) > KEPT_WARNINGS:
        warnings.append(f"… and {len(trace.warnings) - KEPT_WARNINGS} more warnings")
    return RankSummary(
        file=str(trace.path),
        file_size=trace.file_size,
        rank=rank,
        world_size=world_size,
        unit=trace.capture.unit_name,
        gpu_observed=gpu,
        gpu_missing_reason=gpu_missing_reason(trace),
        collective_side=collectives.side,
        zones=tuple(
            name
            for name in analysis.zone_choice.names
            if name in analysis.zone_names_present
        )
        if zone_events
        else (),
        steps=tuple(rank_steps),
        breakdown=whole,
        breakdown_steptrace=whole_own,
        events=trace.event_count,
        warnings=tuple(warnings),
    )


def summarise_file(
    path: str,
    zones: Sequence[str] | None = None,
    *,
    decode_workers: int | None = None,
    progress: Any = None,
    cancel: Any = None,
) -> dict[str, Any]:
    """Load one rank's trace (through the column cache) and return its summary as JSON.

    The function a process pool, Dask or Ray maps over a run's files.
    """
    from tui.core.ingest.load import load_trace

    options: dict[str, Any] = {
        "cache": CacheUse.AUTO,
        "progress": progress,
        "cancel": cancel,
    }
    if decode_workers is not None and _loader_takes_workers():
        options["workers"] = decode_workers
    trace = load_trace(path, **options)
    return summarise_trace(trace, zones).to_json()


def _loader_takes_workers() -> bool:
    import inspect

    from tui.core.ingest.load import load_trace

    return "workers" in inspect.signature(load_trace).parameters

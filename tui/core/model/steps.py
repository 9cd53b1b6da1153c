"""Profiler steps (`ProfilerStep#N`): the unit every per-step figure is cut by."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import exact_median
from tui.core.base.vocab import StepPhase
from tui.core.model.masks import names_in
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]

# Step numbers beyond 18 digits are not steps torch wrote (and do not fit in int64).
STEP_PREFIX = "ProfilerStep#"
STEP_NAME = re.compile(r"^ProfilerStep#(-?\d{1,18})$")


@dataclass(frozen=True)
class Step:
    """One profiler step (`ProfilerStep#N`)."""

    number: int
    event: int
    start_ns: int
    duration_ns: int
    phase: StepPhase

    @property
    def end_ns(self) -> int:
        """When the step ends."""
        return self.start_ns + self.duration_ns


def step_numbers(trace: Trace) -> dict[int, int]:
    """The step number of each `ProfilerStep#N` name id."""
    names = trace.names
    return {
        index: int(match.group(1))
        for index in trace.name_ids_starting(STEP_PREFIX).tolist()
        if (match := STEP_NAME.match(names[index]))
    }


def step_records(
    trace: Trace, on_cpu: npt.NDArray[np.bool_], step_ids: dict[int, int]
) -> tuple[Int64Array, int | None]:
    """Every CPU step record, and the track holding the most of them (None without any)."""
    if not step_ids:
        return np.zeros(0, dtype=np.int64), None
    candidates = np.flatnonzero(on_cpu & names_in(trace, list(step_ids)))
    if candidates.size == 0:
        return candidates, None
    tracks, counts = np.unique(trace.track[candidates], return_counts=True)
    return candidates, int(tracks[np.argmax(counts)])


def find_steps(trace: Trace, on_cpu: npt.NDArray[np.bool_]) -> list[Step]:
    """Profiler steps in time order, on the CPU thread that has the most of them.

    Steps the capture description does not list as active are start-up.
    """
    step_ids = step_numbers(trace)
    candidates, main_track = step_records(trace, on_cpu, step_ids)
    if main_track is None:
        return []
    candidates = candidates[trace.track[candidates] == main_track]
    active = trace.capture.active_steps
    steps = []
    recorded: set[tuple[int, int, int]] = set()
    for event in candidates.tolist():
        number = step_ids[int(trace.name_id[event])]
        # The same step record written twice is one step (`integrity` names it).
        record = (number, int(trace.start_ns[event]), int(trace.duration_ns[event]))
        if record in recorded:
            continue
        recorded.add(record)
        phase = (
            StepPhase.ACTIVE
            if active is None or number in active
            else StepPhase.STARTUP
        )
        steps.append(
            Step(
                number,
                event,
                int(trace.start_ns[event]),
                int(trace.duration_ns[event]),
                phase,
            )
        )
    steps.sort(key=lambda step: step.start_ns)
    return steps


def step_name_ids(trace: Trace) -> npt.NDArray[np.int32]:
    """Name ids of `ProfilerStep#N` names."""
    names = trace.names
    return np.array(
        [
            index
            for index in trace.name_ids_starting(STEP_PREFIX).tolist()
            if STEP_NAME.match(names[index])
        ]
        or [-1],
        dtype=np.int32,
    )


@dataclass(frozen=True)
class StepStats:
    """Median, min and max of step durations: a few steps show the mechanism, not a distribution."""

    count: int
    median_ns: float
    min_ns: int
    max_ns: int

    @classmethod
    def of(cls, durations_ns: list[int]) -> StepStats | None:
        """The stats of some durations; None without any."""
        if not durations_ns:
            return None
        return cls(
            len(durations_ns),
            exact_median(durations_ns),
            min(durations_ns),
            max(durations_ns),
        )

"""The user's own data zone, proposed when the capture holds no known one.

A training loop of one's own rarely names its batch read `lecture_batch_cpu`
or reads it through a DataLoader: it wraps it in a `record_function` of its
own name. Of the user annotations that repeat exactly once in every step of
the window, the one holding the most untraced time is the likely batch read:
time inside it when no thread runs an operator or runtime call and no device
runs work (Python, I/O, sleeps). An annotation around work done elsewhere
(a backward pass while the autograd thread computes, a collective while the
device reduces) holds little of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tui.core.base.intervals import Intervals
from tui.core.model.nesting import sum_by_index
from tui.core.model.steps import Step
from tui.core.model.trace import BoolArray, Kind, Trace

# Events that are work, not labels: operators, runtime and driver calls.
_WORK_KINDS = (Kind.CPU_OP, Kind.RUNTIME, Kind.DRIVER)


# The proposal must be mostly untraced (a read, not a range around operators)
# and hold a share of the step worth reading.
MIN_OWN_SHARE = 0.5
MIN_STEP_SHARE = 0.05
# Once per step is a repetition from two steps on.
MIN_STEPS = 2


def traced_work(trace: Trace, on_cpu: BoolArray, devices_busy: Intervals) -> Intervals:
    """When some CPU thread runs an operator or a runtime call, or a device runs work."""
    events = np.flatnonzero(
        on_cpu & np.isin(trace.kind, np.array(_WORK_KINDS, dtype=np.uint8))
    )
    starts = trace.start_ns[events]
    ends = starts + trace.duration_ns[events]
    return Intervals.union_of(starts, ends).union(devices_busy)


def proposed_zone(
    trace: Trace, candidates: BoolArray, steps: Sequence[Step], work: Intervals
) -> str | None:
    """The user annotation that starts once in each of `steps` and holds the
    most untraced time (outside `work`, summed over the steps), None when none
    does; one mostly traced, or holding under 5 % of the steps, or a capture
    of one step proposes none. Names play no part: a scrubbed copy proposes
    the same range."""
    if len(steps) < MIN_STEPS:
        return None
    events = np.flatnonzero(candidates & (trace.kind == Kind.USER_ANNOTATION))
    if events.size == 0:
        return None
    starts = np.array([step.start_ns for step in steps], dtype=np.int64)
    ends = np.array([step.end_ns for step in steps], dtype=np.int64)
    begins = trace.start_ns[events]
    step_at = np.searchsorted(starts, begins, side="right") - 1
    inside = (step_at >= 0) & (begins < ends[np.maximum(step_at, 0)])
    events, step_at, begins = events[inside], step_at[inside], begins[inside]
    if events.size == 0:
        return None
    names = trace.name_id[events].astype(np.int64)
    pairs, counts = np.unique(names * len(steps) + step_at, return_counts=True)
    pair_name = pairs // len(steps)
    once = np.bincount(pair_name[counts == 1], minlength=len(trace.names))
    seen = np.bincount(pair_name, minlength=len(trace.names))
    every_step = np.flatnonzero((once == len(steps)) & (seen == len(steps)))
    finished = begins + trace.duration_ns[events]
    idle = finished - begins - work.covered_in(begins, finished)
    if every_step.size == 0:
        return None
    size = len(trace.names)
    untraced = sum_by_index(size, names, idle)[every_step]
    held = sum_by_index(size, names, finished - begins)[every_step]
    steps_ns = sum(step.duration_ns for step in steps)
    worth = (untraced >= MIN_OWN_SHARE * held) & (untraced >= MIN_STEP_SHARE * steps_ns)
    if not worth.any():
        return None
    best = int(np.argmax(np.where(worth, untraced, -1)))
    return trace.names[int(every_step[best])]

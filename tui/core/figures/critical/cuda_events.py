"""Which kernel a CUDA event stands for, and which kernel waits on it.

A `cudaEventRecord` marks the last op launched to its stream before it (HTA
0.5.0's _get_cuda_event_record_df: by time, on any thread); Kineto's Event
Sync and Stream Wait Event rows name the record they wait on
(`wait_on_cuda_event_record_corr_id`, `wait_on_stream`). An Event Sync ties
that op's end to the end of the host's `cudaEventSynchronize`; a Stream Wait
Event holds back the next op the same thread launches to the waiting stream
(_get_cuda_stream_wait_event_df).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.figures.critical.frame import HtaFrame

RECORD_CALL = "cudaEventRecord"
WAIT_CALL = "cudaStreamWaitEvent"


@dataclass(frozen=True)
class EventWaits:
    """The device op each waiting row waits for, and each wait call's next op."""

    source: dict[int, int]  # Event Sync / Stream Wait Event row -> op recorded
    next_op: dict[int, int]  # cudaStreamWaitEvent call -> the op it holds back


def _int_arg(args: dict[str, object], key: str) -> int | None:
    value = args.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def event_waits(frame: HtaFrame) -> EventWaits:
    """Both maps over the whole frame (HTA reads the full trace for them)."""
    trace = frame.trace
    launches = np.flatnonzero(frame.launches)
    ops = frame.partner[launches]
    on_device = frame.stream[ops] != -1
    launches, ops = launches[on_device], ops[on_device]
    order = np.argsort(frame.start_ns[launches], kind="stable")
    launches, ops = launches[order], ops[order]
    pid_of = [track.pid for track in trace.tracks]
    # The record each waiting row names, with the stream and device it waits on.
    waiting: dict[int, int] = {}
    stream_of_record: dict[int, tuple[object, int]] = {}
    for row in np.flatnonzero(frame.kept & frame.sync_rows).tolist():
        args = trace.event_args(row)
        record = _int_arg(args, "wait_on_cuda_event_record_corr_id")
        stream = _int_arg(args, "wait_on_stream")
        if record is None or stream is None or stream <= -1:
            continue
        waiting[row] = record
        stream_of_record.setdefault(record, (pid_of[int(trace.track[row])], stream))
    # Each record's previous launch to that device and stream.
    launched_to: dict[tuple[object, int], list[int]] = {}
    for launch, op in zip(launches.tolist(), ops.tolist(), strict=True):
        key = (pid_of[int(trace.track[op])], int(frame.stream[op]))
        launched_to.setdefault(key, []).append(launch)
    record_ids = trace.name_ids_matching({RECORD_CALL})
    records = np.flatnonzero(frame.kept & np.isin(trace.name_id, record_ids))
    recorded_op: dict[int, int] = {}
    for record in records.tolist():
        correlation = int(trace.correlation[record])
        key_of = stream_of_record.get(correlation)
        if key_of is None or correlation in recorded_op:
            continue
        candidates = launched_to.get(key_of, [])
        starts = frame.start_ns[np.array(candidates, dtype=np.int64)]
        before = int(np.searchsorted(starts, frame.start_ns[record], side="right"))
        if before:
            recorded_op[correlation] = int(frame.partner[candidates[before - 1]])
    source = {
        row: recorded_op[record]
        for row, record in waiting.items()
        if record in recorded_op
    }
    return EventWaits(source, _next_ops(frame, launches, ops))


def _next_ops(frame: HtaFrame, launches: np.ndarray, ops: np.ndarray) -> dict[int, int]:
    """Each cudaStreamWaitEvent call's next launch on its thread to the waiting stream."""
    trace = frame.trace
    by_thread: dict[tuple[int, int], list[int]] = {}
    for launch, op in zip(launches.tolist(), ops.tolist(), strict=True):
        key = (int(trace.track[launch]), int(frame.stream[op]))
        by_thread.setdefault(key, []).append(launch)
    wait_ids = trace.name_ids_matching({WAIT_CALL})
    calls = np.flatnonzero(
        frame.kept & np.isin(trace.name_id, wait_ids) & (frame.partner >= 0)
    )
    next_op: dict[int, int] = {}
    for call in calls.tolist():
        row = int(frame.partner[call])
        candidates = by_thread.get((int(trace.track[call]), int(frame.stream[row])), [])
        if not candidates:
            continue
        starts = frame.start_ns[np.array(candidates, dtype=np.int64)]
        after = int(np.searchsorted(starts, frame.start_ns[call], side="right"))
        if after < len(candidates):
            next_op[call] = int(frame.partner[candidates[after]])
    return next_op

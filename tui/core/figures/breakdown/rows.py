"""Which device ops a GPU breakdown reads, under HTA 0.5.0's rules or steptrace's.

HTA's rules (tests/fixtures/hta/DEFINITIONS.md §1–§2, §7), kept so that its
named figures can be checked against HTA's:

- device work is every event that carries an integer `stream` argument other
  than -1 (syncs and Inductor's CPU ops included);
- with fractional-microsecond timestamps, every event is rounded inward to
  whole microseconds as HTA's float64 frame does (start up, end down);
- with two or more `ProfilerStep` names, a device op is kept only if a
  non-device event shares its correlation id (its launching call is in the
  file);
- the idle breakdown reads kernels, copies, sets and MTIA events only, and
  its host wait compares the launching call's start with the stream's
  previous op end.

steptrace's rules: device work is what the model calls device work (kernels,
copies, sets, other accelerators' ops; never syncs), at the nanosecond, all
of it, classified by `kernel_types.kernel_type`, one stream per track, and
the launching call found by `Analysis.launch_call`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.vocab import BreakdownRules
from tui.core.figures.kernel_types import hta_type_codes, type_codes
from tui.core.model.trace import Kind, Trace

Int64Array = npt.NDArray[np.int64]
UInt8Array = npt.NDArray[np.uint8]
BoolArray = npt.NDArray[np.bool_]

# A device op whose launching call is unknown.
NO_LAUNCH = np.iinfo(np.int64).min
# Categories HTA's idle breakdown reads (breakdown_analysis.py:830).
HTA_IDLE_CATEGORIES = frozenset(
    {
        "kernel",
        "Kernel",
        "gpu_memset",
        "Memset",
        "gpu_memcpy",
        "Memcpy",
        "mtia_ccp_events",
    }
)
# Device rows HTA links to their call without a stream (trace_filter.py:320).
HTA_SYNC_NAMES = frozenset({"Event Sync", "Context Sync"})


@dataclass(frozen=True)
class DeviceRows:
    """Device ops in the trace's frame (ns from its origin), in start order."""

    rules: BreakdownRules
    start_ns: Int64Array
    end_ns: Int64Array  # may not exceed the start under HTA's rounding
    type_code: UInt8Array  # kernel_types.TYPE_CODE
    stream: Int64Array  # index into `streams`
    streams: tuple[int | str, ...]
    idle_rows: BoolArray  # rows the idle breakdown reads
    launch_ns: Int64Array  # the launching call's start, NO_LAUNCH when unknown
    stream_device: tuple[int | None, ...]  # each stream's device, None when not one

    def __len__(self) -> int:
        return int(self.start_ns.size)


def device_rows(
    trace: Trace, rules: BreakdownRules, launch_call: Int64Array | None = None
) -> DeviceRows:
    """The rows a breakdown reads under `rules` (steptrace's need `Analysis.launch_call`)."""
    if rules is BreakdownRules.HTA:
        return hta_rows(trace)
    if launch_call is None:
        raise ValueError("steptrace's rules need the launching calls")
    return steptrace_rows(trace, launch_call)


def steptrace_rows(trace: Trace, launch_call: Int64Array) -> DeviceRows:
    """Kernels, copies, sets and other device work, exact, one stream per track."""
    events = np.flatnonzero(trace.device_work_mask).astype(np.int64)
    events = events[np.argsort(trace.start_ns[events], kind="stable")]
    starts = trace.start_ns[events]
    tracks, stream = np.unique(trace.track[events], return_inverse=True)
    devices = {trace.tracks[int(track)].device for track in tracks.tolist()}
    streams: list[int | str] = []
    stream_device: list[int | None] = []
    for track in tracks.tolist():
        info = trace.tracks[int(track)]
        tid = info.tid if isinstance(info.tid, int) else str(info.tid)
        streams.append(tid if len(devices) == 1 else f"{info.device}:{tid}")
        stream_device.append(info.device)
    call = launch_call[events]
    launch = np.where(call >= 0, trace.start_ns[np.maximum(call, 0)], NO_LAUNCH)
    return DeviceRows(
        BreakdownRules.STEPTRACE,
        starts,
        starts + trace.duration_ns[events],
        type_codes(trace, events),
        stream.reshape(-1).astype(np.int64),
        tuple(streams),
        np.ones(events.size, dtype=bool),
        launch.astype(np.int64),
        tuple(stream_device),
    )


def hta_times(trace: Trace, events: Int64Array) -> tuple[Int64Array, Int64Array]:
    """(start, end) of `events` as HTA 0.5.0 reads them, in the trace's frame.

    With fractional microseconds, HTA holds absolute µs in float64, rounds
    starts up and ends (start + duration, in float64) down to whole µs.
    """
    starts = trace.start_ns[events]
    ends = starts + trace.duration_ns[events]
    if not _has_fractions(trace):
        return starts, ends
    absolute = np.asarray(starts, dtype=np.int64) + np.int64(trace.origin_ns)
    ts_us = (absolute.astype(np.longdouble) / 1000).astype(np.float64)
    end_us = ts_us + trace.duration_ns[events].astype(np.float64) / 1000.0
    origin = np.int64(trace.origin_ns)
    return (
        np.ceil(ts_us).astype(np.int64) * 1000 - origin,
        np.floor(end_us).astype(np.int64) * 1000 - origin,
    )


def _has_fractions(trace: Trace) -> bool:
    """Whether some timestamp or duration is not a whole microsecond (HTA then rounds)."""
    absolute = trace.start_ns + np.int64(trace.origin_ns)
    return bool(np.any(absolute % 1000) or np.any(trace.duration_ns % 1000))


def hta_rows(trace: Trace) -> DeviceRows:
    """HTA's device rows: events with a stream argument, after its step filter, rounded as it does."""
    category_ok = np.array(
        [bool(category) and category != "Trace" for category in trace.categories]
        or [False],
        dtype=bool,
    )
    kept = category_ok[trace.category_id] & (trace.kind != Kind.TRACE_SPAN)
    stream = trace.stream_arg
    sync_ids = trace.name_ids_matching(set(HTA_SYNC_NAMES))
    linked = ((stream >= 0) & (trace.correlation >= 0)) | np.isin(
        trace.name_id, sync_ids
    )
    step_names = {
        trace.names[int(name)]
        for name in distinct(trace.name_id[kept]).tolist()
        if "ProfilerStep" in trace.names[int(name)]
    }
    calls = distinct(trace.correlation[kept & ~linked])
    if len(step_names) >= 2:
        # HTA's step filter: a device row stays if a non-device row shares its correlation.
        kept &= ~linked | np.isin(trace.correlation, calls)
    events = np.flatnonzero(kept & (stream != -1)).astype(np.int64)
    starts, ends = hta_times(trace, events)
    order = np.argsort(starts, kind="stable")
    events, starts, ends = events[order], starts[order], ends[order]
    idle_categories = np.array(
        [category in HTA_IDLE_CATEGORIES for category in trace.categories] or [False],
        dtype=bool,
    )
    streams, stream_index = np.unique(stream[events], return_inverse=True)
    return DeviceRows(
        BreakdownRules.HTA,
        starts,
        ends,
        hta_type_codes(trace, events),
        stream_index.reshape(-1).astype(np.int64),
        tuple(int(value) for value in streams.tolist()),
        idle_categories[trace.category_id[events]],
        _hta_launches(trace, events, linked, kept),
        _devices_of_streams(trace, events, stream_index.reshape(-1), streams.size),
    )


def _devices_of_streams(
    trace: Trace, events: Int64Array, stream_index: Int64Array, count: int
) -> tuple[int | None, ...]:
    """The device whose tracks hold each stream's rows; None when none or several.

    HTA keys streams by number alone (DEFINITIONS.md §9): the same number on
    two devices is one stream to it, whose device steptrace does not guess.
    """
    found: list[set[int]] = [set() for _ in range(count)]
    if events.size == 0:
        return ()
    # Each (stream, track) pair once, as one integer: a sort, where
    # np.unique(axis=1) sorts rows of Python-compared void items.
    tracks = len(trace.tracks)
    pairs = distinct(stream_index.astype(np.int64) * tracks + trace.track[events])
    for stream, track in zip(
        (pairs // tracks).tolist(), (pairs % tracks).tolist(), strict=True
    ):
        device = trace.tracks[track].device
        if device is not None:
            found[int(stream)].add(device)
    return tuple(
        next(iter(devices)) if len(devices) == 1 else None for devices in found
    )


def _hta_launches(
    trace: Trace, events: Int64Array, linked: BoolArray, kept: BoolArray
) -> Int64Array:
    """When the non-device row sharing each linked row's correlation started (HTA's rounding).

    A row without such a partner gets NO_LAUNCH: HTA would borrow the file's
    first event's time there (DEFINITIONS.md §10.6), which steptrace does not.
    """
    launch = np.full(events.size, NO_LAUNCH, dtype=np.int64)
    calls = np.flatnonzero(kept & ~linked & (trace.correlation >= 0)).astype(np.int64)
    if calls.size == 0 or events.size == 0:
        return launch
    calls = calls[np.argsort(trace.correlation[calls], kind="stable")]
    keys = trace.correlation[calls]
    wanted = trace.correlation[events]
    position = np.searchsorted(keys, wanted, side="left")
    safe = np.minimum(position, keys.size - 1)
    found = linked[events] & (wanted >= 0) & (keys[safe] == wanted)
    call_start, _ = hta_times(trace, calls[safe[found]])
    launch[found] = call_start
    return launch

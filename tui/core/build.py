"""Turn decoded events into the columnar `Trace` model.

Every event that cannot be placed exactly (no timestamp, a negative or
missing duration, an unmatched begin/end) is dropped and counted in a
warning, so no figure silently includes it.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from tui.core.decode import _NOT_AN_OBJECT, DecodedTrace, EventSource, RawEvent
from tui.core.errors import TraceLoadError
from tui.core.memory_events import MemoryCollector
from tui.core.model import Flows, Kind, Trace, Track, TrackKind
from tui.core.numbers import (
    MAX_TIMESTAMP_NS,
    MIN_TIMESTAMP_NS,
    duration_us_to_ns,
    parse_us_to_ns,
)
from tui.core.textsafe import printable

# Category (lower-cased) → kind. Both generations: PyTorch ≤ 1.10 and current Kineto.
_CATEGORY_KINDS: dict[str, Kind] = {
    "cpu_op": Kind.CPU_OP,
    "operator": Kind.CPU_OP,
    "user_annotation": Kind.USER_ANNOTATION,
    "python_function": Kind.PYTHON,
    "python": Kind.PYTHON,
    "cuda_runtime": Kind.RUNTIME,
    "runtime": Kind.RUNTIME,
    "cuda_driver": Kind.DRIVER,
    "driver": Kind.DRIVER,
    "kernel": Kind.KERNEL,
    "gpu_memcpy": Kind.MEMCPY,
    "memcpy": Kind.MEMCPY,
    "gpu_memset": Kind.MEMSET,
    "memset": Kind.MEMSET,
    "gpu_user_annotation": Kind.GPU_ANNOTATION,
    "cuda_sync": Kind.SYNC,
    "trace": Kind.TRACE_SPAN,
    "cuda_profiler_range": Kind.DEVICE_RANGE,
}
_KNOWN_CPU_CATEGORIES = {"cpu_instant_event", "overhead", "user_annotation"}
_DEVICE_KINDS = {Kind.KERNEL, Kind.MEMCPY, Kind.MEMSET, Kind.GPU_ANNOTATION, Kind.SYNC}
# Work that only a CPU thread does: a track holding any of it is a CPU thread.
_CPU_WORK_KINDS = {
    Kind.CPU_OP,
    Kind.USER_ANNOTATION,
    Kind.PYTHON,
    Kind.RUNTIME,
    Kind.DRIVER,
}
_DEVICE_PROCESS = re.compile(
    r"^\s*(GPU|MTIA|XPU|HPU|NPU|TPU|MPS|Device)\s*(\d+)", re.IGNORECASE
)
_FLOW_LINK_CATEGORIES = {"ac2g", "async_gpu", "async"}


_PH = operator.attrgetter("ph")
_CAT = operator.attrgetter("cat")
_ID = operator.attrgetter("id")
_NAME = operator.attrgetter("name")
_PID = operator.attrgetter("pid")
_TID = operator.attrgetter("tid")
_TS = operator.attrgetter("ts")
_DUR = operator.attrgetter("dur")
_PID_TID = operator.attrgetter("pid", "tid")


class _KnownIds(msgspec.Struct, gc=False):
    """The id args as well-formed traces write them; anything else takes the tolerant path."""

    correlation: int = -1
    external_id: int = msgspec.field(default=-1, name="External id")
    external_id_old: int = msgspec.field(default=-1, name="external id")


_KNOWN_IDS_LIST = msgspec.json.Decoder(list[_KnownIds])
_CORRELATION = operator.attrgetter("correlation")
_EXTERNAL_ID = operator.attrgetter("external_id")
_EXTERNAL_ID_OLD = operator.attrgetter("external_id_old")


def _known_id_columns(
    blob: bytes, pieces: Sequence[Any], counts: Counter[str]
) -> tuple[np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.int64]]]:
    """Correlation and External id columns (-1 when absent) from a batch of args."""
    try:
        typed = _KNOWN_IDS_LIST.decode(blob)
    except (msgspec.ValidationError, msgspec.DecodeError):
        known = _decode_known_args(blob, pieces, counts)
        correlation = _id_column([item.correlation for item in known])
        external_id = _id_column([item.external_id for item in known])
        old = _id_column([item.external_id_old for item in known])
        # As on the typed path: "External id" -1 or absent → "external id".
        return correlation, np.where(external_id == -1, old, external_id)
    count = len(typed)
    correlation = np.fromiter(map(_CORRELATION, typed), dtype=np.int64, count=count)
    external_id = np.fromiter(map(_EXTERNAL_ID, typed), dtype=np.int64, count=count)
    old = np.fromiter(map(_EXTERNAL_ID_OLD, typed), dtype=np.int64, count=count)
    external_id = np.where(external_id == -1, old, external_id)
    for column in (correlation, external_id):
        column[(column >= _MAX_ID) | (column <= -_MAX_ID)] = -1
    return correlation, external_id


class _KnownArgs(msgspec.Struct, gc=False):
    """The few args fields that become columns."""

    correlation: Any = None
    external_id: Any = msgspec.field(default=None, name="External id")
    external_id_old: Any = msgspec.field(default=None, name="external id")
    device: Any = None


_KNOWN_ARGS_LIST = msgspec.json.Decoder(list[_KnownArgs])
_KNOWN_ARGS_ONE = msgspec.json.Decoder(_KnownArgs)
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])
_MAX_ID = 2**62


class _Interner:
    """Strings to dense ids; non-string names are shown as their JSON text."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}

    def codes(self, values: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.int32]]:
        """The code of each value; values not seen before get the next codes in order."""
        ids = self.ids
        try:
            # Mostly values seen before: looked up at C speed (None or an
            # unhashable value stops it).
            return np.fromiter(map(ids.get, values), dtype=np.int32, count=len(values))
        except TypeError:
            pass
        # One C-level pass records each distinct value's first position; only
        # the distinct values are then looked up (or added) one by one.
        first: dict[Any, int] = {}
        try:
            positions = np.fromiter(
                map(first.setdefault, values, itertools.count()),
                dtype=np.int64,
                count=len(values),
            )
        except TypeError:  # unhashable (a list or dict where a name should be)
            codes = [ids.setdefault(_hashable(value), len(ids)) for value in values]
            return np.array(codes, dtype=np.int32)
        distinct = list(first)
        found: list[int | None] = list(map(ids.get, distinct))
        if None in found:
            new = [
                value
                for value, code in zip(distinct, found, strict=True)
                if code is None
            ]
            ids.update(zip(new, range(len(ids), len(ids) + len(new)), strict=True))
            found = list(map(ids.__getitem__, distinct))
        firsts = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        local = np.searchsorted(firsts, positions)
        return np.array(found, dtype=np.int32)[local]

    def codes_of(
        self, items: Sequence[Any], value_of: Callable[[Any], Any]
    ) -> np.ndarray[Any, np.dtype[np.int32]]:
        """`codes` of each item's value, without a list of the values when all are known."""
        try:
            return np.fromiter(
                map(self.ids.get, map(value_of, items)),
                dtype=np.int32,
                count=len(items),
            )
        except TypeError:
            return self.codes(list(map(value_of, items)))

    def strings(self) -> list[str]:
        table = [""] * len(self.ids)
        for value, code in self.ids.items():
            table[code] = value if isinstance(value, str) else _as_text(value)
        return table


_PLAIN_TYPES = frozenset({int, str, float, bool, type(None)})


def _hashable(value: Any) -> Hashable:
    if type(value) in _PLAIN_TYPES:
        return value  # type: ignore[no-any-return]
    try:
        hash(value)
    except TypeError:
        return _as_text(value)
    return value  # type: ignore[no-any-return]


def _as_text(value: Any) -> str:
    if value is None:
        return "(none)"
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(value)


def _id_column(values: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Ids (correlation, External id) as int64, -1 where missing or not an id."""
    if set(map(type, values)) <= {int}:
        try:
            ids = np.array(values, dtype=np.int64)
        except OverflowError:
            pass
        else:
            ids[(ids >= _MAX_ID) | (ids <= -_MAX_ID)] = -1
            return ids
    return np.fromiter(
        (
            value
            if type(value) is int and -_MAX_ID < value < _MAX_ID
            else (-1 if value is None else _int_or_missing(value))
            for value in values
        ),
        dtype=np.int64,
        count=len(values),
    )


def _int_or_missing(value: Any) -> int:
    if type(value) is int and -_MAX_ID < value < _MAX_ID:
        return value
    if isinstance(value, str) and value.isdigit() and len(value) < 18:
        return int(value)
    return -1


def build_trace(
    decoded: DecodedTrace,
    path: Path,
    *,
    file_size: int = 0,
    compressed: bool = False,
    read_warnings: Sequence[str] = (),
    progress: Callable[[str, int, int], None] | None = None,
) -> Trace:
    """Build the columnar model from decoded events."""
    try:
        return _build(decoded, path, file_size, compressed, read_warnings, progress)
    except MemoryError:
        decoded.events = EventSource()
        raise TraceLoadError(
            f"{printable(str(path))}: not enough memory to hold this trace's events "
            "(try a machine with more memory, or a shorter capture)"
        ) from None


def _build(
    decoded: DecodedTrace,
    path: Path,
    file_size: int,
    compressed: bool,
    read_warnings: Sequence[str],
    progress: Callable[[str, int, int], None] | None,
) -> Trace:
    warnings: list[str] = list(read_warnings) + list(decoded.warnings)
    collector = collect_events(decoded.events, progress)
    return finish_trace(
        collector,
        path,
        top_level=decoded.top_level,
        array_form=decoded.array_form,
        warnings=warnings,
        file_size=file_size,
        compressed=compressed,
        progress=progress,
    )


def collect_events(
    source: EventSource, progress: Callable[[str, int, int], None] | None = None
) -> _Collector:
    """Columns of every element of `source`, batch by batch."""
    collector = _Collector()
    total_elements = len(source)
    for batch in source.batches():
        collector.add_batch(batch)
        if progress is not None:
            progress("events", collector.elements, total_elements)
    collector.repaired_utf8 = source.repaired_utf8
    return collector


def finish_trace(
    collector: _Collector,
    path: Path,
    *,
    top_level: dict[str, Any],
    array_form: bool,
    warnings: list[str],
    file_size: int = 0,
    compressed: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> Trace:
    """Pair, classify, sort and bind what `collector` gathered into the model."""
    counts = collector.ordered_counts()
    if collector.elements and counts[_NOT_OBJECTS] == collector.elements:
        form = "the JSON list" if array_form else "'traceEvents'"
        raise TraceLoadError(
            f"{printable(str(path))}: not a trace ({form} holds no event objects)"
        )
    if collector.repaired_utf8 and not any("invalid UTF-8" in w for w in warnings):
        warnings.insert(0, "invalid UTF-8 bytes were replaced by U+FFFD")

    if progress is not None:
        progress("pairing", 0, 0)
    collector.add_complete(_pair_begin_end(collector.begin_end, counts))
    collector.begin_end = []
    instant_count = collector.instant_count
    counter_count = collector.counter_count
    names = collector.names
    # Flow categories first, then those of complete events (each in first-seen
    # order): the same table whatever the batches were.
    categories = _Interner()
    flow_category_map = categories.codes(list(collector.flow_categories.ids))
    complete_category_map = categories.codes(list(collector.categories.ids))
    track_keys = collector.track_keys
    start_abs = _concatenate(collector.start, np.int64)
    duration = _concatenate(collector.duration, np.int64)
    name_id = _concatenate(collector.name_id, np.int32)
    category_id = complete_category_map[_concatenate(collector.category_id, np.int32)]
    track_of_event = _concatenate(collector.track, np.int32)
    correlation = _concatenate(collector.correlation, np.int64)
    external_id = _concatenate(collector.external_id, np.int64)
    args_begin = _concatenate(collector.args_begin, np.int64)
    args_end = args_begin + _concatenate(collector.args_length, np.int64)
    collector.args_blob += b"]"
    args_blob = collector.args_blob
    # Old traces write "external id": 0 for "none".
    external_id[external_id == 0] = -1
    metadata_tables = collector.metadata

    category_strings = categories.strings()
    name_strings = names.strings()
    kind_of_category = np.array(
        [
            _CATEGORY_KINDS.get(category.lower(), Kind.CPU_OTHER)
            for category in category_strings
        ]
        or [Kind.CPU_OTHER],
        dtype=np.uint8,
    )
    kind = (
        kind_of_category[category_id]
        if category_id.size
        else np.zeros(0, dtype=np.uint8)
    )

    if progress is not None:
        progress("tracks", 0, 0)
    process_names = metadata_tables.process_names
    thread_names = metadata_tables.thread_names
    process_sort = metadata_tables.process_sort
    thread_sort = metadata_tables.thread_sort
    # Numeric-string ids (PyTorch <= 1.10 writes "tid": "25738") are that number:
    # one track per thread whatever the spelling, so metadata, B/E pairs and
    # flows (which all key on the canonical id) land on the same track.
    track_codes, remap = _canonical_tracks(track_keys)
    raw_keys = list(track_codes)
    if track_of_event.size:
        track_of_event = remap[track_of_event]
    device_kind_tracks = _tracks_holding(
        track_of_event, np.isin(kind, np.array(sorted(_DEVICE_KINDS), dtype=np.uint8))
    )
    runtime_like_category = np.array(
        [category.lower().endswith("_runtime") for category in category_strings]
        or [False],
        dtype=np.bool_,
    )
    cpu_work = np.isin(kind, np.array(sorted(_CPU_WORK_KINDS), dtype=np.uint8))
    if category_id.size:
        cpu_work |= (kind == Kind.CPU_OTHER) & runtime_like_category[category_id]
    cpu_work_tracks = _tracks_holding(track_of_event, cpu_work)
    span_tracks = _tracks_holding(track_of_event, kind == Kind.TRACE_SPAN)
    tracks_unsorted: list[Track] = []
    for code, (pid, tid) in enumerate(raw_keys):
        process_name = _text(process_names.get(_key(pid), ""))
        thread_name = _text(thread_names.get((_key(pid), _key(tid)), ""))
        device_match = _DEVICE_PROCESS.match(process_name)
        is_device = code in device_kind_tracks or device_match is not None
        if is_device:
            track_kind = TrackKind.DEVICE
            device = (
                pid
                if type(pid) is int
                else (int(device_match.group(2)) if device_match else None)
            )
            stream = thread_name.strip() or f"stream {_text(tid)}"
            label = f"{process_name.strip() or f'GPU {_text(pid)}'} {stream}"
            sort_key: tuple[Any, ...] = (
                1,
                device if device is not None else 1 << 30,
                _sortable(tid),
            )
        elif code in cpu_work_tracks or (
            code not in span_tracks and type(pid) is int and type(tid) is int
        ):
            track_kind = TrackKind.CPU
            device = None
            label = thread_name.strip() or f"thread {_text(tid)}"
            sort_key = (
                0,
                process_sort.get(_key(pid), 0),
                _sortable(pid),
                thread_sort.get((_key(pid), _key(tid)), 0),
                _sortable(tid),
            )
        else:
            track_kind = TrackKind.OTHER
            device = None
            label = thread_name.strip() or f"{_text(pid)} {_text(tid)}".strip()
            sort_key = (2, _sortable(pid), _sortable(tid))
        tracks_unsorted.append(
            Track(code, pid, tid, track_kind, label, process_name, device, sort_key)
        )

    _warn_unplaced(tracks_unsorted, track_of_event, kind, warnings)

    # Unknown categories: device work when on a device track, CPU events otherwise.
    track_is_device = np.array(
        [track.kind == TrackKind.DEVICE for track in tracks_unsorted] or [False],
        dtype=np.bool_,
    )
    on_device = (
        track_is_device[track_of_event] if track_of_event.size else np.zeros(0, bool)
    )
    unknown = kind == Kind.CPU_OTHER
    unknown_on_device = unknown & on_device
    if unknown_on_device.any():
        kind[unknown_on_device] = Kind.DEVICE_OTHER
        device_categories = sorted(
            {
                category_strings[c]
                for c in np.unique(category_id[unknown_on_device]).tolist()
            }
        )
        for category in device_categories[:_MAX_LISTED]:
            warnings.append(
                f"category '{_shown(category)}' is not understood; its events sit on a "
                "device track and are counted as device work"
            )
        if len(device_categories) > _MAX_LISTED:
            warnings.append(
                f"{len(device_categories) - _MAX_LISTED} more categories on device "
                "tracks are not understood and are counted as device work"
            )
    unknown_on_cpu = unknown & ~on_device
    if unknown_on_cpu.any():
        unknown_names = sorted(
            {
                category_strings[c]
                for c in np.unique(category_id[unknown_on_cpu]).tolist()
            }
            - _KNOWN_CPU_CATEGORIES
        )
        if unknown_names and not all(
            name.lower().endswith("_runtime") for name in unknown_names
        ):
            warnings.append(
                "categories not understood, shown as CPU events: "
                + ", ".join(f"'{_shown(name)}'" for name in unknown_names[:_MAX_LISTED])
                + (
                    f" and {len(unknown_names) - _MAX_LISTED} more"
                    if len(unknown_names) > _MAX_LISTED
                    else ""
                )
            )
    runtime_like = unknown_on_cpu & np.isin(
        category_id,
        np.array(
            [
                i
                for i, c in enumerate(category_strings)
                if c.lower().endswith("_runtime")
            ]
            or [-1],
            dtype=np.int32,
        ),
    )
    kind[runtime_like] = Kind.RUNTIME
    device_ranges_only = bool((kind == Kind.DEVICE_RANGE).any()) and not bool(
        np.isin(
            kind,
            np.array(
                [Kind.KERNEL, Kind.MEMCPY, Kind.MEMSET, Kind.DEVICE_OTHER],
                dtype=np.uint8,
            ),
        ).any()
    )
    if device_ranges_only:
        warnings.append(
            "this capture holds CUPTI counter ranges (cuda_profiler_range), not a timeline "
            "of device work: GPU time is not observed"
        )

    # Sort tracks for display, then events by (track, start, longest first).
    ordered_tracks = sorted(
        tracks_unsorted, key=lambda track: (track.sort_key, track.index)
    )
    rank_of_code = np.zeros(max(len(ordered_tracks), 1), dtype=np.int32)
    tracks: list[Track] = []
    for rank, track in enumerate(ordered_tracks):
        rank_of_code[track.index] = rank
        tracks.append(
            Track(
                rank,
                track.pid,
                track.tid,
                track.kind,
                track.label,
                track.process_name,
                track.device,
                track.sort_key,
            )
        )
    track_rank = (
        rank_of_code[track_of_event] if track_of_event.size else np.zeros(0, np.int32)
    )

    origin = int(start_abs.min()) if start_abs.size else 0
    start = start_abs - origin
    del start_abs
    if progress is not None:
        progress("sorting", 0, 0)
    order = _event_order(track_rank, start, duration)
    start = start[order]
    duration = duration[order]
    track_rank = track_rank[order].astype(np.int32)
    name_id = name_id[order]
    category_id = category_id[order]
    kind = kind[order]
    correlation = correlation[order]
    external_id = external_id[order]
    args_begin = args_begin[order]
    args_end = args_end[order]
    track_start = np.searchsorted(track_rank, np.arange(len(tracks) + 1)).astype(
        np.int64
    )

    flows = _bind_flows(
        collector.flows,
        flow_category_map,
        origin,
        track_codes,
        rank_of_code,
        start,
        duration,
        track_start,
        categories,
        counts,
    )
    _link_by_flows(flows, categories.strings(), kind, correlation)
    _count_device_overlaps(tracks, track_start, start, duration, kind, counts)

    description, metadata = _split_description(top_level, warnings)
    for message, count in counts.items():
        warnings.append(f"{count} {message}")

    return Trace(
        path=path,
        origin_ns=origin,
        names=name_strings,
        categories=categories.strings(),
        tracks=tracks,
        start_ns=start,
        duration_ns=duration,
        track=track_rank,
        name_id=name_id,
        category_id=category_id,
        kind=kind,
        correlation=correlation,
        external_id=external_id,
        args_begin=args_begin,
        args_end=args_end,
        args_blob=args_blob,
        track_start=track_start,
        flows=flows,
        description=description,
        metadata=metadata,
        warnings=warnings,
        file_size=file_size,
        compressed=compressed,
        instant_count=instant_count,
        counter_count=counter_count,
        memory=collector.memory.finish(origin),
    )


def _warn_unplaced(
    tracks: Sequence[Track],
    track_of_event: np.ndarray[Any, Any],
    kind: np.ndarray[Any, Any],
    warnings: list[str],
) -> None:
    """Events on tracks that are neither a CPU thread nor a device stream are counted aloud.

    The profiler's own span (`Trace`) is such a lane by design and is not counted.
    """
    other = np.array(
        [track.kind == TrackKind.OTHER for track in tracks] or [False], dtype=np.bool_
    )
    if not track_of_event.size or not other.any():
        return
    unplaced = other[track_of_event] & (kind != Kind.TRACE_SPAN)
    count = int(unplaced.sum())
    if not count:
        return
    codes = np.unique(track_of_event[unplaced]).tolist()
    labels = ", ".join(f"'{_shown(tracks[code].name, 30)}'" for code in codes[:3])
    more = f" and {len(codes) - 3} more" if len(codes) > 3 else ""
    warnings.append(
        f"{count} events sit on {len(codes)} track(s) that are neither a CPU thread "
        f"nor a device stream ({labels}{more}): they are shown but counted in no figure"
    )


def _event_order(
    track: np.ndarray[Any, Any],
    start: np.ndarray[Any, np.dtype[np.int64]],
    duration: np.ndarray[Any, np.dtype[np.int64]],
) -> np.ndarray[Any, np.dtype[np.intp]]:
    """np.lexsort((-duration, start, track)), faster: track and start in one key.

    `start` is relative (never negative). When the key cannot hold both, the
    plain lexsort; ties on the key are ordered longest first, then as read.
    """
    if not start.size:
        return np.zeros(0, dtype=np.intp)
    start_bits = int(start.max()).bit_length()
    track_bits = max(int(track.max()), 0).bit_length()
    if start_bits + track_bits > 62 or int(start.min()) < 0 or int(track.min()) < 0:
        return np.lexsort((-duration, start, track))
    key = (track.astype(np.int64) << start_bits) | start
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    tied = ordered[1:] == ordered[:-1]
    if not tied.any():
        return order
    # Only events sharing a key (often few) are put longest first, in place.
    in_run = np.zeros(order.size, dtype=np.bool_)
    in_run[1:] |= tied
    in_run[:-1] |= tied
    positions = np.flatnonzero(in_run)
    run = np.cumsum(np.concatenate(([True], ~tied)))[positions]
    members = order[positions]
    order[positions] = members[np.lexsort((positions, -duration[members], run))]
    return order


def _concatenate(parts: list[np.ndarray[Any, Any]], dtype: Any) -> np.ndarray[Any, Any]:
    """One column from per-batch pieces."""
    if not parts:
        return np.zeros(0, dtype=dtype)
    return np.concatenate(parts).astype(dtype, copy=False)


@dataclass
class _TrackMetadata:
    """Process and thread names and sort indexes from `M` events."""

    process_names: dict[Hashable, Any] = field(default_factory=dict)
    thread_names: dict[tuple[Hashable, Hashable], Any] = field(default_factory=dict)
    process_sort: dict[Hashable, int] = field(default_factory=dict)
    thread_sort: dict[tuple[Hashable, Hashable], int] = field(default_factory=dict)

    def add(self, metadata_events: Sequence[RawEvent]) -> None:
        wanted = [
            event
            for event in metadata_events
            if type(event.name) is str and event.name in _METADATA_NAMES
        ]
        for event, args in zip(wanted, _decode_metadata_args(wanted), strict=True):
            if args is None:
                continue
            kind = event.name
            pid = _key(event.pid)
            if kind == "process_name":
                self.process_names[pid] = (
                    "" if args.name is msgspec.UNSET else args.name
                )
            elif kind == "thread_name":
                self.thread_names[(pid, _key(event.tid))] = (
                    "" if args.name is msgspec.UNSET else args.name
                )
            elif kind == "process_sort_index" and type(args.sort_index) is int:
                self.process_sort[pid] = args.sort_index
            elif kind == "thread_sort_index" and type(args.sort_index) is int:
                self.thread_sort[(pid, _key(event.tid))] = args.sort_index

    def update(self, later: _TrackMetadata) -> None:
        """Take what `later` (from the events that follow) says; it wins on conflicts."""
        self.process_names.update(later.process_names)
        self.thread_names.update(later.thread_names)
        self.process_sort.update(later.process_sort)
        self.thread_sort.update(later.thread_sort)


_FLOW_START, _FLOW_END, _FLOW_STEP = 0, 1, 2


@dataclass
class _FlowColumns:
    """Flow events (s/t/f) as compact columns, gathered batch by batch."""

    phase: list[np.ndarray[Any, Any]] = field(default_factory=list)
    key: list[np.ndarray[Any, Any]] = field(default_factory=list)
    flow_id: list[np.ndarray[Any, Any]] = field(default_factory=list)
    category: list[np.ndarray[Any, Any]] = field(default_factory=list)
    thread: list[np.ndarray[Any, Any]] = field(default_factory=list)
    stamp: list[np.ndarray[Any, Any]] = field(default_factory=list)
    valid: list[np.ndarray[Any, Any]] = field(default_factory=list)
    keys: _Interner = field(default_factory=lambda: _Interner())
    threads: _Interner = field(default_factory=lambda: _Interner())

    def add(self, events: Sequence[RawEvent], categories: _Interner) -> None:
        if not events:
            return
        phases = {"s": _FLOW_START, "f": _FLOW_END}
        self.phase.append(
            np.fromiter(
                map(phases.get, map(_PH, events), itertools.repeat(_FLOW_STEP)),
                dtype=np.int8,
                count=len(events),
            )
        )
        category_values = list(map(_CAT, events))
        id_values = list(map(_ID, events))
        self.key.append(
            self.keys.codes(list(zip(category_values, id_values, strict=True)))
        )
        self.flow_id.append(_id_column(id_values))
        self.category.append(categories.codes(category_values))
        self.thread.append(self.threads.codes_of(events, _PID_TID))
        stamps, valid = parse_us_to_ns(list(map(_TS, events)))
        self.stamp.append(stamps)
        self.valid.append(valid & _in_time_range(stamps))


_MISSING_TS = "complete events without a usable timestamp were dropped"
_OUT_OF_RANGE = (
    "complete events with a timestamp out of range (before 1933 or after 2116 "
    "in epoch µs) were dropped"
)
_BAD_DURATION = "complete events with a missing or non-numeric duration were dropped"
_NEGATIVE = "complete events with a negative duration were dropped"
_ARGS_NOT_OBJECT = "events had args that are not an object (ignored)"
# Problems found while turning complete events into columns, in the order told.
_COLUMN_MESSAGES = (
    _MISSING_TS,
    _OUT_OF_RANGE,
    _BAD_DURATION,
    _NEGATIVE,
    _ARGS_NOT_OBJECT,
)

_COLUMN_NAMES = (
    "start",
    "duration",
    "name_id",
    "category_id",
    "track",
    "correlation",
    "external_id",
    "args_begin",
    "args_length",
)
_FLOW_COLUMN_NAMES = ("phase", "key", "flow_id", "category", "thread", "stamp", "valid")


@dataclass
class CollectedPart:
    """What a collector gathered from one range of events, ready to be merged in order.

    Interned values are the keys in first-seen order; the columns use the
    part's own codes. `args_blob` holds the part's args joined by commas, and
    `columns["args_begin"]` offsets into it.
    """

    elements: int
    repaired_utf8: bool
    instant_count: int
    counter_count: int
    scan_counts: dict[str, int]
    column_counts: dict[str, int]
    names: list[Any]
    categories: list[Any]
    flow_categories: list[Any]
    track_keys: list[Any]
    flow_keys: list[Any]
    flow_threads: list[Any]
    metadata: _TrackMetadata
    begin_end: list[RawEvent]
    columns: dict[str, np.ndarray[Any, Any]]
    flow_columns: dict[str, np.ndarray[Any, Any]]
    args_blob: bytes | bytearray | memoryview
    memory: dict[str, np.ndarray[Any, Any]] = field(default_factory=dict)


# Phases of trace events, as small codes for sorting a batch at C speed.
_COMPLETE, _METADATA, _FLOW, _BEGIN_END, _INSTANT, _COUNTER = range(6)
_NOT_EVENT, _OTHER_PHASE = 6, 7
_PHASES: dict[Any, int] = {
    "X": _COMPLETE,
    "M": _METADATA,
    "s": _FLOW,
    "t": _FLOW,
    "f": _FLOW,
    "B": _BEGIN_END,
    "E": _BEGIN_END,
    "i": _INSTANT,
    "I": _INSTANT,
    "n": _INSTANT,
    "C": _COUNTER,
    _NOT_AN_OBJECT: _NOT_EVENT,
}


def _take(events: Sequence[RawEvent], mask: np.ndarray[Any, Any]) -> list[RawEvent]:
    """The events where `mask` is true, in order."""
    return list(map(events.__getitem__, np.flatnonzero(mask).tolist()))


class _Collector:
    """Gathers columns batch by batch, so no per-event record outlives its batch.

    What it gathers does not depend on where batches begin and end (names,
    categories and warnings keep their first-seen order), so ranges of events
    collected apart and merged in order give the same columns.
    """

    def __init__(self) -> None:
        self.elements = 0
        self.repaired_utf8 = False
        # Elements that are not events, in the order first seen.
        self.scan_counts: Counter[str] = Counter()
        # Complete events dropped while making columns; told in _COLUMN_MESSAGES order.
        self.column_counts: Counter[str] = Counter()
        self.names = _Interner()
        self.categories = _Interner()
        self.flow_categories = _Interner()
        self.track_keys = _Interner()
        self.metadata = _TrackMetadata()
        self.flows = _FlowColumns()
        self.begin_end: list[RawEvent] = []
        self.instant_count = 0
        self.counter_count = 0
        self.memory = MemoryCollector()
        self.start: list[np.ndarray[Any, Any]] = []
        self.duration: list[np.ndarray[Any, Any]] = []
        self.name_id: list[np.ndarray[Any, Any]] = []
        self.category_id: list[np.ndarray[Any, Any]] = []
        self.track: list[np.ndarray[Any, Any]] = []
        self.correlation: list[np.ndarray[Any, Any]] = []
        self.external_id: list[np.ndarray[Any, Any]] = []
        self.args_begin: list[np.ndarray[Any, Any]] = []
        self.args_length: list[np.ndarray[Any, Any]] = []
        # Every event's args, as one JSON array: "[" + args + "," + args ... + "]".
        self.args_blob = bytearray(b"[")

    def add_batch(self, events: Sequence[RawEvent]) -> None:
        self.elements += len(events)
        try:
            phases = np.fromiter(
                map(_PHASES.get, map(_PH, events), itertools.repeat(_OTHER_PHASE)),
                dtype=np.int8,
                count=len(events),
            )
        except TypeError:  # an unhashable phase
            self._add_batch_slowly(events)
            return
        instants = phases == _INSTANT
        self.instant_count += int(instants.sum())
        if instants.any():
            self.memory.add(_take(events, instants))
        self.counter_count += int((phases == _COUNTER).sum())
        odd = np.flatnonzero(phases >= _NOT_EVENT)
        for index in odd.tolist():
            self._count_odd(events[index].ph)
        self.begin_end.extend(_take(events, phases == _BEGIN_END))
        self.metadata.add(_take(events, phases == _METADATA))
        self.flows.add(_take(events, phases == _FLOW), self.flow_categories)
        self.add_complete(_take(events, phases == _COMPLETE))

    def _count_odd(self, phase: Any) -> None:
        if phase == _NOT_AN_OBJECT:
            self.scan_counts[_NOT_OBJECTS] += 1
        else:
            message = (
                f"events with unknown phase {_shown(_as_text(phase), 20)} were skipped"
            )
            self.scan_counts[message] += 1

    def _add_batch_slowly(self, events: Sequence[RawEvent]) -> None:
        """One event at a time, for batches whose phases are not all hashable."""
        complete: list[RawEvent] = []
        metadata_events: list[RawEvent] = []
        flow_events: list[RawEvent] = []
        instants: list[RawEvent] = []
        for event in events:
            phase = event.ph
            if phase == "X":
                complete.append(event)
            elif phase == "M":
                metadata_events.append(event)
            elif phase in ("s", "t", "f"):
                flow_events.append(event)
            elif phase in ("B", "E"):
                self.begin_end.append(event)
            elif phase in ("i", "I", "n"):
                self.instant_count += 1
                instants.append(event)
            elif phase == "C":
                self.counter_count += 1
            else:
                self._count_odd(phase)
        self.memory.add(instants)
        self.metadata.add(metadata_events)
        self.flows.add(flow_events, self.flow_categories)
        self.add_complete(complete)

    def add_complete(self, complete: list[RawEvent]) -> None:
        """Columns for complete events; unusable ones are dropped and counted."""
        if not complete:
            return
        counts = self.column_counts
        start_abs, start_ok = parse_us_to_ns(list(map(_TS, complete)))
        duration, duration_ok = duration_us_to_ns(list(map(_DUR, complete)))
        missing_ts = int((~start_ok).sum())
        if missing_ts:
            counts[_MISSING_TS] += missing_ts
        out_of_range = start_ok & ~_in_time_range(start_abs)
        if out_of_range.any():
            counts[_OUT_OF_RANGE] += int(out_of_range.sum())
            start_ok &= ~out_of_range
        bad_duration = start_ok & ~duration_ok
        if bad_duration.any():
            counts[_BAD_DURATION] += int(bad_duration.sum())
        negative = start_ok & duration_ok & (duration < 0)
        if negative.any():
            counts[_NEGATIVE] += int(negative.sum())
        keep = start_ok & duration_ok & (duration >= 0)
        if not keep.all():
            complete = [complete[index] for index in np.flatnonzero(keep).tolist()]
            start_abs = start_abs[keep]
            duration = duration[keep]
            if not complete:
                return
        self.start.append(start_abs)
        self.duration.append(duration)
        self.name_id.append(self.names.codes_of(complete, _NAME))
        self.category_id.append(self.categories.codes_of(complete, _CAT))
        self.track.append(self.track_keys.codes_of(complete, _PID_TID))
        pieces = [event.args if len(event.args) else b"{}" for event in complete]
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        offsets = np.zeros(len(pieces), dtype=np.int64)
        offsets[1:] = np.cumsum(lengths[:-1] + 1)
        if len(self.args_blob) > 1:
            self.args_blob += b","
        self.args_begin.append(offsets + len(self.args_blob))
        self.args_length.append(lengths)
        joined = b",".join(pieces)
        self.args_blob += joined
        correlation, external_id = _known_id_columns(
            b"[" + joined + b"]", pieces, counts
        )
        del joined, pieces
        self.correlation.append(correlation)
        self.external_id.append(external_id)

    def ordered_counts(self) -> Counter[str]:
        """All counts so far in the order they are told; later ones add to it."""
        counts: Counter[str] = Counter(self.scan_counts)
        for message in _COLUMN_MESSAGES:
            if self.column_counts[message]:
                counts[message] += self.column_counts[message]
        # Events added from now on (paired begin/end) count straight into it.
        self.column_counts = counts
        return counts

    def export(self) -> CollectedPart:
        """What was gathered, for merging into another collector (see `absorb`)."""
        columns = {
            name: _concatenate(getattr(self, name), _COLUMN_DTYPES[name])
            for name in _COLUMN_NAMES
        }
        columns["args_begin"] = columns["args_begin"] - 1  # no leading "["
        flows = self.flows
        flow_columns = {
            name: _concatenate(getattr(flows, name), _FLOW_DTYPES[name])
            for name in _FLOW_COLUMN_NAMES
        }
        return CollectedPart(
            elements=self.elements,
            repaired_utf8=self.repaired_utf8,
            instant_count=self.instant_count,
            counter_count=self.counter_count,
            scan_counts=dict(self.scan_counts),
            column_counts=dict(self.column_counts),
            names=list(self.names.ids),
            categories=list(self.categories.ids),
            flow_categories=list(self.flow_categories.ids),
            track_keys=list(self.track_keys.ids),
            flow_keys=list(flows.keys.ids),
            flow_threads=list(flows.threads.ids),
            metadata=self.metadata,
            begin_end=self.begin_end,
            columns=columns,
            flow_columns=flow_columns,
            args_blob=memoryview(self.args_blob)[1:],
            memory=self.memory.export(),
        )

    def absorb(self, part: CollectedPart) -> None:
        """Add a part gathered from the events that follow those seen so far."""
        self.elements += part.elements
        self.repaired_utf8 |= part.repaired_utf8
        self.instant_count += part.instant_count
        self.counter_count += part.counter_count
        self.scan_counts.update(part.scan_counts)
        self.column_counts.update(part.column_counts)
        self.metadata.update(part.metadata)
        self.begin_end.extend(part.begin_end)
        self.memory.absorb(part.memory)
        columns = part.columns
        if columns["start"].size:
            self.start.append(columns["start"])
            self.duration.append(columns["duration"])
            self.name_id.append(_remap(self.names, part.names, columns["name_id"]))
            self.category_id.append(
                _remap(self.categories, part.categories, columns["category_id"])
            )
            self.track.append(
                _remap(self.track_keys, part.track_keys, columns["track"])
            )
            self.correlation.append(columns["correlation"])
            self.external_id.append(columns["external_id"])
            if len(self.args_blob) > 1:
                self.args_blob += b","
            self.args_begin.append(columns["args_begin"] + len(self.args_blob))
            self.args_length.append(columns["args_length"])
            self.args_blob += part.args_blob
        flow_columns = part.flow_columns
        if flow_columns["phase"].size:
            flows = self.flows
            flows.phase.append(flow_columns["phase"])
            flows.key.append(_remap(flows.keys, part.flow_keys, flow_columns["key"]))
            flows.flow_id.append(flow_columns["flow_id"])
            flows.category.append(
                _remap(
                    self.flow_categories, part.flow_categories, flow_columns["category"]
                )
            )
            flows.thread.append(
                _remap(flows.threads, part.flow_threads, flow_columns["thread"])
            )
            flows.stamp.append(flow_columns["stamp"])
            flows.valid.append(flow_columns["valid"])


_COLUMN_DTYPES: dict[str, Any] = {
    "start": np.int64,
    "duration": np.int64,
    "name_id": np.int32,
    "category_id": np.int32,
    "track": np.int32,
    "correlation": np.int64,
    "external_id": np.int64,
    "args_begin": np.int64,
    "args_length": np.int64,
}
_FLOW_DTYPES: dict[str, Any] = {
    "phase": np.int8,
    "key": np.int32,
    "flow_id": np.int64,
    "category": np.int32,
    "thread": np.int32,
    "stamp": np.int64,
    "valid": np.bool_,
}


def _remap(
    interner: _Interner, keys: list[Any], codes: np.ndarray[Any, Any]
) -> np.ndarray[Any, np.dtype[np.int32]]:
    """A part's codes as codes of `interner`, which learns the part's new keys in order."""
    if not keys:
        return np.zeros(codes.size, dtype=np.int32)
    mapping = interner.codes(keys)
    return np.asarray(mapping[codes], dtype=np.int32)


def _in_time_range(stamps: np.ndarray[Any, np.dtype[np.int64]]) -> np.ndarray[Any, Any]:
    """Timestamps whose distances to each other, plus a duration, still fit int64."""
    return (stamps >= MIN_TIMESTAMP_NS) & (stamps < MAX_TIMESTAMP_NS)


_MAX_LISTED = 8
_NOT_OBJECTS = "elements of traceEvents that are not objects were skipped"


def _shown(text: str, limit: int = 40) -> str:
    """Untrusted text inside a warning: escaped, and short enough for one line."""
    safe = printable(text)
    return safe if len(safe) <= limit else safe[: limit - 1] + "…"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _as_text(value)


_NUMERIC_ID = re.compile(r"-?[0-9]{1,18}")


def _key(value: Any) -> Hashable:
    """A pid or tid as one hashable value: a numeric string is that number."""
    if type(value) is str and _NUMERIC_ID.fullmatch(value):
        return int(value)
    return _hashable(value)


def _track_key(key: Any) -> tuple[Hashable, Hashable]:
    """The canonical (pid, tid) of an interned track key (unhashable ones are text)."""
    if isinstance(key, tuple) and len(key) == 2:
        return (_key(key[0]), _key(key[1]))
    return (key, "")


def _canonical_tracks(
    track_keys: _Interner,
) -> tuple[dict[tuple[Hashable, Hashable], int], np.ndarray[Any, np.dtype[np.int32]]]:
    """Canonical track keys with their codes, and the raw code → canonical code map."""
    codes: dict[tuple[Hashable, Hashable], int] = {}
    remap = np.zeros(max(len(track_keys.ids), 1), dtype=np.int32)
    for key, raw_code in sorted(track_keys.ids.items(), key=operator.itemgetter(1)):
        remap[raw_code] = codes.setdefault(_track_key(key), len(codes))
    return codes, remap


def _tracks_holding(
    track_of_event: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]
) -> set[int]:
    """Codes of the tracks that hold at least one event of `mask`."""
    if not track_of_event.size:
        return set()
    return set(np.unique(track_of_event[mask]).tolist())


def _sortable(value: Any) -> tuple[int, Any]:
    if type(value) is int:
        return (0, value)
    return (1, _text(value))


def _decode_known_args(
    blob: bytes, pieces: Sequence[Any], counts: Counter[str]
) -> list[_KnownArgs]:
    try:
        return _KNOWN_ARGS_LIST.decode(blob)
    except (msgspec.ValidationError, msgspec.DecodeError):
        pass
    known: list[_KnownArgs] = []
    for piece in pieces:
        try:
            known.append(_KNOWN_ARGS_ONE.decode(piece))
        except (msgspec.ValidationError, msgspec.DecodeError):
            counts[_ARGS_NOT_OBJECT] += 1
            known.append(_KnownArgs())
    return known


_METADATA_NAMES = frozenset(
    {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
)


class _MetadataArgs(msgspec.Struct, gc=False):
    """The args fields of track metadata events."""

    name: Any = msgspec.UNSET
    sort_index: Any = None


_METADATA_ARGS_LIST = msgspec.json.Decoder(list[_MetadataArgs])
_METADATA_ARGS_ONE = msgspec.json.Decoder(_MetadataArgs)


def _decode_metadata_args(events: Sequence[RawEvent]) -> list[_MetadataArgs | None]:
    """All metadata args in one typed decode (MTIA traces hold 300k of them); None when unreadable."""
    pieces = [event.args if len(event.args) else b"{}" for event in events]
    try:
        return list(_METADATA_ARGS_LIST.decode(b"[" + b",".join(pieces) + b"]"))
    except (msgspec.ValidationError, msgspec.DecodeError):
        pass
    decoded: list[_MetadataArgs | None] = []
    for piece in pieces:
        try:
            decoded.append(_METADATA_ARGS_ONE.decode(piece))
        except (msgspec.ValidationError, msgspec.DecodeError):
            decoded.append(None)
    return decoded


def _pair_begin_end(events: Sequence[RawEvent], counts: Counter[str]) -> list[RawEvent]:
    """Match B/E pairs per thread into complete events; unmatched ones are counted, not kept."""
    if not events:
        return []
    stamps, valid = parse_us_to_ns([event.ts for event in events])
    stacks: dict[tuple[Hashable, Hashable], list[int]] = defaultdict(list)
    paired: list[RawEvent] = []
    order = sorted(
        range(len(events)),
        key=lambda index: (int(stamps[index]), 0 if events[index].ph == "E" else 1),
    )
    for index in order:
        event = events[index]
        if not valid[index]:
            counts["begin/end events without a usable timestamp were dropped"] += 1
            continue
        key = (_key(event.pid), _key(event.tid))
        if event.ph == "B":
            stacks[key].append(index)
            continue
        if not stacks[key]:
            counts["end events without a matching begin were dropped"] += 1
            continue
        begin_index = stacks[key].pop()
        begin = events[begin_index]
        duration_ns = int(stamps[index]) - int(stamps[begin_index])
        args = begin.args if len(begin.args) else event.args
        paired.append(
            RawEvent(
                ph="X",
                cat=begin.cat if begin.cat is not None else event.cat,
                name=begin.name if begin.name is not None else event.name,
                pid=begin.pid,
                tid=begin.tid,
                ts=begin.ts,
                dur=duration_ns / 1000.0,
                args=args,
            )
        )
    unmatched = sum(len(stack) for stack in stacks.values())
    if unmatched:
        counts["begin events without a matching end were dropped"] += unmatched
    return paired


def _bind_flows(
    columns: _FlowColumns,
    category_map: np.ndarray[Any, np.dtype[np.int32]],
    origin: int,
    track_codes: dict[tuple[Hashable, Hashable], int],
    rank_of_code: np.ndarray[Any, np.dtype[np.int32]],
    start: np.ndarray[Any, np.dtype[np.int64]],
    duration: np.ndarray[Any, np.dtype[np.int64]],
    track_start: np.ndarray[Any, np.dtype[np.int64]],
    categories: _Interner,
    counts: Counter[str],
) -> Flows:
    """Pair each flow's start and end by (category, id), then bind them to events.

    A later start or end with the same key replaces an earlier one. The start
    binds to the event of its thread enclosing it, the end to the event at it.
    """
    empty = Flows(
        np.zeros(0, np.int64),
        np.zeros(0, np.int32),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
    )
    if not columns.phase:
        return empty
    phase = np.concatenate(columns.phase)
    key = np.concatenate(columns.key).astype(np.int64)
    flow_id = np.concatenate(columns.flow_id)
    category = category_map[np.concatenate(columns.category)]
    thread = np.concatenate(columns.thread).astype(np.int64)
    stamp = np.concatenate(columns.stamp)
    valid = np.concatenate(columns.valid)

    def last_per_key(
        indices: np.ndarray[Any, Any],
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        reversed_indices = indices[::-1]
        keys, first = np.unique(key[reversed_indices], return_index=True)
        return keys, reversed_indices[first]

    start_keys, start_index = last_per_key(
        np.flatnonzero(valid & (phase == _FLOW_START))
    )
    end_keys, end_index = last_per_key(np.flatnonzero(valid & (phase == _FLOW_END)))
    _, in_starts, in_ends = np.intersect1d(
        start_keys, end_keys, assume_unique=True, return_indices=True
    )
    unmatched = start_keys.size + end_keys.size - 2 * in_starts.size
    if unmatched:
        counts["flow events without their other end were ignored"] += int(unmatched)
    if in_starts.size == 0:
        return empty
    sources = start_index[in_starts]
    targets = end_index[in_ends]
    order = np.argsort(sources, kind="stable")
    sources, targets = sources[order], targets[order]
    # Threads of flow points → track ranks (-1 when the thread has no complete event).
    thread_rank = np.full(max(len(columns.threads.ids), 1), -1, dtype=np.int64)
    for thread_key, code in columns.threads.ids.items():
        track_code = track_codes.get(_track_key(thread_key))
        if track_code is not None:
            thread_rank[code] = rank_of_code[track_code]
    bind = {"start": start, "duration": duration, "track_start": track_start}
    return Flows(
        flow_id[sources],
        category[sources].astype(np.int32),
        _bind_points(thread_rank[thread[sources]], stamp[sources] - origin, **bind),
        _bind_points(thread_rank[thread[targets]], stamp[targets] - origin, **bind),
    )


def _bind_points(
    ranks: np.ndarray[Any, np.dtype[np.int64]],
    moments: np.ndarray[Any, np.dtype[np.int64]],
    *,
    start: np.ndarray[Any, np.dtype[np.int64]],
    duration: np.ndarray[Any, np.dtype[np.int64]],
    track_start: np.ndarray[Any, np.dtype[np.int64]],
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The innermost event of the point's track that starts at or before it and encloses it."""
    bound = np.full(ranks.size, -1, dtype=np.int64)
    known = ranks >= 0
    for rank in np.unique(ranks[known]).tolist():
        here = np.flatnonzero(ranks == rank)
        begin, end = int(track_start[rank]), int(track_start[rank + 1])
        candidate = (
            np.searchsorted(start[begin:end], moments[here], side="right") - 1 + begin
        )
        ok = candidate >= begin
        safe = np.where(ok, candidate, begin)
        ok &= start[safe] + duration[safe] >= moments[here]
        bound[here[ok]] = safe[ok]
    return bound


def _link_by_flows(
    flows: Flows,
    category_strings: Sequence[str],
    kind: np.ndarray[Any, Any],
    correlation: np.ndarray[Any, Any],
) -> None:
    """Old traces link launches to kernels by flows only: copy the flow id into missing correlations."""
    if flows.flow_id.size == 0:
        return
    link_categories = np.array(
        [category.lower() in _FLOW_LINK_CATEGORIES for category in category_strings]
        or [False],
        dtype=bool,
    )
    link = link_categories[flows.category_id]
    link &= (flows.source_event >= 0) & (flows.target_event >= 0) & (flows.flow_id >= 0)
    for events in (flows.target_event[link], flows.source_event[link]):
        ids = flows.flow_id[link]
        missing = correlation[events] < 0
        correlation[events[missing]] = ids[missing]


def _count_device_overlaps(
    tracks: Sequence[Track],
    track_start: np.ndarray[Any, Any],
    start: np.ndarray[Any, Any],
    duration: np.ndarray[Any, Any],
    kind: np.ndarray[Any, Any],
    counts: Counter[str],
) -> None:
    work_kinds = np.array(
        [Kind.KERNEL, Kind.MEMCPY, Kind.MEMSET, Kind.DEVICE_OTHER], dtype=np.uint8
    )
    for track in tracks:
        if track.kind != TrackKind.DEVICE:
            continue
        begin, end = int(track_start[track.index]), int(track_start[track.index + 1])
        is_work = np.isin(kind[begin:end], work_kinds)
        work_start = start[begin:end][is_work]
        work_end = work_start + duration[begin:end][is_work]
        if work_start.size < 2:
            continue
        running_end = np.maximum.accumulate(work_end[:-1])
        overlapping = int((work_start[1:] < running_end).sum())
        if overlapping:
            counts[
                "device events overlap an earlier one on the same stream (busy time counts the union)"
            ] += overlapping


def _split_description(
    top_level: dict[str, Any], warnings: list[str]
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The collector's capture description (top-level `steptrace`), read only when well-formed."""
    metadata = dict(top_level)
    description = metadata.pop("steptrace", None)
    if description is None:
        return None, metadata
    if isinstance(description, str):
        try:
            description = msgspec.json.decode(description)
        except msgspec.DecodeError:
            description = None
    if not isinstance(description, dict):
        warnings.append(
            "the capture description ('steptrace' key) is malformed and was ignored"
        )
        return None, metadata
    return description, metadata

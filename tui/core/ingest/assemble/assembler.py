"""Turn decoded events into the columnar `Trace` model.

Every event that cannot be placed exactly (no timestamp, a negative or
missing duration, an unmatched begin/end) is dropped and counted in a
warning, so no figure silently includes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from tui.core.base.distinct import distinct
from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.assemble.device_work import set_aside_non_work
from tui.core.ingest.assemble.flows import _bind_flows, _link_by_flows
from tui.core.ingest.assemble.tracks import (
    _canonical_tracks,
    _tracks_holding,
    _warn_unplaced,
    classify_tracks,
    display_order,
)
from tui.core.ingest.collect.batches import (
    _NOT_OBJECTS,
    Collector,
    _concatenate,
    collect_events,
)
from tui.core.ingest.collect.interning import _Interner, _shown
from tui.core.ingest.collect.tables import _pair_begin_end
from tui.core.ingest.decode.records import DecodedTrace, EventSource
from tui.core.model.masks import kind_mask
from tui.core.model.trace import Flows, Kind, Trace, Track, TrackKind

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


def build_trace(
    decoded: DecodedTrace,
    path: Path,
    *,
    file_size: int = 0,
    compressed: bool = False,
    read_warnings: Sequence[str] = (),
    progress: Callable[[LoadPhase, int, int], None] | None = None,
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
    progress: Callable[[LoadPhase, int, int], None] | None,
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


@dataclass
class _EventColumns:
    """One array per complete event: in reading order, then in display order.

    `start` is absolute until `_sort_events` makes it relative to the origin;
    `track` holds track codes until it makes them display ranks.
    """

    start: np.ndarray[Any, Any]
    duration: np.ndarray[Any, Any]
    name_id: np.ndarray[Any, Any]
    category_id: np.ndarray[Any, Any]
    track: np.ndarray[Any, Any]
    kind: np.ndarray[Any, Any]
    correlation: np.ndarray[Any, Any]
    external_id: np.ndarray[Any, Any]
    stream_arg: np.ndarray[Any, Any]
    args_begin: np.ndarray[Any, Any]
    args_end: np.ndarray[Any, Any]


def finish_trace(
    collector: Collector,
    path: Path,
    *,
    top_level: dict[str, Any],
    array_form: bool,
    warnings: list[str],
    file_size: int = 0,
    compressed: bool = False,
    progress: Callable[[LoadPhase, int, int], None] | None = None,
) -> Trace:
    """Pair, classify, sort and bind what `collector` gathered into the model.

    The stages: check the file holds events, make the paired event columns,
    type the tracks, sort the events for display, bind flows, count overlaps.
    """
    counts = collector.ordered_counts()
    _check_holds_events(collector, counts, path, array_form, warnings)
    columns, categories, flow_category_map = _paired_columns(
        collector, counts, progress
    )
    name_strings = collector.names.strings()

    if progress is not None:
        progress(LoadPhase.TRACKS, 0, 0)
    track_codes, tracks_unsorted = _typed_tracks(
        columns, collector, categories.strings(), name_strings, warnings
    )
    tracks, rank_of_code = display_order(tracks_unsorted)
    origin, track_start = _sort_events(columns, rank_of_code, len(tracks), progress)

    flows = _bound_flows(
        collector,
        columns,
        flow_category_map,
        categories,
        origin,
        track_codes,
        rank_of_code,
        track_start,
        counts,
    )
    _count_device_overlaps(
        tracks, track_start, columns.start, columns.duration, columns.kind, counts
    )

    description, metadata = _split_description(top_level, warnings)
    for message, count in counts.items():
        warnings.append(f"{count:,} {message}")

    return Trace(
        path=path,
        origin_ns=origin,
        names=name_strings,
        categories=categories.strings(),
        tracks=tracks,
        start_ns=columns.start,
        duration_ns=columns.duration,
        track=columns.track,
        name_id=columns.name_id,
        category_id=columns.category_id,
        kind=columns.kind,
        correlation=columns.correlation,
        external_id=columns.external_id,
        stream_arg=columns.stream_arg,
        args_begin=columns.args_begin,
        args_end=columns.args_end,
        args_blob=collector.args_blob,
        track_start=track_start,
        flows=flows,
        description=description,
        metadata=metadata,
        warnings=warnings,
        file_size=file_size,
        compressed=compressed,
        instant_count=collector.instant_count,
        counter_count=collector.counter_count,
        memory=collector.memory.finish(origin),
    )


def _check_holds_events(
    collector: Collector,
    counts: Counter[str],
    path: Path,
    array_form: bool,
    warnings: list[str],
) -> None:
    """Refuse a file whose events are all non-objects; tell of repaired UTF-8 once."""
    if collector.elements and counts[_NOT_OBJECTS] == collector.elements:
        form = "the JSON list" if array_form else "'traceEvents'"
        raise TraceLoadError(
            f"{printable(str(path))}: not a trace ({form} holds no event objects)"
        )
    if collector.repaired_utf8 and not any("invalid UTF-8" in w for w in warnings):
        warnings.insert(0, "invalid UTF-8 bytes were replaced by U+FFFD")


def _paired_columns(
    collector: Collector,
    counts: Counter[str],
    progress: Callable[[LoadPhase, int, int], None] | None,
) -> tuple[_EventColumns, _Interner, np.ndarray[Any, Any]]:
    """Begin/end events paired into complete ones, then every complete event's columns.

    Also the category table and the code each flow category has in it.
    """
    if progress is not None:
        progress(LoadPhase.PAIRING, 0, 0)
    collector.add_complete(_pair_begin_end(collector.begin_end, counts))
    collector.begin_end = []
    # Flow categories first, then those of complete events (each in first-seen
    # order): the same table whatever the batches were.
    categories = _Interner()
    flow_category_map = categories.codes(list(collector.flow_categories.ids))
    complete_category_map = categories.codes(list(collector.categories.ids))
    columns = _event_columns(collector, complete_category_map, categories.strings())
    return columns, categories, flow_category_map


def _event_columns(
    collector: Collector,
    complete_category_map: np.ndarray[Any, Any],
    category_strings: Sequence[str],
) -> _EventColumns:
    """The collector's batches joined into one column each, kinds read from categories.

    Closes the collector's args blob, so the columns' args ranges index a
    whole JSON array.
    """
    args_begin = _concatenate(collector.args_begin, np.int64)
    external_id = _concatenate(collector.external_id, np.int64)
    # Old traces write "external id": 0 for "none".
    external_id[external_id == 0] = -1
    collector.args_blob += b"]"
    category_id = complete_category_map[_concatenate(collector.category_id, np.int32)]
    kind_of_category = np.array(
        [
            _CATEGORY_KINDS.get(category.lower(), Kind.CPU_OTHER)
            for category in category_strings
        ]
        or [Kind.CPU_OTHER],
        dtype=np.uint8,
    )
    return _EventColumns(
        start=_concatenate(collector.start, np.int64),
        duration=_concatenate(collector.duration, np.int64),
        name_id=_concatenate(collector.name_id, np.int32),
        category_id=category_id,
        track=_concatenate(collector.track, np.int32),
        kind=(
            kind_of_category[category_id]
            if category_id.size
            else np.zeros(0, dtype=np.uint8)
        ),
        correlation=_concatenate(collector.correlation, np.int64),
        external_id=external_id,
        stream_arg=_concatenate(collector.stream_arg, np.int64),
        args_begin=args_begin,
        args_end=args_begin + _concatenate(collector.args_length, np.int64),
    )


def _typed_tracks(
    columns: _EventColumns,
    collector: Collector,
    category_strings: Sequence[str],
    name_strings: Sequence[str],
    warnings: list[str],
) -> tuple[dict[tuple[Hashable, Hashable], int], list[Track]]:
    """The canonical track codes, and each track placed by the work it holds.

    Sets `columns.track` to canonical codes and settles the kinds of events
    whose category is not understood.
    """
    runtime_like_category = np.array(
        [category.lower().endswith("_runtime") for category in category_strings]
        or [False],
        dtype=np.bool_,
    )
    # Numeric-string ids (PyTorch <= 1.10 writes "tid": "25738") are that number:
    # one track per thread whatever the spelling, so metadata, B/E pairs and
    # flows (which all key on the canonical id) land on the same track.
    track_codes, remap = _canonical_tracks(collector.track_keys)
    if columns.track.size:
        columns.track = remap[columns.track]
    tracks_unsorted = _placed_tracks(
        columns, list(track_codes), collector, runtime_like_category, warnings
    )
    _settle_unknown_kinds(
        columns,
        tracks_unsorted,
        category_strings,
        name_strings,
        runtime_like_category,
        warnings,
    )
    _warn_device_ranges_only(columns.kind, warnings)
    return track_codes, tracks_unsorted


def _placed_tracks(
    columns: _EventColumns,
    raw_keys: Sequence[tuple[Any, Any]],
    collector: Collector,
    runtime_like_category: np.ndarray[Any, Any],
    warnings: list[str],
) -> list[Track]:
    """Each track as a device stream, a CPU thread or another lane, by the work it holds.

    Events left on a lane that is neither are counted in `warnings`.
    """
    kind = columns.kind
    device_kind_tracks = _tracks_holding(columns.track, kind_mask(kind, _DEVICE_KINDS))
    cpu_work = kind_mask(kind, _CPU_WORK_KINDS)
    if columns.category_id.size:
        cpu_work |= (kind == Kind.CPU_OTHER) & runtime_like_category[
            columns.category_id
        ]
    tracks_unsorted = classify_tracks(
        raw_keys,
        collector.metadata,
        device_events=device_kind_tracks,
        cpu_work=_tracks_holding(columns.track, cpu_work),
        spans=_tracks_holding(columns.track, kind == Kind.TRACE_SPAN),
    )
    _warn_unplaced(tracks_unsorted, columns.track, kind, warnings)
    return tracks_unsorted


def _settle_unknown_kinds(
    columns: _EventColumns,
    tracks_unsorted: Sequence[Track],
    category_strings: Sequence[str],
    name_strings: Sequence[str],
    runtime_like_category: np.ndarray[Any, Any],
    warnings: list[str],
) -> None:
    """Unknown categories: device work when on a device track, CPU events otherwise.

    Changes `columns.kind` in place; `*_runtime` categories on CPU tracks are
    runtime calls. The categories not understood are named in `warnings`.
    """
    kind = columns.kind
    category_id = columns.category_id
    track_is_device = np.array(
        [track.kind == TrackKind.DEVICE for track in tracks_unsorted] or [False],
        dtype=np.bool_,
    )
    on_device = (
        track_is_device[columns.track] if columns.track.size else np.zeros(0, bool)
    )
    unknown = kind == Kind.CPU_OTHER
    unknown_on_device = set_aside_non_work(
        kind,
        unknown & on_device,
        category_id,
        category_strings,
        columns.name_id,
        name_strings,
        warnings,
    )
    if unknown_on_device.any():
        kind[unknown_on_device] = Kind.DEVICE_OTHER
        _warn_device_categories(
            category_id[unknown_on_device], category_strings, warnings
        )
    unknown_on_cpu = unknown & ~on_device
    if unknown_on_cpu.any():
        _warn_cpu_categories(category_id[unknown_on_cpu], category_strings, warnings)
    runtime_like = unknown_on_cpu & (
        runtime_like_category[category_id] if category_id.size else unknown_on_cpu
    )
    kind[runtime_like] = Kind.RUNTIME


def _warn_device_categories(
    category_ids: np.ndarray[Any, Any],
    category_strings: Sequence[str],
    warnings: list[str],
) -> None:
    """Name the unknown categories counted as device work, the first _MAX_LISTED of them."""
    device_categories = sorted(
        {category_strings[c] for c in distinct(category_ids).tolist()}
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


def _warn_cpu_categories(
    category_ids: np.ndarray[Any, Any],
    category_strings: Sequence[str],
    warnings: list[str],
) -> None:
    """Name the unknown categories shown as CPU events, unless all are `*_runtime`."""
    unknown_names = sorted(
        {category_strings[c] for c in distinct(category_ids).tolist()}
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


def _warn_device_ranges_only(kind: np.ndarray[Any, Any], warnings: list[str]) -> None:
    """Say so when the device side holds only CUPTI counter ranges, no timeline."""
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


def _sort_events(
    columns: _EventColumns,
    rank_of_code: np.ndarray[Any, Any],
    track_count: int,
    progress: Callable[[LoadPhase, int, int], None] | None,
) -> tuple[int, np.ndarray[Any, Any]]:
    """Put `columns` in display order: by track rank, start, longest first.

    Makes starts relative and tracks ranks, one column at a time so only one
    extra column is held at once. Returns the origin (the earliest absolute
    start) and each track's first event index (and the end, last).
    """
    track_rank = (
        rank_of_code[columns.track] if columns.track.size else np.zeros(0, np.int32)
    )
    origin = int(columns.start.min()) if columns.start.size else 0
    columns.start = columns.start - origin
    if progress is not None:
        progress(LoadPhase.SORTING, 0, 0)
    order = _event_order(track_rank, columns.start, columns.duration)
    columns.start = columns.start[order]
    columns.duration = columns.duration[order]
    columns.track = track_rank[order].astype(np.int32)
    del track_rank
    columns.name_id = columns.name_id[order]
    columns.category_id = columns.category_id[order]
    columns.kind = columns.kind[order]
    columns.correlation = columns.correlation[order]
    columns.external_id = columns.external_id[order]
    columns.stream_arg = columns.stream_arg[order]
    columns.args_begin = columns.args_begin[order]
    columns.args_end = columns.args_end[order]
    track_start = np.searchsorted(columns.track, np.arange(track_count + 1)).astype(
        np.int64
    )
    return origin, track_start


def _bound_flows(
    collector: Collector,
    columns: _EventColumns,
    flow_category_map: np.ndarray[Any, Any],
    categories: _Interner,
    origin: int,
    track_codes: dict[tuple[Hashable, Hashable], int],
    rank_of_code: np.ndarray[Any, Any],
    track_start: np.ndarray[Any, Any],
    counts: Counter[str],
) -> Flows:
    """The flows bound to the sorted events they leave and reach; events linked by them."""
    flows = _bind_flows(
        collector.flows,
        flow_category_map,
        origin,
        track_codes,
        rank_of_code,
        columns.start,
        columns.duration,
        track_start,
        categories,
        counts,
    )
    _link_by_flows(flows, categories.strings(), columns.kind, columns.correlation)
    return flows


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
    members = order[positions]
    # The key itself tells the runs apart (one value per run, ascending).
    order[positions] = members[
        np.lexsort((positions, -duration[members], ordered[positions]))
    ]
    return order


_MAX_LISTED = 8


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
    dropped: list[int] = [0]
    kept = _within_range(description, 0, dropped)
    if dropped[0]:
        warnings.append(
            f"{dropped[0]:,} value(s) of the capture description were dropped "
            "(integers past 64 bits, or nested too deep)"
        )
    return kept, metadata


_DESCRIPTION_DEPTH = 64
_INT64 = 2**63


def _within_range(value: Any, depth: int, dropped: list[int]) -> Any:
    """`value` without the integers that fit no 64-bit column nor JSON writer,
    nor anything nested past _DESCRIPTION_DEPTH; `dropped[0]` counts them."""
    if isinstance(value, dict):
        items = [(key, _keep(item, depth, dropped)) for key, item in value.items()]
        return {key: item for key, item in items if item is not _DROPPED}
    if isinstance(value, list):
        kept = [_keep(item, depth, dropped) for item in value]
        return [item for item in kept if item is not _DROPPED]
    return value


_DROPPED = object()


def _keep(value: Any, depth: int, dropped: list[int]) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if -_INT64 <= value < _INT64:
            return value
    elif not isinstance(value, (dict, list)):
        return value
    elif depth < _DESCRIPTION_DEPTH:
        return _within_range(value, depth + 1, dropped)
    dropped[0] += 1
    return _DROPPED

"""Turn decoded events into the columnar `Trace` model.

Every event that cannot be placed exactly (no timestamp, a negative or
missing duration, an unmatched begin/end) is dropped and counted in a
warning, so no figure silently includes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
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
    _Collector,
    _concatenate,
    collect_events,
)
from tui.core.ingest.collect.interning import _Interner, _shown
from tui.core.ingest.collect.tables import _pair_begin_end
from tui.core.ingest.decode.records import DecodedTrace, EventSource
from tui.core.model.masks import kind_mask
from tui.core.model.trace import Kind, Trace, Track, TrackKind

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


def finish_trace(
    collector: _Collector,
    path: Path,
    *,
    top_level: dict[str, Any],
    array_form: bool,
    warnings: list[str],
    file_size: int = 0,
    compressed: bool = False,
    progress: Callable[[LoadPhase, int, int], None] | None = None,
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
        progress(LoadPhase.PAIRING, 0, 0)
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
    stream_arg = _concatenate(collector.stream_arg, np.int64)
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
        progress(LoadPhase.TRACKS, 0, 0)
    # Numeric-string ids (PyTorch <= 1.10 writes "tid": "25738") are that number:
    # one track per thread whatever the spelling, so metadata, B/E pairs and
    # flows (which all key on the canonical id) land on the same track.
    track_codes, remap = _canonical_tracks(track_keys)
    raw_keys = list(track_codes)
    if track_of_event.size:
        track_of_event = remap[track_of_event]
    device_kind_tracks = _tracks_holding(track_of_event, kind_mask(kind, _DEVICE_KINDS))
    runtime_like_category = np.array(
        [category.lower().endswith("_runtime") for category in category_strings]
        or [False],
        dtype=np.bool_,
    )
    cpu_work = kind_mask(kind, _CPU_WORK_KINDS)
    if category_id.size:
        cpu_work |= (kind == Kind.CPU_OTHER) & runtime_like_category[category_id]
    cpu_work_tracks = _tracks_holding(track_of_event, cpu_work)
    span_tracks = _tracks_holding(track_of_event, kind == Kind.TRACE_SPAN)
    tracks_unsorted = classify_tracks(
        raw_keys,
        metadata_tables,
        device_events=device_kind_tracks,
        cpu_work=cpu_work_tracks,
        spans=span_tracks,
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
    unknown_on_device = set_aside_non_work(
        kind,
        unknown & on_device,
        category_id,
        category_strings,
        name_id,
        name_strings,
        warnings,
    )
    if unknown_on_device.any():
        kind[unknown_on_device] = Kind.DEVICE_OTHER
        device_categories = sorted(
            {
                category_strings[c]
                for c in distinct(category_id[unknown_on_device]).tolist()
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
                for c in distinct(category_id[unknown_on_cpu]).tolist()
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
    runtime_like = unknown_on_cpu & (
        runtime_like_category[category_id] if category_id.size else unknown_on_cpu
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
    tracks, rank_of_code = display_order(tracks_unsorted)
    track_rank = (
        rank_of_code[track_of_event] if track_of_event.size else np.zeros(0, np.int32)
    )

    origin = int(start_abs.min()) if start_abs.size else 0
    start = start_abs - origin
    del start_abs
    if progress is not None:
        progress(LoadPhase.SORTING, 0, 0)
    order = _event_order(track_rank, start, duration)
    start = start[order]
    duration = duration[order]
    track_rank = track_rank[order].astype(np.int32)
    name_id = name_id[order]
    category_id = category_id[order]
    kind = kind[order]
    correlation = correlation[order]
    external_id = external_id[order]
    stream_arg = stream_arg[order]
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
        warnings.append(f"{count:,} {message}")

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
        stream_arg=stream_arg,
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

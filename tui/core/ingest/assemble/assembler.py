"""Turn decoded events into the columnar `Trace` model.

Every event that cannot be placed exactly (no timestamp, a negative or
missing duration, an unmatched begin/end) is dropped and counted in a
warning, so no figure silently includes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.assemble.columns import _EventColumns, _paired_columns
from tui.core.ingest.assemble.description import _split_description
from tui.core.ingest.assemble.flows import _bind_flows, _link_by_flows
from tui.core.ingest.assemble.kinds import _typed_tracks
from tui.core.ingest.assemble.tracks import display_order
from tui.core.ingest.collect.batches import (
    _NOT_OBJECTS,
    Collector,
    collect_events,
)
from tui.core.ingest.collect.interning import _Interner
from tui.core.ingest.decode.records import DecodedTrace, EventSource
from tui.core.model.trace import Flows, Kind, Trace, Track, TrackKind


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

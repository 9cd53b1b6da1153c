"""Tracks typed by the work they hold, and the kinds of events whose category is not understood.

Each unknown category is settled by where its events sit (device track or
CPU thread) and named in a warning.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.ingest.assemble.columns import _EventColumns
from tui.core.ingest.assemble.device_work import set_aside_non_work
from tui.core.ingest.assemble.tracks import (
    _canonical_tracks,
    _tracks_holding,
    _warn_unplaced,
    classify_tracks,
)
from tui.core.ingest.collect.batches import Collector
from tui.core.ingest.collect.interning import _shown
from tui.core.model.masks import kind_mask
from tui.core.model.trace import Kind, Track, TrackKind

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


_MAX_LISTED = 8


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

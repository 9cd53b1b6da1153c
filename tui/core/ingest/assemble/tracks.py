"""Which track is a CPU thread, a device stream or another lane, and in what order they show."""

from __future__ import annotations

import operator
import re
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.ingest.collect.interning import _Interner, _shown, _text
from tui.core.ingest.collect.tables import _key, _TrackMetadata
from tui.core.model.trace import Kind, Track, TrackKind

_DEVICE_PROCESS = re.compile(
    r"^\s*(GPU|MTIA|XPU|HPU|NPU|TPU|MPS|Device)\s*(\d+)", re.IGNORECASE
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
    codes = distinct(track_of_event[unplaced]).tolist()
    labels = ", ".join(f"'{_shown(tracks[code].name, 30)}'" for code in codes[:3])
    more = f" and {len(codes) - 3} more" if len(codes) > 3 else ""
    warnings.append(
        f"{count:,} events sit on {len(codes)} track(s) that are neither a CPU thread "
        f"nor a device stream ({labels}{more}): they are shown but counted in no figure"
    )


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
    return set(distinct(track_of_event[mask]).tolist())


def _sortable(value: Any) -> tuple[int, Any]:
    if type(value) is int:
        return (0, value)
    return (1, _text(value))


def _device_label(
    process_name: str, device: int | None, pid: Any, thread_name: str, tid: Any
) -> str:
    """`GPU 0 stream 7`: the device as its process names it (else by number),
    then the stream once. PyTorch 1.9 names the process after the program
    (`python3.8`) and the stream only by its tid (`stream 7`)."""
    if _DEVICE_PROCESS.match(process_name):
        where = process_name.strip()
    else:
        where = f"GPU {device if device is not None else _text(pid)}"
    stream = thread_name.strip()
    if _DEVICE_PROCESS.match(stream):  # torch 2.x's "Device 0" lane names itself
        return stream
    if not stream:
        stream = _text(tid).strip()
        stream = stream if stream.lower().startswith("stream") else f"stream {stream}"
    return f"{where} {stream}"


def classify_tracks(
    raw_keys: Sequence[tuple[Any, Any]],
    metadata: _TrackMetadata,
    *,
    device_events: set[int],
    cpu_work: set[int],
    spans: set[int],
) -> list[Track]:
    """Each track (by code) as a device stream, a CPU thread or another lane, with its label and sort key.

    `device_events`, `cpu_work` and `spans` are the codes of the tracks holding
    device events, CPU-only work and the profiler's own spans.
    """
    process_names = metadata.process_names
    thread_names = metadata.thread_names
    process_sort = metadata.process_sort
    thread_sort = metadata.thread_sort
    tracks_unsorted: list[Track] = []
    for code, (pid, tid) in enumerate(raw_keys):
        process_name = _text(process_names.get(_key(pid), ""))
        thread_name = _text(thread_names.get((_key(pid), _key(tid)), ""))
        device_match = _DEVICE_PROCESS.match(process_name)
        is_device = code in device_events or device_match is not None
        if is_device:
            track_kind = TrackKind.DEVICE
            device = (
                pid
                if type(pid) is int
                else (int(device_match.group(2)) if device_match else None)
            )
            label = _device_label(process_name, device, pid, thread_name, tid)
            sort_key: tuple[Any, ...] = (
                1,
                device if device is not None else 1 << 30,
                _sortable(tid),
            )
        elif code in cpu_work or (
            code not in spans and type(pid) is int and type(tid) is int
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

    return tracks_unsorted


def display_order(
    tracks_unsorted: Sequence[Track],
) -> tuple[list[Track], np.ndarray[Any, np.dtype[np.int32]]]:
    """The tracks in display order, numbered by rank, and the rank of each original code."""
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
    return tracks, rank_of_code

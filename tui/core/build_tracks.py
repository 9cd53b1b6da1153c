"""Which track is a CPU thread, a device stream or another lane, and in what order they show."""

from __future__ import annotations

import operator
import re
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from tui.core.collect_tables import _key
from tui.core.interning import _Interner, _shown, _text
from tui.core.model import Kind, Track, TrackKind

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
    codes = np.unique(track_of_event[unplaced]).tolist()
    labels = ", ".join(f"'{_shown(tracks[code].name, 30)}'" for code in codes[:3])
    more = f" and {len(codes) - 3} more" if len(codes) > 3 else ""
    warnings.append(
        f"{count} events sit on {len(codes)} track(s) that are neither a CPU thread "
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
    return set(np.unique(track_of_event[mask]).tolist())


def _sortable(value: Any) -> tuple[int, Any]:
    if type(value) is int:
        return (0, value)
    return (1, _text(value))

"""Flow events paired by id and bound to the events they start and end at."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.ingest.assemble.tracks import _track_key
from tui.core.ingest.collect.interning import _Interner
from tui.core.ingest.collect.tables import _FLOW_END, _FLOW_START, _FlowColumns
from tui.core.model.trace import Flows

_FLOW_LINK_CATEGORIES = {"ac2g", "async_gpu", "async"}


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
    key = _dense_keys(np.concatenate(columns.key_group), np.concatenate(columns.key))
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


def _dense_keys(
    group: np.ndarray[Any, Any], key: np.ndarray[Any, Any]
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """One int64 per flow point, equal exactly when its (group, key) pair is."""
    if key.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((key, group))
    new = np.ones(key.size, dtype=bool)
    new[1:] = (group[order][1:] != group[order][:-1]) | (
        key[order][1:] != key[order][:-1]
    )
    dense = np.empty(key.size, dtype=np.int64)
    dense[order] = np.cumsum(new) - 1
    return dense


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
    for rank in distinct(ranks[known]).tolist():
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

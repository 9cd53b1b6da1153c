"""Decoded events gathered batch by batch into columns: what the sequential and parallel paths share."""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tui.core.base.numbers import (
    duration_us_to_ns,
    parse_us_to_ns,
)
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.collect.interning import (
    _ARGS_NOT_OBJECT,
    _as_text,
    _Interner,
    _known_id_columns,
    _shown,
)
from tui.core.ingest.collect.memory_events import MemoryCollector
from tui.core.ingest.collect.tables import (
    _CAT,
    _PH,
    _PID_TID,
    _TS,
    _FlowColumns,
    _in_time_range,
    _TrackMetadata,
)
from tui.core.ingest.decode.records import _NOT_AN_OBJECT, EventSource, RawEvent

_NAME = operator.attrgetter("name")


_DUR = operator.attrgetter("dur")
_ARGS = operator.attrgetter("args")


def collect_events(
    source: EventSource, progress: Callable[[LoadPhase, int, int], None] | None = None
) -> Collector:
    """Columns of every element of `source`, batch by batch."""
    collector = Collector()
    total_elements = len(source)
    for batch in source.batches():
        collector.add_batch(batch)
        if progress is not None:
            progress(LoadPhase.EVENTS, collector.elements, total_elements)
    collector.repaired_utf8 = source.repaired_utf8
    return collector


def _concatenate(parts: list[np.ndarray[Any, Any]], dtype: Any) -> np.ndarray[Any, Any]:
    """One column from per-batch pieces."""
    if not parts:
        return np.zeros(0, dtype=dtype)
    return np.concatenate(parts).astype(dtype, copy=False)


_MISSING_TS = "complete events without a usable timestamp were dropped"


_OUT_OF_RANGE = (
    "complete events with a timestamp out of range (before 1933 or after 2116 "
    "in epoch µs) were dropped"
)


_BAD_DURATION = "complete events with a missing or non-numeric duration were dropped"


_NEGATIVE = "complete events with a negative duration were dropped"


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
    "stream_arg",
    "args_begin",
    "args_length",
)


_FLOW_COLUMN_NAMES = (
    "phase",
    "key_group",
    "key",
    "flow_id",
    "category",
    "thread",
    "stamp",
    "valid",
)


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


class Collector:
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
        self.stream_arg: list[np.ndarray[Any, Any]] = []
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
        pieces: list[Any] = list(map(_ARGS, complete))
        lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        empty = np.flatnonzero(lengths == 0)
        if empty.size:  # no args: an empty object
            for index in empty.tolist():
                pieces[index] = b"{}"
            lengths[empty] = 2
        offsets = np.zeros(len(pieces), dtype=np.int64)
        offsets[1:] = np.cumsum(lengths[:-1] + 1)
        if len(self.args_blob) > 1:
            self.args_blob += b","
        self.args_begin.append(offsets + len(self.args_blob))
        self.args_length.append(lengths)
        joined = b",".join(pieces)
        self.args_blob += joined
        correlation, external_id, stream = _known_id_columns(
            b"[" + joined + b"]", pieces, counts
        )
        del joined, pieces
        self.correlation.append(correlation)
        self.external_id.append(external_id)
        self.stream_arg.append(stream)

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
            self.stream_arg.append(columns["stream_arg"])
            if len(self.args_blob) > 1:
                self.args_blob += b","
            self.args_begin.append(columns["args_begin"] + len(self.args_blob))
            self.args_length.append(columns["args_length"])
            self.args_blob += part.args_blob
        flow_columns = part.flow_columns
        if flow_columns["phase"].size:
            flows = self.flows
            flows.phase.append(flow_columns["phase"])
            category_map = _remap_table(self.flow_categories, part.flow_categories)
            key_map = _remap_table(flows.keys, part.flow_keys)
            group = flow_columns["key_group"]
            by_pair = group < 0
            flows.key_group.append(
                np.where(by_pair, -1, category_map[np.maximum(group, 0)]).astype(
                    np.int32
                )
            )
            flows.key.append(
                np.where(
                    by_pair,
                    key_map[np.where(by_pair, flow_columns["key"], 0)],
                    flow_columns["key"],
                ).astype(np.int64)
            )
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
    "stream_arg": np.int64,
    "args_begin": np.int64,
    "args_length": np.int64,
}


_FLOW_DTYPES: dict[str, Any] = {
    "phase": np.int8,
    "key_group": np.int32,
    "key": np.int64,
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


def _remap_table(
    interner: _Interner, keys: list[Any]
) -> np.ndarray[Any, np.dtype[np.int32]]:
    """For each of a part's codes, the code in `interner` (which learns the part's new keys in order)."""
    if not keys:
        return np.zeros(1, dtype=np.int32)
    return np.asarray(interner.codes(keys), dtype=np.int32)


_NOT_OBJECTS = "elements of traceEvents that are not objects were skipped"

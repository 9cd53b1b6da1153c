"""What is gathered beside the event columns: track metadata, flow events, begin/end pairs."""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import numpy as np

from tui.core.base.numbers import (
    MAX_TIMESTAMP_NS,
    MIN_TIMESTAMP_NS,
    parse_us_to_ns,
)
from tui.core.ingest.collect.interning import _hashable, _id_column, _Interner
from tui.core.ingest.decode.records import RawEvent

_PH = operator.attrgetter("ph")


_CAT = operator.attrgetter("cat")


_ID = operator.attrgetter("id")


_PID = operator.attrgetter("pid")


_TID = operator.attrgetter("tid")


_TS = operator.attrgetter("ts")


_PID_TID = operator.attrgetter("pid", "tid")


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
    # A flow's (category, id) key: the id itself under the category's code
    # when the category is text and the id a number that is an int64 (as
    # Kineto writes them), else the code of the interned pair under -1.
    key_group: list[np.ndarray[Any, Any]] = field(default_factory=list)
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
        category_codes = categories.codes(category_values)
        group, key = self._keys(category_values, id_values, category_codes)
        self.key_group.append(group)
        self.key.append(key)
        self.flow_id.append(_id_column(id_values))
        self.category.append(category_codes)
        self.thread.append(self.threads.codes_of(events, _PID_TID))
        stamps, valid = parse_us_to_ns(list(map(_TS, events)))
        self.stamp.append(stamps)
        self.valid.append(valid & _in_time_range(stamps))

    def _keys(
        self,
        category_values: list[Any],
        id_values: list[Any],
        category_codes: np.ndarray[Any, np.dtype[np.int32]],
    ) -> tuple[
        np.ndarray[Any, np.dtype[np.int32]], np.ndarray[Any, np.dtype[np.int64]]
    ]:
        """Key groups and keys: equal exactly when the (category, id) pairs are equal."""
        count = len(id_values)
        if set(map(type, category_values)) <= {str} and set(map(type, id_values)) <= {
            int
        }:
            try:
                ids = np.fromiter(id_values, dtype=np.int64, count=count)
            except OverflowError:
                pass
            else:
                return category_codes.astype(np.int32), ids
        group = np.full(count, -1, dtype=np.int32)
        key = np.zeros(count, dtype=np.int64)
        for row, (category, value) in enumerate(
            zip(category_values, id_values, strict=True)
        ):
            number = _as_int64(value) if type(category) is str else None
            if number is None:
                key[row] = self.keys.codes([(category, value)])[0]
            else:
                group[row] = category_codes[row]
                key[row] = number
        return group, key


def _as_int64(value: Any) -> int | None:
    """The int64 a flow id equals in Python (1 == 1.0 == True), or None."""
    if type(value) in (int, bool) or (
        type(value) is float and math.isfinite(value) and value.is_integer()
    ):
        number = int(value)
        if -(2**63) <= number < 2**63:
            return number
    return None


def _in_time_range(stamps: np.ndarray[Any, np.dtype[np.int64]]) -> np.ndarray[Any, Any]:
    """Timestamps whose distances to each other, plus a duration, still fit int64."""
    return (stamps >= MIN_TIMESTAMP_NS) & (stamps < MAX_TIMESTAMP_NS)


_NUMERIC_ID = re.compile(r"-?[0-9]{1,18}")


def _key(value: Any) -> Hashable:
    """A pid or tid as one hashable value: a numeric string is that number."""
    if type(value) is str and _NUMERIC_ID.fullmatch(value):
        return int(value)
    return _hashable(value)


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

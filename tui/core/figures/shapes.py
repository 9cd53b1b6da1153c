"""Operators by input shape: torch's `key_averages(group_by_input_shape=True)` as columns.

torch keys a row by the operator's name and `str(input_shapes)`, the shapes
it recorded (`record_shapes=True`), which the trace writes as the args'
`Input Dims`. One difference in spelling: for a tensor-list input the trace
writes every tensor's shape (`[[3, 4], [2, 4]]`) while torch's key holds an
empty list for it, so rows are keyed by torch's spelling. Events without
`Input Dims` (annotations, runtime calls) have the key `[]`, as in torch.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt
import orjson

from tui.core.figures.analysis import Analysis
from tui.core.figures.optable import OpTable, group_name
from tui.core.model.nesting import participants, sum_by_index
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]

INPUT_DIMS = "Input Dims"
_INPUT_DIMS_BYTES = b'"Input Dims"'


def shapes_in_trace(trace: Trace) -> bool:
    """Whether any event of the trace carries recorded input shapes."""
    return trace.args_blob.find(_INPUT_DIMS_BYTES) >= 0


def torch_input_shapes(dims: Any) -> list[list[int]]:
    """The `input_shapes` torch's FunctionEvent holds for these `Input Dims`.

    A tensor's shape is a list of ints; a tensor list (a list of lists) and
    anything else torch does not record as a shape read as [].
    """
    if not isinstance(dims, list):
        return []
    shapes: list[list[int]] = []
    for entry in dims:
        if isinstance(entry, list) and all(
            isinstance(size, int) and not isinstance(size, bool) for size in entry
        ):
            shapes.append(list(entry))
        else:
            shapes.append([])
    return shapes


@dataclass
class ShapeOpTable(OpTable):
    """An operator table whose rows are (name, input shapes); `input_shapes[row]` is torch's list."""

    input_shapes: list[list[list[int]]]
    events: Int64Array
    """The events counted, in event order..."""
    row_of_event: Int64Array
    """...and the row each one is counted in."""

    def row_events(self, row: int) -> Int64Array:
        """The calls one row counts (one operator with these input shapes)."""
        chosen: Int64Array = self.events[self.row_of_event == row]
        return chosen

    def shapes_text(self, row: int) -> str:
        """The shapes as torch prints them: `[[16, 32], [64, 32], [64]]`."""
        return str(self.input_shapes[row])

    def rows_of(self, name: str) -> list[int]:
        """Every row of one operator name."""
        return [row for row, item in enumerate(self.names) if item == name]


def shape_op_table(
    analysis: Analysis,
    start_ns: int | None = None,
    end_ns: int | None = None,
    *,
    python: bool = False,
) -> ShapeOpTable:
    """key_averages(group_by_input_shape=True) for events starting in [start, end);
    Python frames only with `python`."""
    trace = analysis.trace
    events = np.flatnonzero(
        participants(trace, analysis.on_cpu) if python else analysis.operators
    )
    if start_ns is not None:
        events = events[trace.start_ns[events] >= start_ns]
    if end_ns is not None:
        events = events[trace.start_ns[events] < end_ns]
    grouped = _groups_at_once(trace, events) or _groups_one_by_one(trace, events)
    names_of_key, shapes_of_key, group = grouped
    size = len(names_of_key)
    gpu = trace.gpu_observed

    def per_group(values: Int64Array) -> Int64Array:
        return sum_by_index(size, group, values[events])

    return ShapeOpTable(
        names=names_of_key,
        calls=np.bincount(group, minlength=size).astype(np.int64),
        self_cpu_ns=per_group(analysis.self_cpu_ns),
        total_cpu_ns=per_group(trace.duration_ns),
        self_gpu_ns=per_group(analysis.self_gpu_ns) if gpu else None,
        total_gpu_ns=per_group(analysis.total_gpu_ns) if gpu else None,
        input_shapes=shapes_of_key,
        events=events.astype(np.int64, copy=False),
        row_of_event=group,
    )


Groups = tuple[list[str], list[list[list[int]]], Int64Array]
"""Each row's name and torch's shapes, in first-seen order, and each event's row."""


def _groups_one_by_one(trace: Trace, events: Int64Array) -> Groups:
    """The rows of `events`, each event's args decoded on its own."""
    keys: dict[tuple[str, str], int] = {}
    shapes_of_key: list[list[list[int]]] = []
    names_of_key: list[str] = []
    group = np.empty(events.size, dtype=np.int64)
    for position, event in enumerate(events.tolist()):
        shapes = _event_shapes(trace, event)
        name = group_name(trace.event_name(event))
        key = (name, str(shapes))
        index = keys.get(key)
        if index is None:
            index = keys[key] = len(names_of_key)
            names_of_key.append(name)
            shapes_of_key.append(shapes)
        group[position] = index
    return names_of_key, shapes_of_key, group


class _InputDims(msgspec.Struct, gc=False):
    """The one arg the rows are keyed by, kept as its JSON text (empty: absent)."""

    dims: msgspec.Raw = msgspec.field(name=INPUT_DIMS, default=msgspec.Raw())


_EVERY_EVENTS_DIMS = msgspec.json.Decoder(list[_InputDims])
_DIMS = operator.attrgetter("dims")


def _groups_at_once(trace: Trace, events: Int64Array) -> Groups | None:
    """The same rows as `_groups_one_by_one`, from one decoding of every event's
    args (the args blob is their JSON array, in the order of their offsets) and
    one pass per distinct (name, Input Dims); None when the blob is not that
    array of objects, and the events are read one by one.

    A dims text is read as one event's args would be only where msgspec and
    orjson read it alike (not an integer past 64 bits, nor a number past a
    double's range: Python's json, the fallback of an args object orjson
    refuses, reads those otherwise); else None too. The 1.1 GB trace's 2.7M
    operators: 3.1 s one by one, 1.6 s at once with its pages not yet read.
    """
    begins = trace.args_begin
    try:
        decoded = _EVERY_EVENTS_DIMS.decode(memoryview(trace.args_blob))
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError):
        return None
    if len(decoded) != trace.event_count:
        return None
    blob_order = np.argsort(begins, kind="stable")
    if blob_order.size > 1 and not bool((np.diff(begins[blob_order]) > 0).all()):
        return None
    texts: dict[bytes, int] = {}
    # Each event's text as the blob position of its first occurrence.
    first_seen = np.fromiter(
        map(texts.setdefault, map(bytes, map(_DIMS, decoded)), itertools.count()),
        dtype=np.int64,
        count=len(decoded),
    )
    del decoded
    text_of_event = np.empty_like(first_seen)
    text_of_event[blob_order] = first_seen
    text_at = {position: text for text, position in texts.items()}
    group_names: dict[str, int] = {}
    name_group = np.fromiter(
        (
            group_names.setdefault(group_name(name), len(group_names))
            for name in trace.names
        ),
        dtype=np.int64,
        count=len(trace.names),
    )
    pairs = (
        name_group[trace.name_id[events]] * (len(first_seen) + 1)
        + text_of_event[events]
    )
    distinct, first, inverse = np.unique(pairs, return_index=True, return_inverse=True)
    names_by_group = list(group_names)
    keys: dict[tuple[str, str], int] = {}
    names_of_key: list[str] = []
    shapes_of_key: list[list[list[int]]] = []
    row_of_pair = np.empty(distinct.size, dtype=np.int64)
    for pair in np.argsort(first, kind="stable").tolist():  # first-seen order
        group, text = divmod(int(distinct[pair]), len(first_seen) + 1)
        raw = text_at[text]
        dims = _read_alike(raw) if raw else None
        if dims is _UNREADABLE:
            return None
        shapes = torch_input_shapes(dims)
        key = (names_by_group[group], str(shapes))
        row = keys.get(key)
        if row is None:
            row = keys[key] = len(names_of_key)
            names_of_key.append(key[0])
            shapes_of_key.append(shapes)
        row_of_pair[pair] = row
    rows: Int64Array = row_of_pair[inverse.reshape(-1)]
    return names_of_key, shapes_of_key, rows


_UNREADABLE = object()


def _read_alike(text: bytes) -> Any:
    """The JSON value of `text` when msgspec and orjson read it alike, else _UNREADABLE."""
    try:
        value = msgspec.json.decode(text)
        same = orjson.loads(text)
    except (msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError):
        return _UNREADABLE
    return value if repr(value) == repr(same) else _UNREADABLE


def _event_shapes(trace: Trace, event: int) -> list[list[int]]:
    begin, end = int(trace.args_begin[event]), int(trace.args_end[event])
    if end <= begin or trace.args_blob.find(_INPUT_DIMS_BYTES, begin, end) < 0:
        return []
    return torch_input_shapes(trace.event_args(event).get(INPUT_DIMS))


@dataclass(frozen=True)
class ShapeShare:
    """How one operator's time splits over its input shapes: the dominant shape and its calls."""

    name: str
    shapes: list[list[int]]
    calls: int
    share: float
    shape_count: int


def operator_shape_split(
    analysis: Analysis,
    name: str,
    values: Int64Array,
    start_ns: int | None = None,
    end_ns: int | None = None,
) -> ShapeShare | None:
    """The input shapes of operator `name` (a table row name) holding most of `values`
    (a per-event column, e.g. self time) among its events starting in [start, end).

    Only that operator's args are read, so it is cheap on a big trace. None when
    the trace holds no shapes, or the operator no time.
    """
    trace = analysis.trace
    if not shapes_in_trace(trace):
        return None
    ids = np.array(
        [i for i, item in enumerate(trace.names) if group_name(item) == name] or [-1],
        dtype=np.int32,
    )
    events = np.flatnonzero(
        participants(trace, analysis.on_cpu) & np.isin(trace.name_id, ids)
    )
    if start_ns is not None:
        events = events[trace.start_ns[events] >= start_ns]
    if end_ns is not None:
        events = events[trace.start_ns[events] < end_ns]
    by_key: dict[str, tuple[list[list[int]], int, int]] = {}
    for event in events.tolist():
        shapes = _event_shapes(trace, event)
        key = str(shapes)
        _, calls, total = by_key.get(key, (shapes, 0, 0))
        by_key[key] = (shapes, calls + 1, total + int(values[event]))
    grand = sum(total for _, _, total in by_key.values())
    if grand <= 0:
        return None
    shapes, calls, total = max(by_key.values(), key=lambda item: item[2])
    return ShapeShare(name, shapes, calls, total / grand, len(by_key))

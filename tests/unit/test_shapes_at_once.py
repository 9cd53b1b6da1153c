"""Operators by input shape read at once (one decoding of every event's args)
give exactly the rows of reading each event's args on its own — on every
shared trace and on the spellings that differ in text but not in torch's key;
a blob the one decoding cannot take is read event by event."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests import shared_traces as shared
from tui.core.base.vocab import CacheUse
from tui.core.figures import shapes
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.nesting import participants

BASE = 1_712_195_495_000_000


def _op(name: str, ts: int, args: str, dur: int = 5, tid: int = 1) -> str:
    return (
        f'{{"ph": "X", "cat": "cpu_op", "name": "{name}", "pid": 1, "tid": {tid}, '
        f'"ts": {BASE + ts}, "dur": {dur}, "args": {args}}}'
    )


# Each line: one event whose args spell its shapes; the comment says torch's key.
EVENTS = [
    _op("ProfilerStep#3", 0, "{}", dur=400),
    _op("aten::mm", 10, '{"Input Dims": [[1, 2], [2, 3]]}'),  # [[1, 2], [2, 3]]
    _op("aten::mm", 20, '{"Input Dims":[[1,2],[2,3]]}'),  # the same key
    _op("aten::mm", 30, '{"Input Dims": [[9]], "Input Dims": [[1, 2], [2, 3]]}'),
    _op("aten::mm", 40, '{"Input Dims": [[[3, 4], [2, 4]]]}'),  # a tensor list: [[]]
    _op("aten::mm", 50, '{"Input Dims": [[1.0, 2]]}'),  # floats are no shape: [[]]
    _op("aten::mm", 60, '{"External id": 4}'),  # none recorded: []
    _op("aten::add", 70, '{"x": {"Input Dims": [[5]]}}'),  # nested, not its own: []
    _op("aten::add", 80, '{"Input Dims": null}'),
    _op("aten::add", 90, '{"Input Dims": [[7], []], "Input type": ["float", ""]}'),
    _op("ProfilerStep#4", 500, "{}", dur=400),
    _op("aten::mm", 510, '{"Input Dims": [[1, 2], [2, 3]]}'),
    '{"ph": "B", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, '
    f'"ts": {BASE + 520}, "args": {{"Input Dims": [[8, 8]]}}}}',
    '{"ph": "E", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, '
    f'"ts": {BASE + 530}}}',
    _op("aten::add", 540, '{"Input Dims": [[7], []]}', tid=3),
]


def _load(tmp_path: Path, events: list[str]) -> Analysis:
    path = tmp_path / "shapes.json"
    path.write_text('{"traceEvents": [\n' + ",\n".join(events) + "\n]}")
    return Analysis(load_trace(path, cache=CacheUse.OFF))


def _both(analysis: Analysis) -> tuple[shapes.Groups | None, shapes.Groups]:
    trace = analysis.trace
    events = np.flatnonzero(participants(trace, analysis.on_cpu))
    return (
        shapes._groups_at_once(trace, events),
        shapes._groups_one_by_one(trace, events),
    )


def _assert_same(at_once: shapes.Groups | None, one_by_one: shapes.Groups) -> None:
    assert at_once is not None, "the one decoding must take a well-formed blob"
    assert at_once[0] == one_by_one[0]
    assert at_once[1] == one_by_one[1]
    np.testing.assert_array_equal(at_once[2], one_by_one[2])


def test_spellings_of_one_key_are_one_row(tmp_path: Path) -> None:
    at_once, one_by_one = _both(_load(tmp_path, EVENTS))
    _assert_same(at_once, one_by_one)
    names, shapes_of_row, _ = one_by_one
    rows = list(zip(names, map(str, shapes_of_row), strict=True))
    assert rows == [
        ("ProfilerStep*", "[]"),
        ("aten::mm", "[[1, 2], [2, 3]]"),
        ("aten::mm", "[[]]"),
        ("aten::mm", "[]"),
        ("aten::add", "[]"),
        ("aten::add", "[[7], []]"),
        ("aten::mm", "[[8, 8]]"),
    ]


def test_a_blob_the_one_decoding_cannot_take_is_read_event_by_event(
    tmp_path: Path,
) -> None:
    events = [*EVENTS, _op("aten::mm", 600, "[1]")]  # args that are not an object
    analysis = _load(tmp_path, events)
    at_once, one_by_one = _both(analysis)
    assert at_once is None
    table = shapes.shape_op_table(analysis)
    assert table.names == one_by_one[0]
    np.testing.assert_array_equal(table.row_of_event, one_by_one[2])


@pytest.mark.parametrize(
    "dims",
    [
        "[[123456789012345678901234567890]]",  # an int past 64 bits
        "[[1180591620717411303424]]",  # 2**70: a float of the same value
        "[[1e400]]",  # past a double's range
    ],
)
def test_numbers_read_otherwise_by_the_fallback_are_read_event_by_event(
    tmp_path: Path, dims: str
) -> None:
    """orjson reads a big int as a float and refuses 1e400, while Python's json
    (which reads an args object orjson refuses) reads them otherwise: such a
    text leaves the rows to the per-event reading. Beside a lone surrogate,
    which the loader repairs (writing the args again), the rows are the same."""
    alone = _op("aten::mm", 600, f'{{"Input Dims": {dims}}}')
    beside = _op("aten::mm", 610, f'{{"Input Dims": {dims}, "Input type": "\\ud800"}}')
    for events, bails in (([*EVENTS, alone], True), ([*EVENTS, alone, beside], False)):
        folder = tmp_path / str(len(events))
        folder.mkdir()
        analysis = _load(folder, events)
        at_once, one_by_one = _both(analysis)
        if bails:
            assert at_once is None
        elif at_once is not None:
            _assert_same(at_once, one_by_one)
        table = shapes.shape_op_table(analysis)
        assert table.names == one_by_one[0]
        assert list(map(str, table.input_shapes)) == list(map(str, one_by_one[1]))
        np.testing.assert_array_equal(table.row_of_event, one_by_one[2])


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("path", shared.paths(), ids=lambda path: path.name[:40])
def test_shared_traces_give_the_same_rows_at_once(path: Path) -> None:
    at_once, one_by_one = _both(Analysis(load_trace(path, cache=CacheUse.OFF)))
    _assert_same(at_once, one_by_one)

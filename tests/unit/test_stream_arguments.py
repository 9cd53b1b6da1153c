"""`Trace.stream_arg`, read with the other id args while decoding, is each
event's own integer `stream` argument, as HTA reads it: a nested one is not
the event's, and one that is not an int64 integer reads as -1."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders.traces import BASE_US
from tui.core.ingest.load import load_trace

INT64 = (-(2**63), 2**63 - 1)
STREAM_VALUES = st.one_of(
    st.integers(-3, 40),
    st.integers(*INT64),
    st.integers(2**63, 10**19 - 1),  # 19 digits, beyond int64
    st.integers(10**19, 10**21),  # more digits than an int64 has
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["7", None, True, [7], {"stream": 3}]),
)


def expected_stream(args: dict[str, Any]) -> int:
    """HTA's reading: the event's own `stream` when it is an int64 integer, else -1."""
    value = args.get("stream")
    if isinstance(value, bool) or not isinstance(value, int):
        return -1
    return value if INT64[0] <= value <= INT64[1] else -1


EVENT_ARGS = st.fixed_dictionaries(
    {},
    optional={
        "External id": st.integers(0, 10**6),
        "stream": STREAM_VALUES,
        "name": st.sampled_from(['"stream":4', "stream", "x"]),
    },
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(EVENT_ARGS, st.integers(0, 2), st.integers(0, 50), st.booleans()),
        min_size=1,
        max_size=25,
    )
)
def test_each_event_reads_its_own_stream(
    events: list[tuple[dict[str, Any], int, int, bool]],
) -> None:
    written = []
    for index, (args, tid, start, nested) in enumerate(events):
        own = dict(args)
        if nested:  # a nested `stream` after the event's own, never read as it
            own["inner"] = {"stream": 99}
        written.append(
            {
                "ph": "X",
                "cat": "kernel",
                "name": f"op{index}",
                "pid": 1,
                "tid": tid,
                "ts": BASE_US + start,
                "dur": 1,
                "args": own,
            }
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.json"
        # json, not orjson: integers beyond 64 bits are written too.
        path.write_text(json.dumps({"traceEvents": written}))
        trace = load_trace(path)
        read = trace.stream_arg
        assert read.shape == (trace.event_count,)
        for event in range(trace.event_count):
            index = int(trace.event_name(event)[2:])
            wanted = expected_stream(events[index][0])
            assert read[event] == wanted, (events[index], read[event])


def test_spaces_after_the_colon_and_events_without_args(tmp_path: Path) -> None:
    text = (
        b'{"traceEvents": ['
        b'{"ph":"X","cat":"kernel","name":"a","pid":1,"tid":2,"ts":5,"dur":1,'
        b'"args":{"stream":  12, "device": 0}},'
        b'{"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":3,"dur":1},'
        b'{"ph":"X","cat":"kernel","name":"c","pid":1,"tid":1,"ts":1,"dur":1,'
        b'"args":{"stream":7.0}}'
        b"]}"
    )
    path = tmp_path / "t.json"
    path.write_bytes(text)
    trace = load_trace(path)
    by_name = {
        trace.event_name(event): int(trace.stream_arg[event])
        for event in range(trace.event_count)
    }
    assert by_name == {"a": 12, "b": -1, "c": -1}
    assert trace.stream_arg.dtype == np.int64

"""The events a mark covers: a name's events are exactly those np.isin finds,
whether one name (one comparison) or several (a table lookup) is asked."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders.traces import metadata, training_steps, write_trace
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Trace
from tui.view.marking import events_named, name_matches


@functools.cache
def _trace() -> Trace:
    folder = Path(tempfile.mkdtemp(prefix="steptrace-marking-"))
    return load_trace(write_trace(folder / "t.json", [*metadata(), *training_steps(3)]))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_events_named_are_numpys_isin(data: st.DataObject) -> None:
    trace = _trace()
    ids = data.draw(
        st.lists(st.integers(0, len(trace.names) - 1), min_size=1, max_size=4)
    )
    got = events_named(trace, ids)
    assert got.dtype == np.int64
    assert np.array_equal(got, np.flatnonzero(np.isin(trace.name_id, ids)))


def test_name_matches_are_in_time_order() -> None:
    trace = _trace()
    found = name_matches(trace, "ATEN::")
    assert found.size and all("aten::" in trace.event_name(e) for e in found.tolist())
    assert np.all(np.diff(trace.start_ns[found]) >= 0)

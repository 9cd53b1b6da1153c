"""The loader's event order is np.lexsort's (track, start, longest first, then
as read), whichever way it is computed."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.core.ingest.assemble.assembler import _event_order

EVENTS = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 6), st.integers(0, 4)),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(EVENTS, st.sampled_from([1, 2**40]))
def test_same_order_as_lexsort(events: list[tuple[int, int, int]], scale: int) -> None:
    track = np.array([event[0] for event in events], dtype=np.int32)
    start = np.array([event[1] * scale for event in events], dtype=np.int64)
    duration = np.array([event[2] for event in events], dtype=np.int64)
    wanted = np.lexsort((-duration, start, track))
    assert np.array_equal(_event_order(track, start, duration), wanted)

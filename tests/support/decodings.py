"""Comparing two decodings of one trace, column by column: how the parallel
and the native decoders are held to the sequential one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tui.core.model.trace import Trace

COLUMNS = (
    "start_ns",
    "duration_ns",
    "track",
    "name_id",
    "category_id",
    "kind",
    "correlation",
    "external_id",
    "stream_arg",
    "track_start",
)


def assert_same_decoding(
    got: Trace,
    want: Trace,
    *,
    args: Callable[[Trace], Sequence[object]],
    memory: bool,
) -> None:
    """Every column (values and dtype), string table, track, flow, warning and
    total equal; each event's args as `args` reads them; the memory columns
    too where `memory`."""
    for column in COLUMNS:
        np.testing.assert_array_equal(
            getattr(got, column), getattr(want, column), err_msg=column
        )
        assert getattr(got, column).dtype == getattr(want, column).dtype, column
    assert got.origin_ns == want.origin_ns
    assert got.names == want.names
    assert got.categories == want.categories
    assert got.tracks == want.tracks
    for field in ("flow_id", "category_id", "source_event", "target_event"):
        np.testing.assert_array_equal(
            getattr(got.flows, field), getattr(want.flows, field), err_msg=field
        )
    if memory:
        for field in got.memory.COLUMNS:
            np.testing.assert_array_equal(
                getattr(got.memory, field), getattr(want.memory, field), err_msg=field
            )
    assert got.warnings == want.warnings
    assert args(got) == args(want)
    assert got.description == want.description
    assert got.metadata == want.metadata
    assert (got.instant_count, got.counter_count) == (
        want.instant_count,
        want.counter_count,
    )
    assert (got.file_size, got.compressed) == (want.file_size, want.compressed)

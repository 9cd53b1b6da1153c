"""Property-based fuzzing of the loader: random event fields and corrupted bytes.

Whatever the input, loading raises TraceLoadError or returns a trace whose
events all came from the input with exactly the times it gave, and whose
figures count only the events that were kept.
"""

from __future__ import annotations

import decimal
import gzip
import json
import math
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders.hostile import sample_events, serialize
from tui.core.base.errors import TraceLoadError
from tui.core.base.numbers import MAX_DURATION_US, MAX_TIMESTAMP_NS, MIN_TIMESTAMP_NS
from tui.core.base.textsafe import has_unsafe
from tui.core.figures.analysis import FILTERED_NAMES, Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import CPU_FUNCTION_KINDS, Trace, TrackKind
from tui.core.results import SummaryResult

FUZZ_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=6), inner, max_size=3),
    ),
    max_leaves=8,
)
# Times around a Kineto epoch, small ones, and outliers on both sides.
timestamps = st.one_of(
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=1_712_195_495_519_000, max_value=1_712_195_495_619_000),
    st.floats(min_value=0, max_value=1e6, allow_nan=False),
    st.sampled_from([1e300, 1e19, -1e19, 2**63, -(2**61)]),
    json_values,
)
durations = st.one_of(
    st.integers(min_value=-5, max_value=5000),
    st.floats(min_value=-10, max_value=1e4, allow_nan=False),
    st.sampled_from([0, 1e300, 2.2e15, 2.4e15]),
    json_values,
)
names = st.one_of(
    st.sampled_from(
        [
            "aten::mm",
            "ProfilerStep#1",
            "ProfilerStep#2",
            "lecture_batch_cpu",
            "cudaLaunchKernel",
            "aten::is_leaf",
            "[/]",
            "\x1b[2J",
        ]
    ),
    st.text(max_size=10),
    json_values,
)
categories = st.one_of(
    st.sampled_from(
        [
            "cpu_op",
            "user_annotation",
            "kernel",
            "cuda_runtime",
            "gpu_memcpy",
            "python_function",
            "Trace",
            "ac2g",
            "weird",
        ]
    ),
    json_values,
)
small_ids = st.one_of(st.integers(min_value=0, max_value=3), json_values)
args = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "correlation": small_ids,
            "External id": small_ids,
            "name": st.text(max_size=5),
        },
    ),
    json_values,
)
events = st.fixed_dictionaries(
    {},
    optional={
        "ph": st.one_of(
            st.sampled_from(["X", "X", "X", "B", "E", "M", "s", "f", "i", "C", "Z"]),
            json_values,
        ),
        "cat": categories,
        "name": names,
        "pid": small_ids,
        "tid": small_ids,
        "ts": timestamps,
        "dur": durations,
        "id": small_ids,
        "args": args,
    },
)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def expected_start_ns(ts: Any) -> int | None:
    """The exact ns of a JSON number as written (the decimal text, not a float)."""
    if not _is_number(ts) or (isinstance(ts, float) and not math.isfinite(ts)):
        return None
    text = json.dumps(ts)
    nanoseconds = int(
        (decimal.Decimal(text) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP)
    )
    if not MIN_TIMESTAMP_NS <= nanoseconds < MAX_TIMESTAMP_NS:
        return None
    return nanoseconds


def expected_duration_ns(dur: Any) -> int | None:
    """Durations are µs numbers read as float64, rounded to the ns."""
    if not _is_number(dur):
        return None
    value = float(dur)
    if not math.isfinite(value) or abs(value) >= MAX_DURATION_US:
        return None
    nanoseconds = int(np.rint(value * 1000.0))
    return nanoseconds if nanoseconds >= 0 else None


def kept_events(trace: Trace) -> Counter[tuple[int, int]]:
    """(absolute start ns, duration ns) of every kept event."""
    starts = (trace.start_ns + trace.origin_ns).tolist()
    return Counter(zip(starts, trace.duration_ns.tolist(), strict=True))


def cpu_function_events(trace: Trace) -> int:
    """Kept events torch's key_averages() counts."""
    cpu_tracks = np.array(
        [track.kind == TrackKind.CPU for track in trace.tracks] or [False], dtype=bool
    )
    on_cpu = cpu_tracks[trace.track] if trace.track.size else np.zeros(0, bool)
    filtered = trace.name_ids_matching(set(FILTERED_NAMES))
    return int(
        (
            on_cpu
            & np.isin(trace.kind, np.array(CPU_FUNCTION_KINDS, dtype=np.uint8))
            & ~np.isin(trace.name_id, filtered)
        ).sum()
    )


def check_figures(trace: Trace) -> None:
    """Figures hold only kept events, and nothing overflows or leaks unsafe text."""
    analysis = Analysis(trace)
    summary = SummaryResult.of(analysis).to_json()
    table = analysis.op_table()
    analysis.device_busy_ns()
    assert isinstance(analysis.gaps, list)
    orjson.dumps(summary)
    assert int(table.calls.sum()) == cpu_function_events(trace)
    assert summary["events"] == trace.event_count
    if trace.event_count:
        ends = trace.start_ns + trace.duration_ns
        assert int(trace.start_ns.min()) >= 0
        assert int(trace.duration_ns.min()) >= 0
        assert bool((ends >= trace.start_ns).all())
    for warning in trace.warnings:
        assert "\n" not in warning and not has_unsafe(warning)


def load_bytes(data: bytes, suffix: str = ".json") -> Trace | None:
    """Load `data` from a file; None when the loader refuses it with TraceLoadError."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            return load_trace(path)
        except TraceLoadError as error:
            message = str(error)
            assert message and "\n" not in message and not has_unsafe(message)
            return None


@FUZZ_SETTINGS
@given(st.lists(events, max_size=25), st.sampled_from(["object", "array"]))
@pytest.mark.slow
def test_random_event_fields(event_list: list[dict[str, Any]], form: str) -> None:
    """Random fields of every type: kept events are exactly the well-formed complete ones."""
    document: Any = event_list if form == "array" else {"traceEvents": event_list}
    data = json.dumps(document, allow_nan=True).encode()
    trace = load_bytes(data)
    assert trace is not None, "a syntactically valid trace must load"
    check_figures(trace)
    exact: Counter[tuple[int, int]] = Counter()
    for event in event_list:
        if event.get("ph") != "X":
            continue
        start = expected_start_ns(event.get("ts"))
        duration = expected_duration_ns(event.get("dur"))
        if start is not None and duration is not None:
            exact[(start, duration)] += 1
    begin_starts = {
        expected_start_ns(event.get("ts"))
        for event in event_list
        if event.get("ph") == "B"
    }
    kept = kept_events(trace)
    # Complete events: exactly those with a usable start and duration, with those times.
    from_complete = kept & exact
    assert from_complete == exact
    # Anything else kept was paired from a begin event and starts where it began.
    for (start, _duration), count in (kept - exact).items():
        assert start in begin_starts, (start, count)


@st.composite
def corrupted(draw: st.DrawFn) -> tuple[bytes, bytes, str]:
    """A small valid trace with bytes truncated, flipped, inserted or deleted.

    Returns the damaged JSON, the bytes written (maybe gzipped, and then maybe
    cut or flipped again) and the file suffix.
    """
    form = draw(st.sampled_from(["object", "array"]))
    data = bytearray(serialize(sample_events(steps=2, ops_per_step=2), form=form).data)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        action = draw(st.sampled_from(["truncate", "flip", "insert", "delete"]))
        if not data:
            break
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        if action == "truncate":
            del data[at:]
        elif action == "flip":
            data[at] = draw(st.integers(min_value=0, max_value=255))
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            del data[at : at + draw(st.integers(min_value=1, max_value=16))]
    packing = draw(st.sampled_from(["plain", "gzip", "gzip-cut", "gzip-flip"]))
    raw = bytes(data)
    if packing == "plain":
        return raw, raw, ".json"
    packed = bytearray(gzip.compress(raw, mtime=0))
    if packing == "gzip-cut":
        del packed[draw(st.integers(min_value=0, max_value=len(packed))) :]
    elif packing == "gzip-flip":
        at = draw(st.integers(min_value=0, max_value=len(packed) - 1))
        packed[at] ^= draw(st.integers(min_value=1, max_value=255))
    return raw, bytes(packed), ".json.gz"


NUMBER_TOKEN = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def number_text_ns(token: bytes) -> int | None:
    """A JSON number's text as exact ns, as the loader reads timestamps."""
    try:
        value = decimal.Decimal(token.decode())
    except decimal.InvalidOperation:
        return None
    if value and value.adjusted() > 20:
        return None
    return int((value * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


ORIGINAL_COMPLETE = {
    form: sum(
        1 for event in sample_events(steps=2, ops_per_step=2) if event.get("ph") == "X"
    )
    for form in ("object", "array")
}


@FUZZ_SETTINGS
@given(corrupted())
def test_corrupted_bytes(sample: tuple[bytes, bytes, str]) -> None:
    """Byte-level damage: a TraceLoadError or a trace with sane figures, never a traceback."""
    damaged_json, written, suffix = sample
    trace = load_bytes(written, suffix)
    if trace is None:
        return
    check_figures(trace)
    # Every kept start is a number written in the (damaged) input.
    written_numbers = {
        start
        for token in NUMBER_TOKEN.findall(damaged_json)
        if (start := number_text_ns(token)) is not None
    }
    for start in (trace.start_ns + trace.origin_ns).tolist():
        assert start in written_numbers, start
    # Damage never makes up events: at most the complete events of the original
    # (plus a few a corrupted byte can turn into, e.g. a flipped phase letter).
    assert trace.event_count <= ORIGINAL_COMPLETE["object"] + 8


top_level_keys = st.sampled_from(
    ["schemaVersion", "deviceProperties", "traceName", "displayTimeUnit", "x"]
)


@FUZZ_SETTINGS
@given(
    st.one_of(
        json_values,
        st.dictionaries(top_level_keys, json_values, max_size=4).flatmap(
            lambda header: st.one_of(json_values, st.lists(events, max_size=5)).map(
                lambda trace_events: {**header, "traceEvents": trace_events}
            )
        ),
    )
)
def test_random_documents(document: Any) -> None:
    """Any JSON document at all: a trace, or one clear TraceLoadError."""
    trace = load_bytes(json.dumps(document, allow_nan=True).encode())
    if trace is None:
        return
    check_figures(trace)
    assert isinstance(document, list) or (
        isinstance(document, dict) and isinstance(document.get("traceEvents"), list)
    )


PLACEHOLDER = "\u2603"  # only ever inside strings, so its bytes can be swapped safely


@FUZZ_SETTINGS
@given(
    st.lists(events, max_size=10),
    st.integers(min_value=1, max_value=40),
    st.sampled_from([b"\x01", b"\t", b"\n", b"\x1f", b"\x00", b"\xff", b"\\ud800"]),
)
@pytest.mark.slow
def test_tolerable_damage_keeps_every_event(
    event_list: list[dict[str, Any]], damaged: int, replacement: bytes
) -> None:
    """Raw control bytes, bad UTF-8 or lone surrogates inside names: same events as clean."""
    extra = [
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": f"op{PLACEHOLDER}{index}",
            "pid": 1,
            "tid": 1,
            "ts": 10 * index,
            "dur": 1,
        }
        for index in range(damaged)
    ]
    document = {"traceEvents": [*event_list, *extra]}
    clean = json.dumps(document, allow_nan=True, ensure_ascii=False).encode()
    broken = clean.replace(PLACEHOLDER.encode(), replacement)
    clean_trace = load_bytes(clean)
    broken_trace = load_bytes(broken)
    assert clean_trace is not None and broken_trace is not None
    assert kept_events(broken_trace) == kept_events(clean_trace)
    check_figures(broken_trace)

"""Note anchors keep their exact nanosecond through save and load, old sidecars included."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.core.base.numbers import parse_us_to_ns
from tui.notes.model import Anchor, InvalidNoteError, us_text, us_to_ns
from tui.notes.paths import sidecar_path
from tui.notes.store import NotesStore

INT64 = 2**63
# Any position a trace can hold, and a fortnight's worth where old files were exact.
any_ns = st.integers(min_value=-INT64, max_value=INT64 - 1)
trace_ns = st.integers(min_value=0, max_value=10**15 - 1)


def _open_store(folder: Path) -> NotesStore:
    trace = folder / "run.pt.trace.json"
    if not trace.exists():
        trace.write_bytes(b"{}")
    return NotesStore.open(trace)


@settings(max_examples=40, deadline=None)
@given(
    ranges=st.lists(st.tuples(any_ns, any_ns).map(sorted), min_size=1, max_size=8),
    events=st.lists(any_ns, max_size=8),
)
def test_every_nanosecond_round_trips_through_save_and_load(
    ranges: list[list[int]], events: list[int]
) -> None:
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        store = _open_store(folder)
        anchors = [Anchor.over_range(start, end) for start, end in ranges]
        anchors += [Anchor.on_event("aten::mm", start, "thread 1") for start in events]
        for number, anchor in enumerate(anchors):
            store.add(f"note {number}", anchor=anchor)
        store.save()
        reopened = _open_store(folder)
        assert reopened.problems == []
        loaded = [note.anchor for note in reopened.notes]
        assert loaded == anchors
        times = [(a.start_ns, a.end_ns) for a in loaded if a is not None]
        expected = [(start, end) for start, end in ranges]
        assert times == expected + [(start, None) for start in events]
        assert all(type(value) is int for value, _ in times)


@settings(max_examples=40, deadline=None)
@given(st.lists(trace_ns, min_size=1, max_size=8))
def test_old_sidecars_with_float_microseconds_keep_their_nanosecond(
    starts: list[int],
) -> None:
    """Schema 1 wrote `ns / 1e3`; each comes back as the nanosecond it was made from."""
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        trace = folder / "run.pt.trace.json"
        trace.write_bytes(b"{}")
        when = "2024-05-01T12:00:00.000000+00:00"
        old_notes = [
            {
                "id": f"{number:032x}",
                "created": when,
                "anchor": {"kind": "range", "start_us": start / 1e3, "end_us": 1e12},
            }
            for number, start in enumerate(starts)
        ] + [
            {
                "id": "e" * 32,
                "created": when,
                "anchor": {
                    "kind": "event",
                    "name": "aten::mm",
                    "start_us": starts[0] / 1e3,
                    "track": "thread 1",
                },
            }
        ]
        sidecar_path(trace).write_bytes(
            orjson.dumps(
                {"schema": 1, "trace": {"name": trace.name}, "notes": old_notes}
            )
        )
        store = NotesStore.open(trace)
        assert store.problems == []
        assert [note.anchor.start_ns for note in store.notes if note.anchor] == [
            *starts,
            starts[0],
        ]
        # Saving migrates the file to integer nanoseconds and loses no note.
        store.add("new")
        store.save()
        raw = orjson.loads(sidecar_path(trace).read_bytes())
        assert raw["schema"] == 2
        saved = [note["anchor"] for note in raw["notes"] if note["anchor"]]
        assert [anchor["start_ns"] for anchor in saved] == [*starts, starts[0]]
        assert all("start_us" not in anchor for anchor in saved)
        assert len(raw["notes"]) == len(old_notes) + 1


@given(trace_ns)
def test_the_cli_form_reads_microseconds_exactly(ns: int) -> None:
    anchor = Anchor.parse(f"range:{us_text(ns)}-{us_text(ns + 1)}")
    assert (anchor.start_ns, anchor.end_ns) == (ns, ns + 1)


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("1234.567", 1_234_567),
        ("0.0005", 1),
        ("0.0015", 2),
        ("0.0025", 3),
        ("-0.0025", -3),
        ("1e-3", 1),
        ("7", 7000),
    ],
)
def test_microsecond_text_rounds_half_up_like_the_trace(text: str, ns: int) -> None:
    """One µs→ns rule: a time typed in a note names the nanosecond the loader
    reads from the same text in a trace (half up below 1 ns, away from zero)."""
    assert us_to_ns(text) == ns
    values, valid = parse_us_to_ns([text.encode()])
    assert valid.tolist() == [True] and values.tolist() == [ns]


@pytest.mark.parametrize(
    "anchor",
    [
        {"kind": "range", "start_ns": 1.5, "end_ns": 2},
        {"kind": "range", "start_ns": True, "end_ns": 2},
        {"kind": "range", "start_ns": 2**63, "end_ns": 2**63},
        {"kind": "range", "start_us": "12", "end_us": 13},
        {"kind": "range", "start_us": float("nan"), "end_us": 13},
        {"kind": "event", "name": "x", "track": "t"},
    ],
    ids=["float-ns", "bool-ns", "beyond-int64", "text-us", "nan-us", "no-time"],
)
def test_bad_anchor_times_are_refused(anchor: dict[str, object]) -> None:
    with pytest.raises(InvalidNoteError):
        Anchor.from_dict(anchor)

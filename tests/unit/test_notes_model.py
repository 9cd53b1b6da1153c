"""Notes model: anchors, validation and the file format."""

from __future__ import annotations

import orjson
import pytest

from tui.core.base.vocab import Verdict
from tui.notes.document import (
    NotesDocument,
    TraceIdentity,
    dump_document,
    parse_document,
)
from tui.notes.link import TestedBy
from tui.notes.model import (
    Anchor,
    AnchorKind,
    InvalidNoteError,
    Note,
    NotesFormatError,
    NotesSchemaError,
    Result,
    Status,
    parse_status,
)

WHEN = "2024-05-01T12:00:00.000000+00:00"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("step:3", Anchor.at_step(3)),
        ("op:aten::mm", Anchor.on_op("aten::mm")),
        ("range:100-250.5", Anchor.over_range(100_000, 250_500)),
        ("range:1e3 - 2e3", Anchor.over_range(1_000_000, 2_000_000)),
        ("range:0.001-1234567.891", Anchor.over_range(1, 1_234_567_891)),
        ("finding:gap-2", Anchor.on_finding("gap-2")),
    ],
    ids=["step", "op-with-colons", "range", "range-exponent", "range-ns", "finding"],
)
def test_anchor_parse(text: str, expected: Anchor) -> None:
    assert Anchor.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    ["step:x", "step:-1", "op:", "range:5-1", "range:a-b", "where:1", "step"],
    ids=[
        "step-nan",
        "step-negative",
        "op-empty",
        "range-backwards",
        "range-text",
        "unknown-kind",
        "no-colon",
    ],
)
def test_anchor_parse_rejects_bad_input(text: str) -> None:
    with pytest.raises(InvalidNoteError):
        Anchor.parse(text)


def test_anchor_round_trip_keeps_only_its_fields() -> None:
    anchor = Anchor.on_event("aten::copy_", 1_234_567, "stream 7")
    assert anchor.to_dict() == {
        "kind": "event",
        "name": "aten::copy_",
        "start_ns": 1_234_567,
        "track": "stream 7",
    }
    assert Anchor.from_dict(anchor.to_dict()) == anchor
    with pytest.raises(InvalidNoteError):
        Anchor(AnchorKind.OP, step=3)


def test_status_parse() -> None:
    assert parse_status(" Confirmed ") is Status.CONFIRMED
    with pytest.raises(InvalidNoteError, match="expected one of"):
        parse_status("done")


def test_document_round_trip() -> None:
    note = Note(
        id="a" * 32,
        created=WHEN,
        updated=WHEN,
        hypothesis="the input pipeline does not keep up",
        observation="GPU idle while lecture_batch_cpu runs",
        next_check="same computation with batches prepared in advance",
        status=Status.REFUTED,
        anchor=Anchor.over_range(10_000, 20_000),
        result=Result("no change", before=(12.0, 12.5), after=(12.1,), unit="ms"),
        author="ana",
        revision=3,
    )
    document = NotesDocument(TraceIdentity("run.json", 10, "0" * 64), (note,))
    data = dump_document(document)
    raw = orjson.loads(data)
    assert raw["schema"] == 2
    assert raw["notes"][0]["anchor"] == {
        "kind": "range",
        "start_ns": 10_000,
        "end_ns": 20_000,
    }
    assert raw["trace"] == {"name": "run.json", "size": 10, "sha256": "0" * 64}
    assert parse_document(data) == document


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{not json",
        b"\xff\xfe\x00garbage",
        b"[]",
        b'{"schema": 1}',
        b'{"schema": "1", "notes": []}',
        b'{"schema": 1, "notes": [{"id": "x", "created": "yesterday"}]}',
        b'{"schema": 1, "notes": [{"id": "x", "created": "2024-01-01T00:00:00",'
        b' "status": "maybe"}]}',
    ],
    ids=[
        "empty",
        "bad-json",
        "not-utf8",
        "not-object",
        "no-notes",
        "schema-text",
        "bad-time",
        "bad-status",
    ],
)
def test_parse_document_rejects(data: bytes) -> None:
    with pytest.raises(NotesFormatError):
        parse_document(data)


def test_parse_document_rejects_newer_schema_and_duplicates() -> None:
    with pytest.raises(NotesSchemaError, match="newer"):
        parse_document(b'{"schema": 5, "notes": []}')
    note = {"id": "x", "created": WHEN}
    with pytest.raises(NotesFormatError, match="twice"):
        parse_document(orjson.dumps({"schema": 1, "notes": [note, note]}))


def test_result_rejects_non_finite_figures() -> None:
    with pytest.raises(InvalidNoteError):
        Result(before=(float("nan"),))


def test_note_rejects_a_status_that_is_not_exact() -> None:
    with pytest.raises(InvalidNoteError, match="unknown status"):
        Note(id="x", created=WHEN, updated=WHEN, status="Open")  # type: ignore[arg-type]


def test_the_vocabularies_are_enums_written_as_the_same_strings() -> None:
    """Status, anchor kind and verdict are enums in memory; the notes file
    holds the same plain strings as before they were."""
    tested = TestedBy("after.json", "after.json", "faster", comparable=True)  # type: ignore[arg-type]
    note = Note(
        id="b" * 32,
        created=WHEN,
        updated=WHEN,
        status="confirmed",  # type: ignore[arg-type]
        anchor=Anchor.from_dict({"kind": "op", "name": "aten::mm"}),
        result=Result("faster", tested_by=tested),
    )
    assert note.status is Status.CONFIRMED
    assert note.anchor is not None and note.anchor.kind is AnchorKind.OP
    assert tested.verdict is Verdict.FASTER
    raw = orjson.loads(dump_document(NotesDocument(TraceIdentity("t.json"), (note,))))
    written = raw["notes"][0]
    assert (written["status"], written["anchor"]["kind"]) == ("confirmed", "op")
    assert written["result"]["tested_by"]["verdict"] == "faster"
    assert type(note.to_dict()["status"]) is str
    assert type(note.anchor.to_dict()["kind"]) is str
    assert type(tested.to_dict()["verdict"]) is str
    with pytest.raises(InvalidNoteError, match="unknown verdict"):
        TestedBy("a", "a", "quicker", comparable=True)  # type: ignore[arg-type]

"""One notes file: the trace it belongs to, its notes, and their JSON bytes.

A file that does not validate raises (`NotesFormatError`, `NotesSchemaError`,
`InvalidNoteError`) and is never overwritten by the store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from tui.core.base.vocab import Verdict
from tui.notes.errors import InvalidNoteError, NotesFormatError, NotesSchemaError
from tui.notes.model import BASE_SCHEMA, SCHEMA_VERSION, TESTED_SCHEMA, Note


@dataclass(frozen=True)
class TraceIdentity:
    """The trace a notes file belongs to: name, size in bytes, sha256 when known."""

    name: str
    size: int | None = None
    sha256: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"name": self.name, "size": self.size, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, raw: object) -> TraceIdentity:
        """Validate and build an identity from its JSON form."""
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("trace must be an object")
        name = raw.get("name", "")
        size = raw.get("size")
        sha256 = raw.get("sha256")
        if not isinstance(name, str):
            raise InvalidNoteError("trace name must be text")
        if size is not None and (
            isinstance(size, bool) or not isinstance(size, int) or size < 0
        ):
            raise InvalidNoteError("trace size must be a whole number")
        if sha256 is not None and (
            not isinstance(sha256, str) or re.fullmatch("[0-9a-f]{64}", sha256) is None
        ):
            raise InvalidNoteError("trace sha256 must be 64 hex digits")
        return cls(name=name, size=size, sha256=sha256)


@dataclass(frozen=True)
class NotesDocument:
    """The whole content of one notes file."""

    trace: TraceIdentity
    notes: tuple[Note, ...] = field(default_factory=tuple)
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Other top-level keys (the explorer's `zone`, or a newer writer's), kept as they are."""


_DOCUMENT_KEYS = ("schema", "trace", "notes")


def parse_document(data: bytes) -> NotesDocument:
    """Read a notes file's bytes; NotesFormatError (or NotesSchemaError) if bad."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise NotesFormatError(f"not valid UTF-8 JSON ({error})") from None
    if not isinstance(raw, dict):
        raise NotesFormatError("not a notes file (the top level is not an object)")
    schema = raw.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise NotesFormatError(f"not a notes file (schema {schema!r})")
    if schema > SCHEMA_VERSION:
        raise NotesSchemaError(
            f"written by a newer steptrace (schema {schema}, this one reads "
            f"{SCHEMA_VERSION})"
        )
    notes_raw = raw.get("notes")
    if not isinstance(notes_raw, list):
        raise NotesFormatError("not a notes file (no notes list)")
    try:
        trace = TraceIdentity.from_dict(raw.get("trace", {}))
        notes = tuple(Note.from_dict(item) for item in notes_raw)
    except InvalidNoteError as error:
        raise NotesFormatError(f"invalid note data ({error})") from None
    seen: set[str] = set()
    for note in notes:
        if note.id in seen:
            raise NotesFormatError(f"note id {note.id} appears twice")
        seen.add(note.id)
    extra = {key: value for key, value in raw.items() if key not in _DOCUMENT_KEYS}
    return NotesDocument(trace=trace, notes=notes, extra=extra)


# The verdicts schema 3 knows; any other (or runs, or what moved) needs schema 4.
SCHEMA_3_VERDICTS = frozenset(
    {Verdict.FASTER, Verdict.SLOWER, Verdict.INCONCLUSIVE, Verdict.NOT_COMPARABLE}
)


def schema_for(notes: Sequence[Note]) -> int:
    """The oldest schema that holds these notes: 3 when a result names its test,
    4 when such a test's verdict is one schema 3 does not know, or it records
    the runs and what moved."""
    links = [
        note.result.tested_by
        for note in notes
        if note.result is not None and note.result.tested_by is not None
    ]
    if not links:
        return BASE_SCHEMA
    if all(
        link.verdict in SCHEMA_3_VERDICTS and link.runs is None and not link.moved
        for link in links
    ):
        return TESTED_SCHEMA
    return SCHEMA_VERSION


def dump_document(document: NotesDocument) -> bytes:
    """The bytes of a notes file: indented UTF-8 JSON ending with a newline."""
    payload = {
        "schema": schema_for(document.notes),
        "trace": document.trace.to_dict(),
        **{k: v for k, v in document.extra.items() if k not in _DOCUMENT_KEYS},
        "notes": [note.to_dict() for note in document.notes],
    }
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

"""Notes (hypotheses) about a capture: the data model and its JSON form.

Everything read from a notes file is validated here, so that the store and
the UI only ever handle well-formed notes; a file that does not validate is
reported as unreadable and never overwritten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

import orjson

from tui.core.base.numbers import us_text_to_ns
from tui.core.base.units import duration_text
from tui.core.base.vocab import Word
from tui.notes.errors import (
    AmbiguousNoteError,
    InvalidNoteError,
    NotesError,
    NotesFormatError,
    NotesLockTimeout,
    NotesSaveError,
    NotesSchemaError,
    UnknownNoteError,
)
from tui.notes.link import VERDICTS, TestedBy, figures

__all__ = [
    "ANCHOR_KINDS",
    "EDITABLE_FIELDS",
    "SCHEMA_VERSION",
    "STATUSES",
    "VERDICTS",
    "AmbiguousNoteError",
    "Anchor",
    "InvalidNoteError",
    "Note",
    "NotesDocument",
    "NotesError",
    "NotesFormatError",
    "NotesLockTimeout",
    "NotesSaveError",
    "NotesSchemaError",
    "Result",
    "Status",
    "TestedBy",
    "TraceIdentity",
    "UnknownNoteError",
    "dump_document",
    "iso_utc",
    "parse_document",
    "parse_status",
    "schema_for",
    "us_text",
    "us_to_ns",
    "utc_now",
]

SCHEMA_VERSION = 3
"""The newest notes-file schema this code writes; it reads this one and older,
and leaves a newer one alone.

1: anchor times as float microseconds (`start_us`, `end_us`);
2: anchor times as integer nanoseconds (`start_ns`, `end_ns`), exact;
3: a result may name the capture that tested it (`result.tested_by`).

A file is written with the oldest schema that holds its notes (2 unless a
note has `tested_by`), so a steptrace that knows only schema 2 still reads
it; one that would drop `tested_by` sees schema 3 and leaves the file alone.
"""
BASE_SCHEMA = 2


class Status(Word):
    """Where a hypothesis stands; the values are the notes file's strings."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    DROPPED = "dropped"


STATUSES: tuple[Status, ...] = tuple(Status)


class AnchorKind(Word):
    """What a note points at in the capture; the values are the notes file's strings."""

    STEP = "step"
    RANGE = "range"
    OP = "op"
    EVENT = "event"
    FINDING = "finding"


ANCHOR_KINDS: tuple[AnchorKind, ...] = tuple(AnchorKind)

EDITABLE_FIELDS = frozenset(
    {"hypothesis", "observation", "next_check", "status", "anchor", "result", "author"}
)
"""The note fields a user may change through `NotesStore.update`."""


def utc_now() -> datetime:
    """The current time in UTC; the store's default clock."""
    return datetime.now(timezone.utc)


def iso_utc(moment: datetime) -> str:
    """`moment` as an ISO 8601 string in UTC with microseconds (sorts as text)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_status(text: str) -> Status:
    """`text` as a status, or InvalidNoteError naming the accepted ones."""
    try:
        return Status(text.strip().lower())
    except ValueError:
        raise InvalidNoteError(
            f"unknown status {text!r} (expected one of: {', '.join(STATUSES)})"
        ) from None


def _status(value: object) -> Status:
    """A note's status read from its JSON string (or given as the enum)."""
    try:
        return Status(value)
    except ValueError:
        raise InvalidNoteError(
            f"unknown status {value!r} (expected one of: {', '.join(STATUSES)})"
        ) from None


def _anchor_kind(value: object) -> AnchorKind:
    """An anchor's kind read from its JSON string (or given as the enum)."""
    try:
        return AnchorKind(value)
    except ValueError:
        raise InvalidNoteError(
            f"unknown anchor kind {value!r} "
            f"(expected one of: {', '.join(ANCHOR_KINDS)})"
        ) from None


def _optional_text(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidNoteError(f"{what} must be text")
    return value


_NUMBER = r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?"
_RANGE_TEXT = re.compile(rf"^\s*({_NUMBER})\s*-\s*({_NUMBER})\s*$")
_ANCHOR_FORMS = "step:N, op:NAME, range:START_US-END_US or finding:ID"


_INT64 = 2**63


def _whole_ns(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidNoteError(f"{what} must be a whole number of nanoseconds")
    if not -_INT64 <= value < _INT64:
        raise InvalidNoteError(f"{what} is out of range")
    return value


def us_to_ns(value: object, what: str = "time") -> int:
    """Microseconds (a number or its text) as whole nanoseconds, by the trace's
    own rule (`us_text_to_ns`: the decimal digits, half up below 1 ns), so a
    time typed from the timeline names the nanosecond the trace holds.

    `0.001` is 1 ns, and a float read back from an old notes file gives the
    nanosecond it was made from (its shortest repr).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidNoteError(f"{what} must be a number")
    nanoseconds = us_text_to_ns(repr(value) if isinstance(value, float) else str(value))
    if nanoseconds is None:
        raise InvalidNoteError(f"{what} must be a finite number of µs within range")
    return nanoseconds


def us_text(ns: int) -> str:
    """Nanoseconds as exact microseconds, without trailing zeros: 250500 → `250.5`."""
    sign = "-" if ns < 0 else ""
    whole, part = divmod(abs(ns), 1000)
    return f"{sign}{whole}" + (f".{part:03d}".rstrip("0") if part else "")


@dataclass(frozen=True)
class Anchor:
    """Where a note points in the capture, with enough to jump back to it.

    kind "step" uses `step`; "range" uses `start_ns`/`end_ns` (integer
    nanoseconds from the start of the trace, exactly as the model holds
    them); "op" uses `name`; "event" uses `name`, `start_ns` and `track`;
    "finding" uses `finding_id`. Other fields stay None.
    """

    kind: AnchorKind
    step: int | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    name: str | None = None
    track: str | None = None
    finding_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _anchor_kind(self.kind))
        used = _ANCHOR_FIELDS[self.kind]
        for name in ("step", "start_ns", "end_ns", "name", "track", "finding_id"):
            value = getattr(self, name)
            if name in used and value is None:
                raise InvalidNoteError(f"a {self.kind} anchor needs {name}")
            if name not in used and value is not None:
                raise InvalidNoteError(f"a {self.kind} anchor has no {name}")
        if self.step is not None and (
            isinstance(self.step, bool)
            or not isinstance(self.step, int)
            or self.step < 0
        ):
            raise InvalidNoteError("anchor step must be a whole number >= 0")
        if self.start_ns is not None:
            _whole_ns(self.start_ns, "anchor start_ns")
        if self.end_ns is not None:
            _whole_ns(self.end_ns, "anchor end_ns")
        if (
            self.start_ns is not None
            and self.end_ns is not None
            and self.end_ns < self.start_ns
        ):
            raise InvalidNoteError("anchor range ends before it starts")
        for name in ("name", "track", "finding_id"):
            value = _optional_text(getattr(self, name), f"anchor {name}")
            if value is not None and not value:
                raise InvalidNoteError(f"anchor {name} is empty")

    @classmethod
    def at_step(cls, step: int) -> Anchor:
        """An anchor on one profiler step (`ProfilerStep#N`)."""
        return cls(AnchorKind.STEP, step=step)

    @classmethod
    def over_range(cls, start_ns: int, end_ns: int) -> Anchor:
        """An anchor on a span of trace time, in nanoseconds from the trace start."""
        return cls(AnchorKind.RANGE, start_ns=start_ns, end_ns=end_ns)

    @classmethod
    def on_op(cls, name: str) -> Anchor:
        """An anchor on every occurrence of an operator, by name."""
        return cls(AnchorKind.OP, name=name)

    @classmethod
    def on_event(cls, name: str, start_ns: int, track: str) -> Anchor:
        """An anchor on one event: its name, start (ns from the trace start) and track."""
        return cls(AnchorKind.EVENT, name=name, start_ns=start_ns, track=track)

    @classmethod
    def on_finding(cls, finding_id: str) -> Anchor:
        """An anchor on a finding computed from the trace."""
        return cls(AnchorKind.FINDING, finding_id=finding_id)

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """Read the CLI form: `step:N`, `op:NAME`, `range:START_US-END_US`, `finding:ID`.

        Range times are microseconds from the trace start, as the app shows
        them; they are kept as whole nanoseconds.
        """
        kind, sep, value = text.partition(":")
        kind = kind.strip().lower()
        if not sep or not value.strip():
            raise InvalidNoteError(f"bad anchor {text!r} (expected {_ANCHOR_FORMS})")
        if kind == AnchorKind.STEP:
            if not value.strip().isdigit():
                raise InvalidNoteError(f"bad step in anchor {text!r}")
            return cls.at_step(int(value.strip()))
        if kind == AnchorKind.OP:
            return cls.on_op(value)
        if kind == AnchorKind.RANGE:
            match = _RANGE_TEXT.match(value)
            if match is None:
                raise InvalidNoteError(
                    f"bad range in anchor {text!r} (expected range:START_US-END_US)"
                )
            return cls.over_range(
                us_to_ns(match.group(1), "range start"),
                us_to_ns(match.group(2), "range end"),
            )
        if kind == AnchorKind.FINDING:
            return cls.on_finding(value.strip())
        raise InvalidNoteError(f"bad anchor {text!r} (expected {_ANCHOR_FORMS})")

    def describe(self) -> str:
        """A short human label, e.g. `step 3` or `op aten::mm` (not escaped)."""
        if self.kind is AnchorKind.STEP:
            return f"step {self.step}"
        if self.kind is AnchorKind.RANGE:
            assert self.start_ns is not None and self.end_ns is not None
            return f"range {us_text(self.start_ns)}–{us_text(self.end_ns)} µs"
        if self.kind is AnchorKind.OP:
            return f"op {self.name}"
        if self.kind is AnchorKind.EVENT:
            assert self.start_ns is not None
            at = duration_text(self.start_ns)
            return f"event {self.name} @ {at} on {self.track}"
        return f"finding {self.finding_id}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the kind plus only the fields that kind uses."""
        out: dict[str, Any] = {"kind": self.kind.value}
        for name in _ANCHOR_FIELDS[self.kind]:
            out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, raw: object) -> Anchor:
        """Validate and build an anchor from its JSON form.

        Schema 1 times (`start_us`/`end_us`, float microseconds) are read
        too and turned into the nanosecond they were made from.
        """
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("anchor must be an object")
        kind = _anchor_kind(raw.get("kind"))
        values = {name: raw.get(name) for name in _ANCHOR_FIELDS[kind]}
        for name in ("start_ns", "end_ns"):
            old_name = name.replace("_ns", "_us")
            old_value = raw.get(old_name)
            if name in values and values[name] is None and old_value is not None:
                if isinstance(old_value, str):
                    raise InvalidNoteError(f"anchor {old_name} must be a number")
                values[name] = us_to_ns(old_value, f"anchor {old_name}")
        return cls(kind, **values)


_ANCHOR_FIELDS: dict[AnchorKind, tuple[str, ...]] = {
    AnchorKind.STEP: ("step",),
    AnchorKind.RANGE: ("start_ns", "end_ns"),
    AnchorKind.OP: ("name",),
    AnchorKind.EVENT: ("name", "start_ns", "track"),
    AnchorKind.FINDING: ("finding_id",),
}


@dataclass(frozen=True)
class Result:
    """What the next check gave: text, plus the raw figures when there are some.

    `before`/`after` are raw values (e.g. per-run times of a bench compare), not
    a ratio: the report shows them with their range, and never claims a speed-up.
    `tested_by` names the capture a diff compared the trace with, and its verdict.
    """

    text: str = ""
    before: tuple[float, ...] = ()
    after: tuple[float, ...] = ()
    unit: str | None = None
    tested_by: TestedBy | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InvalidNoteError("result text must be text")
        for name in ("before", "after"):
            object.__setattr__(
                self, name, figures(getattr(self, name), f"result {name}")
            )
        _optional_text(self.unit, "result unit")
        if self.tested_by is not None and not isinstance(self.tested_by, TestedBy):
            raise InvalidNoteError("result tested_by must be a TestedBy")

    @property
    def is_empty(self) -> bool:
        """Whether nothing was recorded (no text, no figures, no tested-by link)."""
        return (
            not self.text
            and not self.before
            and not self.after
            and self.tested_by is None
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`tested_by` only when there is one: schema 2 has none)."""
        out: dict[str, Any] = {
            "text": self.text,
            "before": list(self.before),
            "after": list(self.after),
            "unit": self.unit,
        }
        if self.tested_by is not None:
            out["tested_by"] = self.tested_by.to_dict()
        return out

    @classmethod
    def from_dict(cls, raw: object) -> Result:
        """Validate and build a result from its JSON form."""
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("result must be an object")
        tested_by = raw.get("tested_by")
        return cls(
            text=raw.get("text", ""),
            before=raw.get("before", ()),
            after=raw.get("after", ()),
            unit=raw.get("unit"),
            tested_by=None if tested_by is None else TestedBy.from_dict(tested_by),
        )


_TEXT_FIELDS = ("hypothesis", "observation", "next_check")


@dataclass(frozen=True)
class Note:
    """One hypothesis about the capture, with its check and what the check gave.

    `revision` grows by one on every change; merging two sessions compares it
    with the last version each side read. A deleted note stays as a tombstone
    (`deleted=True`) so a merge does not bring it back. `conflict_of` names the
    note this one is a conflict copy of. `extra` keeps the keys of the file's
    note this version does not know (a newer steptrace's, a script's), written
    back as they were.
    """

    id: str
    created: str
    updated: str
    hypothesis: str = ""
    observation: str = ""
    next_check: str = ""
    status: Status = Status.OPEN
    anchor: Anchor | None = None
    result: Result | None = None
    author: str | None = None
    revision: int = 1
    deleted: bool = False
    conflict_of: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or len(self.id) > 64:
            raise InvalidNoteError("note id must be non-empty text of at most 64 chars")
        for name in ("created", "updated"):
            value = getattr(self, name)
            try:
                datetime.fromisoformat(value)
            except (TypeError, ValueError):
                raise InvalidNoteError(
                    f"{name} is not an ISO time: {value!r}"
                ) from None
        for name in _TEXT_FIELDS:
            if not isinstance(getattr(self, name), str):
                raise InvalidNoteError(f"{name} must be text")
        object.__setattr__(self, "status", _status(self.status))
        if self.anchor is not None and not isinstance(self.anchor, Anchor):
            raise InvalidNoteError("anchor must be an Anchor")
        if self.result is not None and not isinstance(self.result, Result):
            raise InvalidNoteError("result must be a Result")
        _optional_text(self.author, "author")
        _optional_text(self.conflict_of, "conflict_of")
        if (
            isinstance(self.revision, bool)
            or not isinstance(self.revision, int)
            or self.revision < 1
        ):
            raise InvalidNoteError("revision must be a whole number >= 1")
        if not isinstance(self.deleted, bool):
            raise InvalidNoteError("deleted must be true or false")

    @property
    def short_id(self) -> str:
        """The first 8 characters of the id, enough to name it in a listing."""
        return self.id[:8]

    def same_content(self, other: Note) -> bool:
        """Whether both say the same thing, whatever their revision and times."""
        return all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in fields(self)
            if f.name not in ("revision", "updated")
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with every key present."""
        return {
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "revision": self.revision,
            "anchor": None if self.anchor is None else self.anchor.to_dict(),
            "observation": self.observation,
            "hypothesis": self.hypothesis,
            "next_check": self.next_check,
            "status": self.status.value,
            "result": None if self.result is None else self.result.to_dict(),
            "author": self.author,
            "deleted": self.deleted,
            "conflict_of": self.conflict_of,
            **{k: v for k, v in self.extra.items() if k not in _NOTE_KEYS},
        }

    @classmethod
    def from_dict(cls, raw: object) -> Note:
        """Validate and build a note from its JSON form (InvalidNoteError if bad)."""
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("a note must be an object")
        anchor = raw.get("anchor")
        result = raw.get("result")
        status = _status(raw.get("status", Status.OPEN.value))
        return cls(
            id=raw.get("id", ""),
            created=raw.get("created", ""),
            updated=raw.get("updated", raw.get("created", "")),
            hypothesis=raw.get("hypothesis", ""),
            observation=raw.get("observation", ""),
            next_check=raw.get("next_check", ""),
            status=status,
            anchor=None if anchor is None else Anchor.from_dict(anchor),
            result=None if result is None else Result.from_dict(result),
            author=raw.get("author"),
            revision=raw.get("revision", 1),
            deleted=raw.get("deleted", False),
            conflict_of=raw.get("conflict_of"),
            extra={k: v for k, v in raw.items() if k not in _NOTE_KEYS},
        )


_NOTE_KEYS = frozenset(
    (
        "id",
        "created",
        "updated",
        "revision",
        "anchor",
        "observation",
        "hypothesis",
        "next_check",
        "status",
        "result",
        "author",
        "deleted",
        "conflict_of",
    )
)
"""The keys of a note's JSON form; any other is kept in `Note.extra`."""


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


def schema_for(notes: Sequence[Note]) -> int:
    """The oldest schema that holds these notes: 3 only when a result names its test."""
    tested = any(
        note.result is not None and note.result.tested_by is not None for note in notes
    )
    return SCHEMA_VERSION if tested else BASE_SCHEMA


def dump_document(document: NotesDocument) -> bytes:
    """The bytes of a notes file: indented UTF-8 JSON ending with a newline."""
    payload = {
        "schema": schema_for(document.notes),
        "trace": document.trace.to_dict(),
        **{k: v for k, v in document.extra.items() if k not in _DOCUMENT_KEYS},
        "notes": [note.to_dict() for note in document.notes],
    }
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

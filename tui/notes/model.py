"""Notes (hypotheses) about a capture: the data model and its JSON form.

Everything read from a notes file is validated here, so that the store and
the UI only ever handle well-formed notes; a file that does not validate is
reported as unreadable and never overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

from tui.core.base.vocab import Word
from tui.notes.anchor import (
    ANCHOR_KINDS,
    Anchor,
    AnchorKind,
    optional_text,
    us_text,
    us_to_ns,
)
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
    "TESTED_SCHEMA",
    "VERDICTS",
    "AmbiguousNoteError",
    "Anchor",
    "AnchorKind",
    "InvalidNoteError",
    "Note",
    "NotesError",
    "NotesFormatError",
    "NotesLockTimeout",
    "NotesSaveError",
    "NotesSchemaError",
    "Result",
    "Status",
    "TestedBy",
    "UnknownNoteError",
    "iso_utc",
    "parse_status",
    "us_text",
    "us_to_ns",
    "utc_now",
]

SCHEMA_VERSION = 4
"""The newest notes-file schema this code writes; it reads this one and older,
and leaves a newer one alone.

1: anchor times as float microseconds (`start_us`, `end_us`);
2: anchor times as integer nanoseconds (`start_ns`, `end_ns`), exact;
3: a result may name the capture that tested it (`result.tested_by`);
4: its verdict may be likely_faster, likely_slower, no_change or identical,
   and it records the diff's runs and what moved (`runs`, `moved`).

A file is written with the oldest schema that holds its notes (2 unless a
note has `tested_by`, 3 unless a verdict is one of schema 4's), so a
steptrace that knows only schema 2 still reads it; one that would drop
`tested_by`, or refuse a verdict it does not know, sees the newer schema and
leaves the file alone.
"""
BASE_SCHEMA = 2
TESTED_SCHEMA = 3


class Status(Word):
    """Where a hypothesis stands; the values are the notes file's strings."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    DROPPED = "dropped"


STATUSES: tuple[Status, ...] = tuple(Status)


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
        optional_text(self.unit, "result unit")
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
        optional_text(self.author, "author")
        optional_text(self.conflict_of, "conflict_of")
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

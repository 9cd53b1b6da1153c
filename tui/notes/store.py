"""Where a capture's notes live on disk, and how sessions share them safely.

The notes of `run.pt.trace.json.gz` live next to it in
`run.pt.trace.json.gz.notes.json`. Several sessions (two SSH logins) may edit
them at once, processes may be killed at any moment and the trace's folder may
be read-only, so:

* every save is atomic (temporary file in the same folder, fsync,
  `os.replace`, fsync of the folder): readers see the old file or the new one;
* every save holds an advisory lock (`flock` on `<notes file>.lock`, with a
  timeout), re-reads the file and merges by note id with what this session
  last read, so no session's note is lost; a note changed on both sides is kept
  twice (the other version as a conflict copy) and reported. The lock file
  exists only while a save runs (see `locked`): nothing stays beside the trace
  but the trace and its notes;
* a folder that cannot be written sends the notes to a per-user data folder,
  and a notes file that cannot be read is never overwritten: the next save goes
  to `<trace>.notes.N.json`.

Where the files are is `paths`; the lock, `disk`; the merge by note id,
`merge`; the atomic write is the core's (`tui.core.base.safe_write`); this
module is the store that uses them.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from tui.core.base.safe_write import temporary_pattern, write_replacing
from tui.notes.disk import DEFAULT_LOCK_TIMEOUT, locked, read_notes_file
from tui.notes.document import (
    NotesDocument,
    TraceIdentity,
    dump_document,
    parse_document,
)
from tui.notes.merge import Conflict, merge_notes, merge_sources
from tui.notes.model import (
    EDITABLE_FIELDS,
    AmbiguousNoteError,
    Anchor,
    InvalidNoteError,
    Note,
    NotesFormatError,
    NotesSaveError,
    Result,
    Status,
    UnknownNoteError,
    iso_utc,
    parse_status,
    utc_now,
)
from tui.notes.paths import (
    MAX_NUMBERED,
    fallback_path,
    lock_path,
    marked_read_only,
    numbered_path,
    sidecar_path,
    variants,
)
from tui.notes.zone_memory import (
    ZONE_KEY,
    ZoneMemory,
    latest,
    merge_zone,
    read_zone,
)

_SHA256_HEX = re.compile("[0-9a-f]{64}")


# --- the store ---------------------------------------------------------------


@dataclass(frozen=True)
class SaveResult:
    """What a save did: where it wrote, and what it merged in.

    `fell_back` is true when the notes went to the per-user data folder;
    `merged_from_disk` counts notes added or changed by another session;
    `written` is false when the file already held exactly this content.
    """

    path: Path
    fell_back: bool
    conflicts: list[Conflict] = field(default_factory=list)
    merged_from_disk: int = 0
    written: bool = True


@dataclass(frozen=True)
class RefreshResult:
    """What `NotesStore.refresh` brought in from the file."""

    conflicts: list[Conflict] = field(default_factory=list)
    merged_from_disk: int = 0


@dataclass(frozen=True)
class _Snapshot:
    """A notes file as this session last read or wrote it."""

    digest: str
    notes: dict[str, Note]
    extra: Mapping[str, Any] = field(default_factory=dict)
    """The file's other top-level keys (the zone chosen in the explorer...)."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _writable(folder: Path) -> bool:
    """Whether a save could write in `folder` (as far as can be told without trying)."""
    return not marked_read_only(folder) and os.access(folder, os.W_OK)


class NotesStore:
    """The notes of one trace, loaded from disk, edited in memory, saved safely.

    Use `NotesStore.open(trace_path)`. Edits (`add`, `update`, `delete`)
    change memory only; `save()` merges with the file under a
    lock and writes it. Not thread-safe: call it from one thread (a worker
    hashing the trace hands its result over with `set_trace_sha256`).
    """

    def __init__(
        self,
        trace_path: Path,
        *,
        trace_sha256: str | None,
        lock_timeout: float,
        clock: Callable[[], datetime],
    ) -> None:
        self.trace_path = trace_path
        self.lock_timeout = lock_timeout
        self._clock = clock
        self._primary = sidecar_path(trace_path)
        self._fallback = fallback_path(trace_path)
        self._notes: dict[str, Note] = {}
        self._snapshots: dict[Path, _Snapshot] = {}
        self._recorded: dict[Path, TraceIdentity] = {}
        self._unreadable: dict[Path, str] = {}
        self._problems: list[str] = []
        self._fell_back = False
        self._trace_changed = False
        self._trace_size: int | None = None
        self._trace_sha256: str | None = None
        if trace_sha256 is not None:
            self._trace_sha256 = _checked_sha256(trace_sha256)
        self._location = self._primary
        self._zone: ZoneMemory | None = None
        self._extra: dict[str, Any] = {}

    @classmethod
    def open(
        cls,
        trace_path: str | os.PathLike[str],
        *,
        trace_sha256: str | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        clock: Callable[[], datetime] = utc_now,
    ) -> NotesStore:
        """Load the notes of `trace_path` from next to it and from the fallback.

        Never raises for a bad notes file: unreadable files are listed in
        `problems` and kept untouched. `trace_sha256`, when already known,
        lets the store tell whether the trace changed since the notes were
        written; otherwise pass it later to `set_trace_sha256`.
        """
        store = cls(
            Path(os.path.abspath(trace_path)),
            trace_sha256=trace_sha256,
            lock_timeout=lock_timeout,
            clock=clock,
        )
        store._load()
        return store

    # --- reading -------------------------------------------------------------

    @property
    def notes(self) -> list[Note]:
        """The live notes (tombstones left out), oldest first."""
        return [note for note in self._notes.values() if not note.deleted]

    @property
    def location(self) -> Path:
        """Where the notes were last saved, or where the next save will try first."""
        return self._location

    @property
    def fell_back(self) -> bool:
        """Whether saves go to the per-user data folder instead of the trace's."""
        return self._fell_back

    @property
    def problems(self) -> list[str]:
        """User-facing lines: unreadable files kept, trace changed, fallback used."""
        return list(self._problems)

    @property
    def unreadable(self) -> list[Path]:
        """Notes files that could not be read and are left untouched."""
        return list(self._unreadable)

    @property
    def trace_changed(self) -> bool:
        """Whether the trace's size or hash differs from what the notes recorded."""
        return self._trace_changed

    @property
    def clock(self) -> Callable[[], datetime]:
        """The clock edits are timed by (injected in tests)."""
        return self._clock

    @property
    def trace_identity(self) -> TraceIdentity:
        """The identity written into the notes file on the next save."""
        sha256 = self._trace_sha256
        if sha256 is None and not self._trace_changed:
            sha256 = next(
                (
                    recorded.sha256
                    for recorded in self._recorded.values()
                    if recorded.sha256 and recorded.size == self._trace_size
                ),
                None,
            )
        return TraceIdentity(self.trace_path.name, self._trace_size, sha256)

    def get(self, note_id: str) -> Note:
        """The live note with exactly this id (UnknownNoteError otherwise)."""
        note = self._notes.get(note_id)
        if note is None or note.deleted:
            raise UnknownNoteError(f"no note with id {note_id}")
        return note

    def resolve(self, id_prefix: str) -> Note:
        """The one note whose id starts with `id_prefix` (as typed in a CLI)."""
        prefix = id_prefix.strip().lower()
        if not prefix:
            raise UnknownNoteError("empty note id")
        matches = [
            note
            for note in self._notes.values()
            if note.id.startswith(prefix) and not note.deleted
        ]
        if not matches:
            raise UnknownNoteError(f"no note with id {id_prefix}")
        if len(matches) > 1:
            raise AmbiguousNoteError(
                f"note id {id_prefix} is ambiguous ({len(matches)} notes match); "
                "give more characters"
            )
        return matches[0]

    def set_trace_sha256(self, sha256: str) -> bool:
        """Record the trace's hash (computed in the background); returns whether
        the trace changed since the notes were written."""
        self._trace_sha256 = _checked_sha256(sha256)
        self._check_trace_identity()
        return self._trace_changed

    @property
    def zone(self) -> ZoneMemory | None:
        """The data zone chosen in the explorer for this trace (None: never chosen)."""
        return self._zone

    def set_zone(self, names: Sequence[str]) -> ZoneMemory:
        """Remember a data zone (no names: back to the automatic one); call `save`."""
        self._zone = ZoneMemory(tuple(dict.fromkeys(names)), iso_utc(self._clock()))
        return self._zone

    # --- editing -------------------------------------------------------------

    def add(
        self,
        hypothesis: str,
        *,
        observation: str = "",
        next_check: str = "",
        anchor: Anchor | None = None,
        status: Status = Status.OPEN,
        result: Result | None = None,
        author: str | None = None,
    ) -> Note:
        """Create a note in memory (call `save` to write it) and return it."""
        now = iso_utc(self._clock())
        note = Note(
            id=uuid.uuid4().hex,
            created=now,
            updated=now,
            hypothesis=hypothesis,
            observation=observation,
            next_check=next_check,
            status=status,
            anchor=anchor,
            result=result,
            author=author,
        )
        self._notes[note.id] = note
        return note

    def update(self, note_id: str, **changes: object) -> Note:
        """Change fields of a live note; bumps its revision if anything changed.

        Accepted fields: hypothesis, observation, next_check, status (a status
        or its text), anchor, result, author.
        """
        unknown = sorted(set(changes) - EDITABLE_FIELDS)
        if unknown:
            raise InvalidNoteError(f"notes have no field {', '.join(unknown)}")
        status = changes.get("status")
        if isinstance(status, str):
            changes["status"] = parse_status(status)
        note = self.get(note_id)
        changed = replace(note, **changes)  # type: ignore[arg-type]
        if changed == note:
            return note
        return self._put(changed, note)

    def delete(self, note_id: str) -> Note:
        """Mark a live note deleted (kept as a tombstone so merges respect it)."""
        note = self.get(note_id)
        return self._put(replace(note, deleted=True), note)

    def _put(self, changed: Note, previous: Note) -> Note:
        note = replace(
            changed, revision=previous.revision + 1, updated=iso_utc(self._clock())
        )
        self._notes[note.id] = note
        return note

    # --- saving --------------------------------------------------------------

    def save(self) -> SaveResult:
        """Merge with the file under its lock and write it atomically.

        Tries next to the trace first (or `TRACE.notes.N.json` when the usual
        file is unreadable), then the per-user data folder. Raises
        NotesLockTimeout if another session holds the lock too long, and
        NotesSaveError if no location can be written.
        """
        primary_error: OSError | None = None
        if not self._fell_back:
            try:
                return self._save_chain(self._primary, fell_back=False)
            except OSError as error:
                primary_error = error
        try:
            self._fallback.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            result = self._save_chain(self._fallback, fell_back=True)
        except OSError as error:
            where = (
                f"next to the trace ({_reason(primary_error)}) nor "
                if primary_error is not None
                else ""
            )
            folder = self._fallback.parent
            raise NotesSaveError(
                f"cannot save notes {where}in {folder} ({_reason(error)})"
            ) from error
        if not self._fell_back:
            self._fell_back = True
            reason = _reason(primary_error) if primary_error else "not writable"
            self._add_problem(
                f"cannot write notes next to the trace ({reason}); "
                f"they are saved in {result.path}"
            )
        return result

    def refresh(self) -> RefreshResult:
        """Bring in what other sessions saved since this one last read the file.

        Unsaved edits stay; the same merge as `save` applies, without writing.
        """
        path = self._location
        try:
            data = read_notes_file(path)
        except FileNotFoundError:
            return RefreshResult()
        except OSError as error:
            self._mark_unreadable(path, _reason(error))
            return RefreshResult()
        snapshot = self._snapshots.get(path)
        digest = _digest(data)
        if snapshot is not None and snapshot.digest == digest:
            return RefreshResult()
        try:
            document = parse_document(data)
        except NotesFormatError as error:
            self._mark_unreadable(path, str(error))
            return RefreshResult()
        theirs = {note.id: note for note in document.notes}
        base = snapshot.notes if snapshot is not None else {}
        merged, conflicts, from_disk = merge_notes(base, self._notes, theirs)
        self._notes = merged
        their_zone = read_zone(document.extra)
        base_zone = read_zone(snapshot.extra) if snapshot is not None else None
        zone = merge_zone(base_zone, self._zone, their_zone)
        self._zone = zone
        self._extra = dict(document.extra)
        self._snapshots[path] = _Snapshot(digest, theirs, document.extra)
        self._recorded[path] = document.trace
        return RefreshResult(conflicts, from_disk)

    def _save_chain(self, notes_path: Path, *, fell_back: bool) -> SaveResult:
        if not fell_back and marked_read_only(notes_path.parent):
            raise PermissionError(
                errno.EACCES, "the folder is marked read-only", str(notes_path.parent)
            )
        for number in range(MAX_NUMBERED + 1):
            path = notes_path if number == 0 else numbered_path(notes_path, number)
            if path in self._unreadable:
                continue
            result = self._save_to(path, fell_back=fell_back)
            if result is not None:
                return result
        raise NotesSaveError(
            f"no free name for the notes in {notes_path.parent} "
            f"({MAX_NUMBERED} unreadable notes files)"
        )

    def _save_to(self, path: Path, *, fell_back: bool) -> SaveResult | None:
        """Save to `path`; None when it turns out unreadable (kept untouched)."""
        with locked(lock_path(path), self.lock_timeout):
            self._remove_stale_temps(path)
            try:
                data: bytes | None = read_notes_file(path)
            except FileNotFoundError:
                data = None
            except OSError as error:
                self._mark_unreadable(path, _reason(error))
                return None
            snapshot = self._snapshots.get(path)
            base = snapshot.notes if snapshot is not None else {}
            base_extra = snapshot.extra if snapshot is not None else {}
            if data is None:
                theirs: dict[str, Note] = {}
                their_extra: Mapping[str, Any] = self._extra
            elif snapshot is not None and snapshot.digest == _digest(data):
                theirs, their_extra = snapshot.notes, snapshot.extra
            else:
                try:
                    document = parse_document(data)
                except NotesFormatError as error:
                    self._mark_unreadable(path, str(error))
                    return None
                theirs = {note.id: note for note in document.notes}
                their_extra = document.extra
            merged, conflicts, from_disk = merge_notes(base, self._notes, theirs)
            zone = merge_zone(read_zone(base_extra), self._zone, read_zone(their_extra))
            extra = dict(their_extra)
            if zone is not None:
                extra[ZONE_KEY] = zone.to_dict()
            identity = self.trace_identity
            payload = dump_document(
                NotesDocument(identity, tuple(merged.values()), extra)
            )
            written = payload != data
            if written:
                write_replacing(path, payload)
        self._notes = merged
        self._zone = zone
        self._extra = extra
        self._snapshots[path] = _Snapshot(_digest(payload), merged, extra)
        self._recorded[path] = identity
        self._location = path
        return SaveResult(path, fell_back, conflicts, from_disk, written)

    def _remove_stale_temps(self, path: Path) -> None:
        """Delete temporary files a killed writer left; safe because every
        writer holds this lock while its temporary file exists."""
        pattern = temporary_pattern(path.name)
        with contextlib.suppress(OSError):
            for name in os.listdir(path.parent):
                if pattern.fullmatch(name):
                    with contextlib.suppress(OSError):
                        os.unlink(path.parent / name)

    # --- loading -------------------------------------------------------------

    def _load(self) -> None:
        try:
            self._trace_size = os.stat(self.trace_path).st_size
        except OSError as error:
            self._add_problem(
                f"cannot read the trace {self.trace_path}: {_reason(error)}"
            )
        sources: list[tuple[str, Mapping[str, Note]]] = []
        zones: list[ZoneMemory | None] = []
        fallback_used = False
        for path in [*variants(self._primary), *variants(self._fallback)]:
            try:
                data = read_notes_file(path)
            except FileNotFoundError:
                continue
            except OSError as error:
                self._mark_unreadable(path, _reason(error))
                continue
            try:
                document = parse_document(data)
            except NotesFormatError as error:
                self._mark_unreadable(path, str(error))
                continue
            notes = {note.id: note for note in document.notes}
            self._snapshots[path] = _Snapshot(_digest(data), notes, document.extra)
            self._recorded[path] = document.trace
            sources.append((str(path), notes))
            zones.append(read_zone(document.extra))
            if not self._extra:
                self._extra = dict(document.extra)
            fallback_used = fallback_used or path.parent == self._fallback.parent
        self._notes, conflicts = merge_sources(sources)
        self._zone = latest(zones)
        for conflict in conflicts:
            self._add_problem(conflict.message)
        if fallback_used:
            self._add_problem(
                f"some notes were kept in {self._fallback.parent} because the "
                "trace's folder could not be written"
            )
        self._check_trace_identity()
        self._location = self._first_usable(self._primary)
        if fallback_used and not _writable(self._primary.parent):
            # Saves would go to the data folder: say so now (`notes --json`).
            self._fell_back = True
            self._location = self._first_usable(self._fallback)

    def _mark_unreadable(self, path: Path, reason: str) -> None:
        if path in self._unreadable:
            return
        self._unreadable[path] = reason
        self._snapshots.pop(path, None)
        self._add_problem(
            f"notes file {path} cannot be read ({reason}); it is kept untouched "
            "and notes are saved under another name"
        )
        if self._location == path:
            in_fallback = path.parent == self._fallback.parent
            self._location = self._first_usable(
                self._fallback if in_fallback else self._primary
            )

    def _first_usable(self, notes_path: Path) -> Path:
        """The first of `notes_path`, `.1`, `.2`... not known to be unreadable."""
        for number in range(MAX_NUMBERED + 1):
            path = notes_path if number == 0 else numbered_path(notes_path, number)
            if path not in self._unreadable:
                return path
        return notes_path

    def _check_trace_identity(self) -> None:
        if self._trace_changed:
            return
        for path, recorded in self._recorded.items():
            if (
                recorded.size is not None
                and self._trace_size is not None
                and recorded.size != self._trace_size
            ):
                detail = f"size {recorded.size} → {self._trace_size} bytes"
            elif (
                recorded.sha256 is not None
                and self._trace_sha256 is not None
                and recorded.sha256 != self._trace_sha256
            ):
                detail = "its content hash differs"
            else:
                continue
            self._trace_changed = True
            self._add_problem(
                f"the trace changed since the notes in {path.name} were written "
                f"({detail}); their anchors may point at different events"
            )
            return

    def _add_problem(self, message: str) -> None:
        if message not in self._problems:
            self._problems.append(message)


def _checked_sha256(value: str) -> str:
    digest = value.strip().lower()
    if _SHA256_HEX.fullmatch(digest) is None:
        raise InvalidNoteError("a trace sha256 is 64 hex digits")
    return digest

"""Merging notes by id across sessions: nothing is lost; a note changed on both
sides is kept twice (the other version as a conflict copy) and reported."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import orjson

from tui.notes.model import Note


@dataclass(frozen=True)
class Conflict:
    """One note changed in two places; both versions were kept.

    `copy_id` is the note now holding the other version (None when a deletion
    lost to an edit: the edited note simply stays).
    """

    note_id: str
    copy_id: str | None
    message: str


def conflict_copy(note: Note, original_id: str) -> Note:
    """`note` as a new note marked as a conflict copy of `original_id`.

    Its id is derived from the version it holds, so merging the same two
    versions again (another session, another load) finds the copy already
    there instead of adding one more.
    """
    digest = hashlib.sha256(
        b"conflict-copy:" + orjson.dumps(note.to_dict(), option=orjson.OPT_SORT_KEYS)
    ).hexdigest()
    return replace(
        note, id=digest[:32], revision=1, deleted=False, conflict_of=original_id
    )


def _newer(first: Note, second: Note) -> Note:
    if second.revision > first.revision:
        return second
    if first.revision > second.revision:
        return first
    return first if first.updated >= second.updated else second


def merge_notes(
    base: Mapping[str, Note],
    mine: Mapping[str, Note],
    theirs: Mapping[str, Note],
) -> tuple[dict[str, Note], list[Conflict], int]:
    """Three-way merge by note id of this session's notes with the file's.

    `base` is what this session last read from the file, `mine` what it holds
    now, `theirs` what the file holds now. Returns the merged notes (ordered by
    creation time), the conflicts, and how many notes came from the file.
    """
    merged: dict[str, Note] = {}
    copies: list[Note] = []
    conflicts: list[Conflict] = []
    from_disk = 0
    for note_id in dict.fromkeys([*mine, *theirs]):
        ours = mine.get(note_id)
        other = theirs.get(note_id)
        if other is None:
            if ours is not None:
                merged[note_id] = ours
            continue
        if ours is None or ours == other:
            merged[note_id] = other
            from_disk += ours is None
            continue
        common = base.get(note_id)
        if common is None:
            kept, copy, conflict = _merge_without_base(ours, other, "another session")
        else:
            kept, copy, conflict = _merge_with_base(common, ours, other)
        merged[note_id] = kept
        from_disk += kept == other
        if copy is not None:
            copies.append(copy)
        if conflict is not None:
            conflicts.append(conflict)
    conflicts = _add_copies(merged, copies, conflicts)
    return _ordered(merged), conflicts, from_disk


def _merge_with_base(
    common: Note, ours: Note, other: Note
) -> tuple[Note, Note | None, Conflict | None]:
    if ours == common:
        return other, None, None
    if other == common:
        return ours, None, None
    # Both sides moved past the version they started from.
    if ours.same_content(other) or (ours.deleted and other.deleted):
        return _newer(other, ours), None, None
    revision = max(ours.revision, other.revision) + 1
    short = ours.short_id
    if ours.deleted:
        message = (
            f"note {short} was deleted here but changed in another session; "
            "the changed note is kept"
        )
        return replace(other, revision=revision), None, Conflict(ours.id, None, message)
    if other.deleted:
        message = (
            f"note {short} was deleted in another session but changed here; "
            "your version is kept"
        )
        return replace(ours, revision=revision), None, Conflict(ours.id, None, message)
    copy = conflict_copy(other, ours.id)
    message = (
        f"note {short} was changed here and in another session; yours is kept, "
        f"the other version is note {copy.short_id} (conflict copy)"
    )
    return (
        replace(ours, revision=revision),
        copy,
        Conflict(ours.id, copy.id, message),
    )


def _merge_without_base(
    first: Note, second: Note, where: str
) -> tuple[Note, Note | None, Conflict | None]:
    """Two versions with no known common ancestor: the higher revision wins,
    and equal revisions that say different things are both kept."""
    if first.same_content(second) or first.revision != second.revision:
        return _newer(first, second), None, None
    if first.deleted != second.deleted:
        return (first if second.deleted else second), None, None
    copy = conflict_copy(second, first.id)
    message = (
        f"note {first.short_id} differs in {where}; both versions are kept "
        f"(the other is note {copy.short_id}, a conflict copy)"
    )
    return first, copy, Conflict(first.id, copy.id, message)


def _add_copies(
    merged: dict[str, Note], copies: Iterable[Note], conflicts: list[Conflict]
) -> list[Conflict]:
    """Add conflict copies; one already present means that conflict was
    resolved before (same versions), so it is not reported again."""
    already = {copy.id for copy in copies if copy.id in merged}
    for copy in copies:
        merged.setdefault(copy.id, copy)
    return [c for c in conflicts if c.copy_id is None or c.copy_id not in already]


def merge_sources(
    sources: Iterable[tuple[str, Mapping[str, Note]]],
) -> tuple[dict[str, Note], list[Conflict]]:
    """Combine notes read from several files (next to the trace, fallback).

    There is no common ancestor: for each id the higher revision wins; equal
    revisions that differ are both kept. Earlier sources win ties.
    """
    merged: dict[str, Note] = {}
    copies: list[Note] = []
    conflicts: list[Conflict] = []
    for where, notes in sources:
        for note_id, note in notes.items():
            present = merged.get(note_id)
            if present is None:
                merged[note_id] = note
                continue
            kept, copy, conflict = _merge_without_base(present, note, where)
            merged[note_id] = kept
            if copy is not None:
                copies.append(copy)
            if conflict is not None:
                conflicts.append(conflict)
    conflicts = _add_copies(merged, copies, conflicts)
    return _ordered(merged), conflicts


def _ordered(notes: Mapping[str, Note]) -> dict[str, Note]:
    return dict(sorted(notes.items(), key=lambda item: (item[1].created, item[0])))

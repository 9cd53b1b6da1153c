"""Notes store: sidecar, merge between sessions, fallback, unreadable files."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from pathlib import Path

import orjson
import pytest

from tui.core.base import safe_write
from tui.notes.document import parse_document
from tui.notes.hashing import HashCancelled, sha256_file
from tui.notes.model import (
    Anchor,
    InvalidNoteError,
    NotesLockTimeout,
    Result,
    UnknownNoteError,
)
from tui.notes.paths import fallback_path, lock_path, numbered_path, sidecar_path
from tui.notes.store import NotesStore


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    folder = tmp_path / "captures"
    folder.mkdir()
    path = folder / "run.pt.trace.json.gz"
    path.write_bytes(b"not really a trace, the store only hashes it")
    return path


def live_hypotheses(path: Path) -> list[str]:
    document = parse_document(path.read_bytes())
    return [note.hypothesis for note in document.notes if not note.deleted]


def test_add_writes_the_sidecar(trace: Path) -> None:
    store = NotesStore.open(trace)
    note = store.add(
        "the input pipeline does not keep up",
        observation="GPU idle while lecture_batch_cpu runs",
        anchor=Anchor.at_step(3),
    )
    result = store.save()
    sidecar = trace.with_name("run.pt.trace.json.gz.notes.json")
    assert result.path == sidecar == store.location
    assert not result.fell_back
    raw = orjson.loads(sidecar.read_bytes())
    assert raw["schema"] == 2
    assert raw["trace"]["name"] == trace.name
    assert raw["trace"]["size"] == trace.stat().st_size
    assert [n["id"] for n in raw["notes"]] == [note.id]
    assert raw["notes"][0]["anchor"] == {"kind": "step", "step": 3}
    assert raw["notes"][0]["status"] == "open"
    again = NotesStore.open(trace)
    assert again.notes == [note]
    assert again.problems == []


def test_update_and_delete_bump_revision(trace: Path) -> None:
    store = NotesStore.open(trace)
    note = store.add("h")
    assert store.resolve(note.id[:6]).id == note.id
    assert store.update(note.id, hypothesis="h") == note  # no change, no bump
    changed = store.update(note.id, status="Confirmed", result=Result("gone"))
    assert (changed.status, changed.revision) == ("confirmed", 2)
    with pytest.raises(InvalidNoteError):
        store.update(note.id, colour="red")
    deleted = store.delete(note.id)
    assert deleted.deleted and deleted.revision == 3
    assert store.notes == []
    with pytest.raises(UnknownNoteError):
        store.get(note.id)
    with pytest.raises(UnknownNoteError):
        store.resolve(note.id[:6])


def test_save_skips_writing_identical_content(trace: Path) -> None:
    store = NotesStore.open(trace)
    store.add("h")
    assert store.save().written
    assert not store.save().written


def test_same_note_edited_in_two_sessions_keeps_both(trace: Path) -> None:
    first = NotesStore.open(trace)
    note = first.add("original")
    first.save()
    second = NotesStore.open(trace)

    first.update(note.id, hypothesis="edited in the first session")
    assert first.save().conflicts == []
    second.update(note.id, hypothesis="edited in the second session")
    result = second.save()

    assert len(result.conflicts) == 1
    conflict = result.conflicts[0]
    assert conflict.note_id == note.id and conflict.copy_id is not None
    reread = NotesStore.open(trace)
    by_id = {n.id: n for n in reread.notes}
    assert by_id[note.id].hypothesis == "edited in the second session"
    copy = by_id[conflict.copy_id]
    assert copy.hypothesis == "edited in the first session"
    assert copy.conflict_of == note.id

    # The first session catches up without a new conflict or a second copy.
    again = first.save()
    assert again.conflicts == [] and again.merged_from_disk >= 1
    assert sorted(n.hypothesis for n in first.notes) == sorted(
        n.hypothesis for n in reread.notes
    )
    assert len(NotesStore.open(trace).notes) == 2


def test_other_sessions_notes_are_merged_not_lost(trace: Path) -> None:
    first = NotesStore.open(trace)
    second = NotesStore.open(trace)
    first.add("from the first")
    first.save()
    second.add("from the second")
    result = second.save()
    assert result.merged_from_disk == 1
    assert sorted(live_hypotheses(result.path)) == ["from the first", "from the second"]
    refreshed = first.refresh()
    assert refreshed.merged_from_disk == 1
    assert len(first.notes) == 2


def test_deletion_is_not_resurrected_by_a_merge(trace: Path) -> None:
    first = NotesStore.open(trace)
    note = first.add("to delete")
    first.save()
    second = NotesStore.open(trace)
    first.delete(note.id)
    first.save()
    second.add("another")
    second.save()
    assert live_hypotheses(sidecar_path(trace)) == ["another"]
    assert [n.hypothesis for n in second.notes] == ["another"]


def test_deletion_against_an_edit_keeps_the_edit(trace: Path) -> None:
    first = NotesStore.open(trace)
    note = first.add("original")
    first.save()
    second = NotesStore.open(trace)
    first.delete(note.id)
    first.save()
    second.update(note.id, hypothesis="still relevant")
    result = second.save()
    assert [c.note_id for c in result.conflicts] == [note.id]
    assert result.conflicts[0].copy_id is None
    assert live_hypotheses(result.path) == ["still relevant"]


REAL_TEMPORARY_SIBLING = safe_write.temporary_sibling


def _fail_next_to_trace(
    trace: Path, error: OSError, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creating the temporary file beside the trace fails as `error` says."""
    real = REAL_TEMPORARY_SIBLING

    def temporary_sibling(final: Path) -> tuple[int, Path]:
        if final.parent == trace.parent:
            raise error
        return real(final)

    monkeypatch.setattr(safe_write, "temporary_sibling", temporary_sibling)


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(errno.EACCES, "Permission denied"),
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EROFS, "Read-only file system"),
    ],
    ids=["permission", "disk-full", "read-only-mount"],
)
def test_unwritable_folder_falls_back_and_says_where(
    trace: Path, data_dir: Path, error: OSError, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_next_to_trace(trace, error, monkeypatch)
    store = NotesStore.open(trace)
    store.add("kept somewhere")
    result = store.save()

    expected = fallback_path(trace)
    assert result.fell_back and store.fell_back
    assert result.path == expected == store.location
    assert expected.parent == data_dir / "notes"
    digest = hashlib.sha1(os.fsencode(trace.resolve())).hexdigest()
    assert expected.name == f"{digest}-{trace.name}.notes.json"
    assert any(str(expected) in problem for problem in store.problems)
    assert live_hypotheses(expected) == ["kept somewhere"]
    assert not sidecar_path(trace).exists()
    assert not [p for p in trace.parent.iterdir() if p.name.endswith(".tmp")]

    # A later session reads the fallback too, and moves the notes back once
    # the folder can be written.
    monkeypatch.setattr(safe_write, "temporary_sibling", REAL_TEMPORARY_SIBLING)
    later = NotesStore.open(trace)
    assert [n.hypothesis for n in later.notes] == ["kept somewhere"]
    assert any(str(expected.parent) in problem for problem in later.problems)
    assert later.save().path == sidecar_path(trace)
    assert live_hypotheses(sidecar_path(trace)) == ["kept somewhere"]


def test_read_only_folder_falls_back(trace: Path) -> None:
    """A folder marked read-only is left untouched, even by root (who could write it)."""
    trace.parent.chmod(0o555)
    try:
        store = NotesStore.open(trace)
        store.add("kept somewhere")
        result = store.save()
        assert sorted(path.name for path in trace.parent.iterdir()) == [trace.name]
        assert [n.hypothesis for n in NotesStore.open(trace).notes] == [
            "kept somewhere"
        ]
    finally:
        trace.parent.chmod(0o755)
    assert result.fell_back
    assert result.path == fallback_path(trace)
    assert live_hypotheses(result.path) == ["kept somewhere"]


@pytest.mark.parametrize(
    "content",
    [
        b'{"schema": 1, "notes": [',
        b"\xff\xfe\xfa not utf-8",
        b'{"schema": 99, "notes": []}',
    ],
    ids=["torn-json", "not-utf8", "newer-schema"],
)
def test_unreadable_notes_file_is_kept_untouched(trace: Path, content: bytes) -> None:
    sidecar = sidecar_path(trace)
    sidecar.write_bytes(content)
    store = NotesStore.open(trace)
    assert store.unreadable == [sidecar]
    assert any("kept untouched" in p and str(sidecar) in p for p in store.problems)
    store.add("new note")
    result = store.save()
    assert result.path == numbered_path(sidecar, 1)
    assert result.path.name == "run.pt.trace.json.gz.notes.1.json"
    assert sidecar.read_bytes() == content
    assert live_hypotheses(result.path) == ["new note"]

    # Next session: same file still unreadable, the numbered one is used.
    again = NotesStore.open(trace)
    assert [n.hypothesis for n in again.notes] == ["new note"]
    again.add("second")
    assert again.save().path == numbered_path(sidecar, 1)
    assert sidecar.read_bytes() == content

    # If the numbered file breaks too, the next free number is used.
    numbered_path(sidecar, 1).write_bytes(b"garbage")
    third = NotesStore.open(trace)
    third.add("third")
    assert third.save().path == numbered_path(sidecar, 2)
    assert numbered_path(sidecar, 1).read_bytes() == b"garbage"


def test_file_broken_after_load_is_not_overwritten(trace: Path) -> None:
    store = NotesStore.open(trace)
    store.add("one")
    store.save()
    sidecar = sidecar_path(trace)
    sidecar.write_bytes(b"{broken")
    store.add("two")
    result = store.save()
    assert result.path == numbered_path(sidecar, 1)
    assert sidecar.read_bytes() == b"{broken"
    assert sorted(live_hypotheses(result.path)) == ["one", "two"]


def test_trace_changed_by_size(trace: Path) -> None:
    store = NotesStore.open(trace)
    store.add("h")
    store.save()
    with trace.open("ab") as stream:
        stream.write(b" more")
    reopened = NotesStore.open(trace)
    assert reopened.trace_changed
    assert any("trace changed" in p for p in reopened.problems)


def test_trace_changed_by_hash_known_later(trace: Path) -> None:
    store = NotesStore.open(trace, trace_sha256=sha256_file(trace))
    store.add("h")
    store.save()
    assert orjson.loads(sidecar_path(trace).read_bytes())["trace"]["sha256"]
    trace.write_bytes(trace.read_bytes().upper())  # same size, other content
    reopened = NotesStore.open(trace)
    assert not reopened.trace_changed  # works before the hash is known
    assert reopened.set_trace_sha256(sha256_file(trace))
    assert any("content hash differs" in p for p in reopened.problems)
    # Saving binds the notes to the trace as it is now.
    reopened.save()
    assert not NotesStore.open(trace, trace_sha256=sha256_file(trace)).trace_changed


def test_lock_held_elsewhere_times_out(trace: Path) -> None:
    store = NotesStore.open(trace, lock_timeout=0.05)
    store.add("h")
    fd = os.open(lock_path(sidecar_path(trace)), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(NotesLockTimeout):
            store.save()
    finally:
        os.close(fd)
    assert not sidecar_path(trace).exists()
    assert store.save().written


def test_stale_temp_files_are_cleaned_under_the_lock(trace: Path) -> None:
    stale = trace.parent / f".{sidecar_path(trace).name}.0123456789abcdef.tmp"
    stale.write_bytes(b"half")
    other = trace.parent / ".someone-else.tmp"
    other.write_bytes(b"x")
    store = NotesStore.open(trace)
    store.add("h")
    store.save()
    assert not stale.exists()
    assert other.exists()


def test_atomic_write_keeps_the_file_mode(trace: Path) -> None:
    sidecar = sidecar_path(trace)
    store = NotesStore.open(trace)
    store.add("h")
    store.save()
    sidecar.chmod(0o640)
    store.add("h2")
    store.save()
    assert sidecar.stat().st_mode & 0o777 == 0o640


def test_sha256_file_progress_and_cancel(tmp_path: Path) -> None:
    path = tmp_path / "blob"
    data = os.urandom(100_000)
    path.write_bytes(data)
    seen: list[tuple[int, int]] = []
    digest = sha256_file(
        path, chunk_size=4096, progress=lambda d, t: seen.append((d, t))
    )
    assert digest == hashlib.sha256(data).hexdigest()
    assert seen[-1] == (len(data), len(data))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    calls = iter([False, False, True])
    with pytest.raises(HashCancelled):
        sha256_file(path, chunk_size=4096, cancelled=lambda: next(calls))


def test_divergent_copies_in_two_places_are_both_kept_once(
    trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = NotesStore.open(trace)
    note = store.add("original")
    store.save()
    # The same note, at the same revision, says something else in the fallback.
    fallback = fallback_path(trace)
    fallback.parent.mkdir(parents=True)
    raw = orjson.loads(sidecar_path(trace).read_bytes())
    raw["notes"][0]["hypothesis"] = "edited while the folder was read-only"
    fallback.write_bytes(orjson.dumps(raw))

    merged = NotesStore.open(trace)
    hypotheses = sorted(n.hypothesis for n in merged.notes)
    assert hypotheses == ["edited while the folder was read-only", "original"]
    assert any(note.short_id in p and "both versions" in p for p in merged.problems)
    merged.save()
    # Loading the same two files again finds the copy already there.
    again = NotesStore.open(trace)
    assert sorted(n.hypothesis for n in again.notes) == hypotheses
    assert not any("both versions" in p for p in again.problems)

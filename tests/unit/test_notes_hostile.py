"""The notes store beside a trace someone else can write to: a FIFO at the
sidecar never hangs, a symlinked lock never creates its target, and the store
says where the notes really are and keeps what it does not know."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import orjson
import pytest

from tui.notes.paths import fallback_path, lock_path, sidecar_path
from tui.notes.store import NotesStore

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(folder))
    return folder


class Hung(Exception):
    """An open or read that would have blocked for ever."""


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """Fail (instead of hanging) a test whose store blocks on a FIFO."""

    def hung(_number: int, _frame: FrameType | None) -> None:
        raise Hung("blocked for 20 s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    folder = tmp_path / "captures"
    folder.mkdir()
    path = folder / "t.json"
    path.write_bytes(b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}]}')
    return path


def _steptrace(*argv: str, timeout: float = 15) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
            *argv,
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,  # a hang fails the test instead of the run
        check=False,
    )


# 5. A FIFO (or any non-regular file) at the sidecar path.


@pytest.mark.parametrize(
    "argv",
    [(), ("--json",), ("add", "--hypothesis", "h")],
    ids=["notes", "notes --json", "notes add"],
)
def test_a_fifo_at_the_sidecar_never_hangs(trace: Path, argv: tuple[str, ...]) -> None:
    os.mkfifo(sidecar_path(trace))
    if argv and argv[0] == "add":
        done = _steptrace("notes", "add", str(trace), *argv[1:])
    else:
        done = _steptrace("notes", str(trace), *argv)
    assert "not a regular file" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_fifo_at_the_sidecar_is_kept_and_notes_go_elsewhere(trace: Path) -> None:
    sidecar = sidecar_path(trace)
    os.mkfifo(sidecar)
    store = NotesStore.open(trace)
    assert any("not a regular file" in problem for problem in store.problems)
    store.add("kept beside it")
    saved = store.save().path
    assert saved != sidecar and saved.exists()
    assert os.path.exists(sidecar) and not sidecar.is_file()  # untouched
    assert [note.hypothesis for note in NotesStore.open(trace).notes] == [
        "kept beside it"
    ]


def test_a_fifo_at_the_sidecar_does_not_stop_report_md(trace: Path) -> None:
    os.mkfifo(sidecar_path(trace))
    done = _steptrace("report", str(trace), "--md")
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 1, 2)


# 6. The lock file never follows a symbolic link.


def test_a_symlinked_lock_never_creates_its_target(trace: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim" / "nologin"
    victim.parent.mkdir()
    lock_path(sidecar_path(trace)).symlink_to(victim)
    store = NotesStore.open(trace)
    store.add("a note")
    result = store.save()  # beside the trace is refused; the data folder is not
    assert not os.path.lexists(victim)
    assert result.fell_back
    assert [note.hypothesis for note in NotesStore.open(trace).notes] == ["a note"]


def test_a_fifo_as_the_lock_is_refused_without_hanging(trace: Path) -> None:
    os.mkfifo(lock_path(sidecar_path(trace)))
    done = _steptrace("notes", "add", str(trace), "--hypothesis", "a note")
    assert "Traceback" not in done.stderr
    assert [note.hypothesis for note in NotesStore.open(trace).notes] == ["a note"]


# 7. The real location, and unknown fields kept.


def test_notes_json_in_a_read_only_folder_reports_where_the_notes_are(
    trace: Path,
) -> None:
    trace.parent.chmod(0o555)
    try:
        store = NotesStore.open(trace)
        store.add("kept somewhere")
        store.save()
        listed = _steptrace("notes", str(trace), "--json")
    finally:
        trace.parent.chmod(0o755)
    payload = orjson.loads(listed.stdout)
    assert payload["fell_back"] is True
    assert payload["location"] == str(fallback_path(trace))
    assert [note["hypothesis"] for note in payload["notes"]] == ["kept somewhere"]


def test_unknown_fields_of_a_note_are_kept_when_another_is_added(
    trace: Path,
) -> None:
    store = NotesStore.open(trace)
    store.add("first")
    sidecar = store.save().path
    document = orjson.loads(sidecar.read_bytes())
    document["notes"][0]["x_reviewer"] = {"name": "Ana", "seen": [1, 2]}
    document["x_top"] = "kept too"
    sidecar.write_bytes(orjson.dumps(document))

    again = NotesStore.open(trace)
    again.add("second")
    again.save()
    written = orjson.loads(sidecar.read_bytes())
    first = next(n for n in written["notes"] if n["hypothesis"] == "first")
    assert first["x_reviewer"] == {"name": "Ana", "seen": [1, 2]}
    assert written["x_top"] == "kept too"

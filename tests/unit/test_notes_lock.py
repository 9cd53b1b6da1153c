"""The notes lock leaves nothing beside the trace, and stays exclusive while it comes and goes."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tui.cli import main
from tui.notes.disk import locked
from tui.notes.document import parse_document
from tui.notes.paths import lock_path, sidecar_path
from tui.notes.store import NotesStore

ADD_MANY = """
import sys
from tui.notes.store import NotesStore

store = NotesStore.open(sys.argv[1])
for number in range(int(sys.argv[3])):
    store.add(f"{sys.argv[2]}-{number}")
    store.save()
"""


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "captures"
    folder.mkdir()
    path = folder / "run.pt.trace.json"
    path.write_bytes(b'{"traceEvents": []}')
    return path


def test_adding_a_note_leaves_only_the_trace_and_its_notes(
    trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for hypothesis in ("the input pipeline does not keep up", "a copy per step"):
        assert main(["notes", "add", str(trace), "--hypothesis", hypothesis]) == 0
    assert main(["notes", str(trace)]) == 0
    capsys.readouterr()
    assert sorted(os.listdir(trace.parent)) == sorted(
        [trace.name, sidecar_path(trace).name]
    )


def test_a_lock_file_left_by_a_killed_session_is_removed_by_the_next_save(
    trace: Path,
) -> None:
    stale = lock_path(sidecar_path(trace))
    stale.write_bytes(b"")
    store = NotesStore.open(trace)
    store.add("h")
    store.save()
    assert not stale.exists()
    assert len(NotesStore.open(trace).notes) == 1


def test_a_waiter_never_enters_on_a_lock_file_its_holder_removed(
    tmp_path: Path,
) -> None:
    """A waits on the file B holds; B removes it and C takes a new one: A waits for C."""
    path = tmp_path / "notes.json.lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(first, fcntl.LOCK_EX)
    entered = threading.Event()
    waiter = threading.Thread(target=_enter_and_signal, args=(path, entered))
    waiter.start()
    time.sleep(0.1)  # the waiter has opened the first file and polls its lock
    assert not entered.is_set()
    # The first holder leaves as `locked` does: unlink, then unlock. A third
    # session creates the name again and locks it before the waiter retries.
    os.unlink(path)
    second = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(second, fcntl.LOCK_EX)
    fcntl.flock(first, fcntl.LOCK_UN)
    os.close(first)
    time.sleep(0.3)
    assert not entered.is_set()  # two holders at once if it had entered
    os.unlink(path)
    fcntl.flock(second, fcntl.LOCK_UN)
    os.close(second)
    waiter.join(timeout=5)
    assert entered.is_set()
    assert not path.exists()


def _enter_and_signal(path: Path, entered: threading.Event) -> None:
    with locked(path, timeout=5):
        entered.set()


def test_four_processes_adding_at_once_lose_nothing_and_leave_nothing(
    trace: Path, tmp_path: Path
) -> None:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["STEPTRACE_DATA_DIR"] = str(tmp_path / "data")
    tags = ("a", "b", "c", "d")
    children = [
        subprocess.Popen(
            [sys.executable, "-c", ADD_MANY, str(trace), tag, "12"], env=env
        )
        for tag in tags
    ]
    assert [child.wait(timeout=120) for child in children] == [0] * len(tags)
    notes = parse_document(sidecar_path(trace).read_bytes()).notes
    assert sorted(note.hypothesis for note in notes) == sorted(
        f"{tag}-{number}" for tag in tags for number in range(12)
    )
    assert sorted(os.listdir(trace.parent)) == sorted(
        [trace.name, sidecar_path(trace).name]
    )
    assert not (tmp_path / "data").exists()  # no save fell back

"""Notes survive kill -9 during saves, and two sessions saving at once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from tui.notes.document import parse_document
from tui.notes.paths import sidecar_path
from tui.notes.store import NotesStore

SAVE_FOREVER = """
import sys
from tui.notes.store import NotesStore

store = NotesStore.open(sys.argv[1])
tag = sys.argv[2]
number = 0
while True:
    store.add(f"{tag}-{number}", observation="x" * 200)
    store.save()
    if number == 0:
        print("ready", flush=True)
    number += 1
"""

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
    path = tmp_path / "run.pt.trace.json"
    path.write_bytes(b"{}")
    return path


def _child_env(tmp_path: Path) -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["STEPTRACE_DATA_DIR"] = str(tmp_path / "data")
    return env


def _counts_by_tag(path: Path) -> dict[str, list[int]]:
    """Parse the sidecar (it must never be torn) and group note numbers by tag."""
    document = parse_document(path.read_bytes())
    numbers: dict[str, list[int]] = defaultdict(list)
    for note in document.notes:
        tag, _, number = note.hypothesis.rpartition("-")
        numbers[tag].append(int(number))
    return numbers


@pytest.mark.slow
def test_sigkill_during_saves_never_leaves_a_torn_file(
    trace: Path, tmp_path: Path
) -> None:
    sidecar = sidecar_path(trace)
    rng = random.Random(20240501)
    env = _child_env(tmp_path)
    seen: dict[str, int] = {}
    for round_number in range(30):
        tag = f"round{round_number}"
        child = subprocess.Popen(
            [sys.executable, "-c", SAVE_FOREVER, str(trace), tag],
            stdout=subprocess.PIPE,
            env=env,
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.02))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()

        numbers = _counts_by_tag(sidecar)
        # Every save wrote a complete state: each round's notes are 0..k.
        for notes_tag, values in numbers.items():
            assert sorted(values) == list(range(len(values))), notes_tag
        # Nothing written by an earlier round was lost.
        for earlier, count in seen.items():
            assert len(numbers[earlier]) >= count
        assert len(numbers[tag]) >= 1
        seen = {key: len(values) for key, values in numbers.items()}

    # A normal save afterwards cleans what the killed writers left.
    store = NotesStore.open(trace)
    assert store.problems == []
    store.add("after the storm")
    store.save()
    leftovers = [
        p.name for p in trace.parent.iterdir() if p.name.endswith((".tmp", ".lock"))
    ]
    assert leftovers == []


def test_two_processes_adding_at_once_lose_nothing(trace: Path, tmp_path: Path) -> None:
    env = _child_env(tmp_path)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", ADD_MANY, str(trace), name, "25"], env=env
        )
        for name in ("first", "second")
    ]
    assert [child.wait() for child in children] == [0, 0]
    numbers = _counts_by_tag(sidecar_path(trace))
    assert sorted(numbers["first"]) == list(range(25))
    assert sorted(numbers["second"]) == list(range(25))
    assert len(NotesStore.open(trace).notes) == 50

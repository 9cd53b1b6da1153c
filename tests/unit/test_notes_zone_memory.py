"""The data zone chosen in the explorer is remembered in the notes sidecar:
old sidecars still read, nothing written by someone else is lost, and two
sessions saving at once still merge (checked against the raw JSON file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tui.notes.paths import sidecar_path
from tui.notes.store import NotesStore


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(tmp_path / "data"))
    path = tmp_path / "run.pt.trace.json"
    path.write_bytes(b"{}")
    return path


def ticking_clock(start: datetime) -> object:
    """A clock that moves one second at each reading (choices have an order)."""
    moments = iter(start + timedelta(seconds=n) for n in range(10_000))
    return lambda: next(moments)


T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def raw(trace: Path) -> dict[str, object]:
    document: dict[str, object] = json.loads(sidecar_path(trace).read_text())
    return document


def test_a_choice_round_trips_and_sits_beside_the_notes(trace: Path) -> None:
    store = NotesStore.open(trace)
    store.add("the loader is slow")
    store.set_zone(["enumerate(DataLoader)#…", "transfert"])
    store.save()
    document = raw(trace)
    assert document["zone"]["names"] == ["enumerate(DataLoader)#…", "transfert"]  # type: ignore[index]
    assert document["schema"] == 2  # an older steptrace still reads it
    assert [n["hypothesis"] for n in document["notes"]] == ["the loader is slow"]  # type: ignore[attr-defined]
    again = NotesStore.open(trace)
    assert again.zone is not None
    assert again.zone.names == ("enumerate(DataLoader)#…", "transfert")
    assert [note.hypothesis for note in again.notes] == ["the loader is slow"]


def test_an_old_sidecar_reads_and_keeps_its_notes(trace: Path) -> None:
    old = {
        "schema": 2,
        "trace": {"name": trace.name, "size": 2, "sha256": None},
        "notes": [
            {
                "id": "a" * 32,
                "created": "2024-01-01T00:00:00+00:00",
                "updated": "2024-01-01T00:00:00+00:00",
                "hypothesis": "written before zones were remembered",
                "status": "open",
            }
        ],
    }
    sidecar_path(trace).write_text(json.dumps(old))
    store = NotesStore.open(trace)
    assert store.zone is None and not store.unreadable
    store.set_zone(["lecture_batch_cpu"])
    store.save()
    document = raw(trace)
    assert [n["id"] for n in document["notes"]] == ["a" * 32]  # type: ignore[attr-defined]
    assert document["zone"]["names"] == ["lecture_batch_cpu"]  # type: ignore[index]


def test_unknown_keys_and_a_malformed_zone_are_kept_not_fatal(trace: Path) -> None:
    sidecar_path(trace).write_text(
        json.dumps(
            {
                "schema": 2,
                "trace": {"name": trace.name},
                "zone": {"names": "not a list"},
                "future_key": {"kept": [1, 2, 3]},
                "notes": [],
            }
        )
    )
    store = NotesStore.open(trace)
    assert not store.unreadable and store.zone is None
    store.add("a note")
    store.save()
    document = raw(trace)
    assert document["future_key"] == {"kept": [1, 2, 3]}
    assert document["zone"] == {"names": "not a list"}  # not ours to drop
    store.set_zone(["x"])
    store.save()
    document = raw(trace)
    assert document["zone"]["names"] == ["x"]  # type: ignore[index]
    assert document["future_key"] == {"kept": [1, 2, 3]}


def test_two_sessions_merge_notes_and_the_zone(trace: Path) -> None:
    first = NotesStore.open(trace, clock=ticking_clock(T0))  # type: ignore[arg-type]
    second = NotesStore.open(trace, clock=ticking_clock(T0 + timedelta(hours=1)))  # type: ignore[arg-type]
    first.set_zone(["transfert"])
    first.save()
    # The second session never touched the zone: its save keeps the first's choice.
    second.add("from the second session")
    second.save()
    assert raw(trace)["zone"]["names"] == ["transfert"]  # type: ignore[index]
    # Now the second chooses; the first only adds a note: the choice survives.
    second.set_zone(["lecture_batch_cpu"])
    second.save()
    first.add("from the first session")
    first.save()
    document = raw(trace)
    assert document["zone"]["names"] == ["lecture_batch_cpu"]  # type: ignore[index]
    assert sorted(n["hypothesis"] for n in document["notes"]) == [  # type: ignore[attr-defined]
        "from the first session",
        "from the second session",
    ]
    assert first.zone is not None and first.zone.names == ("lecture_batch_cpu",)
    # Both choose without seeing each other: the later choice wins, on both sides.
    first.set_zone(["early"])  # first's clock is an hour behind
    second.set_zone(["late"])
    first.save()
    second.save()
    first.save()
    assert raw(trace)["zone"]["names"] == ["late"]  # type: ignore[index]
    assert NotesStore.open(trace).zone.names == ("late",)  # type: ignore[union-attr]


def test_back_to_the_automatic_choice_is_remembered_too(trace: Path) -> None:
    store = NotesStore.open(trace)
    store.set_zone(["transfert"])
    store.save()
    store.set_zone([])
    store.save()
    assert raw(trace)["zone"]["names"] == []  # type: ignore[index]
    assert NotesStore.open(trace).zone.names == ()  # type: ignore[union-attr]


CHOOSE_AND_NOTE = """
import sys
from tui.notes.store import NotesStore

store = NotesStore.open(sys.argv[1])
for number in range(int(sys.argv[3])):
    store.add(f"{sys.argv[2]}-{number}")
    if number % 3 == 0:
        store.set_zone([f"{sys.argv[2]}-zone-{number}"])
    store.save()
"""


def test_sessions_saving_at_once_lose_no_note_and_keep_one_of_their_zones(
    trace: Path, tmp_path: Path
) -> None:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    count = 12
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHOOSE_AND_NOTE, str(trace), tag, str(count)],
            env=env,
        )
        for tag in ("a", "b")
    ]
    for child in children:
        assert child.wait(timeout=120) == 0
    document = raw(trace)
    hypotheses = {n["hypothesis"] for n in document["notes"]}  # type: ignore[attr-defined]
    assert hypotheses == {f"{tag}-{n}" for tag in "ab" for n in range(count)}
    chosen = document["zone"]["names"]  # type: ignore[index]
    assert len(chosen) == 1 and chosen[0].split("-zone-")[0] in ("a", "b")
    assert not list(tmp_path.glob("*.lock"))

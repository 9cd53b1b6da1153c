"""`steptrace notes`: add, set, rm, list, --json and --md through the CLI."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests import shared_traces as shared
from tests.builders.traces import metadata, training_step_events, write_trace
from tui.cli import main
from tui.notes.model import Anchor
from tui.notes.paths import sidecar_path
from tui.notes.store import NotesStore

SHARED_TRACE = shared.FOLDER / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("STEPTRACE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    """Steps 1-3, each with aten::mm: what the notes' anchors point at."""
    events = metadata()
    for step in (1, 2, 3):
        events += training_step_events(step, (step - 1) * 1000.0)
    return write_trace(tmp_path / "run.pt.trace.json", events)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_add_set_list_json(trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(
        capsys,
        "notes", "add", str(trace),
        "--hypothesis", "the input pipeline does not keep up",
        "--observation", "GPU idle while lecture_batch_cpu runs",
        "--next-check", "batches prepared in advance",
        "--anchor", "step:3",
        "--author", "ana",
    )  # fmt: skip
    assert status == 0
    note_id = out.strip()
    assert len(note_id) == 32
    assert sidecar_path(trace).exists()

    status, out, _ = run_cli(
        capsys,
        "notes", "set", str(trace), note_id[:6],
        "--status", "confirmed", "--result", "idle gone",
        "--before", "12.3,12.7", "--after", "9.1 9.3", "--unit", "ms",
    )  # fmt: skip
    assert (status, out.strip()) == (0, note_id)

    status, out, _ = run_cli(capsys, "notes", str(trace))
    assert status == 0
    assert f"{note_id[:8]}  [confirmed]  step 3" in out
    assert "the input pipeline does not keep up" in out
    assert "before: 12.3, 12.7 ms" in out

    status, out, _ = run_cli(capsys, "notes", "--json", str(trace))
    assert status == 0
    payload = orjson.loads(out)
    assert payload["location"] == str(sidecar_path(trace))
    assert payload["problems"] == []
    [note] = payload["notes"]
    assert note["id"] == note_id
    assert note["status"] == "confirmed"
    assert note["anchor"] == {"kind": "step", "step": 3}
    assert note["result"] == {
        "text": "idle gone",
        "before": [12.3, 12.7],
        "after": [9.1, 9.3],
        "unit": "ms",
    }
    assert note["author"] == "ana"
    assert note["revision"] == 2
    # The option after the trace works too.
    assert orjson.loads(run_cli(capsys, "notes", str(trace), "--json")[1]) == payload


def test_rm_leaves_a_tombstone(trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note_id = run_cli(capsys, "notes", "add", str(trace), "--hypothesis", "h")[
        1
    ].strip()
    status, out, _ = run_cli(capsys, "notes", "rm", str(trace), note_id)
    assert (status, out.strip()) == (0, note_id)
    assert run_cli(capsys, "notes", str(trace))[1] == f"no notes on {trace.name}\n"
    raw = orjson.loads(sidecar_path(trace).read_bytes())
    assert raw["notes"][0]["deleted"] is True


def test_list_escapes_control_characters(
    trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(capsys, "notes", "add", str(trace), "--hypothesis", "a\x1b[2Jb [bold]x[/]")
    out = run_cli(capsys, "notes", str(trace))[1]
    assert "\x1b" not in out
    assert "a\\x1b[2Jb [bold]x[/]" in out


@pytest.mark.usefixtures("shared_traces")
def test_markdown_export_with_capture_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / SHARED_TRACE.name
    shutil.copyfile(SHARED_TRACE, trace)
    run_cli(
        capsys,
        "notes", "add", str(trace), "--hypothesis", "one op | dominates",
        "--anchor", "op:aten::empty",
    )  # fmt: skip
    status, out, _ = run_cli(capsys, "notes", str(trace), "--md")
    assert status == 0
    assert out.startswith(f"# Notes — {trace.name}\n")
    assert "## Window" in out and "Active window:" in out
    assert "| observation | hypothesis | next check | status | result |" in out
    assert "| op aten::empty | one op \\| dominates |  | open |  |" in out


def test_markdown_export_when_the_trace_cannot_be_loaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "broken.json"
    trace.write_bytes(b"\x00\x01 this is not a trace")
    run_cli(capsys, "notes", "add", str(trace), "--hypothesis", "still exported")
    status, out, err = run_cli(capsys, "notes", "--md", str(trace))
    assert status == 0
    assert "Capture figures unavailable" in out
    assert "| still exported |" in out
    assert "capture figures unavailable" in err


ADD = ["notes", "add", "TRACE", "--hypothesis", "h"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["notes", "missing.json"], "missing.json: no such file"),
        (["notes", "add", "TRACE"], "--hypothesis"),
        (["notes", "add", "TRACE", "--hypothesis", " "], "--hypothesis is empty"),
        ([*ADD, "--anchor", "line:3"], "anchor"),
        ([*ADD, "--anchor", "range:9-1"], "ends"),
        (["notes", "set", "TRACE", "ffffffff", "--status", "open"], "no note"),
        (["notes", "set", "TRACE", "ID", "--status", "done"], "unknown status"),
        (["notes", "set", "TRACE", "ID"], "nothing to change"),
        (["notes", "set", "TRACE", "ID", "--before", "1,x"], "bad number"),
        (["notes", "rm", "TRACE"], "id"),
        (["notes", "TRACE", "--json", "--md"], "--md"),
        (["notes"], "trace"),
    ],
    ids=[
        "missing-trace", "no-hypothesis", "empty-hypothesis", "bad-anchor-kind",
        "backwards-range", "unknown-id", "bad-status", "nothing-to-change",
        "bad-figure", "rm-without-id", "json-and-md", "no-trace",
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(
    trace: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    store = NotesStore.open(trace)
    note = store.add("h")
    store.save()
    argv = [
        str(trace) if word == "TRACE" else note.id if word == "ID" else word
        for word in argv
    ]
    status, out, err = run_cli(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("steptrace: ")
    assert err.count("\n") == 1
    assert message in err
    assert "Traceback" not in err


def test_ambiguous_id_prefix(trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = NotesStore.open(trace)
    notes = [store.add(f"h{number}") for number in range(17)]  # two share a digit
    store.save()
    first_chars = [note.id[0] for note in notes]
    shared = next(char for char in first_chars if first_chars.count(char) > 1)
    status, _, err = run_cli(
        capsys, "notes", "set", str(trace), shared, "--status", "open"
    )
    assert status == 2
    assert "ambiguous" in err


@pytest.mark.parametrize(
    ("anchor", "said"),
    [
        ("step:999", "no step 999 in this capture (steps 1–3); closest: step:3"),
        ("op:aten::nonexistent", "no operator named 'aten::nonexistent'"),
        ("op:aten::m", "closest: op:aten::mm"),
        ("range:5000000-6000000", "lies outside this capture"),
        ("finding:gpu_idle", "closest: finding:gpu_idle_data_zone"),
    ],
    ids=["step", "op", "op-typo", "range", "finding"],
)
@pytest.mark.parametrize("verb", ["add", "set"])
def test_an_anchor_that_points_at_nothing_is_refused_with_the_closest(
    trace: Path,
    capsys: pytest.CaptureFixture[str],
    anchor: str,
    said: str,
    verb: str,
) -> None:
    """`notes add --anchor step:999` and `op:aten::nonexistent` were accepted
    silently: a note pointing at nothing in the capture. Refused with exit 2,
    naming what is closest; nothing is saved."""
    store = NotesStore.open(trace)
    note = store.add("h", anchor=Anchor.at_step(1))
    store.save()
    target = [note.id] if verb == "set" else []
    status, out, err = run_cli(
        capsys, "notes", verb, str(trace), *target,
        "--hypothesis", "h2", "--anchor", anchor,
    )  # fmt: skip
    assert (status, out) == (2, "")
    assert err.startswith(f"steptrace: --anchor {anchor}: ") and err.count("\n") == 1
    assert said in err
    notes = NotesStore.open(trace).notes
    assert [(n.hypothesis, n.anchor) for n in notes] == [("h", Anchor.at_step(1))]


def test_anchors_that_point_at_something_are_kept(
    trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for anchor in ("step:2", "op:aten::mm", "range:0-500", "finding:dominant_op"):
        status, _, err = run_cli(
            capsys, "notes", "add", str(trace), "--hypothesis", "h", "--anchor", anchor
        )
        assert (status, err) == (0, "")

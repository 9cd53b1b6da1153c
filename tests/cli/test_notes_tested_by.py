"""`steptrace notes set TRACE ID --tested-by AFTER`: a hypothesis linked to the
capture that tested it, with the diff's verdict and both windows' raw step times.

The traces are built here with known step times, so the verdict and ranges
are known by construction; the sidecar is read back as raw JSON.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import cpu, write_trace
from tui.cli import main
from tui.core.base.vocab import Verdict
from tui.core.diff import TraceDiff
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.notes.document import dump_document, parse_document
from tui.notes.model import InvalidNoteError, Note, Result, TestedBy
from tui.notes.paths import sidecar_path
from tui.notes.store import NotesStore
from tui.notes.tested_by import record_tested_by
from tui.report.notes import render_markdown, render_text

WHEN = "2024-05-01T12:00:00.000000+00:00"


@pytest.fixture(autouse=True)
def data_dir(isolated_data_dir: Path) -> Path:
    return isolated_data_dir


def step_trace(
    path: Path, durations_us: list[float], description: dict[str, Any] | None = None
) -> Path:
    """Steps of the given durations, one operator inside each."""
    events = []
    at = 0.0
    for number, duration in enumerate(durations_us):
        events.append(
            cpu(f"ProfilerStep#{number}", at, duration, cat="user_annotation")
        )
        events.append(cpu("aten::mm", at + 10, duration / 4))
        at += duration + 50
    extra = {"steptrace": description} if description is not None else None
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_trace(path, events, extra=extra)


def description(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question": "is compute waiting for data?",
        "window": {"wait": 0, "warmup": 0, "active": 5},
        "options": {
            "record_shapes": False,
            "with_stack": False,
            "profile_memory": False,
        },
        "environment": {"torch": "2.13.0+cpu", "cpu_model": "x"},
    }
    return base | changes


SLOW = [10_000.0, 10_200.0, 10_400.0, 10_100.0, 10_300.0]
FAST = [5_000.0, 5_400.0, 5_200.0, 5_100.0, 5_300.0]
NEAR = [9_900.0, 10_150.0, 10_050.0, 10_500.0, 9_950.0]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def add_note(capsys: pytest.CaptureFixture[str], trace: Path, text: str) -> str:
    status, out, _ = cli(capsys, "notes", "add", str(trace), "--hypothesis", text)
    assert status == 0
    return out.strip()


def sidecar(trace: Path) -> dict[str, Any]:
    raw: dict[str, Any] = orjson.loads(sidecar_path(trace).read_bytes())
    return raw


def test_tested_by_records_the_verdict_and_raw_ranges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = step_trace(tmp_path / "before.json", SLOW, description())
    after = step_trace(tmp_path / "runs" / "after.json", FAST, description())
    note_id = add_note(capsys, before, "the input pipeline does not keep up")
    assert sidecar(before)["schema"] == 2

    status, out, err = cli(
        capsys, "notes", "set", str(before), note_id[:6], "--tested-by", str(after)
    )
    assert (status, out.strip(), err) == (0, note_id, "")
    raw = sidecar(before)
    assert raw["schema"] == 4  # likely_faster: a verdict schema 3 does not know
    tested = raw["notes"][0]["result"]["tested_by"]
    assert tested["verdict"] == "likely_faster"
    assert tested["comparable"] is True
    assert tested["path"] == "runs/after.json"
    assert tested["name"] == "after.json"
    assert tested["size"] == after.stat().st_size
    assert tested["sha256"] == hashlib.sha256(after.read_bytes()).hexdigest()
    assert tested["before_ms"] == pytest.approx([value / 1000 for value in SLOW])
    assert tested["after_ms"] == pytest.approx([value / 1000 for value in FAST])
    median_before = sorted(SLOW)[2]
    median_after = sorted(FAST)[2]
    assert tested["change_pct"] == pytest.approx(
        (median_after - median_before) / median_before * 100
    )
    # The status is the user's to set: the link does not confirm anything by itself.
    assert raw["notes"][0]["status"] == "open"

    status, out, _ = cli(capsys, "notes", str(before))
    words = " ".join(out.split())
    assert "tested by after.json: likely_faster" in words
    assert "before median 10.2 ms per step, range 10 ms–10.4 ms" in words
    assert "after median 5.2 ms per step, range 5 ms–5.4 ms" in words
    assert "tested by:   runs/after.json" in out
    assert max(len(line) for line in out.splitlines()[1:]) <= 80

    status, out, _ = cli(capsys, "notes", "--md", str(before))
    assert "tested by [after.json](<runs/after.json>): likely_faster" in out
    assert "median -49.0%" in out
    # The runs and what moved, as `steptrace diff` names them.
    assert tested["runs"] == {"before": 1, "after": 1}
    status, out, _ = cli(capsys, "diff", str(before), str(after), "--json")
    moved = [entry for entry in orjson.loads(out)["mechanisms"] if entry["moved"]]
    assert moved and [
        (entry["finding"], entry["change_us_per_step"], entry["moved_in"])
        for entry in tested["moved"]
    ] == [(entry["id"], entry["change_us_per_step"], "1/1") for entry in moved]
    # Each worded as the diff's text words it.
    status, out, _ = cli(capsys, "diff", str(before), str(after), "--text")
    assert all(entry["title"] in " ".join(out.split()) for entry in tested["moved"])
    status, out, _ = cli(capsys, "notes", "--md", str(before))
    words = " ".join(out.split())
    assert "— runs: 1 before, 1 after — what moved: " in words


def test_an_inconclusive_diff_never_reads_as_a_speed_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = step_trace(tmp_path / "before.json", SLOW, description())
    after = step_trace(tmp_path / "after.json", NEAR, description())
    note_id = add_note(capsys, before, "a smaller batch helps")
    assert (
        cli(capsys, "notes", "set", str(before), note_id, "--tested-by", str(after))[0]
        == 0
    )
    tested = sidecar(before)["notes"][0]["result"]["tested_by"]
    assert tested["verdict"] == "inconclusive"
    # The medians differ, so a change exists; it is not shown with this verdict.
    assert tested["change_pct"] != 0
    for argv in (("notes", str(before)), ("notes", "--md", str(before))):
        _, out, _ = cli(capsys, *argv)
        out = " ".join(out.split())
        assert "inconclusive (the ranges of step times overlap)" in out
        assert "%" not in out.split("inconclusive", 1)[1]
        assert "faster" not in out and "slower" not in out


def test_slower_and_not_comparable_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = step_trace(tmp_path / "before.json", FAST, description())
    other_window = description(window={"wait": 1, "warmup": 1, "active": 5})
    after = step_trace(tmp_path / "after.json", SLOW, other_window)
    note_id = add_note(capsys, before, "compile the model")
    status, _, err = cli(
        capsys, "notes", "set", str(before), note_id, "--tested-by", str(after)
    )
    assert status == 0
    assert "warning: the two captures are not comparable: window differs" in err
    tested = sidecar(before)["notes"][0]["result"]["tested_by"]
    assert tested["verdict"] == "likely_slower"
    assert tested["comparable"] is False
    assert any("window differs" in warning for warning in tested["warnings"])
    _, out, _ = cli(capsys, "notes", "--md", str(before))
    out = " ".join(out.split())
    assert "): likely_slower" in out
    assert "the captures are not comparable: window differs" in out


def test_result_text_and_status_set_with_the_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = step_trace(tmp_path / "before.json", SLOW)
    after = step_trace(tmp_path / "after.json", FAST)
    note_id = add_note(capsys, before, "prefetch")
    status, _, _ = cli(
        capsys,
        "notes", "set", str(before), note_id, "--tested-by", str(after),
        "--status", "confirmed", "--result", "idle gone", "--before", "12.3",
    )  # fmt: skip
    assert status == 0
    note = sidecar(before)["notes"][0]
    assert note["status"] == "confirmed"
    assert note["result"]["text"] == "idle gone"
    assert note["result"]["before"] == [12.3]
    assert note["result"]["tested_by"]["verdict"] == "likely_faster"
    # Setting other fields later keeps the link.
    assert cli(capsys, "notes", "set", str(before), note_id, "--result", "gone")[0] == 0
    assert (
        sidecar(before)["notes"][0]["result"]["tested_by"]["verdict"] == "likely_faster"
    )


def test_bad_tested_by_inputs_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = step_trace(tmp_path / "before.json", SLOW)
    note_id = add_note(capsys, before, "prefetch")
    status, _, err = cli(
        capsys, "notes", "set", str(before), note_id, "--tested-by", "nope.json"
    )
    assert status == 2 and err == "steptrace: nope.json: no such file\n"
    not_a_trace = tmp_path / "after.json"
    not_a_trace.write_text("hello")
    status, _, err = cli(
        capsys, "notes", "set", str(before), note_id, "--tested-by", str(not_a_trace)
    )
    assert status == 2 and err.startswith("steptrace: ") and err.count("\n") == 1
    status, _, err = cli(
        capsys, "notes", "set", str(before), note_id, "--tested-by", str(before)
    )
    assert status == 2 and "cannot test a hypothesis about itself" in err
    assert "tested_by" not in orjson.dumps(sidecar(before)).decode()


def test_record_refuses_a_diff_of_another_trace(tmp_path: Path) -> None:
    before = step_trace(tmp_path / "before.json", SLOW)
    other = step_trace(tmp_path / "other.json", SLOW)
    after = step_trace(tmp_path / "after.json", FAST)
    store = NotesStore.open(before)
    note = store.add("prefetch")
    diff = TraceDiff.of(Analysis(load_trace(other)), Analysis(load_trace(after)))
    with pytest.raises(InvalidNoteError, match="not the noted trace"):
        record_tested_by(store, note.id, diff, after)


def test_concurrent_sessions_keep_the_link_and_the_other_edits(tmp_path: Path) -> None:
    before = step_trace(tmp_path / "before.json", SLOW)
    after = step_trace(tmp_path / "after.json", FAST)
    first = NotesStore.open(before)
    tested_note = first.add("prefetch")
    other_note = first.add("pin memory")
    first.save()
    second = NotesStore.open(before)

    diff = TraceDiff.of(Analysis(load_trace(before)), Analysis(load_trace(after)))
    record_tested_by(first, tested_note.id, diff, after)
    second.update(other_note.id, status="refuted")
    second.update(tested_note.id, hypothesis="prefetch two batches")
    first.save()
    saved = second.save()

    notes = {
        note.id: note
        for note in parse_document(sidecar_path(before).read_bytes()).notes
    }
    assert notes[other_note.id].status == "refuted"
    # The same note changed in both sessions: both versions are kept.
    assert [conflict.note_id for conflict in saved.conflicts] == [tested_note.id]
    versions = [
        note
        for note in notes.values()
        if note.id == tested_note.id or note.conflict_of == tested_note.id
    ]
    assert len(versions) == 2
    linked = [v for v in versions if v.result and v.result.tested_by]
    assert len(linked) == 1 and linked[0].result is not None
    assert linked[0].result.tested_by is not None
    assert linked[0].result.tested_by.verdict == "likely_faster"
    assert {v.hypothesis for v in versions} == {"prefetch", "prefetch two batches"}


def test_schema_is_3_only_with_a_link_and_old_files_read_back() -> None:
    plain = Note(id="a" * 32, created=WHEN, updated=WHEN, hypothesis="h")
    tested = TestedBy(
        path="after.json",
        name="after.json",
        verdict=Verdict.INCONCLUSIVE,
        comparable=True,
        before_ms=(10.0, 10.4),
        after_ms=(10.1, 10.2),
        change_pct=0.5,
    )
    linked = Note(
        id="b" * 32,
        created=WHEN,
        updated=WHEN,
        hypothesis="h2",
        result=Result("r", tested_by=tested),
    )
    from tui.notes.document import NotesDocument, TraceIdentity

    identity = TraceIdentity("run.json", 10, None)
    assert orjson.loads(dump_document(NotesDocument(identity, (plain,))))["schema"] == 2
    data = dump_document(NotesDocument(identity, (plain, linked)))
    assert orjson.loads(data)["schema"] == 3
    assert parse_document(data).notes[1].result == Result("r", tested_by=tested)
    # A schema-2 file written before links existed reads unchanged.
    old = orjson.dumps(
        {
            "schema": 2,
            "trace": {"name": "run.json"},
            "notes": [
                {
                    "id": "c" * 32,
                    "created": WHEN,
                    "result": {"text": "t", "before": [1], "after": [2], "unit": "ms"},
                }
            ],
        }
    )
    [note] = parse_document(old).notes
    assert note.result == Result("t", (1.0,), (2.0,), "ms")


@pytest.mark.parametrize(
    "changes",
    [
        {"verdict": "maybe faster"},
        {"path": ""},
        {"comparable": "yes"},
        {"before_ms": [float("nan")]},
        {"sha256": "xyz"},
        {"warnings": "one"},
    ],
    ids=["verdict", "path", "comparable", "nan", "sha", "warnings"],
)
def test_tested_by_rejects_bad_values(changes: dict[str, Any]) -> None:
    raw = {
        "path": "a.json",
        "name": "a.json",
        "verdict": "faster",
        "comparable": True,
    } | changes
    with pytest.raises(InvalidNoteError):
        TestedBy.from_dict(raw)


def test_untrusted_link_text_cannot_break_the_markdown_table() -> None:
    tested = TestedBy(
        path="x](evil) | y.json",
        name="x](evil)|\x1b[2J.json",
        verdict=Verdict.FASTER,
        comparable=True,
        before_ms=(2.0,),
        after_ms=(1.0,),
    )
    note = Note(
        id="a" * 32,
        created=WHEN,
        updated=WHEN,
        hypothesis="h",
        result=Result(tested_by=tested),
    )
    markdown = render_markdown([note], None, trace_name="t.json")
    row = markdown.splitlines()[-1]
    assert "\x1b" not in markdown
    unescaped_pipes = row.replace("\\|", "").count("|")
    assert unescaped_pipes == 6  # five cells
    assert "(<x%5D%28evil%29%20%7C%20y.json>)" in row
    assert "\x1b" not in render_text([note])


def test_a_verdict_schema_3_does_not_know_writes_schema_4() -> None:
    """likely_faster is unknown to a steptrace that reads schema 3: such a file
    says 4, so that one leaves it alone; a schema-3 verdict keeps schema 3."""
    from tui.notes.document import schema_for

    def noted(verdict: str) -> Note:
        tested = TestedBy("a.json", "a.json", Verdict(verdict), comparable=True)
        return Note(
            id="d" * 32, created=WHEN, updated=WHEN, result=Result(tested_by=tested)
        )

    assert schema_for([noted("likely_faster")]) == 4
    assert schema_for([noted("identical"), noted("slower")]) == 4
    assert schema_for([noted("slower"), noted("not_comparable")]) == 3
    assert schema_for([]) == 2


def test_a_link_reads_back_its_runs_and_what_moved_and_rejects_bad_ones() -> None:
    from tui.notes.link import Moved

    tested = TestedBy(
        "a.json",
        "a.json",
        Verdict.FASTER,
        comparable=True,
        runs=(3, 3),
        moved=(
            Moved("gpu_idle_data_zone", -58_500.0, "3/3"),
            Moved("gpu_idle_data_zone", -1_000.0, "3/3", "Untraced time in the zone"),
        ),
    )
    raw = tested.to_dict()
    assert raw["runs"] == {"before": 3, "after": 3}
    assert TestedBy.from_dict(raw) == tested
    from tui.report.notes import tested_by_text

    # Without a title, the finding's own by its id; with one, that title.
    assert tested_by_text(tested).endswith(
        "runs: 3 before, 3 after — what moved: GPU idle during the data zone "
        "-58.5 ms per step in 3/3 runs; Untraced time in the zone -1 ms per step "
        "in 3/3 runs"
    )
    for bad in (
        {"runs": {"before": 0, "after": 3}},
        {"runs": [3, 3]},
        {"moved": [{"finding": "x", "change_us_per_step": 1.0, "moved_in": "all"}]},
        {"moved": [{"finding": "", "change_us_per_step": 1.0, "moved_in": "1/1"}]},
        {"moved": "x"},
    ):
        with pytest.raises(InvalidNoteError):
            TestedBy.from_dict(raw | bad)
    # An older link (no runs, no moved) reads as before, and keeps schema 3.
    old = {key: value for key, value in raw.items() if key not in ("runs", "moved")}
    assert TestedBy.from_dict(old).runs is None

"""summary's per-step zones column shows the data zone: the
chosen zone's names with their time in that step, other annotations kept apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import cpu, metadata, training_step_events, write_trace
from tui.cli import main

LOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def _summary(
    path: Path, capsys: pytest.CaptureFixture[str], *zone: str
) -> tuple[str, dict[str, Any]]:
    flags = [arg for name in zone for arg in ("--zone", name)]
    assert main(["summary", str(path), *flags]) == 0
    text = capsys.readouterr().out
    assert main(["summary", str(path), *flags, "--json"]) == 0
    return text, orjson.loads(capsys.readouterr().out)


def _step_rows(text: str) -> dict[int, str]:
    """The steps table's rows, by step number."""
    rows: dict[int, str] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) > 2 and words[0].isdigit() and words[1] in {"active", "startup"}:
            rows[int(words[0])] = line
    return rows


def _loader_step(step: int, at: float, read_us: float) -> list[dict[str, Any]]:
    """A PyTorch 1.9-style step: the DataLoader range is an operator, not an
    annotation; then a forward annotation with an operator inside it."""
    return [
        cpu(f"ProfilerStep#{step}", at, 1000, cat="user_annotation"),
        cpu(LOADER, at + 5, read_us, cat="cpu_op"),
        cpu("aten::stack", at + 10, 20, cat="cpu_op"),
        cpu("## forward ##", at + read_us + 20, 500, cat="user_annotation"),
        cpu("aten::mm", at + read_us + 30, 400, cat="cpu_op"),
    ]


def test_the_dataloader_range_fills_the_zones_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = metadata() + _loader_step(1, 0, 200) + _loader_step(2, 1000, 350)
    path = write_trace(tmp_path / "loader.json", events)
    text, summary = _summary(path, capsys)
    assert summary["gaps"]["zones"] == ["enumerate(DataLoader)#…"]
    steps = {row["step"]: row for row in summary["steps"]}
    assert steps[1]["zones"] == [
        {"zone": "enumerate(DataLoader)#…", "count": 1, "duration_ms": 0.2}
    ]
    assert steps[2]["zones"] == [
        {"zone": "enumerate(DataLoader)#…", "count": 1, "duration_ms": 0.35}
    ]
    # Other annotations are kept apart, never in the data zone's column.
    assert steps[1]["annotations"] == [
        {"name": "## forward ##", "count": 1, "duration_ms": 0.5}
    ]
    rows = _step_rows(text)
    assert rows[1].endswith("enumerate(DataLoader)#… 200 µs")
    assert rows[2].endswith("enumerate(DataLoader)#… 350 µs")
    assert "## forward ##" not in text
    assert "data zone" in next(
        line for line in text.splitlines() if "step" in line.split()[:1]
    )


def test_lecture_batch_cpu_is_the_column_and_other_annotations_stay_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Step 1 reads on two threads: 10..310 µs and 250..400 µs, so the zone
    # holds 390 µs of it (the union), in 2 occurrences; step 2 reads 300 µs.
    events = (
        metadata()
        + training_step_events(1, 0)
        + training_step_events(2, 1000)
        + [cpu("lecture_batch_cpu", 250, 150, cat="user_annotation", tid=200)]
    )
    path = write_trace(tmp_path / "lecture.json", events)
    text, summary = _summary(path, capsys)
    steps = {row["step"]: row for row in summary["steps"]}
    assert steps[1]["zones"] == [
        {"zone": "lecture_batch_cpu", "count": 2, "duration_ms": 0.39}
    ]
    assert steps[2]["zones"] == [
        {"zone": "lecture_batch_cpu", "count": 1, "duration_ms": 0.3}
    ]
    assert steps[1]["zone_us"] == 390.0
    names = {entry["name"] for entry in steps[1]["annotations"]}
    assert names == {"transfert", "entrainement"}
    rows = _step_rows(text)
    assert rows[1].endswith("lecture_batch_cpu 390 µs")
    assert rows[2].endswith("lecture_batch_cpu 300 µs")
    assert "transfert" not in text and "entrainement" not in text


def test_the_users_zone_is_the_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    path = write_trace(tmp_path / "chosen.json", events)
    text, summary = _summary(path, capsys, "transfert")
    steps = {row["step"]: row for row in summary["steps"]}
    assert steps[1]["zones"] == [{"zone": "transfert", "count": 1, "duration_ms": 0.1}]
    assert {entry["name"] for entry in steps[1]["annotations"]} == {
        "lecture_batch_cpu",
        "entrainement",
    }
    assert _step_rows(text)[1].endswith("transfert 100 µs")


def test_a_step_without_the_zone_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = (
        metadata()
        + training_step_events(1, 0)
        + [cpu("ProfilerStep#2", 1000, 1000, cat="user_annotation")]
    )
    path = write_trace(tmp_path / "missing.json", events)
    text, summary = _summary(path, capsys)
    steps = {row["step"]: row for row in summary["steps"]}
    assert steps[2]["zones"] == []
    # No gap and no data zone: both columns say so.
    assert _step_rows(text)[2].split()[-2:] == ["–", "–"]

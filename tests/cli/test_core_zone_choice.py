"""Choosing the data zone: defaults, --zone, unknown names, and no zone at all."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.builders.traces import cpu, metadata, training_step_events, write_trace
from tui.cli import main
from tui.core.base.vocab import ZoneSource
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.description import CaptureDescription


def _two_steps(tmp_path: Path) -> Path:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    return write_trace(tmp_path / "t.json", events)


def test_default_zone_and_its_source(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(_two_steps(tmp_path)))
    assert analysis.zone_choice.names == ("lecture_batch_cpu",)
    assert analysis.zone_choice.source is ZoneSource.DEFAULT
    assert analysis.gaps


def test_another_zone_shares_the_zone_free_figures(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(_two_steps(tmp_path)))
    parent = analysis.parent
    table = analysis.self_cpu_ns
    other = analysis.with_zones(["entrainement"])
    assert other.parent is parent and other.self_cpu_ns is table
    assert other.zone_choice.source is ZoneSource.CHOSEN
    assert {gap.zone for gap in other.gaps} == {"entrainement"}
    # The first analysis keeps its own zone.
    assert {gap.zone for gap in analysis.gaps} == {"lecture_batch_cpu"}


def test_an_unknown_zone_exits_2_with_the_closest_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _two_steps(tmp_path)
    for command in ("summary", "gaps", "zones"):
        assert main([command, str(path), "--zone", "lecture_batch"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "no range named 'lecture_batch'" in err
        assert "lecture_batch_cpu" in err


def test_no_data_zone_reads_dash_and_null_never_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 100, cat="user_annotation"),
        cpu("aten::mm", 10, 50),
    ]
    path = write_trace(tmp_path / "nozone.json", events)
    assert main(["summary", str(path), "--json"]) == 0
    summary = orjson.loads(capsys.readouterr().out)
    assert summary["gaps"]["total_gap_us"] is None
    assert summary["gaps"]["source"] == "none"
    assert [step["gap_us"] for step in summary["steps"]] == [None]
    assert main(["summary", str(path)]) == 0
    text = capsys.readouterr().out
    assert "0 ns of 0 ns" not in text and "no data zone" in text
    step_line = next(
        line for line in text.splitlines() if line.strip().startswith("1 ")
    )
    assert "–" in step_line and "0 ns" not in step_line
    assert main(["gaps", str(path)]) == 0
    gaps_text = capsys.readouterr().out
    assert "no data zone" in gaps_text and "0 ns of 0 ns" not in gaps_text
    assert main(["gaps", str(path), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["total_gap_us"] is None


def test_zones_lists_candidates_with_the_chosen_one_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["zones", str(_two_steps(tmp_path)), "--json"]) == 0
    listed = orjson.loads(capsys.readouterr().out)
    names = [item["name"] for item in listed["candidates"]]
    assert names[0] == "lecture_batch_cpu" and listed["candidates"][0]["chosen"]
    assert "entrainement" in names and "ProfilerStep#1" not in names
    counts = {item["name"]: item["calls"] for item in listed["candidates"]}
    assert counts["lecture_batch_cpu"] == 2


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "text",
        {"question": 3, "window": "1,1,2", "active_steps": ["x", 2], "unit": []},
        {"scenario": {"batch_size": True}, "startup": {"steps": [{"ms": "1"}]}},
    ],
    ids=["none", "not-an-object", "wrong-types", "bool-is-not-int"],
)
def test_a_malformed_description_reads_as_unknown(raw: object) -> None:
    capture = CaptureDescription.parse(raw)
    assert capture.question is None
    assert capture.window is None
    assert capture.samples_per_step is None
    assert capture.unit_name == "ms/step"
    assert capture.startup.steps == ()
    if isinstance(raw, dict) and "active_steps" in raw:
        assert capture.active_steps == frozenset({2})


def test_an_unknown_zone_suggests_only_close_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--zone lecture_batch` on a trace without it suggested 'closest: detach_'
    (half the letters in common): a name is suggested only when it is close,
    else the refusal says no range has a close name."""
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("detach_", 10, 100, cat="user_annotation"),
        cpu("forward", 200, 500, cat="user_annotation"),
    ]
    path = write_trace(tmp_path / "far.json", events)
    assert main(["summary", str(path), "--zone", "lecture_batch"]) == 2
    err = capsys.readouterr().err
    assert "detach_" not in err
    assert "no range has a name close to it" in err
    assert "steptrace zones" in err

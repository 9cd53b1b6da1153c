"""The user's own per-step annotation is proposed as the data zone when the
capture holds no known one, used, and said so; never proposed otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.torch_captures import capture_handler_folder
from tests.builders.traces import cpu, metadata, write_trace
from tui.cli import main
from tui.core.base.vocab import ZoneSource
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace

SAID = (
    "data zone: load_batch (your annotation, once per step); --zone to choose another"
)


@pytest.fixture(scope="module")
def own_loop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder from tensorboard_trace_handler: the batch read in load_batch."""
    (written,) = capture_handler_folder(tmp_path_factory.mktemp("own"))
    return written.parent


def test_findings_fire_the_data_zone_finding_on_the_users_annotation(
    own_loop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["findings", str(own_loop), "--json"]) == 0
    captured = capsys.readouterr()
    assert SAID in captured.err
    findings = json.loads(captured.out)["findings"]
    data_zone = next(f for f in findings if f["id"] == "gpu_idle_data_zone")
    assert data_zone["status"] in ("likely", "possible"), data_zone
    # The annotation is the data zone, never "one operator".
    for finding in findings:
        if finding["id"] == "dominant_op":
            assert "load_batch" not in finding["observation"]


def test_a_cpu_capture_says_not_observed_once_and_counts_untraced_time(
    own_loop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["findings", str(own_loop)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.count("not observed") == 1, text
    assert "untraced time in the data zone per step" in text
    assert "device idle" not in text


def test_summary_gaps_and_report_say_which_zone_and_how_to_choose(
    own_loop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(own_loop)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "(load_batch; your annotation, once per step; --zone to choose another)" in text
    )
    assert main(["report", str(own_loop)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "Data zone: load_batch (your annotation, once per step); --zone to choose another."
        in text
    )
    assert main(["gaps", str(own_loop), "--zone", "load_batch"]) == 0
    assert "your annotation" not in capsys.readouterr().err


def _steps(
    read: list[tuple[str, float, float, float]], count: int = 3
) -> list[dict[str, Any]]:
    """`count` 1 ms steps; `read` names annotations (name, start, duration, and
    the operator inside it, in µs relative to each step)."""
    events = metadata()
    for step in range(count):
        at = step * 1000.0
        events.append(cpu(f"ProfilerStep#{step + 1}", at, 1000, cat="user_annotation"))
        for name, start, duration, work in read:
            events.append(cpu(name, at + start, duration, cat="user_annotation"))
            events.append(cpu("aten::add", at + start + 1, work))
    return events


def _choice(tmp_path: Path, read: list[tuple[str, float, float, float]]) -> Any:
    trace = load_trace(write_trace(tmp_path / "t.json", _steps(read)))
    return Analysis(trace).zone_choice


def test_the_annotation_holding_the_most_untraced_time_is_proposed(
    tmp_path: Path,
) -> None:
    choice = _choice(tmp_path, [("fetch", 10, 300, 10), ("collate", 400, 500, 10)])
    assert (choice.names, choice.source) == (("collate",), ZoneSource.PROPOSED)


def test_an_annotation_twice_in_a_step_is_not_proposed(tmp_path: Path) -> None:
    choice = _choice(tmp_path, [("fetch", 10, 300, 10), ("fetch", 400, 300, 10)])
    assert choice.source is ZoneSource.NONE and choice.names == ()


def test_a_range_around_operators_is_not_proposed(tmp_path: Path) -> None:
    """`forward` is once per step but its operators fill it: not a read."""
    choice = _choice(tmp_path, [("forward", 10, 600, 500)])
    assert choice.source is ZoneSource.NONE


def test_one_step_is_no_repetition_and_proposes_nothing(tmp_path: Path) -> None:
    events = _steps([("fetch", 10, 600, 10)], count=1)
    trace = load_trace(write_trace(tmp_path / "one.json", events))
    assert len(Analysis(trace).steps) == 1
    assert Analysis(trace).zone_choice.source is ZoneSource.NONE


def test_a_sliver_of_the_step_is_not_proposed(tmp_path: Path) -> None:
    choice = _choice(tmp_path, [("tick", 10, 30, 1)])
    assert choice.source is ZoneSource.NONE


def test_a_known_zone_is_kept_and_nothing_proposed(tmp_path: Path) -> None:
    choice = _choice(
        tmp_path, [("lecture_batch_cpu", 10, 100, 10), ("fetch", 200, 600, 10)]
    )
    assert (choice.names, choice.source) == (("lecture_batch_cpu",), ZoneSource.DEFAULT)


def test_the_apps_header_names_the_proposed_zone_and_the_key(tmp_path: Path) -> None:
    from tui.app.widgets.header_line import zone_words

    trace = load_trace(
        write_trace(tmp_path / "t.json", _steps([("fetch", 10, 600, 10)]))
    )
    assert zone_words(Analysis(trace)) == (
        "fetch (your annotation, once per step; z chooses another)"
    )

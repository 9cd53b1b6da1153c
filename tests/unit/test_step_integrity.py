"""Steps that would go silently wrong are counted once, kept or named.

A step record written twice is one step; two steps sharing one number, steps
on another thread and timestamps far outside the trace's span are each named
in the capture's warnings (the summary's lines, the app's warnings), with
what was done about them.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.builders.traces import BASE_US, cpu, training_steps, write_trace
from tui.core.base.vocab import CacheUse
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.summary import capture_warnings


def _analysis(tmp_path: Path, events: list[dict[str, Any]]) -> Analysis:
    return Analysis(
        load_trace(write_trace(tmp_path / "t.json", events), cache=CacheUse.OFF)
    )


def _step_event(events: list[dict[str, Any]], number: int) -> dict[str, Any]:
    return next(e for e in events if e.get("name") == f"ProfilerStep#{number}")


def test_a_clean_capture_warns_of_nothing(tmp_path: Path) -> None:
    analysis = _analysis(tmp_path, training_steps(3))
    assert [step.number for step in analysis.steps] == [1, 2, 3]
    assert capture_warnings(analysis) == []


def test_a_step_record_written_twice_is_one_step_and_named(tmp_path: Path) -> None:
    events = training_steps(3)
    events.append(copy.deepcopy(_step_event(events, 2)))
    analysis = _analysis(tmp_path, events)
    assert [step.number for step in analysis.steps] == [1, 2, 3]
    (warning,) = capture_warnings(analysis)
    assert "ProfilerStep#2" in warning and "counted once" in warning


def test_two_steps_sharing_one_number_are_both_kept_and_named(tmp_path: Path) -> None:
    events = training_steps(3)
    _step_event(events, 3)["name"] = "ProfilerStep#2"
    analysis = _analysis(tmp_path, events)
    assert [step.number for step in analysis.steps] == [1, 2, 2]
    (warning,) = capture_warnings(analysis)
    assert "ProfilerStep#2" in warning and "2 different steps" in warning


def test_steps_on_another_thread_are_named(tmp_path: Path) -> None:
    events = training_steps(3)
    events.append(cpu("ProfilerStep#9", 5000, 500, cat="user_annotation", tid=200))
    analysis = _analysis(tmp_path, events)
    assert [step.number for step in analysis.steps] == [1, 2, 3]
    (warning,) = capture_warnings(analysis)
    assert "1 step on another thread" in warning and "left out" in warning


def test_timestamps_far_outside_the_span_are_named(tmp_path: Path) -> None:
    events = training_steps(3)
    stray = cpu("aten::empty", 0, 1)
    stray["ts"] = 0
    events.append(stray)
    early = cpu("aten::zeros", 0, 1)
    early["ts"] = -1
    events.append(early)
    analysis = _analysis(tmp_path, events)
    assert [step.number for step in analysis.steps] == [1, 2, 3]
    (warning,) = capture_warnings(analysis)
    assert "2 events" in warning and "far outside" in warning


def test_a_long_run_is_not_far_outside(tmp_path: Path) -> None:
    """Events spread evenly over an hour are a long capture, not strays."""
    events = training_steps(2)
    events += [cpu("aten::add", hour * 3_600e6 / 10, 1) for hour in range(10)]
    assert BASE_US > 0
    analysis = _analysis(tmp_path, events)
    assert capture_warnings(analysis) == []

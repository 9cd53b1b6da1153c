"""Torch-free parts of the collector: windows, scenarios, labels, names."""

from __future__ import annotations

from pathlib import Path

import pytest

from collector.errors import InvalidSettingError, OutputExistsError
from collector.labels import label_problems
from collector.paths import (
    cycle_path,
    publish_fresh,
    resolve_output,
    temporary_sibling,
    write_new_file,
)
from collector.schema import Scenario, Window
from collector.tracefile import observed_activities, recorded_steps


def test_teaching_default_window() -> None:
    window = Window()
    assert (
        window.wait,
        window.warmup,
        window.active,
        window.repeat,
        window.skip_first,
    ) == (1, 1, 2, 1, 0)
    assert [window.phase_of(step) for step in range(5)] == [
        "wait",
        "warmup",
        "active",
        "active",
        "after",
    ]
    assert window.total_steps == 4 and window.active_steps() == [2, 3]


def test_window_parse_and_refusals() -> None:
    assert Window.parse("2, 1, 3") == Window(2, 1, 3)
    assert Window.parse("0,1,1,2,5") == Window(0, 1, 1, 2, 5)
    for text in ("1,1", "1,1,0", "a,b,c", "1,1,2,0", "-1,1,2"):
        with pytest.raises(InvalidSettingError):
            Window.parse(text)


def test_repeated_window_phases_match_torch() -> None:
    torch = pytest.importorskip("torch")
    window = Window(wait=1, warmup=2, active=2, repeat=2, skip_first=3)
    schedule = torch.profiler.schedule(
        wait=1, warmup=2, active=2, repeat=2, skip_first=3
    )
    names = {
        "NONE": "wait",
        "WARMUP": "warmup",
        "RECORD": "active",
        "RECORD_AND_SAVE": "active",
    }
    for step in range(window.total_steps):
        assert window.phase_of(step) == names[schedule(step).name], step
    assert window.phase_of(window.total_steps) == "after"
    assert window.active_steps(1) == [11, 12]


def test_scenario_from_pairs() -> None:
    scenario = Scenario.from_pairs(
        ["batch_size=64", "compiled=yes", "mode=eval", "inputs_simplified=true"]
    )
    assert (
        scenario.batch_size == 64
        and scenario.compiled is True
        and scenario.mode == "eval"
    )
    with pytest.raises(InvalidSettingError):
        Scenario.from_pairs(["colour=blue"])
    with pytest.raises(InvalidSettingError):
        Scenario.from_pairs(["mode=sometimes"])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lecture_batch_cpu", []),
        ("tokenize_batch", []),
        ("transfert", []),
        ("read bob.smith@corp.example.org", ["e-mail"]),
        ("api_key=abc", ["token or secret"]),
        ("ghp_0123456789abcdefABCDEF", ["token or secret"]),
        ("load aZ3kQ9mP2xL7vB4nR8tY1wE6", ["token or secret"]),
        ("load /home/alice/data/train.bin", ["home-folder path"]),
        ("C:\\Users\\alice\\x", ["home-folder path"]),
        ("the quick brown fox jumps over the lazy dog", ["input content"]),
        ('prompt "hello"', ["input content"]),
    ],
)
def test_label_checks(name: str, expected: list[str]) -> None:
    problems = label_problems(name)
    assert len(problems) == len(expected), problems
    for problem, word in zip(problems, expected, strict=True):
        assert word in problem
        assert name not in problem


def test_existing_cycle_companion_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.cycle2.json").write_text("x")
    resolve_output(tmp_path / "t.json", "trace", cycles=1)
    with pytest.raises(OutputExistsError, match=r"t\.cycle2\.json"):
        resolve_output(tmp_path / "t.json", "trace", cycles=2)
    assert cycle_path(tmp_path / "t.json.gz", 2).name == "t.cycle3.json.gz"


def test_publishing_never_replaces(tmp_path: Path) -> None:
    final = tmp_path / "r.json"
    assert write_new_file(final, b"one") == final
    second = write_new_file(final, b"two")
    assert (
        second != final
        and final.read_bytes() == b"one"
        and second.read_bytes() == b"two"
    )
    temporary = temporary_sibling(final, "test")
    temporary.write_bytes(b"three")
    third = publish_fresh(temporary, final)
    assert third not in (final, second) and not temporary.exists()
    assert final.read_bytes() == b"one"


def test_observed_activities_and_steps() -> None:
    events = [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7"},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm"},
        {"ph": "M", "name": "process_name"},
    ]
    assert observed_activities(events) == ["cpu"]
    assert observed_activities(
        [*events, {"ph": "X", "cat": "kernel", "name": "gemm"}]
    ) == ["cpu", "cuda"]
    assert recorded_steps(events) == [7]

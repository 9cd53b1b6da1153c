"""A long capture's per-step tables are cut in text (every step stays in --json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.report.text import STEP_ROWS_SHOWN


def test_summary_text_lists_the_first_steps_and_says_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = STEP_ROWS_SHOWN + 5
    events = list(metadata())
    for index in range(steps):
        at = 100.0 * index
        events.append(cpu(f"ProfilerStep#{index}", at, 90, cat="user_annotation"))
        events.append(cpu("lecture_batch_cpu", at, 40, cat="user_annotation"))
        events.append(gpu("k", at + 50, 10))
    path = write_trace(tmp_path / "t.json", events)
    assert main(["summary", str(path)]) == 0
    text = capsys.readouterr().out
    assert text.count("… 5 more steps (every step in --json)") == 2  # both tables
    lines = text.splitlines()
    step_rows = [
        line
        for line in lines
        if line.split()[:2] == [str(STEP_ROWS_SHOWN - 1), "active"]
    ]
    assert step_rows and not any(line.split()[:1] == [str(steps - 1)] for line in lines)
    assert "average" in text
    assert main(["summary", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["steps"]) == steps
    assert len(result["step_breakdown"]["steps"]) == steps

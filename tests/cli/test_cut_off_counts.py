"""A cut-off file's two counts of events say what each counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.cli import main
from tui.core.ingest.load import load_trace


def test_the_summary_and_the_cut_off_warning_say_what_they_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One truncated file read "events 375" in the summary and "kept the 396
    events" in its warning: the warning counted every record kept (metadata,
    flows, instants), the summary only the events with a duration. Each says
    which it counts."""
    events = metadata()
    for step in (1, 2, 3):
        events += training_step_events(step, (step - 1) * 1000.0)
    whole = write_trace(tmp_path / "whole.json", events).read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(whole[: len(whole) * 4 // 5])
    trace = load_trace(cut)
    assert main(["summary", str(cut)]) == 0
    captured = capsys.readouterr()
    text = " ".join((captured.out + captured.err).split())
    timed = re.search(r"events ([\d,]+) with a duration", text)
    kept = re.search(
        r"kept the ([\d,]+) records \(events of every kind, metadata included\)"
        r" written before the cut",
        text,
    )
    assert timed is not None and kept is not None, text
    assert int(timed.group(1).replace(",", "")) == trace.event_count
    assert int(kept.group(1).replace(",", "")) > trace.event_count

"""Integers too big for the columns or for JSON (a memcpy of 2^63 bytes, 2^64 in
the capture description) are bad values like any other: dropped and counted,
never an OverflowError or an orjson TypeError."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import metadata, training_step_events
from tui.cli import main

HUGE = 2**64 + 5


def _write(path: Path, copy_bytes: int, description: dict[str, Any]) -> Path:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    copies = [event for event in events if event.get("cat") == "gpu_memcpy"]
    copies[0]["args"]["bytes"] = "COPY_BYTES"
    text = orjson.dumps(
        {"schemaVersion": 1, "steptrace": description, "traceEvents": events}
    ).decode()
    # orjson cannot write integers past 64 bits: placed by hand.
    text = text.replace('"COPY_BYTES"', str(copy_bytes)).replace('"HUGE"', str(HUGE))
    path.write_text(text)
    return path


DESCRIPTION: dict[str, Any] = {
    "schema": 1,
    "question": "is the GPU waiting for data?",
    "scenario": {"batch_size": "HUGE"},
    "window": {"wait": "HUGE", "active": 2},
    "unit": {"name": "ms/step", "samples_per_step": "HUGE"},
    "environment": {"WORLD": "HUGE"},
    "distributed": {"world_size": "HUGE", "rank": 0},
    "startup": [{"step": "HUGE", "what": "x"}],
    "extra_number": "HUGE",
    "nested": [{"deep": "HUGE"}],
}


@pytest.mark.parametrize("copy_bytes", [2**63, 2**64 - 1, HUGE])
def test_copies_drop_a_size_past_int64(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], copy_bytes: int
) -> None:
    def unknown_sizes(copy_bytes: int) -> int:
        trace = _write(tmp_path / "t.json", copy_bytes, {"schema": 1})
        assert main(["copies", str(trace), "--json"]) == 0
        out = capsys.readouterr().out
        assert copy_bytes <= 1024 or str(copy_bytes) not in out
        found = re.search(r'"unknown_size": (\d+)', out)
        assert found is not None
        return int(found.group(1))

    # Counted like a copy whose size the trace does not give.
    assert unknown_sizes(copy_bytes) == unknown_sizes(1024) + 1
    assert main(["copies", str(tmp_path / "t.json")]) == 0


@pytest.mark.parametrize("command", ["summary", "report"])
def test_json_output_survives_huge_integers_in_the_description(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    trace = _write(tmp_path / "t.json", 1024, DESCRIPTION)
    assert main([command, str(trace), "--json"]) == 0
    out = capsys.readouterr().out
    payload = json.loads(out)
    assert str(HUGE) not in out
    assert "8 value(s) of the capture description were dropped" in out
    assert payload  # a whole document

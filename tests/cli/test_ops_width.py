"""`ops` names use the terminal's width: whole when they fit, cut at their end
otherwise (never in the middle), whole with --wide and always in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.traces import cpu, metadata, write_trace
from tui.cli import main

LONG = "autograd::engine::evaluate_function: AddmmBackward0"
TWIN = "autograd::engine::evaluate_function: MmBackward0"


@pytest.fixture
def long_names(tmp_path: Path) -> Path:
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu(LONG, 10, 400),
        cpu(TWIN, 500, 300),
    ]
    return write_trace(tmp_path / "long.json", events)


def _ops(trace: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    assert main(["ops", str(trace), *flags]) == 0
    return capsys.readouterr().out


def test_at_200_columns_long_names_are_whole(
    long_names: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    out = _ops(long_names, capsys)
    assert LONG in out and TWIN in out
    assert max(map(len, out.splitlines())) <= 200


def test_at_80_columns_names_are_cut_at_their_end(
    long_names: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = _ops(long_names, capsys)
    assert LONG not in out
    rows = [line for line in out.splitlines() if line.startswith("autograd")]
    assert len(rows) == 2
    for row in rows:
        name = row.split("  ")[0].rstrip()
        # Cut at the end: the start of the name, then the ellipsis.
        assert name.endswith("…") and LONG.startswith(name[:-1]), row
    assert max(map(len, out.splitlines())) <= 80


def test_wide_and_json_keep_every_name_whole(
    long_names: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = _ops(long_names, capsys, "--wide")
    assert LONG in out and TWIN in out
    data = json.loads(_ops(long_names, capsys, "--json"))
    assert {LONG, TWIN} <= {row["name"] for row in data["ops"]}


def test_zones_names_take_the_width_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    zone = "a_user_annotation_whose_name_runs_well_past_forty_four_cells"
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu(zone, 10, 400, cat="user_annotation"),
    ]
    trace = write_trace(tmp_path / "zone.json", events)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["zones", str(trace)]) == 0
    narrow = capsys.readouterr().out
    assert zone not in narrow and zone[:40] in narrow
    assert max(map(len, narrow.splitlines())) <= 80
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["zones", str(trace)]) == 0
    assert zone in capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["zones", str(trace), "--wide"]) == 0
    assert zone in capsys.readouterr().out

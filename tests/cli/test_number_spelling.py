"""One way to print each kind of number in the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from tests.builders.app_traces import write_training_trace
from tests.builders.traces import cpu, write_trace
from tui.cli import main


@pytest.fixture(autouse=True)
def data_dir(isolated_data_dir: Path) -> Path:
    return isolated_data_dir


def _steps(path: Path, durations_us: list[float]) -> Path:
    events = []
    at = 0.0
    for number, duration in enumerate(durations_us):
        events.append(
            cpu(f"ProfilerStep#{number}", at, duration, cat="user_annotation")
        )
        events.append(cpu("aten::mm", at + 10, duration / 4))
        at += duration + 50
    return write_trace(path, events)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    main(list(argv))
    return capsys.readouterr().out


def test_diff_json_change_pct_is_rounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _steps(tmp_path / "a.json", [10_000, 10_200, 10_400, 10_100, 10_300])
    after = _steps(tmp_path / "b.json", [5_003, 5_401, 5_207, 5_101, 5_303])
    data = orjson.loads(_cli(capsys, "diff", "--json", str(before), str(after)))
    change = data["steps"]["change_pct"]
    assert change == round(change, 1), change


def test_whole_microseconds_read_without_zeros(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Integer data reads '230 µs', never '230.000 µs'; no doubled words."""
    trace = _steps(tmp_path / "t.json", [230, 10_000, 10_200])
    out = _cli(capsys, "summary", str(trace))
    assert not re.search(r"\d\.\d*0 (s|ms|µs)\b", out), out


def test_no_doubled_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = write_training_trace(tmp_path / "gpu.json", gpu=True)
    out = " ".join(_cli(capsys, "summary", str(trace)).split())
    assert "busy device busy" not in out
    assert re.search(r"busy [\d.]+ m?s on the device", out), out


def test_summary_zones_are_whole_or_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The data zone column never cuts a duration: whole entries, then +N."""
    trace = write_training_trace(tmp_path / "gpu.json", gpu=True)
    out = _cli(capsys, "summary", str(trace))
    rows = out.split("  data zone\n", 1)[1].splitlines()[:3]
    for row in rows:
        cell = row.split("  ")[-1]
        assert re.fullmatch(
            r"(\S+ [\d.]+ (s|ms|µs|ns))(, \S+ [\d.]+ \w+)*(, \+\d+)?", cell
        ), row

"""`steptrace gaps` weighs its gaps: a floor (`--min-us`), a limit (`--limit`, the
largest kept), and the slivers and the rest summed in one line, never listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main

STEP_US = 1000.0


def sliver_trace(path: Path) -> Path:
    """Three steps: a data zone 0..500 µs; per step one big gap (300 µs, then
    250 and 200) before 17 kernels of 10 µs with 2 µs slivers between them."""
    events = list(metadata())
    for index in range(3):
        at = index * STEP_US
        lead = 300 - 50 * index
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        events.append(cpu("lecture_batch_cpu", at, 500, cat="user_annotation"))
        for k in range(17):
            events.append(gpu("k", at + lead + 12 * k, 10))
        events.append(gpu("gemm", at + lead + 12 * 17, 1000 - lead - 12 * 17))
    return write_trace(path, events)


def gaps_json(path: Path, capsys: pytest.CaptureFixture[str], *more: str) -> dict:  # type: ignore[type-arg]
    assert main(["gaps", str(path), "--json", *more]) == 0
    result: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return result


def test_slivers_are_summed_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sliver_trace(tmp_path / "t.json")
    result = gaps_json(path, capsys)
    assert [gap["duration_us"] for gap in result["gaps"]] == [300.0, 250.0, 200.0]
    assert result["min_us"] == 10.0
    # Slivers of 2 µs: 16 between the kernels and one before the gemm, which
    # in step 1 starts past the zone's end (504 µs): 16 + 17 + 17.
    assert result["slivers"] == {"count": 50, "total_us": pytest.approx(100.0)}
    assert result["listed_share_pct"] == pytest.approx(100 * 750 / (750 + 100))
    everything = gaps_json(path, capsys, "--min-us", "0")
    assert len(everything["gaps"]) == 3 + 50
    assert everything["slivers"]["count"] == 0
    assert main(["gaps", str(path)]) == 0
    text = capsys.readouterr().out
    assert "3 gaps of 10 µs or more listed hold 88.2% of the gap time" in text
    assert "… 50 slivers under 10 µs: 100 µs in all (--min-us 0 lists them)" in text
    assert text.count("lecture_batch_cpu") == 4  # the zone line and three gaps


def test_limit_keeps_the_largest_in_time_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sliver_trace(tmp_path / "t.json")
    result = gaps_json(path, capsys, "--limit", "2")
    assert [gap["step"] for gap in result["gaps"]] == [1, 2]
    assert result["past_limit"] == {"count": 1, "total_us": 200.0}
    assert main(["gaps", str(path), "--limit", "2"]) == 0
    assert "… 1 smaller gap past --limit 2: 200 µs in all" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--min-us", "-1"], "--min-us must be 0 or more"),
        (["--limit", "-2"], "--limit"),
    ],
)
def test_bad_flags_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    path = sliver_trace(tmp_path / "t.json")
    assert main(["gaps", str(path), *flags]) == 2
    assert message in capsys.readouterr().err

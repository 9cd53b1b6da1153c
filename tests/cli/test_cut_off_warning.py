"""A cut-off file is said first, on stderr, with what the figures cover and no
share of a loss nobody can measure; `--strict` makes it an error."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from tests.builders.traces import cpu, metadata, training_step_events, write_trace
from tui.cli import main

RESULT_COMMANDS = ("summary", "ops", "findings", "gaps", "report", "zones", "kernels")


def _cut(whole: bytes, path: Path, share: float = 0.4) -> Path:
    path.write_bytes(whole[: int(len(whole) * share)])
    return path


@pytest.fixture
def cut_generated(tmp_path: Path) -> Path:
    """Four steps written in time order, cut at 40 % of the bytes."""
    events = metadata()
    for step in (1, 2, 3, 4):
        events += training_step_events(step, (step - 1) * 1000.0)
    whole = write_trace(tmp_path / "whole.json", events).read_bytes()
    return _cut(whole, tmp_path / "cut.json")


def _warnings(err: str) -> list[str]:
    return [
        line.removeprefix("steptrace: warning: ")
        for line in err.splitlines()
        if line.startswith("steptrace: warning: ")
    ]


def test_a_real_trace_cut_at_40_percent_says_so_first_on_stderr(
    shared_traces: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy holding 40 % of the bytes never reads as a tiny loss: the first
    stderr line says the file ends mid-event and which steps are whole."""
    source = (
        shared_traces
        / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    )
    cut = _cut(gzip.decompress(source.read_bytes()), tmp_path / "cut.json")
    assert main(["summary", str(cut)]) == 0
    captured = capsys.readouterr()
    warnings = _warnings(captured.err)
    assert warnings, captured.err
    first = warnings[0]
    assert "ends mid-event (cut off, or still being written)" in first
    assert "1 of the 5 steps found whole (#101," in first
    assert "the other 4 may lack what came after the cut" in first
    assert "device work only" in first
    everything = captured.err + captured.out
    assert "%" not in " ".join(warnings)
    assert "lost" not in everything
    assert "of what was read" not in everything


def test_a_generated_cut_names_the_whole_steps_and_the_time_reached(
    cut_generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(cut_generated)]) == 0
    first = _warnings(capsys.readouterr().err)[0]
    covered = re.search(r"(\d) of the (\d) steps found whole \(([^)]*)\)", first)
    assert covered is not None, first
    whole, found = int(covered.group(1)), int(covered.group(2))
    assert 1 <= whole < found <= 4, first
    assert re.search(r"events reach [\d.]+ (ms|µs) into the capture", first), first


@pytest.mark.parametrize("command", RESULT_COMMANDS)
def test_every_result_command_warns_once_before_its_output(
    command: str, cut_generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, str(cut_generated)]) == 0
    captured = capsys.readouterr()
    warnings = _warnings(captured.err)
    assert "ends mid-event" in warnings[0]
    assert len(warnings) == len(set(warnings))
    # The report is a document pasted into a ticket: it carries its warnings.
    assert ("ends mid-event" in captured.out) == (command == "report")


def test_summary_counts_its_warnings_instead_of_repeating_them(
    cut_generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(cut_generated)]) == 0
    captured = capsys.readouterr()
    count = len(_warnings(captured.err))
    text = " ".join(captured.out.split())
    assert f"warnings {count} printed on stderr before this summary" in text
    assert "kept the" not in captured.out


def test_strict_exits_3_after_the_output_when_the_capture_has_warnings(
    cut_generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ops", str(cut_generated), "--strict"]) == 3
    assert "aten::" in capsys.readouterr().out


def test_strict_exits_0_on_a_sound_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = metadata() + training_step_events(1, 0.0)
    path = write_trace(tmp_path / "whole.json", events)
    assert main(["summary", str(path), "--strict"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_cut_between_steps_claims_no_more_than_it_knows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cut where step 3 would begin: step 1 is whole, step 2 may be, and how
    many steps the file would have held is not guessed."""
    events = metadata()
    for step in (1, 2, 3, 4):
        events += training_step_events(step, (step - 1) * 1000.0)
    whole = write_trace(tmp_path / "whole.json", events).read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(whole[: whole.index(b'"ProfilerStep#3"') - 20])
    assert main(["summary", str(cut)]) == 0
    first = _warnings(capsys.readouterr().err)[0]
    assert "1 of the 2 steps found whole (#1, 1 ms)" in first
    assert "the other may lack what came after the cut" in first
    assert "%" not in first and "device work only" not in first


def test_steps_with_events_after_them_are_all_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Events written after the last step kept show every step is whole."""
    events = metadata()
    for step in (1, 2):
        events += training_step_events(step, (step - 1) * 1000.0)
    events.append(cpu("aten::empty", 2500.0, 10))
    events.append(cpu("aten::zeros", 2600.0, 10))
    whole = write_trace(tmp_path / "whole.json", events).read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(whole[: whole.rindex(b'"aten::zeros"') - 20])
    assert main(["summary", str(cut)]) == 0
    first = _warnings(capsys.readouterr().err)[0]
    assert "the figures cover the 2 steps written before the cut (#1–#2, 2 ms)" in first

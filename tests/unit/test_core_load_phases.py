"""Load phases are one vocabulary: the loader reports them in order, front ends read them."""

from __future__ import annotations

from pathlib import Path

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.core.base.vocab import GapKind, LoadPhase
from tui.core.ingest.load import LoadProgress, load_trace
from tui.report.progress import load_line


def test_a_load_reports_its_phases_in_order(tmp_path: Path) -> None:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    path = write_trace(tmp_path / "t.json.gz", events, gz=True)
    seen: list[LoadProgress] = []
    load_trace(path, progress=seen.append)
    phases = [step.phase for step in seen]
    assert all(isinstance(phase, LoadPhase) for phase in phases)
    assert phases[0] is LoadPhase.DECOMPRESSING
    assert {LoadPhase.EVENTS, LoadPhase.PAIRING, LoadPhase.TRACKS} <= set(phases)
    positions = [phase.position for phase in phases]
    assert positions == sorted(positions)


def test_words_print_as_themselves() -> None:
    """A str enum prints as `LoadPhase.READING` on Python 3.12 unless told otherwise."""
    assert f"{LoadPhase.READING}" == "reading" == str(LoadPhase.READING)
    assert f"{GapKind.UNTRACED:>10}" == "  untraced"
    line = load_line(LoadProgress(LoadPhase.READING, 50, 100))
    assert line == "steptrace: reading  50.0%"
    detailed = LoadProgress(LoadPhase.ANALYSING, 1, 1, detail="12 events")
    assert load_line(detailed) == "steptrace: analysing 12 events"


def test_the_decoding_line_shows_each_workers_part_of_the_whole() -> None:
    """Workers take pieces from one queue: each one's share is its part of all
    the bytes, and the shares add up to the percentage."""
    step = LoadProgress(LoadPhase.DECODING, 600, 1000, workers=((400, 450), (200, 300)))
    assert load_line(step) == "steptrace: decoding  60.0% (2 workers: 40% 20%)"

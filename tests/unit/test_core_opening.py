"""One way to open things: zones resolved to a choice or a typed refusal (worded
once), a capture opened with its phases, a pair compared on the same zone."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.core.base.errors import LoadCancelled
from tui.core.base.vocab import LoadPhase, ZoneSource
from tui.core.ingest.load import LoadProgress, load_trace
from tui.core.opening.capture import OpenedCapture, open_capture, open_pair, rezone
from tui.core.opening.zones import (
    MissingZone,
    ZoneRefusal,
    ZonesChosen,
    ZoneScope,
    closest_names,
    resolve_zones,
)
from tui.report.refusals import forgotten_zone_notice, zone_refusal_lines


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    return write_trace(tmp_path / "t.json", events)


def test_a_name_asked_for_that_occurs_nowhere_is_refused_with_the_closest(
    capture: Path,
) -> None:
    refused = resolve_zones(load_trace(capture), ["lecture_batch", "transfert"])
    assert refused == ZoneRefusal(
        ZoneScope.CAPTURE,
        (MissingZone("lecture_batch", ("lecture_batch_cpu",)),),
        str(capture),
    )
    assert zone_refusal_lines(refused) == [
        "no range named 'lecture_batch' in this capture; closest: lecture_batch_cpu"
    ]


def test_a_refusal_without_close_names_says_where_to_look(capture: Path) -> None:
    refused = resolve_zones(load_trace(capture), ["zzz", "enumerate(DataLoader)#1"])
    assert isinstance(refused, ZoneRefusal)
    assert zone_refusal_lines(refused) == [
        "no range named 'zzz' in this capture; no range has a name close to it; "
        f"`steptrace zones {capture}` lists "
        "the ranges that can be a data zone",
        "no range named 'enumerate(DataLoader)#…' in this capture; this capture "
        "has no enumerate(DataLoader)#… range",
    ]


def test_closest_names_by_spelling_then_by_containing() -> None:
    present = ["lecture_batch_cpu", "transfert", "entrainement", "x_batch_y"]
    assert closest_names("lecture_bach", present) == ("lecture_batch_cpu",)
    assert closest_names("BATCH", present) == ("lecture_batch_cpu", "x_batch_y")
    assert closest_names("nothing", present) == ()
    assert closest_names("lecture_batch", ["detach_", "forward"]) == ()


def test_remembered_names_that_occur_nowhere_are_left_out_and_said(
    capture: Path,
) -> None:
    trace = load_trace(capture)
    some = resolve_zones(trace, remembered=["transfert", "gone"])
    assert isinstance(some, ZonesChosen)
    assert some.analysis.zone_choice.names == ("transfert",)
    assert some.forgotten == ("gone",) and not some.default_kept
    assert forgotten_zone_notice(some) == (
        "the data zone remembered for this trace (gone) is not in it"
    )
    none = resolve_zones(trace, remembered=["gone"])
    assert isinstance(none, ZonesChosen)
    assert none.analysis.zone_choice.source is ZoneSource.DEFAULT
    assert forgotten_zone_notice(none) == (
        "the data zone remembered for this trace (gone) is not in it; "
        "the default one is used"
    )
    asked = resolve_zones(trace, ["entrainement"], remembered=["transfert"])
    assert isinstance(asked, ZonesChosen)
    assert asked.analysis.zone_choice.names == ("entrainement",)
    assert forgotten_zone_notice(asked) is None


def test_open_capture_reports_the_analysing_phase_last(capture: Path) -> None:
    seen: list[LoadProgress] = []
    opened = open_capture(capture, asked=["transfert"], progress=seen.append)
    assert isinstance(opened, OpenedCapture)
    assert seen[-1].phase is LoadPhase.ANALYSING
    assert seen[-1].text == f"analysing {opened.trace.event_count:,} events"
    assert opened.analysis.zone_choice.names == ("transfert",)
    shown = opened.for_screen(findings=False)
    assert shown.findings is None and shown.op_table is not None


def test_a_cancelled_open_raises(capture: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LoadCancelled):
        open_capture(capture, cancel=cancel)


def test_a_pair_is_refused_only_for_a_name_in_neither(
    capture: Path, tmp_path: Path
) -> None:
    other = write_trace(tmp_path / "o.json", metadata() + training_step_events(1, 0))
    pair = open_pair(capture, other, asked=["transfert"])
    assert not isinstance(pair, ZoneRefusal)
    assert pair.before.zone_choice.names == pair.after.zone_choice.names
    refused = open_pair(capture, other, asked=["nowhere"])
    assert isinstance(refused, ZoneRefusal)
    assert zone_refusal_lines(refused) == [
        "no range named 'nowhere' in either capture; `steptrace zones TRACE` lists "
        "the ranges that can be a data zone"
    ]


def test_rezone_reads_the_new_zone_and_its_findings(capture: Path) -> None:
    opened = open_capture(capture)
    assert isinstance(opened, OpenedCapture)
    rezoned = rezone(opened.analysis, ("transfert",))
    assert rezoned.analysis.zone_choice.source is ZoneSource.CHOSEN
    assert rezoned.analysis.trace is opened.trace
    back = rezone(rezoned.analysis, ())
    assert back.analysis.zone_choice == opened.analysis.zone_choice

"""On a big capture search runs in a worker: the keys stay free meanwhile, the
matches are the file's, drawn as the synchronous path draws them, and a search
answered after the marks were cleared is dropped."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from rich.style import Style

from tests.pilot import info, make_app, pilot_test, settle, workers_done
from tui.app.screens import marks
from tui.app.screens.main import MainScreen
from tui.app.widgets import timeline as timeline_module
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline
from tui.core.figures.analysis import group_name
from tui.view import lanes, marking


def hold(
    monkeypatch: pytest.MonkeyPatch, finder: str
) -> tuple[threading.Event, list[str]]:
    """Every capture is marked in a worker, whose `finder` (a function of
    `tui.view.marking` the marks call) waits for the event; the threads it ran on."""
    monkeypatch.setattr(marks, "SEARCH_IN_WORKER_AT", 0)
    release = threading.Event()
    threads: list[str] = []
    find = getattr(marking, finder)

    def waiting(trace, what):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        release.wait(10)
        return find(trace, what)

    monkeypatch.setattr(marks, finder, waiting)
    return release, threads


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[str]]:
    """Every capture is searched in a worker, which waits for the event."""
    return hold(monkeypatch, "name_matches")


def raw_matches(path: Path, needle: str) -> list[float]:
    """Start times of the complete events whose name contains `needle` (any case)."""
    events = json.loads(path.read_text())["traceEvents"]
    return sorted(
        event["ts"]
        for event in events
        if event.get("ph") == "X" and needle.lower() in event["name"].lower()
    )


def _lines(timeline: Timeline) -> list[tuple[str, list[Style | None]]]:
    timeline._line_cache.clear()
    lines = []
    for y in range(timeline.size.height):
        strip = timeline.render_line(y)
        lines.append((strip.text, [segment.style for segment in strip]))
    return lines


@pilot_test
async def test_matches_come_from_a_worker_and_draw_as_the_direct_path(
    cuda_trace: Path,
    held: tuple[threading.Event, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release, threads = held
    drawn_here: list[str] = []
    lazily = lanes.marked_lanes

    def spied(lanes, mask):  # type: ignore[no-untyped-def]
        drawn_here.append(threading.current_thread().name)
        return lazily(lanes, mask)

    monkeypatch.setattr(timeline_module, "marked_lanes", spied)
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("slash", *"ReLU", "enter")
        await pilot.pause()
        # Held: nothing marked yet, the status line says what is going on, keys work.
        assert screen.marks.size == 0
        assert "searching event names for ReLU" in info(screen)
        await pilot.press("w")
        release.set()
        await workers_done(pilot)
        assert threads and threads[0] != threading.main_thread().name
        expected = raw_matches(cuda_trace, "relu")
        assert screen.marks.size == len(expected) > 0
        starts = (screen.trace.start_ns[screen.marks] + screen.trace.origin_ns) / 1000
        assert starts.tolist() == pytest.approx(expected)
        assert f"1/{len(expected)}" in info(screen)
        timeline = screen.query_one(Timeline)
        # The rows' marks came with the worker's answer: none was built to draw.
        assert timeline._row_marks and drawn_here == []
        prepared = _lines(timeline)
        timeline.mark_events(screen.marks)  # the direct path, rows built lazily
        assert _lines(timeline) == prepared
        assert any(
            "underline" in str(style) for _, styles in prepared for style in styles
        )


@pilot_test
async def test_a_search_answered_after_esc_is_dropped(
    cuda_trace: Path, held: tuple[threading.Event, list[str]]
) -> None:
    release, _ = held
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("slash", *"relu", "enter")
        await pilot.pause()
        await pilot.press("escape")  # clears the marks while the worker searches
        release.set()
        await workers_done(pilot)
        assert screen.marks.size == 0
        assert screen.query_one(Timeline)._marked_mask is None


@pilot_test
async def test_an_operator_is_marked_in_a_worker_and_enter_waits_for_it(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a big capture the operator under the table's cursor is marked in a
    worker; Enter pressed before its marks come visits its first occurrence
    once they do, never one of the operator marked before."""
    release, threads = hold(monkeypatch, "events_named")
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OperatorTable)
        await pilot.press("1", "down")
        release.set()
        await workers_done(pilot)
        first = table.current_name
        assert first is not None and screen.marks.size
        before = screen.marks.copy()
        release.clear()
        await pilot.press("down")
        second = table.current_name
        assert second is not None and second != first
        await pilot.press("enter")  # the second's marks are not there yet
        await pilot.pause()
        assert (screen.marks == before).all()
        selected = screen.timeline.selected_event
        assert selected is None or screen.trace.event_name(selected) == first
        release.set()
        await workers_done(pilot)
        assert threads and threads[-1] != threading.main_thread().name
        occurrences = [
            event["ts"]
            for event in json.loads(cuda_trace.read_text())["traceEvents"]
            if event.get("ph") == "X" and group_name(event["name"]) == second
        ]
        assert screen.marks.size == len(occurrences) > 0
        selected = screen.timeline.selected_event
        assert selected is not None
        assert group_name(screen.trace.event_name(selected)) == second
        start = (screen.trace.start_ns[selected] + screen.trace.origin_ns) / 1000
        assert start == pytest.approx(min(occurrences))


@pilot_test
async def test_an_operator_marking_that_fails_says_so_and_frees_the_keys(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(marks, "SEARCH_IN_WORKER_AT", 0)

    def broken(trace, name_ids):  # type: ignore[no-untyped-def]
        raise ValueError("no such column")

    monkeypatch.setattr(marks, "events_named", broken)
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("1", "down")
        await workers_done(pilot)
        assert "could not mark" in info(screen) and "no such column" in info(screen)
        assert screen.marked._pending is None  # n / N are not held for it
        await pilot.press("slash", *"relu", "enter")
        await workers_done(pilot)
        assert screen.marks.size > 0
        await pilot.press("n")
        assert screen.timeline.selected_event is not None

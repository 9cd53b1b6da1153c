"""A new user's walk through the explorer: each rough edge found, as a check.

Traces are written by `builders.app_traces` (their figures are known by
construction) or read from ../shared/traces when present.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from tests import shared_traces as shared
from tests.builders.app_traces import write_training_trace
from tests.pilot import main_screen, make_app, settle, workers_finished
from tui.app.screens.details import event_details
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.header_line import HeaderLine
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline
from tui.core.base.vocab import RowRole
from tui.core.results.ops import OpsResult

TRACES = shared.FOLDER
NS_TRACE = TRACES / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
CPU_ONLY = TRACES / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
REAL = pytest.mark.usefixtures("shared_traces")


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(test())


def info(screen: MainScreen) -> str:
    return str(screen.query_one("#info-line").render())


def offered(screen: MainScreen) -> set[str]:
    """Actions the footer offers now (enabled and shown)."""
    return {
        active.binding.action
        for active in screen.active_bindings.values()
        if active.enabled and active.binding.show
    }


def test_keys_typed_at_once_after_slash_go_to_the_search(cuda_trace: Path) -> None:
    """A fast typist's '/addmm⏎' arrives in one burst: all of it is the search."""

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            for key, character in [("slash", "/"), *[(c, c) for c in "addmm"]]:
                app.post_message(events.Key(key, character))
            app.post_message(events.Key("enter", "\r"))
            await pilot.pause()
            await pilot.pause()
            assert screen.marks.size == 3  # one aten::addmm per step
            assert screen.mark_label.startswith("search addmm")

    run(scenario)


def test_a_key_typed_right_after_a_tab_key_goes_to_that_tab(cuda_trace: Path) -> None:
    """'1i' in one burst: the i is the operator table's (rows by input shape),
    not lost on the timeline the focus was leaving."""

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            table = screen.query_one(OperatorTable)
            assert not table.has_focus
            for key in "1i":
                app.post_message(events.Key(key, key))
            await pilot.pause()
            await pilot.pause()
            assert table.has_focus and table.by_shape

    run(scenario)


def test_a_key_typed_right_after_a_search_goes_to_the_timeline(
    cuda_trace: Path,
) -> None:
    """'/addmm⏎n' in one burst: n visits the second match, it is not typed into
    the prompt that just closed."""

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            keys = [("slash", "/"), *[(c, c) for c in "addmm"], ("enter", "\r")]
            for key, character in [*keys, ("n", "n")]:
                app.post_message(events.Key(key, character))
            for _ in range(4):
                await pilot.pause()
            assert screen.query_one(Timeline).has_focus
            assert "2/3" in str(screen.query_one("#info-line").render())

    run(scenario)


def test_keys_typed_right_after_esc_leave_the_prompt(cuda_trace: Path) -> None:
    """'/zz⎋1i' in one burst: Esc closes the prompt, 1 and i reach the table."""

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            keys = [("slash", "/"), ("z", "z"), ("z", "z"), ("escape", None)]
            for key, character in [*keys, ("1", "1"), ("i", "i")]:
                app.post_message(events.Key(key, character))
            for _ in range(4):
                await pilot.pause()
            prompt = screen.query_one("#prompt", Input)
            assert prompt.has_class("hidden") and prompt.value == "zz"
            table = screen.query_one(OperatorTable)
            assert table.has_focus and table.by_shape
            assert not screen.mark_label.startswith("search")

    run(scenario)


def test_f_fits_what_was_selected_last(cuda_trace: Path) -> None:
    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            timeline = screen.query_one(Timeline)
            await pilot.press("b")  # a gap: a range
            await pilot.press("slash", *"relu", "enter")  # then an event
            event = timeline.selected_event
            assert event is not None
            await pilot.press("f")
            start = int(screen.trace.start_ns[event])
            end = start + int(screen.trace.duration_ns[event])
            assert (timeline.view_start_ns, timeline.view_end_ns) == (start, end)
            # A gap chosen after the event is what f fits next.
            await pilot.press("g", "f")
            gap = screen.analysis.gaps[screen.gap_index or 0]
            assert (timeline.view_start_ns, timeline.view_end_ns) == (
                gap.start_ns,
                gap.end_ns,
            )

    run(scenario)


def test_the_footer_offers_only_keys_that_act(cuda_trace: Path) -> None:
    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            keys = offered(screen)
            assert "activate" not in keys  # nothing selected: no "Enter details"
            assert "gap(1)" in keys and "step(1)" in keys and "zone" in keys
            await pilot.press("down")
            timeline = screen.query_one(Timeline)
            assert timeline.selected_event is not None
            assert "activate" in offered(screen)
            assert "Enter: details" in info(screen)
            # An empty spot: no details offered, the status line says so too.
            timeline.fit(0, 50_000)  # before the first zone: an empty cell
            timeline.action_row(0)
            await pilot.pause()
            assert timeline.selected_event is None
            assert "activate" not in offered(screen)
            assert "Enter: details" not in info(screen)

    run(scenario)


@REAL
def test_no_data_zone_hides_gap_keys_and_g_says_how_to_choose(
    isolated_data_dir: Path,
) -> None:
    async def scenario() -> None:
        app = make_app(NS_TRACE)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            assert not screen.analysis.gaps
            assert "gap(1)" not in offered(screen)
            assert "z chooses one" in info(screen)
            await pilot.press("g")
            messages = [str(n.message) for n in app._notifications]
            assert any("z chooses one" in message for message in messages)

    run(scenario)


def test_at_80x24_the_header_keeps_the_whole_gpu_reason(cpu_trace: Path) -> None:
    async def scenario() -> None:
        app = make_app(cpu_trace)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await main_screen(pilot)
            header = screen.query_one(HeaderLine)
            shown = " ".join(
                strip.text.strip()
                for strip in (header.render_line(y) for y in range(header.size.height))
            )
            # The fixture's description gives this reason: every word is on screen.
            assert "GPU not observed" in shown
            assert "CUDA is not available on this machine" in " ".join(shown.split())
            assert "zone lecture_batch_cpu (default)" in shown

    run(scenario)


@REAL
def test_at_80x24_a_gpu_trace_shows_its_first_stream(isolated_data_dir: Path) -> None:
    async def scenario() -> None:
        app = make_app(NS_TRACE)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await main_screen(pilot)
            timeline = screen.query_one(Timeline)
            shown = [timeline.render_line(y).text for y in range(timeline.size.height)]
            assert any("stream 7" in line for line in shown), shown
            # The axis is whole words: the cursor cut no tick label.
            words = re.split("[ ╵▼│]+", shown[0].split("│", 1)[1])
            assert all(re.fullmatch(r"\d+(\.\d+)?(s|ms|µs|ns)", w) for w in words if w)

    run(scenario)


@pytest.mark.usefixtures("shared_traces")
def test_at_80x24_different_threads_never_read_the_same(
    isolated_data_dir: Path,
) -> None:
    async def scenario() -> None:
        app = make_app(CPU_ONLY)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await main_screen(pilot)
            timeline = screen.query_one(Timeline)
            width = timeline._label_width()
            labels = [
                timeline.render_line(y).text[:width]
                for y, row in enumerate(timeline._rows[: timeline.size.height])
                if row.role is RowRole.TRACK and row.first_of_track
            ]
            assert len(labels) >= 3 and len(set(labels)) == len(labels), labels

    run(scenario)


def test_positions_read_from_the_trace_start_in_the_zooms_unit(
    cuda_trace: Path,
) -> None:
    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            await pilot.press("slash", *"addmm", "enter")
            # The first aten::addmm starts 4.6 ms after the trace start.
            assert re.search(r"at 4\.6\d* ms", info(screen)), info(screen)
            await pilot.press("b")
            assert re.search(r" at \d{1,3}(\.\d+)? ms", info(screen)), info(screen)

    run(scenario)


def test_details_show_argument_names_in_full(tmp_path: Path) -> None:
    path = tmp_path / "args.json"
    names = {"Record function id": 7, "Sequence number": 12, "Fwd thread id": 1}
    path.write_text(
        json.dumps(
            {
                "traceEvents": [
                    {
                        "ph": "X",
                        "cat": "cpu_op",
                        "name": "aten::mm",
                        "pid": 1,
                        "tid": 1,
                        "ts": 1.0,
                        "dur": 5.0,
                        "args": names,
                    }
                ]
            }
        )
    )
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace

    text = event_details(Analysis(load_trace(path)), 0).plain
    for name, value in names.items():
        assert re.search(rf"^{name}\s+{value}$", text, re.M) or (
            f"{name}\n" in text and f" {value}\n" in text
        ), text


@pytest.mark.parametrize("gpu", [True, False], ids=["cuda", "cpu-only"])
def test_operator_table_starts_in_the_order_of_steptrace_ops(
    tmp_path: Path, isolated_data_dir: Path, gpu: bool
) -> None:
    path = write_training_trace(tmp_path / "t.json", gpu=gpu)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await main_screen(pilot)
            table = screen.query_one(OperatorTable)
            shown = [table.table.names[int(row)] for row in table.order]
            cli = OpsResult.of(screen.window_table)
            assert shown == [screen.window_table.names[int(r)] for r in cli.rows]

    run(scenario)


def test_any_failure_while_loading_shows_the_error_and_exits_2(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.core.findings import readings as findings

    def broken(analysis: Any) -> Any:
        raise RuntimeError("boom in a reading")

    monkeypatch.setattr(findings, "compute_findings", broken)

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, LoadErrorScreen)
            assert "RuntimeError" in screen.reason and "boom" in screen.reason
            await pilot.press("q")
        assert app.return_code == 2

    run(scenario)


def test_notes_are_saved_and_the_trace_hashed_off_the_ui_thread(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.notes.store import NotesStore

    threads: dict[str, list[str]] = {"save": [], "hash": []}
    save, set_hash = NotesStore.save, NotesStore.set_trace_sha256

    def recording_save(self: NotesStore) -> Any:
        threads["save"].append(threading.current_thread().name)
        return save(self)

    def recording_hash(self: NotesStore, sha256: str) -> bool:
        threads["hash"].append(threading.current_thread().name)
        return set_hash(self, sha256)

    monkeypatch.setattr(NotesStore, "save", recording_save)
    monkeypatch.setattr(NotesStore, "set_trace_sha256", recording_hash)

    async def scenario() -> None:
        app = make_app(cuda_trace)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            await pilot.press("right_square_bracket", "m", *"slow read", "ctrl+s")
            for _ in range(3):
                await workers_finished(app)
                await pilot.pause()
            assert [n.hypothesis for n in screen.notes_store.notes] == ["slow read"]
        ui = threading.main_thread().name
        assert threads["save"] and ui not in threads["save"]
        assert threads["hash"] and ui not in threads["hash"]
        # Nothing but the trace and its notes beside it.
        assert sorted(p.name for p in cuda_trace.parent.iterdir()) == [
            "train-cuda.json",
            "train-cuda.json.notes.json",
        ]

    run(scenario)

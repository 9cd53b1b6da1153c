"""Behaviour of the explorer through Textual's Pilot: what the keys change."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.builders.app_traces import (
    write_bad_trace,
    write_hostile_trace,
)
from tests.pilot import make_app, pilot_test, settle, workers_finished
from tui.app.dialogs.note_form import NoteForm
from tui.app.screens.details import DetailsScreen
from tui.app.screens.help import HelpScreen
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline


def _info(screen: MainScreen) -> str:
    return str(screen.query_one("#info-line").render())


@pilot_test
async def test_self_total_changes_values_and_order(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OperatorTable)
        table.set_sort("cpu", descending=True)
        assert "Self CPU" in table.header_text()
        self_order = table.order.copy()
        self_values = [table.values(int(row))[1] for row in self_order]
        await pilot.press("t")
        assert "Total CPU" in table.header_text()
        total_values = [table.values(int(row))[1] for row in table.order]
        assert not np.array_equal(self_order, table.order)
        assert total_values != self_values
        assert total_values == sorted(total_values, reverse=True)
        # Steps contain everything: in total mode they come first.
        assert table.current_name is not None
        assert table.table.names[int(table.order[0])] == "ProfilerStep*"


@pilot_test
async def test_g_selects_next_gap_with_its_figures(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        gaps = screen.analysis.gaps
        assert len(gaps) == 3
        await pilot.press("g")
        timeline = screen.query_one(Timeline)
        first = gaps[0]
        assert timeline.selected_range == (
            first.start_ns,
            first.start_ns + first.duration_ns,
        )
        info = _info(screen)
        assert "gap 1/3" in info and "GPU idle" in info
        assert "lecture_batch_cpu" in info and "step 1" in info and "3 ms" in info
        await pilot.press("g")
        assert "gap 2/3" in _info(screen)
        await pilot.press("G", "G")
        assert "gap 3/3" in _info(screen)
        await pilot.press("b")
        assert "3.7 ms" in _info(screen)


@pilot_test
async def test_cpu_only_gap_is_untraced_never_gpu_idle(cpu_trace: Path) -> None:
    app = make_app(cpu_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("g")
        info = _info(screen)
        assert "untraced time" in info and "GPU idle" not in info
        header = str(screen.query_one("#header-line").render())
        assert "GPU not observed" in header
        assert "CUDA is not available" in header
        assert "GPU n/o" in screen.query_one(OperatorTable).header_text()


@pilot_test
async def test_search_marks_and_steps_through_matches(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("slash", *"RELU", "enter")
        # 12 aten::relu and 12 relu kernels in each of 3 steps.
        assert screen.marks.size == 72
        timeline = screen.query_one(Timeline)
        assert timeline.selected_event is not None
        assert "relu" in screen.trace.event_name(timeline.selected_event).lower()
        assert "1/72" in _info(screen)
        await pilot.press("n")
        assert "2/72" in _info(screen)
        await pilot.press("N", "N")
        assert "72/72" in _info(screen)
        starts = screen.trace.start_ns[screen.marks]
        assert np.all(np.diff(starts) >= 0)


@pilot_test
async def test_enter_opens_details_with_launched_gpu_work(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"aten::addmm", "enter", "enter")
        assert isinstance(app.screen, DetailsScreen)
        text = str(app.screen.query_one("#details-text").render())
        assert "aten::addmm" in text
        assert "self CPU" in text and "total GPU" in text
        assert "ampere_sgemm_128x64_nn" in text
        assert "Input Dims" in text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@pilot_test
@pytest.mark.slow
async def test_hostile_names_stay_text(tmp_path: Path, isolated_data_dir: Path) -> None:
    path = write_hostile_trace(tmp_path / "hostile.json")
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OperatorTable)
        await pilot.press("1")
        for _ in range(len(table.order)):
            await pilot.press("down")
        await pilot.press("slash", *"[@click", "enter")
        assert screen.marks.size == 2
        await pilot.press("enter")
        assert isinstance(app.screen, DetailsScreen)
        await pilot.press("escape", "2", "3", "question_mark", "escape")
        await pilot.pause()
        assert app.is_running
        assert app.return_code is None
        shown = " ".join(table._shown)
        assert "\\x1b[2J" in shown and "\\u202eevil" in shown and "\\x9b31m" in shown
        assert "\x1b" not in shown and "\u202e" not in shown


@pilot_test
async def test_bad_file_shows_load_error(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    app = make_app(write_bad_trace(tmp_path / "bad.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LoadErrorScreen)
        assert app.screen.reason
        assert "\n" not in app.screen.reason
        await pilot.press("q")
    assert not app.is_running
    assert app.return_code == 2


@pilot_test
async def test_missing_file_shows_load_error(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    app = make_app(tmp_path / "nowhere.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LoadErrorScreen)


@pilot_test
async def test_escape_cancels_loading(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.core.base.errors import LoadCancelled
    from tui.core.ingest import load

    started = threading.Event()

    def slow_load(
        path: Any,
        *,
        progress: Any = None,
        cancel: Any = None,
        cache: Any = None,
        workers: Any = None,
        max_memory: Any = None,
    ) -> Any:
        started.set()
        assert cancel is not None
        cancel.wait(10)
        raise LoadCancelled()

    monkeypatch.setattr(load, "load_trace", slow_load)
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        assert started.wait(5)
        await pilot.press("escape")
        await workers_finished(app)
        await pilot.pause()
    assert app.return_code == 130


@pilot_test
async def test_zoom_changes_visible_range(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        timeline = app.screen.query_one(Timeline)
        span = timeline.view_end_ns - timeline.view_start_ns
        await pilot.press("w")
        assert timeline.view_end_ns - timeline.view_start_ns < span
        await pilot.press("f")
        assert timeline.view_end_ns - timeline.view_start_ns == span


@pilot_test
async def test_steps_filter_and_scope(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        timeline = screen.query_one(Timeline)
        await pilot.press("right_square_bracket")
        step = screen.analysis.steps[0]
        assert timeline.selected_range == (step.start_ns, step.end_ns)
        await pilot.press("right_square_bracket")
        assert screen.current_step == 1
        table = screen.query_one(OperatorTable)
        await pilot.press("S")
        await workers_finished(app)  # a step's table is built off the UI
        await pilot.pause()
        assert table.scope_label == "step 2"
        assert int(table.table.calls[table.table.names.index("aten::relu")]) == 12
        await pilot.press("F", *"aten", "enter")
        names = [table.table.names[int(row)] for row in table.order]
        assert names and all("aten" in name for name in names)


@pilot_test
async def test_operator_selection_marks_occurrences(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        table = screen.query_one(OperatorTable)
        await pilot.press("1")
        table.select_name("aten::relu")
        await pilot.pause()
        assert screen.marks.size == 36
        names = {screen.trace.event_name(int(e)) for e in screen.marks}
        assert names == {"aten::relu"}


@pilot_test
async def test_notes_add_status_delete(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("right_square_bracket", "m")
        assert isinstance(app.screen, NoteForm)
        await pilot.press(*"input pipeline is slow", "ctrl+s")
        await workers_finished(app)  # notes are saved off the UI
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        store = screen.notes_store
        assert [note.hypothesis for note in store.notes] == ["input pipeline is slow"]
        note = store.notes[0]
        assert note.anchor is not None and note.anchor.kind == "step"
        assert store.location.exists()
        # On disk, not only in memory: a fresh store reads the same note back.
        from tui.notes import NotesStore

        reread = NotesStore.open(cuda_trace)
        assert [n.hypothesis for n in reread.notes] == ["input pipeline is slow"]
        await pilot.press("3", "s")
        await workers_finished(app)
        assert store.notes[0].status == "confirmed"
        await pilot.press("x", "y")
        await workers_finished(app)
        await pilot.pause()
        assert store.notes == []


@pilot_test
async def test_finding_note_is_prefilled(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "m")
        form = app.screen
        assert isinstance(form, NoteForm)
        assert "input pipeline" in form.draft.hypothesis
        assert form.anchor_label.startswith("finding")


@pilot_test
async def test_help_and_palette_list_every_action(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        commands = {
            command.title: command for command in app.get_system_commands(screen)
        }
        for wanted in (
            "Next gap",
            "Self/total",
            "Search event names",
            "Note",
            "Zoom in",
        ):
            assert wanted in commands
        assert "Sort by next column" in commands and "Next status" in commands
        await commands["Biggest gap"].callback()
        await pilot.pause()
        assert isinstance(screen, MainScreen)
        assert "gap 3/3" in _info(screen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(str(widget.render()) for widget in app.screen.query("Static"))
        for key in ("[ ", "] ", "Zoom in", "Next gap", "Biggest gap", "Self/total"):
            assert key in text


def _fake_capture(script: str) -> Callable[..., list[str]]:
    def argv(**_: Any) -> list[str]:
        return [sys.executable, "-c", script]

    return argv


@pilot_test
async def test_capture_dialog_opens_the_new_trace(
    cuda_trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.app.dialogs import capture

    new_trace = tmp_path / "captured.json"
    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from pathlib import Path\n"
        "from tests.builders.app_traces import write_training_trace\n"
        "print('steptrace: step 1/2 (active)', flush=True)\n"
        "print('steptrace: step 2/2 (active)', flush=True)\n"
        f"write_training_trace(Path({str(new_trace)!r}), steps=2)\n"
        f"print({str(new_trace)!r})\n"
    )
    monkeypatch.setattr(capture, "capture_argv", _fake_capture(script))
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        assert isinstance(app.screen, capture.CaptureDialog)
        await pilot.press("ctrl+r")
        for _ in range(100):
            await workers_finished(app)
            await pilot.pause()
            if isinstance(app.screen, MainScreen) and app.screen.path == new_trace:
                break
        assert isinstance(app.screen, MainScreen)
        assert app.screen.path == new_trace
        assert len(app.screen.analysis.steps) == 2


@pilot_test
async def test_capture_failure_shows_output(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Log

    from tui.app.dialogs import capture

    script = "import sys; print('torch is not installed here'); sys.exit(2)"
    monkeypatch.setattr(capture, "capture_argv", _fake_capture(script))
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c", "ctrl+r")
        for _ in range(50):
            await workers_finished(app)
            await pilot.pause()
            if app.screen.process is None:  # type: ignore[attr-defined]
                break
        assert isinstance(app.screen, capture.CaptureDialog)
        lines = "\n".join(app.screen.query_one(Log).lines)
        assert "torch is not installed here" in lines
        assert "status 2" in lines


def test_capture_argv_refuses_existing_output(tmp_path: Path) -> None:
    from tui.app.dialogs.capture import capture_argv

    existing = tmp_path / "taken.json"
    existing.write_text("{}")
    with pytest.raises(ValueError, match="already exists"):
        capture_argv(
            demo=True, command="", output=str(existing), window="1,1,2", question=""
        )
    with pytest.raises(ValueError, match="WAIT,WARMUP,ACTIVE"):
        capture_argv(demo=True, command="", output="auto", window="2", question="")
    argv = capture_argv(
        demo=False,
        command="python train.py --epochs 1",
        output=str(tmp_path / "new.json"),
        window="1,1,2",
        question="is the GPU waiting?",
    )
    assert argv[1:4] == ["-m", "tui", "capture"]
    assert argv[-4:] == ["--", "python", "train.py", "--epochs"] or argv[-5:] == [
        "--",
        "python",
        "train.py",
        "--epochs",
        "1",
    ]


@pilot_test
async def test_operator_table_at_100k_rows_draws_only_what_is_seen() -> None:
    from textual.app import App, ComposeResult

    from tui.core.figures.analysis import OpTable

    rows = 100_000
    generator = np.random.default_rng(3)
    cpu = generator.integers(1, 10**7, rows).astype(np.int64)
    table = OpTable(
        names=[f"op_{index:06d}" for index in range(rows)],
        calls=generator.integers(1, 100, rows).astype(np.int64),
        self_cpu_ns=cpu,
        total_cpu_ns=cpu * 2,
        self_gpu_ns=None,
        total_gpu_ns=None,
    )

    class TableOnly(App[None]):
        def compose(self) -> ComposeResult:
            yield OperatorTable(table)

    app = TableOnly()
    drawn: list[int] = []
    original = OperatorTable.render_line

    def counting(self: OperatorTable, y: int) -> Any:
        drawn.append(y)
        return original(self, y)

    async with app.run_test(size=(100, 30)) as pilot:
        widget = app.query_one(OperatorTable)
        widget.render_line = counting.__get__(widget)  # type: ignore[method-assign]
        widget.focus()
        began = time.perf_counter()
        await pilot.press("end", "t", "o", "home", "pagedown", "down")
        widget.set_filter("op_0999")
        await pilot.pause()
        elapsed = time.perf_counter() - began
        assert widget.order.size == 100
        assert widget.current_name is not None
        assert widget.current_name.startswith("op_0999")
        # Each repaint draws at most the visible lines, never the 100k rows.
        assert drawn and max(drawn) < 30
        assert len(drawn) < 30 * 40
        assert elapsed < 5.0


@pilot_test
async def test_no_color_still_shows_selection_and_gaps(
    cuda_trace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("1")
        table = screen.query_one(OperatorTable)
        cursor_line = table.render_line(1 + table.cursor - int(table.scroll_y))
        assert any(seg.style is not None and seg.style.reverse for seg in cursor_line)
        await pilot.press("g")
        from rich.text import Text
        from textual.widgets import Static

        info = screen.query_one("#info-line", Static).content
        assert isinstance(info, Text)
        assert any("reverse" in str(span.style) for span in info.spans)


@pilot_test
async def test_click_on_a_step_chooses_it(cuda_trace: Path) -> None:
    from tui.app.widgets.steps_strip import StepsStrip

    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        strip = screen.query_one(StepsStrip)
        begin, _, index = strip._cells[1]
        assert index == 1
        await pilot.click(StepsStrip, offset=(begin + 2, 0))
        assert screen.current_step == 1


@pilot_test
async def test_steps_strip_keeps_the_current_step_in_view_among_thousands(
    tmp_path: Path,
) -> None:
    """Thousands of steps: only what fits is drawn, and the current step is in it."""
    from tests.builders.traces import cpu, write_trace
    from tui.app.widgets.steps_strip import StepsStrip

    events = [
        cpu(f"ProfilerStep#{number}", number * 100, 90, cat="user_annotation")
        for number in range(3000)
    ]
    app = make_app(write_trace(tmp_path / "many-steps.json", events))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(StepsStrip)
        strip.current = 2500
        await pilot.pause()
        first_line = str(strip.render()).splitlines()[0]
        assert "#2500 " in first_line and "#10 " not in first_line
        assert len(strip._cells) < 20
        assert [index for _, _, index in strip._cells][:4] == [2497, 2498, 2499, 2500]


@pilot_test
async def test_note_edit_and_jump_to_its_step(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.press("right_square_bracket", "right_square_bracket", "m")
        await pilot.press(*"slow read", "ctrl+s")
        await workers_finished(app)  # the note is saved off the UI
        await pilot.pause()
        await pilot.press("left_square_bracket")
        assert screen.current_step == 0
        await pilot.press("3", "e")
        assert isinstance(app.screen, NoteForm)
        await pilot.press("end", *" on step 2", "ctrl+s")
        await workers_finished(app)
        await pilot.pause()
        assert screen.notes_store.notes[0].hypothesis == "slow read on step 2"
        await pilot.press("enter")
        assert screen.current_step == 1


@pilot_test
async def test_fit_twice_returns_to_the_window_and_escape_clears(
    cuda_trace: Path,
) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        timeline = screen.query_one(Timeline)
        whole = (timeline.view_start_ns, timeline.view_end_ns)
        await pilot.press("g", "f")
        gap = screen.analysis.gaps[0]
        assert timeline.view_start_ns <= gap.start_ns
        assert timeline.view_end_ns - timeline.view_start_ns < whole[1] - whole[0]
        await pilot.press("f")
        assert (timeline.view_start_ns, timeline.view_end_ns) == whole
        await pilot.press("escape")
        assert timeline.selected_range is None and screen.marks.size == 0


@pilot_test
async def test_header_click_sorts_by_that_column(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(OperatorTable)
        name_width = table._widths()[0]
        await pilot.click(OperatorTable, offset=(name_width + 3, 0))
        assert table.sort == "calls" and table.descending
        calls = [int(table.table.calls[int(row)]) for row in table.order]
        assert calls == sorted(calls, reverse=True)
        await pilot.click(OperatorTable, offset=(2, 0))
        assert table.sort == "name"
        names = [table.table.names[int(row)] for row in table.order]
        assert names == sorted(names)

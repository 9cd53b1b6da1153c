"""The comparison screen through Textual's Pilot: verdict, changes, both timelines,
tested-by links, and how `steptrace diff` and `D` lead there.

Every expectation is read from the raw JSON of the two fixture captures
(`tests/builders/diff_pair.py`): step times, event counts and durations, the first
occurrence of an operator in a step — never from the app's own arithmetic.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests import shared_traces as shared
from tests.builders.diff_pair import (
    ACTIVE,
    FAST_MS,
    OVERLAP_MS,
    SLOW_MS,
    raw_events,
    raw_steps_us,
    write_capture,
    write_pair,
)
from tests.pilot import pilot_test, settle, workers_finished
from tui.app.app import StepTraceApp
from tui.app.dialogs.compare_with import CompareWithDialog, complete_path
from tui.app.dialogs.tested_by import TestedByDialog
from tui.app.screens.comparison import ComparisonScreen
from tui.app.screens.comparison_data import CompareRequest
from tui.app.screens.help import HelpScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.diff_table import DiffOpTable
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.steps_strip import StepsStrip
from tui.app.widgets.timeline import Timeline
from tui.cli import main
from tui.core.base.units import duration_text
from tui.notes.model import Status
from tui.notes.paths import sidecar_path
from tui.notes.store import NotesStore


def comparing(before: Path, after: Path) -> StepTraceApp:
    """The app as `steptrace diff BEFORE AFTER` starts it on a terminal."""
    app = StepTraceApp(before, compare=CompareRequest(after))
    app.animation_level = "none"
    return app


async def settle_comparison(pilot: Pilot[Any]) -> ComparisonScreen:
    """Wait until the comparison is shown (or has failed)."""
    app = pilot.app
    for _ in range(400):
        await workers_finished(app)
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, ComparisonScreen) and (
            screen.comparison is not None or screen.failure is not None
        ):
            break
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ComparisonScreen)
    return screen


def shown(screen: ComparisonScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def window_ms(path: Path) -> list[float]:
    """The active steps' durations (ms), from the raw file."""
    steps = raw_steps_us(path)
    return [(steps[n][1] - steps[n][0]) / 1000 for n in ACTIVE]


def origin_us(path: Path) -> float:
    return min(float(event["ts"]) for event in raw_events(path))


def group(name: str) -> str:
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


def cpu_totals(path: Path) -> dict[str, tuple[int, float]]:
    """Calls and total CPU time (µs) per operator row, from the raw CPU events."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for event in raw_events(path):
        if event["pid"] == 0:  # the GPU's events
            continue
        row = totals[group(str(event["name"]))]
        row[0] += 1
        row[1] += float(event["dur"])
    return {name: (int(calls), dur) for name, (calls, dur) in totals.items()}


def window_cpu_totals(path: Path) -> dict[str, tuple[int, float]]:
    """Calls and total CPU time (µs) per operator row over the window's steps (all
    kept: no warm-up, no outlier), from the raw CPU events: the per-step order's
    oracle, both sides having the same number of steps."""
    steps = raw_steps_us(path)
    spans = [steps[number] for number in ACTIVE]
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for event in raw_events(path):
        start = float(event["ts"])
        if event["pid"] == 0 or not any(low <= start < high for low, high in spans):
            continue
        row = totals[group(str(event["name"]))]
        row[0] += 1
        row[1] += float(event["dur"])
    return {name: (int(calls), dur) for name, (calls, dur) in totals.items()}


@pytest.fixture
def pair(tmp_path: Path, isolated_data_dir: Path) -> tuple[Path, Path]:
    return write_pair(tmp_path)


@pilot_test
async def test_likely_faster_only_because_the_ranges_do_not_overlap(
    pair: tuple[Path, Path],
) -> None:
    before, after = pair
    slow, fast = window_ms(before), window_ms(after)
    assert max(fast) < min(slow)  # the oracle: the raw ranges are apart
    change = (statistics.median(fast) - statistics.median(slow)) / statistics.median(
        slow
    )
    app = comparing(before, after)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await settle_comparison(pilot)
        verdict = shown(screen, "#cmp-verdict")
        # One capture a side: likely, never a conclusive order.
        assert "LIKELY FASTER" in verdict
        assert f"{change * 100:+.1f}%" in verdict
        assert "runs: 1 before" in verdict and "what moved:" in verdict
        assert "comparable" in shown(screen, "#cmp-checks")
        assert "NOT" not in shown(screen, "#cmp-checks")
        # Under 5 steps a side shows the mechanism: the caveat is said.
        assert "under 5 steps" in shown(screen, "#cmp-checks")
        # Both strips, one above the other, hold their own window's range.
        strips = list(screen.query(StepsStrip))
        assert [strip.id for strip in strips] == ["cmp-steps-before", "cmp-steps-after"]
        for strip, values in zip(strips, (slow, fast), strict=True):
            text = str(strip.render())
            assert f"min {duration_text(min(values) * 1e6)}" in text
            assert f"max {duration_text(max(values) * 1e6)}" in text


@pilot_test
async def test_overlapping_ranges_are_inconclusive_and_claim_no_change(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    before, after = write_pair(tmp_path, OVERLAP_MS)
    slow, other = window_ms(before), window_ms(after)
    assert min(other) < max(slow) and max(other) > min(slow)  # ranges overlap
    app = comparing(before, after)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await settle_comparison(pilot)
        verdict = shown(screen, "#cmp-verdict")
        assert "INCONCLUSIVE" in verdict
        assert "no change can be claimed" in verdict
        assert "%" not in verdict
        assert "FASTER" not in verdict and "SLOWER" not in verdict


@pilot_test
async def test_cpu_capture_against_gpu_one_is_not_comparable_and_gpu_reads_n_o(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    before = write_capture(tmp_path / "gpu.json", SLOW_MS)
    after = write_capture(tmp_path / "cpu.json", FAST_MS, on_gpu=False)
    assert not any(event["pid"] == 0 for event in raw_events(after))
    app = comparing(before, after)
    async with app.run_test(size=(140, 36)) as pilot:
        screen = await settle_comparison(pilot)
        assert "NOT COMPARABLE" in shown(screen, "#cmp-checks")
        table = screen.query_one(DiffOpTable)
        assert "GPU after: not observed" in table.title_text()
        # Wide enough for both clocks: the after GPU cell is n/o, never 0.
        assert len(table.shown_devices()) == 2
        row = table.diff.ops.names.index("aten::mm")
        cells = table.row_text(row).split()
        assert cells.count("n/o") == 1


@pilot_test
async def test_rows_follow_the_largest_change_and_t_toggles_self_total(
    pair: tuple[Path, Path],
) -> None:
    before, after = pair
    first, second = cpu_totals(before), cpu_totals(after)
    names = sorted(set(first) | set(second))
    # Rows sort by the change per kept step, not over the whole trace.
    kept_first, kept_second = window_cpu_totals(before), window_cpu_totals(after)

    def change(name: str, column: int) -> float:
        return (
            kept_second.get(name, (0, 0.0))[column]
            - kept_first.get(name, (0, 0.0))[column]
        )

    by_total = sorted(names, key=lambda name: -abs(change(name, 1)))
    by_calls = sorted(names, key=lambda name: -abs(change(name, 0)))
    app = comparing(before, after)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await settle_comparison(pilot)
        table = screen.query_one(DiffOpTable)
        table.focus()
        await pilot.press("c")  # CPU time: the raw durations are its oracle
        assert "self CPU" in table.title_text()
        self_order = [table.diff.ops.names[row] for row in table.order.tolist()]
        await pilot.press("t")
        assert "total CPU" in table.title_text()
        total_order = [table.diff.ops.names[row] for row in table.order.tolist()]
        assert total_order == by_total
        assert total_order != self_order
        await pilot.press("t")
        assert "self CPU" in table.title_text()
        assert [table.diff.ops.names[row] for row in table.order.tolist()] == (
            self_order
        )
        await pilot.press("o")  # by the change of calls
        calls_order = [table.diff.ops.names[row] for row in table.order.tolist()]
        assert calls_order == by_calls
        row = table.diff.ops.names.index("aten::relu")
        assert f"{first['aten::relu'][0]}→{second['aten::relu'][0]}" in (
            table.row_text(row)
        )


def _marked(timeline: Timeline) -> list[int]:
    mask = timeline._marked_mask
    return [] if mask is None else np.flatnonzero(mask).tolist()


@pilot_test
async def test_enter_marks_both_timelines_at_the_same_step(
    pair: tuple[Path, Path],
) -> None:
    before, after = pair
    app = comparing(before, after)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await settle_comparison(pilot)
        table = screen.query_one(DiffOpTable)
        table.focus()
        table.move_cursor(
            int(
                np.flatnonzero(table.order == table.diff.ops.names.index("aten::mm"))[0]
            )
        )
        await pilot.press("enter")
        await pilot.pause()
        assert screen.showing_timelines
        for number in (ACTIVE[0], ACTIVE[1]):
            for word, path in (("before", before), ("after", after)):
                timeline = screen.query_one(f"#cmp-timeline-{word}", Timeline)
                trace = timeline.trace
                events = raw_events(path)
                raw_mm = sorted(
                    float(e["ts"]) for e in events if e["name"] == "aten::mm"
                )
                marked = _marked(timeline)
                assert len(marked) == len(raw_mm)
                origin = origin_us(path)
                assert sorted(
                    origin + int(trace.start_ns[event]) / 1000 for event in marked
                ) == pytest.approx(raw_mm)
                start, end = raw_steps_us(path)[number]
                view = (timeline.view_start_ns / 1000, timeline.view_end_ns / 1000)
                assert view[0] <= start - origin and end - origin <= view[1]
                assert view[1] - view[0] < 1.2 * (end - start)
                selected = timeline.selected_event
                assert selected is not None
                first_in_step = min(t for t in raw_mm if start <= t < end)
                assert origin + int(trace.start_ns[selected]) / 1000 == pytest.approx(
                    first_in_step
                )
                strip = screen.query_one(f"#cmp-steps-{word}", StepsStrip)
                assert strip.current is not None
                assert timeline.analysis.steps[strip.current].number == number
                assert f"step {number} " in shown(screen, f"#cmp-line-{word}")
            await pilot.press("right_square_bracket")
            await pilot.pause()
        await pilot.press("escape")
        assert not screen.showing_timelines
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


def _add_open_note(trace: Path, hypothesis: str) -> str:
    store = NotesStore.open(trace)
    note = store.add(hypothesis, next_check="prepare batches in advance")
    store.add("a refuted idea", status=Status.REFUTED)
    store.save()
    return note.id


@pilot_test
async def test_tested_by_links_an_open_note_and_writes_the_sidecar(
    pair: tuple[Path, Path],
) -> None:
    before, after = pair
    note_id = _add_open_note(before, "compute waits for the batch")
    app = comparing(before, after)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle_comparison(pilot)
        await pilot.press("l")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, TestedByDialog)
        assert [note.id for note in dialog.notes] == [note_id]  # open notes only
        await pilot.press("enter")
        for _ in range(50):
            await workers_finished(app)
            await pilot.pause()
            if (
                sidecar_path(before).exists()
                and b"tested_by" in sidecar_path(before).read_bytes()
            ):
                break
        document = orjson.loads(sidecar_path(before).read_bytes())
        (note,) = [n for n in document["notes"] if n["id"] == note_id]
        tested = note["result"]["tested_by"]
        assert tested["verdict"] == "likely_faster"
        assert tested["path"] == "after.json"
        assert tested["before_ms"] == pytest.approx(window_ms(before))
        assert tested["after_ms"] == pytest.approx(window_ms(after))
        # Back on the before capture, its notes pane shows the verdict and the link.
        await pilot.press("escape")
        await pilot.pause()
        main_screen = app.screen
        assert isinstance(main_screen, MainScreen)
        pane = main_screen.query_one(NotesPane)
        text = "\n".join(
            str(pane.get_option_at_index(index).prompt)
            for index in range(pane.option_count)
        )
        assert "tested by after.json: likely_faster" in text


@pilot_test
async def test_link_without_an_open_note_says_what_to_do(
    pair: tuple[Path, Path],
) -> None:
    before, after = pair
    app = comparing(before, after)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await settle_comparison(pilot)
        await pilot.press("l")
        await pilot.pause()
        assert app.screen is screen
        assert any("No open note" in str(n.message) for n in app._notifications)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = str(app.screen.query(Static).last().render())
        for words in ("Tested by", "Timelines", "Order: change/calls/name", "CPU/GPU"):
            assert words in listed


@pilot_test
async def test_d_asks_for_the_other_capture_with_completion(
    pair: tuple[Path, Path],
) -> None:
    before, after = pair
    app = StepTraceApp(before)
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CompareWithDialog)
        await pilot.press(*"nope.json", "enter")
        await pilot.pause()
        assert app.screen is dialog
        assert "no such file" in str(dialog.query_one("#compare-problem").render())
        field = dialog.query_one(Input)
        field.value = ""
        await pilot.press(*"af", "tab")
        assert field.value == "after.json"
        await pilot.press("enter")
        screen = await settle_comparison(pilot)
        assert screen.comparison is not None
        assert screen.comparison.after.path == after.resolve()


def test_windows_numbered_apart_pair_by_position(tmp_path: Path) -> None:
    """Steps 2..5 against 12..15 (another run's numbering): the k-th with the k-th."""
    from tui.core.diff.occurrences import step_pairs
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace

    before = write_capture(tmp_path / "a.json", SLOW_MS)
    after = tmp_path / "b.json"
    document = orjson.loads(before.read_bytes())
    for event in document["traceEvents"]:
        if str(event.get("name", "")).startswith("ProfilerStep#"):
            number = int(event["name"].split("#")[1])
            event["name"] = f"ProfilerStep#{number + 10}"
    document["steptrace"]["active_steps"] = [n + 10 for n in ACTIVE]
    after.write_bytes(orjson.dumps(document))
    pairs = step_pairs(
        Analysis(load_trace(before)),
        Analysis(load_trace(after)),
    )
    assert [
        (p.before.number, p.after.number) for p in pairs if p.before and p.after
    ] == [(n, n + 10) for n in ACTIVE]
    assert pairs[0].label == "#2 / #12"


def test_completion_prefers_traces_and_ends_folders_with_a_slash(
    tmp_path: Path,
) -> None:
    (tmp_path / "run-a.json").write_text("{}")
    (tmp_path / "run-a.json.notes.json").write_text("{}")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "rank0.json.gz").write_bytes(b"")
    (tmp_path / ".hidden.json").write_text("{}")
    assert complete_path(tmp_path, "run-") == "run-a.json"
    assert complete_path(tmp_path, "runs") == "runs/"
    assert complete_path(tmp_path, "runs/r") == "runs/rank0.json.gz"
    assert (
        complete_path(tmp_path, f"{tmp_path}/runs/") == f"{tmp_path}/runs/rank0.json.gz"
    )
    assert complete_path(tmp_path, "x") is None
    assert complete_path(tmp_path, ".h") == ".hidden.json"
    assert complete_path(tmp_path / "absent", "a") is None


# -- how `steptrace diff` gets there --------------------------------------------


def test_diff_on_a_terminal_opens_the_comparison(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = pair
    started: list[StepTraceApp] = []
    monkeypatch.setattr("tui.commands.open.has_terminal", lambda: True)
    monkeypatch.setattr(StepTraceApp, "run", lambda self: started.append(self))
    assert main(["diff", str(before), str(after), "--sort", "total"]) == 0
    (app,) = started
    assert app.trace_path == before
    assert app.compare is not None and app.compare.path == after
    assert app.compare.sort.value == "total"


def test_text_json_and_pipes_print_as_before(
    pair: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before, after = pair
    monkeypatch.setattr(
        StepTraceApp, "run", lambda self: pytest.fail("the app must not start")
    )
    assert main(["diff", str(before), str(after)]) == 0  # not a terminal
    piped = capsys.readouterr().out
    assert "verdict likely faster" in piped
    monkeypatch.setattr("tui.commands.open.has_terminal", lambda: True)
    assert main(["diff", str(before), str(after), "--text"]) == 0
    assert capsys.readouterr().out == piped
    assert main(["diff", str(before), str(after), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["steps"]["verdict"] == "likely_faster"
    with pytest.raises(SystemExit):
        main(["diff", str(before), str(after), "--json", "--text"])


def test_a_missing_capture_is_one_line_and_exit_2_on_a_terminal(
    pair: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before, _ = pair
    monkeypatch.setattr("tui.commands.open.has_terminal", lambda: True)
    monkeypatch.setattr(
        StepTraceApp, "run", lambda self: pytest.fail("the app must not start")
    )
    assert main(["diff", str(before), str(before.with_name("gone.json"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("gone.json: no such file")


@pilot_test
async def test_an_unreadable_other_capture_says_why(
    pair: tuple[Path, Path],
) -> None:
    before, _ = pair
    broken = before.with_name("broken.json")
    broken.write_text("this is not { a trace")
    app = comparing(before, broken)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await settle_comparison(pilot)
        assert screen.failure
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


SHARED = shared.FOLDER


@pytest.mark.usefixtures("shared_traces")
@pilot_test
async def test_real_pair_no_change_and_occurrences_match_raw_counts(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    """The two shared trace_compare captures (copied: the app may write beside them)."""
    import gzip
    import shutil

    paths = []
    for name in ("trace_compare-base-base.json.gz", "trace_compare-test-test.json.gz"):
        paths.append(Path(shutil.copy(SHARED / name, tmp_path / name)))
    documents = [orjson.loads(gzip.decompress(path.read_bytes())) for path in paths]

    def steps_us(document: dict[str, Any]) -> list[float]:
        return [
            float(e["dur"])
            for e in document["traceEvents"]
            if str(e.get("name", "")).startswith("ProfilerStep#")
        ]

    first, second = (steps_us(document) for document in documents)
    assert max(second) >= min(first) and min(second) <= max(first)  # overlap
    app = comparing(*paths)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settle_comparison(pilot)
        # The same step times on both sides, other operators: no change.
        assert "NO CHANGE" in shown(screen, "#cmp-verdict")
        table = screen.query_one(DiffOpTable)
        table.focus()
        name = "nccl:all_reduce"
        table.move_cursor(
            int(np.flatnonzero(table.order == table.diff.ops.names.index(name))[0])
        )
        await pilot.press("enter")
        await pilot.pause()
        for word, document in zip(("before", "after"), documents, strict=True):
            raw = [
                e
                for e in document["traceEvents"]
                if e.get("name") == name and e.get("ph") == "X"
            ]
            timeline = screen.query_one(f"#cmp-timeline-{word}", Timeline)
            assert len(_marked(timeline)) == len(raw) > 0


@pilot_test
async def test_a_served_app_compares_only_captures_beside_the_open_one(
    pair: tuple[Path, Path], tmp_path: Path
) -> None:
    """A browser user must not read any file of the server through D."""
    before, after = pair
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside = elsewhere / "other.json"
    outside.write_bytes(after.read_bytes())
    app = StepTraceApp(before, served=True)
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CompareWithDialog) and dialog.confined
        dialog.query_one(Input).value = str(outside)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert "outside the trace's folder" in str(
            dialog.query_one("#compare-problem").render()
        )
        dialog.query_one(Input).value = after.name
        await pilot.press("enter")
        screen = await settle_comparison(pilot)
        assert screen.comparison is not None

"""On a big capture the main screen shows before the findings: the Findings tab says
they are being computed, then holds exactly what `compute_findings` reads."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.builders.app_traces import write_training_trace
from tests.pilot import make_app, settle, workers_finished
from tui.app.screens import findings_later
from tui.app.screens.findings_later import FindingsRead
from tui.app.screens.main import MainScreen
from tui.app.widgets.findings_panel import FindingsPanel, finding_text
from tui.app.widgets.headline import HeadlineLine
from tui.core.figures.analysis import Analysis
from tui.core.findings import readings as findings
from tui.core.findings.finding import Finding
from tui.core.ingest.load import load_trace
from tui.report.findings import no_gpu_line, one_by_one
from tui.report.headline import COMPUTING, findings_lead


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every capture counts as big."""
    monkeypatch.setattr(findings_later, "LATER_AT_EVENTS", 0)


def _prompts(panel: FindingsPanel) -> list[str]:
    return panel.shown_texts()


@pytest.mark.parametrize("gpu", [True, False], ids=["cuda", "cpu"])
def test_findings_computed_after_the_screen_are_compute_findings(
    tmp_path: Path,
    isolated_data_dir: Path,
    later: None,
    monkeypatch: pytest.MonkeyPatch,
    gpu: bool,
) -> None:
    path = write_training_trace(tmp_path / "t.json", gpu=gpu)
    expected = findings.compute_findings(Analysis(load_trace(path)))
    release = threading.Event()
    computed = findings.compute_findings
    threads: list[str] = []

    def held(analysis: Analysis) -> list[Finding]:
        threads.append(threading.current_thread().name)
        release.wait(10)
        return computed(analysis)

    monkeypatch.setattr(findings, "compute_findings", held)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            panel = screen.query_one(FindingsPanel)
            assert screen.findings is None
            assert _prompts(panel) == ["computing the findings…"]
            assert panel.current is None
            headline = screen.query_one(HeadlineLine)
            assert headline.headline.lead == COMPUTING
            release.set()
            await workers_finished(app)
            await pilot.pause()
            assert screen.findings == expected
            # The headline fills in with the first finding as they rank it.
            assert headline.headline.lead == findings_lead(expected, None)
            assert headline.headline.lead != COMPUTING
            # Findings needing GPU events are one line after the others.
            apart, no_gpu = one_by_one(expected)
            assert panel.findings == apart
            assert panel.shown_texts() == [finding_text(f).plain for f in apart] + (
                ["○ " + no_gpu_line(no_gpu)] if no_gpu else []
            )
            # The tab works as with findings read at load: 2, then Enter shows one.
            await pilot.press("2")
            assert panel.current == expected[0]

    asyncio.run(scenario())
    assert threads and threads[0] != threading.main_thread().name


def test_a_failure_says_why_in_the_tab_and_the_screen_stays(
    tmp_path: Path,
    isolated_data_dir: Path,
    later: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write_training_trace(tmp_path / "t.json", gpu=True)

    def broken(analysis: Any) -> Any:
        raise RuntimeError("boom in a reading")

    monkeypatch.setattr(findings, "compute_findings", broken)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await workers_finished(app)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MainScreen)
            (prompt,) = _prompts(screen.query_one(FindingsPanel))
            assert "RuntimeError" in prompt and "boom in a reading" in prompt
            lead = screen.query_one(HeadlineLine).headline.lead
            assert lead.startswith("no findings:") and "boom in a reading" in lead
            await pilot.press("2", "1", "t")
            assert screen.mode == "total"

    asyncio.run(scenario())


def test_findings_of_an_earlier_zone_are_dropped(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = write_training_trace(tmp_path / "t.json", gpu=True)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            shown = screen.findings
            assert shown is not None  # a small capture: read with the load
            other = Analysis(screen.trace)
            screen.post_message(FindingsRead(other, []))
            await pilot.pause()
            assert screen.findings is shown
            assert screen.query_one(FindingsPanel).findings == shown

    asyncio.run(scenario())

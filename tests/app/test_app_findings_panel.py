"""The findings panel drawn line by line: each finding wrapped once for the
pane's width (even while its tab is hidden), the cursor a whole finding that
the keys move and keep on screen, Enter and a click choosing it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult

from tests.builders.app_traces import write_training_trace
from tests.builders.compiling_steps import write_compiling_steps
from tui.app.widgets.findings_panel import FindingsPanel, finding_text
from tui.core.figures.analysis import Analysis
from tui.core.findings import readings
from tui.core.findings.finding import Finding
from tui.core.ingest.load import load_trace


class PanelApp(App[None]):
    def __init__(
        self, findings: list[Finding], analysis: Analysis | None = None
    ) -> None:
        super().__init__()
        self.shown = findings
        self.analysis = analysis
        self.chosen: list[Finding] = []

    def compose(self) -> ComposeResult:
        yield FindingsPanel(self.shown, analysis=self.analysis)

    def on_findings_panel_chosen(self, message: FindingsPanel.Chosen) -> None:
        self.chosen.append(message.finding)


def _findings(tmp_path: Path) -> list[Finding]:
    path = write_training_trace(tmp_path / "t.json", gpu=True)
    found = readings.compute_findings(Analysis(load_trace(path)))
    assert len(found) >= 4  # enough to scroll in a short panel
    return found


def test_keys_move_a_whole_finding_and_keep_it_on_screen(tmp_path: Path) -> None:
    found = _findings(tmp_path)

    async def scenario() -> None:
        app = PanelApp(found)
        async with app.run_test(size=(60, 10)) as pilot:
            panel = app.query_one(FindingsPanel)
            panel.focus()
            await pilot.pause()
            assert panel.highlighted == 0 and panel.current == found[0]
            # Every finding's words, wrapped to the panel, in order.
            wrapped = [line.plain.rstrip() for _, line in panel._lines]
            expected = [
                line.plain.rstrip()
                for f in found
                for line in finding_text(f).wrap(app.console, panel._wrap_width())
            ]
            assert wrapped == expected
            await pilot.press("down", "down")
            assert panel.highlighted == 2
            top = int(panel.scroll_y)
            first = panel._first_line[2]
            assert top <= first < top + panel.scrollable_content_region.height
            await pilot.press("end")
            assert panel.current == found[-1]
            top = int(panel.scroll_y)
            assert top <= panel._first_line[-1] < top + panel.size.height
            await pilot.press("home")
            assert panel.highlighted == 0 and panel.scroll_y == 0
            await pilot.press("up")  # stays on the first
            assert panel.highlighted == 0
            await pilot.press("enter")
            assert app.chosen == [found[0]]
            # A click on the second finding's first line chooses it (brought on
            # screen first: the first finding's words may fill the short panel).
            await pilot.press("down")
            line = panel._first_line[1] - int(panel.scroll_y)
            await pilot.click(FindingsPanel, offset=(3, line))
            assert app.chosen == [found[0], found[1]]

    asyncio.run(scenario())


def test_a_problem_is_said_and_nothing_is_chosen(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = PanelApp(_findings(tmp_path))
        async with app.run_test(size=(60, 10)) as pilot:
            panel = app.query_one(FindingsPanel)
            panel.focus()
            panel.show_problem("could not compute the findings: [bold]x[/]")
            await pilot.pause()
            assert panel.shown_texts() == ["could not compute the findings: [bold]x[/]"]
            assert panel.current is None and panel.highlighted is None
            await pilot.press("down", "enter")
            assert app.chosen == []
            assert "[bold]x[/]" in panel.render_line(0).text  # never markup

    asyncio.run(scenario())


def test_the_header_names_the_steps_the_median_step_sets_aside(tmp_path: Path) -> None:
    """A recompiling step is named once above the findings; the keys still
    light the first finding at the top, and a zone compiling nowhere has no
    header."""
    durations = [1000.0, 1100.0, 40_000.0, 900.0, 1050.0]
    compiling = Analysis(
        load_trace(write_compiling_steps(tmp_path / "c.json", durations, {3: "0/1"}))
    )
    found = readings.compute_findings(compiling)
    plain = Analysis(
        load_trace(write_compiling_steps(tmp_path / "p.json", durations, {}))
    )

    async def scenario() -> None:
        app = PanelApp(found, compiling)
        async with app.run_test(size=(60, 10)) as pilot:
            panel = app.query_one(FindingsPanel)
            panel.focus()
            await pilot.pause()
            top = panel._first_line[0]
            header = " ".join(line.plain.strip() for _, line in panel._lines[:top])
            assert all(owner == -1 for owner, _ in panel._lines[:top])
            assert header == (
                "step 3 holds a recompilation (compile id 0/1): set aside from the"
                " median step"
            )
            assert panel.highlighted == 0 and panel.scroll_y == 0
            await pilot.press("pagedown")
            assert panel.scroll_y > 0
            await pilot.press("pageup")  # back on the header: the first finding
            assert panel.scroll_y == 0 and panel.highlighted == 0
            await pilot.press("end", "home")
            assert panel.scroll_y == 0 and panel.highlighted == 0
            panel.follow_analysis(plain, readings.compute_findings(plain))
            await pilot.pause()
            assert panel._first_line[0] == 0 and panel._lines[0][0] == 0

    asyncio.run(scenario())

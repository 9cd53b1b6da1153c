"""The app in served mode (`steptrace open --served`, what `steptrace serve`
runs per browser): the header says so, and `c` launches no capture unless
`--allow-capture`; sharing a scrubbed copy (an export) stays available."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace
from tests.pilot import pilot_test, settle
from tui.app.app import StepTraceApp
from tui.app.dialogs.capture import CaptureDialog
from tui.app.dialogs.scrub import ScrubDialog
from tui.app.screens.main import MainScreen
from tui.app.widgets.header_line import HeaderLine
from tui.cli import build_parser


@pytest.fixture
def trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train.json")


def _messages(app: StepTraceApp) -> list[str]:
    return [notification.message for notification in app._notifications]


@pytest.mark.parametrize(
    ("served", "allow_capture", "mark", "capture_opens"),
    [
        (False, False, None, True),
        (True, False, " served ", False),
        (True, True, " served, captures on ", True),
    ],
    ids=["terminal", "served", "served-allow-capture"],
)
@pilot_test
async def test_header_mark_and_capture_key(
    trace: Path,
    served: bool,
    allow_capture: bool,
    mark: str | None,
    capture_opens: bool,
) -> None:
    app = StepTraceApp(trace, served=served, allow_capture=allow_capture)
    app.animation_level = "none"
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        header = str(app.screen.query_one(HeaderLine).render())
        if mark is None:
            assert header.startswith(trace.name)  # "GPU observed" holds "served"
        else:
            assert header.startswith(mark + " " + trace.name)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CaptureDialog) is capture_opens
        refused = [m for m in _messages(app) if "Captures are off" in m]
        assert bool(refused) is not capture_opens
        if refused:
            assert "--allow-capture" in refused[0]


@pilot_test
async def test_served_app_still_shares_a_scrubbed_copy(trace: Path) -> None:
    app = StepTraceApp(trace, served=True)
    app.animation_level = "none"
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await pilot.pause()
        assert isinstance(app.screen, ScrubDialog)


@pytest.mark.parametrize(
    ("argv", "served", "allow_capture"),
    [
        (["open", "t.json"], False, False),
        (["open", "--served", "t.json"], True, False),
        (["open", "--served", "--allow-capture", "--", "t.json"], True, True),
    ],
    ids=["plain", "served", "served-allow-capture"],
)
def test_open_takes_the_hidden_served_flags(
    argv: list[str], served: bool, allow_capture: bool
) -> None:
    args = build_parser().parse_args(argv)
    assert (args.served, args.allow_capture, args.trace) == (
        served,
        allow_capture,
        "t.json",
    )


def test_served_flags_stay_out_of_the_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["open", "--help"])
    help_text = capsys.readouterr().out
    assert "TRACE" in help_text.upper()
    assert "--served" not in help_text and "--allow-capture" not in help_text

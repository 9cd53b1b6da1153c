"""The share dialog (E): what it lists, what it writes, what it refuses, and
that hostile values stay text."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Static

from tests.builders.app_traces import write_training_trace
from tests.pilot import make_app, pilot_test, screen_text, settle, workers_finished
from tui.app.app import StepTraceApp
from tui.app.dialogs.scrub import ScrubDialog, fresh_copy_path
from tui.app.screens.help import help_text
from tui.app.screens.main import MainScreen

USER = "alice"
HOST = "gpu17.cluster.example.com"
HOME = f"/home/{USER}/proj"
HOSTILE_HOST = "gpu[@click=app.quit]\x1b]0;x\x07"


def write_leaky_trace(path: Path, host: str = HOST) -> Path:
    """The training fixture plus a user name, a host name and home paths."""
    plain = write_training_trace(path.with_name("plain-" + path.name))
    raw = plain.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    document = json.loads(raw)
    document["username"] = USER
    document["host_name"] = host
    document["traceEvents"].append(
        {
            "ph": "X",
            "cat": "python_function",
            "name": f"{HOME}/train.py(12): forward",
            "pid": 100,
            "tid": 11,
            "ts": 1_700_000_000_000.0 + 200,
            "dur": 10,
        }
    )
    data = json.dumps(document).encode()
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    plain.unlink()
    return path


async def open_dialog(pilot: Pilot[Any]) -> ScrubDialog:
    """Load the trace, press E, and wait for the check."""
    await settle(pilot)
    assert isinstance(pilot.app.screen, MainScreen)
    await pilot.press("E")
    await wait_workers(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ScrubDialog)
    return dialog


async def wait_workers(pilot: Pilot[Any]) -> None:
    """Wait for the dialog's workers and the messages they posted."""
    for _ in range(3):
        await workers_finished(pilot.app)
        await pilot.pause()


def shown(dialog: ScrubDialog, widget_id: str) -> str:
    """What a Static of the dialog shows, as plain text."""
    return str(dialog.query_one(f"#{widget_id}", Static).render())


def kinds(dialog: ScrubDialog) -> list[str]:
    assert dialog.check_report is not None
    return [summary.kind for summary in dialog.check_report.kinds]


@pytest.fixture
def leaky_trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_leaky_trace(tmp_path / "leaky.json")


@pilot_test
async def test_key_lists_users_hosts_and_paths(leaky_trace: Path) -> None:
    app = make_app(leaky_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot)
        assert {"user", "host", "path"} <= set(kinds(dialog))
        listing = shown(dialog, "scrub-findings")
        for kind in ("user", "host", "path"):
            assert kind in listing
        assert HOST in listing and f"{HOME}/train.py" in listing
        assert dialog.query_one(Input).value == str(
            leaky_trace.with_name("leaky.scrubbed.json")
        )
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert "Share: scrub a copy" in help_text(app.screen.key_sections()).plain
        commands = [command.title for command in app.get_system_commands(app.screen)]
        assert "Share: scrub a copy" in commands


@pytest.mark.parametrize("name", ["leaky.json", "leaky.json.gz"], ids=["plain", "gzip"])
@pilot_test
async def test_write_removes_the_values_and_reports_counts(
    name: str, tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_leaky_trace(tmp_path / name)
    expected = tmp_path / name.replace("leaky.", "leaky.scrubbed.")
    app = make_app(trace)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot)
        await pilot.press("ctrl+s")
        await wait_workers(pilot)
        assert expected.exists()
        data = expected.read_bytes()
        if name.endswith(".gz"):
            assert data[:2] == b"\x1f\x8b"
            data = gzip.decompress(data)
        for value in (USER, HOST, "gpu17", HOME):
            assert value.encode() not in data
        report = dialog.scrub_report
        assert report is not None and report.destination == expected
        result = shown(dialog, "scrub-result")
        assert str(expected) in result
        lines = {line.split()[0]: line for line in result.splitlines()[1:]}
        for kind in ("user", "host", "path"):
            summary = report.get(kind)
            assert summary is not None and summary.scrubbed
            assert f"{len(summary.values)} value" in lines[kind]
            assert f"in {summary.places} place" in lines[kind]
            assert lines[kind].endswith("replaced or removed")
        assert app.is_running


@pilot_test
async def test_existing_output_is_refused_and_untouched(leaky_trace: Path) -> None:
    taken = leaky_trace.with_name("leaky.scrubbed.json")
    taken.write_bytes(b"keep me")
    app = make_app(leaky_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot)
        output = dialog.query_one(Input)
        assert output.value == str(leaky_trace.with_name("leaky.scrubbed-1.json"))
        output.value = str(taken)
        await pilot.press("ctrl+s")
        await wait_workers(pilot)
        assert "already exists" in shown(dialog, "scrub-status")
        assert dialog.scrub_report is None
    assert taken.read_bytes() == b"keep me"
    assert not leaky_trace.with_name("leaky.scrubbed-1.json").exists()


@pilot_test
async def test_hostile_host_name_renders_escaped(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_leaky_trace(tmp_path / "hostile.json", host=HOSTILE_HOST)
    app = make_app(trace)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot)
        listing = shown(dialog, "scrub-findings")
        assert "gpu[@click=app.quit]\\x1b]0;x\\x07" in listing
        assert "\x1b" not in listing and "\x07" not in listing
        await pilot.click("#scrub-findings")
        await pilot.press("ctrl+s")
        await wait_workers(pilot)
        assert app.is_running and app.screen is dialog
        copy = trace.with_name("hostile.scrubbed.json").read_bytes()
        assert b"@click" not in copy


@pilot_test
async def test_clean_trace_and_shapes_option(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_training_trace(tmp_path / "clean.json")
    app = make_app(trace)
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_dialog(pilot)
        assert dialog.check_report is not None and dialog.check_report.clean
        assert "Clean" in shown(dialog, "scrub-status")
        assert "Nothing identifying" in shown(dialog, "scrub-findings")
        dialog.query_one("#scrub-shapes", Checkbox).value = True
        await wait_workers(pilot)
        assert kinds(dialog) == ["shape"]
        assert "Input Dims" in shown(dialog, "scrub-findings")


@pilot_test
async def test_trace_gone_is_one_line_not_a_crash(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_training_trace(tmp_path / "gone.json")
    app = make_app(trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        trace.unlink()
        await pilot.press("E")
        await wait_workers(pilot)
        dialog = app.screen
        assert isinstance(dialog, ScrubDialog)
        status = shown(dialog, "scrub-status")
        assert status.startswith("Could not check:") and "\n" not in status
        await pilot.press("ctrl+s")
        await wait_workers(pilot)
        assert shown(dialog, "scrub-status").startswith("Could not write:")
        assert app.is_running


def test_fresh_copy_path_never_names_an_existing_file(tmp_path: Path) -> None:
    trace = write_training_trace(tmp_path / "run.pt.trace.json.gz")
    first = fresh_copy_path(trace)
    assert first.name == "run.pt.trace.scrubbed.json.gz"
    first.write_bytes(b"")
    assert fresh_copy_path(trace).name == "run.pt.trace.scrubbed-1.json.gz"
    # Gzip is read from the bytes, as the scrubber decides it.
    plain = write_training_trace(tmp_path / "named.json").rename(tmp_path / "named.gz")
    assert fresh_copy_path(plain).name == "named.scrubbed.json"


def test_dialog_snapshot(
    snap_compare: Callable[..., bool],
    tmp_path: Path,
    isolated_data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the check: kinds with counts and examples, options, a fresh name."""
    monkeypatch.chdir(tmp_path)
    write_leaky_trace(tmp_path / "leaky.json")

    async def before(pilot: Pilot[Any]) -> None:
        await open_dialog(pilot)
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.pause()
        lines = [line.strip("│ ") for line in screen_text(pilot.app).splitlines()]
        assert (
            "Found 3 kinds of identifying data; the copy replaces what is marked replaced."
            in lines
        )
        kinds = [line.split()[:3] for line in lines if line.endswith("replaced")]
        assert [kind[0] for kind in kinds] == ["user", "host", "path"]
        assert (
            "username: alice" in lines
            and "host_name: gpu17.cluster.example.com" in lines
        )
        assert any("Rename free-form zones" in line for line in lines)
        assert (
            "leaky.scrubbed.json" in lines
            and not (tmp_path / "leaky.scrubbed.json").exists()
        )

    app: StepTraceApp = make_app("leaky.json")
    assert snap_compare(app, terminal_size=(100, 36), run_before=before)

"""The folder `tensorboard_trace_handler` writes opens: one trace is that
trace, several windows of one worker the newest (the others listed, `--window`
picks), several workers a run; a folder without traces says what it holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.torch_captures import capture_handler_folder
from tui.cli import main
from tui.commands.errors import CommandError
from tui.commands.open import one_trace_or_run

ONE_TRACE_COMMANDS = ("summary", "ops", "findings", "gaps", "report")


@pytest.fixture(scope="module")
def one_window(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return capture_handler_folder(tmp_path_factory.mktemp("one"))


@pytest.fixture(scope="module")
def two_windows(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return capture_handler_folder(tmp_path_factory.mktemp("windows"), windows=2)


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return capture_handler_folder(
        tmp_path_factory.mktemp("workers"), workers=("host_1", "host_2")
    )


def _opened(
    folder: Path, *flags: str, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """The trace `summary FOLDER` read, and its stderr."""
    assert main(["summary", str(folder), "--json", *flags]) == 0
    captured = capsys.readouterr()
    return Path(json.loads(captured.out)["trace"]), captured.err


def test_a_folder_of_one_trace_is_that_trace(
    one_window: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (written,) = one_window
    opened, err = _opened(written.parent, capsys=capsys)
    assert opened == written
    assert "window" not in err


@pytest.mark.parametrize("command", ONE_TRACE_COMMANDS)
def test_a_workers_windows_open_the_newest_and_list_the_others(
    command: str, two_windows: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    older, newest = two_windows
    assert main([command, str(newest.parent), "--json"]) == 0
    captured = capsys.readouterr()
    (said,) = [line for line in captured.err.splitlines() if "windows" in line]
    assert f"1 {older.name}, 2 {newest.name}" in said
    assert "of worker host_1; opened 2 (the newest); --window N opens another" in said
    assert _opened(newest.parent, capsys=capsys)[0] == newest


def test_window_n_opens_another(
    two_windows: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    older, _ = two_windows
    opened, err = _opened(older.parent, "--window", "1", capsys=capsys)
    assert opened == older
    assert "opened 1;" in err and "(the newest)" not in err


def test_a_window_out_of_range_names_the_windows(
    two_windows: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    older, newest = two_windows
    assert main(["ops", str(older.parent), "--window", "3"]) == 2
    err = capsys.readouterr().err
    assert f"no window 3; it holds 2 windows: 1 {older.name}, 2 {newest.name}" in err


def test_window_on_a_file_is_refused(
    one_window: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(one_window[0]), "--window", "1"]) == 2
    assert "--window picks a window of a folder" in capsys.readouterr().err


@pytest.mark.parametrize("command", ONE_TRACE_COMMANDS)
def test_several_workers_are_a_run_the_one_trace_commands_point_to_ranks(
    command: str, two_workers: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = two_workers[0].parent
    assert main([command, str(folder)]) == 2
    err = capsys.readouterr().err
    assert "holds the traces of 2 workers (host_1, host_2), not one trace" in err
    assert f"steptrace ranks {folder} compares them" in err


def test_open_takes_one_workers_newest_window_and_a_run_as_a_run(
    two_windows: list[Path], two_workers: list[Path]
) -> None:
    older, newest = two_windows
    path, notices = one_trace_or_run(newest.parent, None)
    assert path == newest
    (said,) = notices
    assert older.name in said
    assert one_trace_or_run(older.parent, 1)[0] == older
    run = two_workers[0].parent
    assert one_trace_or_run(run, None) == (run, ())


def test_a_folder_without_traces_says_what_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "train.log").write_text("")
    assert main(["findings", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no trace files (*.json, *.json.gz)" in err
    assert "it holds 2 entries: plugins/, train.log" in err
    with pytest.raises(CommandError, match="it is empty"):
        (tmp_path / "plugins").rename(tmp_path.parent / f"{tmp_path.name}-moved")
        (tmp_path / "train.log").unlink()
        one_trace_or_run(tmp_path, None)

"""The explorer's commands: `steptrace open TRACE`, `steptrace TRACE`, `steptrace demo`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.cli import main


def test_open_missing_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["open", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_bare_trace_argument_means_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_open_runs_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.commands import open as open_command

    opened: list[Path] = []

    def fake_open(path: Path, **options: object) -> int:
        opened.append(path)
        assert options.get("zones", ()) == ()
        return 0

    monkeypatch.setattr(open_command, "open_in_app", fake_open)
    trace = tmp_path / "t.json"
    trace.write_text("{}")
    assert main([str(trace)]) == 0
    assert opened == [trace]


def test_demo_without_torch_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "torch" else real_find_spec(name, *a),
    )
    assert main(["demo"]) == 2
    assert "pip install" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["summry", "x.json"], "summary"),
        (["Summary", "x.json"], "summary"),
        (["gap", "x.json"], "gaps"),
        (["note", "x.json", "list"], "notes"),
        (["opn"], "open"),
        (["scrb", "x.json", "--check"], "scrub"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_a_mistyped_command_names_itself(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    meant: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"steptrace: unknown command '{argv[0]}' (did you mean {meant}?)\n"


@pytest.mark.parametrize(
    "word",
    ["summry.json", "summry.json.gz", "runs/summry", "nosuchfile.json", "trace.gz"],
)
def test_a_word_that_names_a_file_is_opened_not_corrected(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    word: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([word]) == 2
    assert capsys.readouterr().err == f"steptrace: {word}: no such file\n"


def test_an_existing_file_named_like_a_typo_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.commands import open as open_command

    opened: list[Path] = []

    def open_in_app(path: Path, **_: Any) -> int:
        opened.append(path)
        return 0

    monkeypatch.setattr(open_command, "open_in_app", open_in_app)
    monkeypatch.chdir(tmp_path)
    Path("summry").write_text("{}")
    assert main(["summry"]) == 0
    assert opened == [Path("summry")]


def test_a_word_neither_file_nor_command_says_both(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["xyzzy"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "steptrace: xyzzy: no such file, and not a command (see steptrace --help)\n"
    )


def test_a_folder_reads_the_same_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "captures"
    folder.mkdir()
    for argv in (
        ["open", str(folder)],
        [str(folder)],
        ["scrub", str(folder), "--check"],
        ["scrub", str(folder), "-o", str(tmp_path / "out.json")],
        ["notes", str(folder)],
        ["notes", "add", str(folder), "--hypothesis", "h"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"steptrace: {folder}: is a folder"), argv
        assert err.count("\n") == 1 and "directory" not in err, argv


def test_without_a_terminal_open_says_so_and_exits_2_at_once(tmp_path: Path) -> None:
    """stdin from /dev/null and output to a pipe, as in CI: one line, exit 2, no app."""
    import subprocess
    import sys
    import time

    from tests.builders.app_traces import write_training_trace

    trace = write_training_trace(tmp_path / "t.json")
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "tui", "open", str(trace)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("steptrace: the explorer needs a terminal")
    assert time.monotonic() - began < 30


def test_open_returns_the_apps_exit_status_not_its_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The app's return code (2 after a load error or an unknown --zone) is the
    command's status, and the lines it kept go to stderr after it ends."""
    from tui.app import app as app_module
    from tui.commands import open as open_command

    class EndsWithTwo:
        def __init__(self, path: Path, **options: object) -> None:
            self.zones = options["zones"]
            self.return_code = 2
            self.exit_lines = ["steptrace: no range named 'x' in this capture"]

        def run(self) -> None:
            return None

    monkeypatch.setattr(open_command, "has_terminal", lambda: True)
    monkeypatch.setattr(app_module, "StepTraceApp", EndsWithTwo)
    trace = tmp_path / "t.json"
    trace.write_text("{}")
    assert main(["open", str(trace), "--zone", "x"]) == 2
    assert capsys.readouterr().err == "steptrace: no range named 'x' in this capture\n"


def test_demo_without_a_terminal_refuses_before_capturing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`steptrace demo < /dev/null` needs a terminal: it says so and exits 2
    before starting the capture, not after running it whole."""
    import importlib.util
    import subprocess

    from tui.commands import open as open_command

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "torch" else real_find_spec(name, *a),
    )
    monkeypatch.setattr(open_command, "has_terminal", lambda: False)
    started: list[object] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a))
    assert main(["demo"]) == 2
    error = capsys.readouterr().err
    assert started == []
    assert "needs a terminal" in error
    assert "--no-open" in error

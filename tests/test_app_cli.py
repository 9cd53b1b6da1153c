"""The explorer's commands: `steptrace open TRACE`, `steptrace TRACE`, `steptrace demo`."""

from __future__ import annotations

from pathlib import Path

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

    def fake_open(path: Path) -> int:
        opened.append(path)
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

"""Python frames apart: `ops` lists operators only, `ops --python` brings the
frames and module ranges back, on an eager and a compiled capture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.compile_captures import capture_tiny_model
from tui.cli import main
from tui.core.model.python_frames import is_python_frame_name

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compiled")
    return capture_tiny_model(
        folder / "compiled.json",
        compiled=True,
        with_stack=True,
        recompile_in_window=False,
    )


def _ops(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(["ops", *argv, "--json"]) == 0
    return [row["name"] for row in json.loads(capsys.readouterr().out)["ops"]]


def _python_events(trace: Path) -> set[str]:
    events = json.loads(trace.read_text())["traceEvents"]
    return {e["name"] for e in events if e.get("cat") == "python_function"}


@pytest.mark.parametrize("capture", ["eager", "compiled"])
def test_ops_lists_operators_only_and_python_brings_frames_back(
    capture: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    trace: Path = request.getfixturevalue(capture)
    frames = _python_events(trace)
    assert any(name.startswith("nn.Module: ") for name in frames)
    operators = _ops(capsys, str(trace))
    assert "aten::addmm" in operators or "CompiledFunction" in operators
    assert not frames & set(operators)
    assert not [name for name in operators if is_python_frame_name(name)]
    with_frames = _ops(capsys, str(trace), "--python")
    assert frames <= set(with_frames)
    assert set(operators) <= set(with_frames)


def test_the_names_of_frames_without_their_category() -> None:
    assert is_python_frame_name("model.py(12): forward")
    assert is_python_frame_name("<built-in method add of Tensor object>")
    assert is_python_frame_name("nn.Module: Linear_0")
    assert not is_python_frame_name("aten::addmm")
    assert not is_python_frame_name("Torch-Compiled Region: 0/1")
    assert not is_python_frame_name("## Call CompiledFxGraph abc ##")

"""Zero-code capture: an unmodified script under the profiler, in a child interpreter."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("torch")

from collector.launch import NO_TRACE_STATUS

pytestmark = pytest.mark.torch
REPO = Path(__file__).resolve().parents[2]

TRAIN_SCRIPT = """\
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset

print("script argv:", sys.argv[1:])
steps = int(sys.argv[1])
torch.manual_seed(0)
model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(4 * steps, 8), torch.randint(0, 2, (4 * steps,)))
for inputs, targets in DataLoader(data, batch_size=4):
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(inputs), targets).backward()
    optimizer.step()
print("script done")
sys.exit(int(sys.argv[2]))
"""

INFERENCE_SCRIPT = """\
import torch
model = torch.nn.Linear(8, 2).eval()
with torch.no_grad():
    for _ in range(5):
        model(torch.randn(4, 8))
"""


def run_capture(
    tmp_path: Path, script: str, *arguments: str, window: str = "1,1,2"
) -> subprocess.CompletedProcess[str]:
    """`steptrace capture -o … -- python script.py ARGS`, through the CLI, in a fresh process."""
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(script))
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
    command = [
        sys.executable,
        "-c",
        "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
        "capture",
        "-o",
        str(tmp_path / "trace.json"),
        "--window",
        window,
        "--question",
        "is the step waiting for data?",
        "--",
        sys.executable,
        str(path),
        *arguments,
    ]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        timeout=120,
    )


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    return data


@pytest.fixture(scope="module")
def six_steps(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("zerocode")
    return folder, run_capture(folder, TRAIN_SCRIPT, "6", "7")


@pytest.mark.slow
def test_script_status_output_and_argv_pass_through(
    six_steps: tuple[Path, Any],
) -> None:
    _folder, completed = six_steps
    assert completed.returncode == 7, completed.stderr
    assert "script argv: ['6', '7']" in completed.stdout
    assert "script done" in completed.stdout


@pytest.mark.slow
def test_progress_lines_for_a_parent(six_steps: tuple[Path, Any]) -> None:
    _folder, completed = six_steps
    lines = re.findall(r"steptrace: step (\d)/4 \((\w+)\)", completed.stderr)
    assert lines == [("1", "wait"), ("2", "warmup"), ("3", "active"), ("4", "active")]


@pytest.mark.slow
def test_steps_follow_optimizer_steps_and_reads_are_zoned(
    six_steps: tuple[Path, Any],
) -> None:
    folder, _completed = six_steps
    trace = load(folder / "trace.json")
    spans = [
        e
        for e in trace["traceEvents"]
        if e.get("ph") == "X" and e.get("cat") == "user_annotation"
    ]
    steps = {
        int(e["name"].split("#")[1]): e
        for e in spans
        if e["name"].startswith("ProfilerStep#")
    }
    assert sorted(steps) == [2, 3]
    for step in steps.values():
        end = step["ts"] + step["dur"]
        inside = [
            e["name"]
            for e in spans
            if step["ts"] <= e["ts"] and e["ts"] + e["dur"] <= end
        ]
        assert inside.count("lecture_batch_cpu") == 1, inside
        assert sum(name.startswith("Optimizer.step#") for name in inside) == 1, inside
    # Every optimizer range sits wholly inside one step: the step ends after it, not within it.
    for event in spans:
        if event["name"].startswith("Optimizer.step#"):
            assert any(
                s["ts"] <= event["ts"]
                and event["ts"] + event["dur"] <= s["ts"] + s["dur"]
                for s in steps.values()
            )


@pytest.mark.slow
def test_description_of_a_script_capture(six_steps: tuple[Path, Any]) -> None:
    from collector.schema import validate_description

    folder, _completed = six_steps
    description = load(folder / "trace.json")["steptrace"]
    assert validate_description(description) == []
    assert description["question"] == "is the step waiting for data?"
    assert description["active_steps"] == [2, 3]
    assert description["zones"]["declared"] == ["lecture_batch_cpu"]
    assert description["command"][1:] == [str(folder / "train.py"), "6", "7"]
    assert description["startup"]["before_first_step_ms"] > 0


@pytest.mark.slow
def test_no_optimizer_step_fails_with_an_explanation(tmp_path: Path) -> None:
    completed = run_capture(tmp_path, INFERENCE_SCRIPT)
    assert completed.returncode == NO_TRACE_STATUS
    assert "no optimizer step" in completed.stderr
    assert "collector.capture" in completed.stderr
    assert not (tmp_path / "trace.json").exists()


@pytest.mark.slow
def test_too_few_steps_for_the_window_fails_with_an_explanation(tmp_path: Path) -> None:
    completed = run_capture(tmp_path, TRAIN_SCRIPT, "2", "0")
    assert completed.returncode == NO_TRACE_STATUS
    assert "2 optimizer step(s)" in completed.stderr and "--window" in completed.stderr
    assert not (tmp_path / "trace.json").exists()


def test_existing_output_is_refused_before_the_script_runs(tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_bytes(b"keep")
    completed = run_capture(tmp_path, TRAIN_SCRIPT, "6", "0")
    assert completed.returncode == 2
    assert "script argv" not in completed.stdout
    assert (
        completed.stderr.strip().count("\n") == 0
        and "already exists" in completed.stderr
    )
    assert (tmp_path / "trace.json").read_bytes() == b"keep"


def test_command_must_start_with_python(tmp_path: Path) -> None:
    from tui.cli import main

    assert (
        main(["capture", "-o", str(tmp_path / "t.json"), "--", "bash", "train.sh"]) == 2
    )
    assert (
        main(
            [
                "capture",
                "-o",
                str(tmp_path / "t.json"),
                "--",
                "python",
                str(tmp_path / "missing.py"),
            ]
        )
        == 2
    )


def test_a_bare_python_without_torch_runs_under_steptraces_own_interpreter(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`capture -- python train.py` from a virtualenv that is not activated failed
    'torch is not importable in /usr/bin/python': the `python` on PATH lacks
    torch while steptrace's own interpreter has it. A bare python/python3 is
    then run by steptrace's interpreter, and the capture says so."""
    import collector.launch
    from tui.cli import main

    base = Path(getattr(sys, "_base_executable", "") or "/usr/bin/python3")
    probe = subprocess.run(
        [str(base), "-c", "import torch"], capture_output=True, check=False
    )
    if not base.is_file() or probe.returncode == 0:
        pytest.skip("no interpreter without torch to stand for the PATH python")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "python").symlink_to(base)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    script = tmp_path / "train.py"
    script.write_text(TRAIN_SCRIPT)
    ran: list[Any] = []

    def run_zero_code(command: Any, settings: Any) -> int:
        ran.append(command)
        return 0

    monkeypatch.setattr(collector.launch, "run_zero_code", run_zero_code)
    output = tmp_path / "t.json"
    argv = ["capture", "-o", str(output), "--", "python", str(script), "6", "0"]
    assert main(argv) == 0
    (command,) = ran
    assert command.interpreter == sys.executable
    assert command.target == [str(script), "6", "0"]
    error = capsys.readouterr().err
    assert f"python on PATH ({folder / 'python'}) cannot import torch" in error
    assert f"running it with steptrace's own interpreter, {sys.executable}" in error

"""The capture and bench commands: clear one-line errors, exit 2, and torch only when needed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tui.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    error = capsys.readouterr().err
    assert (
        error.startswith("steptrace: ")
        and error.count("\n") == 1
        and "Traceback" not in error
    ), error
    return error


@pytest.mark.torch
def test_capture_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "demo.json"
    assert (
        main(
            [
                "capture",
                "demo",
                "-o",
                str(path),
                "--window",
                "0,1,1",
                "--read-delay-ms",
                "0",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert out.strip() == str(path)
    assert "steptrace: step 2/2 (active)" in err
    description = orjson.loads(path.read_bytes())["steptrace"]
    assert description["active_steps"] == [1]
    assert description["command"][:3] == ["steptrace", "capture", "demo"]
    assert "--window" in description["command"]


@pytest.mark.torch
def test_torchs_native_log_lines_stay_out_of_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """torch's "USDT: … profiler_start" lines (its profiler library's log,
    written straight to file descriptor 2) leaked onto stderr during every
    capture. They are kept out of the terminal and in the trace, under their
    level as the profiler library keeps its own log."""
    path = tmp_path / "demo.json"
    argv = ["capture", "demo", "-o", str(path), "--window", "0,1,1"]
    assert main([*argv, "--read-delay-ms", "0"]) == 0
    err = capfd.readouterr().err
    assert "steptrace: step 2/2 (active)" in err and f"wrote {path}" in err
    assert "profiler_start" not in err and "USDT:" not in err, err
    trace = orjson.loads(path.read_bytes())
    logged = [
        line for level in ("USDT", "STAGE", "INFO") for line in trace.get(level, [])
    ]
    assert all("] " in line for line in logged)
    if logged:  # torch versions differ in what they log
        assert not any(line.endswith("\n") for line in logged)


@pytest.mark.torch
@pytest.mark.slow
def test_demo_command_captures_under_captures_where_torch_can_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch

    from collector.demo import gpu_profilable

    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--no-open"]) == 0
    path = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert path.parent == tmp_path / "captures"
    description = orjson.loads(path.read_bytes())["steptrace"]
    assert "--device" in description["command"]
    assert (
        description["command"][description["command"].index("--device") + 1] == "auto"
    )
    on_gpu = torch.cuda.is_available() and gpu_profilable()
    assert description["activities"]["requested"] == (
        ["cpu", "cuda"] if on_gpu else ["cpu"]
    )


@pytest.mark.parametrize(
    "arguments",
    [
        ["capture"],
        ["capture", "demo", "--window", "1,1"],
        ["capture", "demo", "--read-delay-ms", "-1", "-o", "{tmp}/x.json"],
        ["capture", "demo", "extra"],
        ["capture", "demo", "-o", "{tmp}/missing/x.json"],
        ["capture", "-o", "{tmp}/x.json", "--", "ls", "-l"],
        ["bench", "mymodel"],
        ["bench", "demo", "--runs", "0", "-o", "{tmp}/r.json"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    assert (
        main([argument.replace("{tmp}", str(tmp_path)) for argument in arguments]) == 2
    )
    one_line_error(capsys)
    assert not list(tmp_path.iterdir())


def test_existing_output_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "taken.json"
    existing.write_bytes(b"keep")
    for arguments in (["capture", "demo"], ["bench", "demo"]):
        assert main([*arguments, "-o", str(existing)]) == 2
        assert "already exists" in one_line_error(capsys)
    assert existing.read_bytes() == b"keep"


@pytest.mark.torch
def test_bench_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    arguments = [
        "bench",
        "demo",
        "--runs",
        "2",
        "--warmup",
        "1",
        "--steps",
        "2",
        "--read-delay-ms",
        "0",
    ]
    assert main([*arguments, "-o", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(path) and "bench run 2/2" in err
    assert len(orjson.loads(path.read_bytes())["runs"]) == 2


@pytest.mark.parametrize("arguments", [["capture", "demo"], ["bench", "demo"]])
def test_missing_torch_says_what_to_install(
    tmp_path: Path, arguments: list[str]
) -> None:
    code = "import sys; sys.modules['torch'] = None\nfrom tui.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, "-c", code, *arguments, "-o", str(tmp_path / "x.json")],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert completed.returncode == 2
    assert "pip install 'steptrace[collect]'" in completed.stderr
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr

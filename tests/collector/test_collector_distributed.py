"""The collector under torch.distributed: torchrun jobs on the CPU with gloo, one trace per rank."""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

pytest.importorskip("torch")

from collector import distributed
from collector.errors import (
    InvalidSettingError,
    OutputExistsError,
    OutputFolderError,
)
from collector.launch import (
    TORCHRUN,
    _shebang_interpreter,
    child_argv,
    prepare,
    split_script_command,
)
from collector.schema import validate_description
from collector.torchrun import worker_arguments
from tests.builders.distributed import (
    TRAIN_SCRIPT,
    DistributedRun,
    complete_events,
    inside,
    killed_by_a_signal,
    run_job,
    shared_straggler_run,
    steps_of,
    steptrace_capture,
    time_in_step_us,
    torchrun_job,
    torchrun_words,
)

pytestmark = pytest.mark.torch
ACTIVE_STEPS = [2, 3, 4, 5]  # the straggler run's window is 1,1,4


@pytest.fixture(scope="module")
def straggler_run(tmp_path_factory: pytest.TempPathFactory) -> DistributedRun:
    return shared_straggler_run(tmp_path_factory, slow_rank=1, window="1,1,4")


@pytest.mark.slow
def test_torchrun_job_passes_through_and_names_its_folder(
    straggler_run: DistributedRun,
) -> None:
    completed = straggler_run.completed
    assert completed.returncode == 0, completed.stderr
    assert "rank 0 trained 7 steps" in completed.stdout
    assert "rank 1 trained 7 steps" in completed.stdout
    # The last line is what a caller opens: the run folder.
    assert completed.stdout.strip().splitlines()[-1] == str(straggler_run.folder)
    for rank in (0, 1):
        assert f"steptrace: rank {rank}: step 6/6 (active)" in completed.stderr


@pytest.mark.slow
def test_every_rank_writes_its_own_file_with_exactly_the_active_steps(
    straggler_run: DistributedRun,
) -> None:
    assert sorted(path.name for path in straggler_run.folder.iterdir()) == [
        "rank-0.pt.trace.json",
        "rank-1.pt.trace.json",
    ]
    for rank in (0, 1):
        trace = straggler_run.trace(rank)
        assert sorted(steps_of(trace)) == ACTIVE_STEPS
        assert trace["steptrace"]["active_steps"] == ACTIVE_STEPS
        # Steps follow optimizer steps: one DataLoader read and one update in each.
        for span in steps_of(trace).values():
            names = [e["name"] for e in complete_events(trace) if inside(e, span)]
            assert names.count("lecture_batch_cpu") == 1
            assert sum(n.startswith("Optimizer.step#") for n in names) == 1


@pytest.mark.slow
def test_each_description_says_where_its_rank_sits(
    straggler_run: DistributedRun,
) -> None:
    for rank in (0, 1):
        trace = straggler_run.trace(rank)
        description = trace["steptrace"]
        assert validate_description(description) == []
        assert description["distributed"] == {
            "world_size": 2,
            "rank": rank,
            "backend": "gloo",
            "launcher": "torchrun",
        }
        assert description["window"]["active"] == len(ACTIVE_STEPS)
        assert description["command"][:4] == torchrun_words(2)
        info = trace["distributedInfo"]
        assert (info["rank"], info["world_size"], info["backend"]) == (rank, 2, "gloo")


@pytest.mark.slow
def test_the_fast_rank_waits_the_injected_delay_in_the_all_reduce(
    straggler_run: DistributedRun,
) -> None:
    slow, fast = straggler_run.trace(1), straggler_run.trace(0)
    delay_us = straggler_run.delay_ms * 1000.0
    extra_waits = []
    for step in ACTIVE_STEPS:
        # The delay sits in the slow rank's data zone, not in the fast rank's.
        assert time_in_step_us(slow, step, "lecture_batch_cpu") >= delay_us
        assert time_in_step_us(fast, step, "lecture_batch_cpu") < delay_us / 4
        extra_waits.append(
            time_in_step_us(fast, step, "gloo:all_reduce")
            - time_in_step_us(slow, step, "gloo:all_reduce")
        )
    # Two shared cores jitter a step by several ms: each step within half the
    # delay, their median within a quarter.
    assert all(abs(wait - delay_us) < delay_us / 2 for wait in extra_waits), extra_waits
    assert abs(statistics.median(extra_waits) - delay_us) < delay_us / 4, extra_waits


@pytest.fixture(scope="module")
def module_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """`python -m torch.distributed.run … -m MODULE` whose rank exits with status 5.

    One rank: the module form and the exit status are the claims; where each
    rank sits is the two-rank straggler job's (a rank is a torch process, 5 s
    of CPU)."""
    folder = tmp_path_factory.mktemp("module-form")
    (folder / "ddp_job.py").write_text(textwrap.dedent(TRAIN_SCRIPT))
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        *torchrun_words(1)[1:],
        "-m",
        "ddp_job",
        "4",
        "-1",
        "0",
        "5",
    ]
    completed = run_job(
        lambda: steptrace_capture(folder, "run", command, window="0,1,2"),
        [folder / "run"],
    )
    return folder / "run", completed


def test_a_rank_torch_crashed_is_told_apart_and_the_job_runs_once_more(
    tmp_path: Path,
) -> None:
    """The tests' one rerun reads torchrun's real report: a rank killed by
    SIGABRT is a crash, run again once; a rank that exits 5 is the job's own
    failure."""
    (tmp_path / "crash.py").write_text(
        "import os, pathlib, sys\n"
        "runs = pathlib.Path('runs')\n"
        "runs.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
        "if len(runs.read_text()) > 2:\n"
        "    sys.exit(5)\n"
        "os.abort()\n"
    )

    def run_once() -> subprocess.CompletedProcess[str]:
        return torchrun_job(tmp_path, 1, "crash.py")

    leftover = tmp_path / "leftover"
    leftover.mkdir()
    with pytest.warns(UserWarning, match="killed by signal 6"):
        completed = run_job(run_once, [leftover])
    # Crashed twice: the second crash is the test's to see, with no third run.
    assert killed_by_a_signal(completed) == 6
    assert (tmp_path / "runs").read_text() == "xx"
    # The fault handler tells where in Python the rank was when it died.
    assert "Fatal Python error: Aborted" in completed.stderr, completed.stderr
    assert re.search(r'File ".*crash\.py", line 6', completed.stderr), completed.stderr
    assert not leftover.exists()
    exited = run_once()
    assert exited.returncode == 1
    assert re.search(r"exitcode\s*:\s*5", exited.stderr), exited.stderr
    assert killed_by_a_signal(exited) is None


@pytest.mark.slow
def test_module_form_and_torchruns_exit_status(
    module_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, completed = module_run
    # A worker that exits 5 fails the job: torchrun says so and exits 1, as it would alone.
    assert completed.returncode == 1, completed.stderr
    assert re.search(r"exitcode\s*:\s*5", completed.stderr), completed.stderr
    assert "rank 0 trained 4 steps" in completed.stdout
    assert sorted(path.name for path in folder.glob("*.json")) == [
        "rank-0.pt.trace.json"
    ]
    description = orjson.loads((folder / "rank-0.pt.trace.json").read_bytes())[
        "steptrace"
    ]
    assert description["active_steps"] == [1, 2]
    assert description["distributed"]["rank"] == 0
    assert description["distributed"]["world_size"] == 1
    assert description["command"][1:4] == [
        "-m",
        "torch.distributed.run",
        "--standalone",
    ]


def test_a_folder_holding_a_rank_trace_is_refused_before_the_job_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli import main

    run = tmp_path / "run"
    run.mkdir()
    taken = run / "rank-1.pt.trace.json"
    taken.write_bytes(b"precious")
    os.utime(taken, ns=(1_000_000_000, 1_000_000_000))
    script = tmp_path / "train.py"
    script.write_text(f"open({str(tmp_path / 'started')!r}, 'w').close()\n")
    status = main(
        [
            "capture",
            "-o",
            str(run),
            "--",
            "torchrun",
            *torchrun_words(2)[1:],
            str(script),
        ]
    )
    error = capsys.readouterr().err
    assert status == 2
    assert error.count("\n") == 1 and "rank-1.pt.trace.json" in error, error
    assert taken.read_bytes() == b"precious"
    assert taken.stat().st_mtime_ns == 1_000_000_000
    assert sorted(p.name for p in run.iterdir()) == ["rank-1.pt.trace.json"]
    assert not (tmp_path / "started").exists()


def test_a_worker_command_without_python_is_refused_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "train.py").write_text("")
    completed = steptrace_capture(
        tmp_path,
        "run",
        ["torchrun", "--no-python", "--nproc-per-node", "2", "train.py"],
    )
    assert completed.returncode == 2
    assert "--no-python" in completed.stderr and "Traceback" not in completed.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("output", ["trace.json", "file"])
def test_torchrun_output_must_be_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    from tui.cli import main

    (tmp_path / "file").write_bytes(b"")
    script = tmp_path / "train.py"
    script.write_text("")
    status = main(
        ["capture", "-o", str(tmp_path / output), "--", "torchrun", str(script)]
    )
    assert status == 2
    assert "is not a folder" in capsys.readouterr().err
    assert not (tmp_path / "trace.json").exists()


# -- the API inside an initialised process group ------------------------------


def test_torchrun_commands_are_recognised(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("")
    by_name = split_script_command(["torchrun", "--nproc-per-node", "2", str(script)])
    assert by_name.launcher == TORCHRUN
    assert by_name.target == ["--nproc-per-node", "2", str(script)]
    assert os.path.samefile(by_name.interpreter, sys.executable)
    by_module = split_script_command(
        [sys.executable, "-u", "-m", "torch.distributed.run", "--standalone", "x.py"]
    )
    assert (by_module.launcher, by_module.interpreter_flags) == (TORCHRUN, ["-u"])
    assert by_module.target == ["--standalone", "x.py"]
    plain = split_script_command([sys.executable, str(script)])
    assert plain.launcher is None
    for refused in (
        ["torchrun"],
        [sys.executable, "-m", "torch.distributed.run"],
        [sys.executable, "-m", "torch.distributed.launch", "x.py"],
        ["mpirun", "python", "x.py"],
    ):
        with pytest.raises(InvalidSettingError):
            split_script_command(refused)


def test_the_launcher_child_is_torchrun_with_the_capture_options(
    tmp_path: Path,
) -> None:
    script = tmp_path / "train.py"
    script.write_text("")
    command, settings = prepare(
        ["torchrun", "--nproc-per-node", "2", str(script), "--lr", "1"],
        tmp_path / "run",
        question="q?",
    )
    assert settings.per_rank and settings.output == (tmp_path / "run").resolve()
    assert not (tmp_path / "run").exists()  # nothing is created before the job starts
    argv = child_argv(command, settings)
    assert argv[1:3] == ["-m", "collector.torchrun"]
    cut = argv.index("--")
    assert argv[cut + 1 :] == ["--nproc-per-node", "2", str(script), "--lr", "1"]
    options = argv[3:cut]
    assert options[:2] == ["--run-dir", str(settings.output)]
    assert options[-2:] == ["--launcher", "torchrun"]


def torchrun_arguments(arguments: list[str]) -> argparse.Namespace:
    """torchrun's reading of its command line (its parser is untyped)."""
    from torch.distributed import run as torchrun

    parse: Callable[[list[str]], argparse.Namespace] = torchrun.parse_args
    return parse(arguments)


def test_workers_start_under_the_zero_code_capture(tmp_path: Path) -> None:
    from torch.distributed import run as torchrun

    script = tmp_path / "train.py"
    script.write_text("")
    options = ["--run-dir", "D", "--launcher", "torchrun"]
    for given, target in (
        ([str(script), "--lr", "1"], [str(script)]),
        (["-m", "pkg.train", "--lr", "1"], ["-m", "pkg.train"]),
    ):
        parsed = torchrun_arguments(["--standalone", "--nproc-per-node", "2", *given])
        assert worker_arguments(parsed, options) is None
        _config, program, program_args = torchrun.config_from_args(parsed)
        assert program == sys.executable
        assert program_args == [
            "-u",
            "-m",
            "collector.zerocode",
            *options,
            "--",
            *target,
            "--lr",
            "1",
        ]
    for flag in ("--no-python", "--run-path"):
        parsed = torchrun_arguments([flag, str(script)])
        problem = worker_arguments(parsed, options)
        assert problem is not None and flag in problem
    parsed = torchrun_arguments([str(tmp_path / "missing.py")])
    assert "not found" in (worker_arguments(parsed, options) or "")


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ("#!/opt/env/bin/python3.11\nimport sys\n", "/opt/env/bin/python3.11"),
        (
            "#!/bin/sh\n'''exec' \"/very/long/bin/python\" \"$0\" \"$@\"\n' '''\n",
            "/very/long/bin/python",
        ),
        ("import sys\n", None),
    ],
    ids=["plain", "pip-long-path", "no-shebang"],
)
def test_console_script_interpreter(
    tmp_path: Path, lines: str, expected: str | None
) -> None:
    script = tmp_path / "torchrun"
    script.write_text(lines)
    assert _shebang_interpreter(script) == expected


def test_env_shebang_finds_the_program_on_path(tmp_path: Path) -> None:
    script = tmp_path / "torchrun"
    script.write_text("#!/usr/bin/env python3\n")
    found = _shebang_interpreter(script)
    assert found is not None and os.path.basename(found).startswith("python3")


def test_run_folder_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fresh = distributed.check_run_folder("auto")
    assert fresh.parent == tmp_path and fresh.name.startswith("steptrace-run-")
    assert not fresh.exists()
    assert distributed.check_run_folder(tmp_path / "new") == tmp_path / "new"
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "notes.txt").write_text("")
    assert distributed.check_run_folder(tmp_path / "old") == tmp_path / "old"
    (tmp_path / "old" / "rank-3.cycle2.pt.trace.json.gz").write_bytes(b"")
    with pytest.raises(OutputExistsError, match=r"rank-3\.cycle2"):
        distributed.check_run_folder(tmp_path / "old")
    with pytest.raises(OutputFolderError, match="does not exist"):
        distributed.check_run_folder(tmp_path / "missing" / "run")
    with pytest.raises(OutputFolderError, match="not a folder"):
        distributed.check_run_folder(tmp_path / "run.json")


def test_a_run_folder_another_rank_creates_meanwhile_is_the_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rank checks the run folder while another may be creating it: the
    folder appearing between the checks is a folder, never "not a folder"."""
    run = tmp_path / "run"
    asked = Path.exists

    def created_as_asked(self: Path) -> bool:
        found = asked(self)
        if self == run:
            run.mkdir(exist_ok=True)  # another rank, right after this one looked
        return found

    monkeypatch.setattr(Path, "exists", created_as_asked)
    assert distributed.check_run_folder(run) == run
    is_dir = Path.is_dir

    def created_before_the_second_question(self: Path) -> bool:
        answer = is_dir(self)
        if self == run:
            run.mkdir(exist_ok=True)
        return answer

    run.rmdir()
    monkeypatch.setattr(Path, "exists", asked)
    monkeypatch.setattr(Path, "is_dir", created_before_the_second_question)
    assert distributed.check_run_folder(run) == run


def test_launcher_and_rank_from_the_environment() -> None:
    assert (
        distributed.launcher_from_environment({"TORCHELASTIC_RUN_ID": "x"})
        == "torchrun"
    )
    assert distributed.launcher_from_environment({"SLURM_PROCID": "0"}) == "slurm"
    assert distributed.launcher_from_environment({}) is None
    assert distributed.environment_rank({"RANK": "3"}) == 3
    assert distributed.environment_rank({}) is None
    with pytest.raises(InvalidSettingError):
        distributed.environment_rank({"RANK": "x"})


@pytest.mark.slow
def test_validate_description_checks_the_distributed_object(
    straggler_run: DistributedRun,
) -> None:
    description = straggler_run.trace(0)["steptrace"]
    description["distributed"]["rank"] = "0"
    del description["distributed"]["launcher"]
    assert validate_description(description) == [
        "distributed.rank: unexpected type str",
        "distributed.launcher: missing",
    ]
    # One process: null; a description written before distributed runs: absent.
    description["distributed"] = None
    assert validate_description(description) == []
    del description["distributed"]
    assert validate_description(description) == []

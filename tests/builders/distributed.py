"""Distributed jobs on the CPU (torchrun, gloo) captured by steptrace, for tests to read.

`make_straggler_run(tmp_path, slow_rank=1, delay_ms=STRAGGLER_DELAY_MS)` runs a small
DistributedDataParallel training under `steptrace capture -o DIR -- torchrun
…` where one rank sleeps `delay_ms` inside its data zone in every step; its
peers then wait about that long in the gradient all-reduce. The traces are
real: what they show is measured, the delay is the only thing known in advance.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[2]

# The slow rank's sleep per step. The tests allow half of it per step: on two
# cores shared with the suite's other workers, a step's scheduling jitter
# reached 27 ms, so 40 ms (±20) failed now and then; 120 ms (±60) costs
# sleep, not CPU.
STRAGGLER_DELAY_MS = 120.0

# A DDP training script: argv = STEPS SLOW_RANK DELAY_MS [EXIT_STATUS].
# The slow rank sleeps in its collate function, so inside the DataLoader read
# (the zero-code capture's data zone), once per batch.
TRAIN_SCRIPT = """\
import sys
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset, default_collate

steps, slow_rank, delay_ms = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
exit_status = int(sys.argv[4]) if len(sys.argv) > 4 else 0
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def collate(items):
    if rank == slow_rank:
        time.sleep(delay_ms / 1000.0)
    return default_collate(items)


data = TensorDataset(torch.randn(4 * steps, 8), torch.randint(0, 2, (4 * steps,)))
for inputs, targets in DataLoader(data, batch_size=4, collate_fn=collate):
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(inputs), targets).backward()
    optimizer.step()
print(f"rank {rank} trained {steps} steps", flush=True)
# Every rank has written its trace and said so before any rank exits: torchrun
# stops the others as soon as one fails.
dist.barrier()
dist.destroy_process_group()
sys.exit(exit_status)
"""


@dataclass(frozen=True)
class DistributedRun:
    """A captured job: its run folder, what was injected, and how the command ended."""

    folder: Path
    world_size: int
    slow_rank: int | None
    delay_ms: float
    window: str
    completed: subprocess.CompletedProcess[str]

    def rank_path(self, rank: int) -> Path:
        """The trace rank `rank` wrote."""
        return self.folder / f"rank-{rank}.pt.trace.json"

    def trace(self, rank: int) -> dict[str, Any]:
        """Rank `rank`'s trace, parsed."""
        data: dict[str, Any] = orjson.loads(self.rank_path(rank).read_bytes())
        return data


def job_environment() -> dict[str, str]:
    """The environment of a job: this checkout importable, torchrun on PATH, one
    thread per rank, and Python's fault handler on, so that a rank torch
    crashes prints every thread's Python stack (see run_job)."""
    bin_folder = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PATH": bin_folder + os.pathsep + os.environ.get("PATH", ""),
        "OMP_NUM_THREADS": "1",
        "PYTHONFAULTHANDLER": "1",
    }


def write_train_script(folder: Path) -> Path:
    """The DDP training script, written into `folder`."""
    script = folder / "train_ddp.py"
    script.write_text(textwrap.dedent(TRAIN_SCRIPT))
    return script


def steptrace_capture(
    cwd: Path,
    output: str,
    command: Sequence[str],
    *,
    window: str = "1,1,2",
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`steptrace capture -o OUTPUT --window WINDOW -- COMMAND`, in a fresh process."""
    argv = [
        sys.executable,
        "-c",
        "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
        "capture",
        "-o",
        output,
        "--window",
        window,
        "--question",
        "which rank does the job wait for?",
        "--",
        *command,
    ]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=job_environment(),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


# torchrun's account of a job whose first failing rank was killed by a signal:
# "Root Cause (first observed failure): … exitcode : -6 (pid: …) (SIGABRT)".
ROOT_CAUSE_SIGNAL = re.compile(
    r"Root Cause \(first observed failure\):.*?exitcode\s*:\s*-(\d+)", re.S
)


def killed_by_a_signal(completed: subprocess.CompletedProcess[str]) -> int | None:
    """The signal that killed the job's first failing rank, by torchrun's report; None otherwise."""
    if completed.returncode == 0:
        return None
    found = ROOT_CAUSE_SIGNAL.search(completed.stderr)
    return int(found.group(1)) if found else None


def run_job(
    run_once: Callable[[], subprocess.CompletedProcess[str]],
    leftovers: Sequence[Path],
) -> subprocess.CompletedProcess[str]:
    """`run_once()`, and once more, with `leftovers` removed, if torch itself crashed a rank.

    A rank of these jobs runs Python code only; one killed by a signal died in
    torch's C++ (CI once saw a rank abort with SIGABRT and its peer's gloo
    barrier reset; six loops of that job at once on 2 cores did so once in
    about 55 jobs). That says nothing of the collector,
    so the job runs again; an exception, an exit status or a second crash
    still reach the test.
    """
    completed = run_once()
    signal_number = killed_by_a_signal(completed)
    if signal_number is None:
        return completed
    warnings.warn(
        f"a rank of the torchrun job was killed by signal {signal_number}; "
        f"running the job again:\n{completed.stderr[-20_000:]}",
        stacklevel=2,
    )
    for path in leftovers:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    return run_once()


def torchrun_words(world_size: int) -> list[str]:
    """torchrun on one host, on a free port of its own choosing."""
    return ["torchrun", "--standalone", "--nproc-per-node", str(world_size)]


def torchrun_job(
    cwd: Path, world_size: int, *arguments: str
) -> subprocess.CompletedProcess[str]:
    """`python -m torch.distributed.run` with `world_size` ranks of `arguments`, in `cwd`, outside steptrace."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            *torchrun_words(world_size)[1:],
            *arguments,
        ],
        capture_output=True,
        text=True,
        env=job_environment(),
        cwd=cwd,
        timeout=120,
        check=False,
    )


def make_straggler_run(
    tmp_path: Path,
    slow_rank: int | None = 1,
    delay_ms: float = STRAGGLER_DELAY_MS,
    *,
    world_size: int = 2,
    window: str = "1,1,2",
    exit_status: int = 0,
) -> DistributedRun:
    """Capture a DDP job under torchrun in which `slow_rank` (None: no rank) sleeps `delay_ms` per step in its data zone.

    Every rank writes `tmp_path/run/rank-N.pt.trace.json`; the job runs one
    step more than the window needs.
    """
    script = write_train_script(tmp_path)
    parts = [int(part) for part in window.split(",")]
    repeat = parts[3] if len(parts) > 3 else 1
    skip_first = parts[4] if len(parts) > 4 else 0
    steps = skip_first + sum(parts[:3]) * repeat + 1
    command = [
        *torchrun_words(world_size),
        script.name,
        str(steps),
        str(-1 if slow_rank is None else slow_rank),
        str(delay_ms),
        str(exit_status),
    ]
    completed = run_job(
        lambda: steptrace_capture(tmp_path, "run", command, window=window),
        [tmp_path / "run"],
    )
    return DistributedRun(
        tmp_path / "run", world_size, slow_rank, delay_ms, window, completed
    )


def shared_straggler_run(
    tmp_path_factory: Any,
    slow_rank: int | None = 1,
    delay_ms: float = STRAGGLER_DELAY_MS,
    **more: Any,
) -> DistributedRun:
    """`make_straggler_run` once per test session, shared by the xdist workers.

    Two test modules read the same 2-rank job; a torchrun job takes about 17 s
    of both cores, so the first worker to ask runs it (under a file lock) and
    the others read its folder. Without xdist, the session's own temp folder.
    """
    import fcntl

    base = Path(tmp_path_factory.getbasetemp())
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the folder every worker's temp folder sits in
    key = "-".join(f"{name}={value}" for name, value in sorted(more.items()))
    folder = base / f"shared-straggler-{slow_rank}-{delay_ms:g}-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "completed.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            made = make_straggler_run(folder, slow_rank, delay_ms, **more)
            completed = made.completed
            done.write_bytes(
                orjson.dumps(
                    {
                        "args": [str(part) for part in completed.args],
                        "returncode": completed.returncode,
                        "stdout": completed.stdout,
                        "stderr": completed.stderr,
                        "world_size": made.world_size,
                        "window": made.window,
                    }
                )
            )
    saved = orjson.loads(done.read_bytes())
    return DistributedRun(
        folder / "run",
        saved["world_size"],
        slow_rank,
        delay_ms,
        saved["window"],
        subprocess.CompletedProcess(
            saved["args"], saved["returncode"], saved["stdout"], saved["stderr"]
        ),
    )


STEP = re.compile(r"^ProfilerStep#(\d+)$")


def complete_events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace["traceEvents"] if e.get("ph") == "X"]


def steps_of(trace: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """ProfilerStep#N → its event."""
    steps = {}
    for event in complete_events(trace):
        match = STEP.match(event["name"])
        if match:
            steps[int(match.group(1))] = event
    return steps


def inside(event: dict[str, Any], span: dict[str, Any]) -> bool:
    return bool(span["ts"] <= event["ts"] <= span["ts"] + span["dur"])


def time_in_step_us(trace: dict[str, Any], step: int, name: str) -> float:
    """Total duration of the events called `name` that begin inside ProfilerStep#`step` (any thread)."""
    span = steps_of(trace)[step]
    return float(
        sum(
            e["dur"]
            for e in complete_events(trace)
            if e["name"] == name and inside(e, span)
        )
    )


# -- the zero-code capture under torchrun ------------------------------------

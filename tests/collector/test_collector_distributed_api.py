"""The collector's API inside a process group (a torchrun job on the CPU with gloo):
one file per rank, and refusals on every rank.

Apart from test_collector_distributed.py so that, under -n, its torchrun job
runs beside that module's jobs instead of after them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("torch")

from collector.schema import validate_description
from tests.builders.distributed import (
    run_job,
    steps_of,
    time_in_step_us,
    torchrun_job,
)

pytestmark = pytest.mark.torch


API_SCRIPT = """\
import json
import sys

import torch
import torch.distributed as dist

import collector

run_dir, taken_dir = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo")
rank = dist.get_rank()
report = {"rank": rank}
for case, output in (("auto", "auto"), ("file name", "trace.json"), ("taken", taken_dir)):
    try:
        collector.capture(output, question="q?")
        report[case] = "accepted"
    except collector.CollectorError as error:
        report[case] = type(error).__name__
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
window = collector.Window(wait=1, warmup=1, active=2)
with collector.capture(run_dir, question="which rank waits?", window=window) as cap:
    for _ in range(cap.total_steps):
        with cap.zone("lecture_batch_cpu"):
            inputs, targets = torch.randn(4, 8), torch.randint(0, 2, (4,))
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(inputs), targets).backward()
        optimizer.step()
        cap.step()
report["outputs"] = [str(path) for path in cap.outputs]
dist.barrier()
# One file per rank: the ranks share one stdout, where their lines can interleave.
with open(f"report-{rank}.json", "w") as handle:
    json.dump(report, handle)
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def api_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("api")
    (folder / "api_job.py").write_text(API_SCRIPT)
    taken = folder / "taken"
    taken.mkdir()
    (taken / "rank-1.pt.trace.json").write_bytes(b"precious")

    def run_once() -> subprocess.CompletedProcess[str]:
        return torchrun_job(folder, 2, "api_job.py", "run", "taken")

    leftovers = [folder / "run", *(folder / f"report-{rank}.json" for rank in (0, 1))]
    completed = run_job(run_once, leftovers)
    return folder / "run", taken, completed


def reports(run: Path) -> dict[int, dict[str, Any]]:
    """What each rank of the API job reported (one file per rank beside its run folder)."""
    found = [
        orjson.loads(path.read_bytes()) for path in run.parent.glob("report-*.json")
    ]
    return {report["rank"]: report for report in found}


@pytest.mark.slow
def test_api_in_a_process_group_writes_one_file_per_rank(
    api_run: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    run, _taken, completed = api_run
    assert completed.returncode == 0, completed.stderr
    by_rank = reports(run)
    assert sorted(by_rank) == [0, 1]
    for rank, report in by_rank.items():
        path = run / f"rank-{rank}.pt.trace.json"
        assert report["outputs"] == [os.path.join("run", path.name)]
        trace = orjson.loads(path.read_bytes())
        assert sorted(steps_of(trace)) == [2, 3]
        description = trace["steptrace"]
        assert validate_description(description) == []
        assert description["active_steps"] == [2, 3]
        assert description["distributed"] == {
            "world_size": 2,
            "rank": rank,
            "backend": "gloo",
            "launcher": "torchrun",
        }
        assert trace["distributedInfo"]["rank"] == rank
        # Both ranks recorded a gradient all-reduce in each active step.
        for step in (2, 3):
            assert time_in_step_us(trace, step, "gloo:all_reduce") > 0


@pytest.mark.slow
def test_api_refusals_happen_on_every_rank(
    api_run: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    run, taken, completed = api_run
    assert completed.returncode == 0, completed.stderr
    found = reports(run)
    assert sorted(found) == [0, 1]
    for report in found.values():
        # Ranks must agree on one folder: a fresh automatic name or a file name cannot be it.
        assert report["auto"] == "InvalidSettingError"
        assert report["file name"] == "OutputFolderError"
        # Any rank's trace in the folder refuses every rank, so none waits alone in a collective.
        assert report["taken"] == "OutputExistsError"
    assert sorted(p.name for p in taken.iterdir()) == ["rank-1.pt.trace.json"]
    assert (taken / "rank-1.pt.trace.json").read_bytes() == b"precious"


# -- pieces, without a job ------------------------------------------------------

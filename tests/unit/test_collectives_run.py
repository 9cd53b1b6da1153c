"""`steptrace collectives DIR`: per rank, each collective's time split into wait
(arrival skew) and transfer.

Ground truth by construction (tests/builders/runs.py): in each step every rank
leaves its collective at the same moment, so a rank's wait in it is the
straggler's arrival minus its own, and the straggler's time is the transfer.
Arrivals (µs): rank 0 [100, 300, 200], rank 1 [400, 100, 250]: rank 0 waits
300 + 50, rank 1 200; the transfer is (900 − 400) + (900 − 300) + (900 − 250)
on the device, 2 µs less each for the gloo ranges.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.runs import write_run
from tui.cli import main
from tui.core.runs.collectives_across import read_run_collectives

ARRIVALS = {0: [100.0, 300.0, 200.0], 1: [400.0, 100.0, 250.0]}


def _with_sizes(folder: Path) -> None:
    """Give every NCCL kernel Kineto's args: all_reduce of 1 Mi floats on 2 ranks."""
    for path in folder.glob("*.json"):
        document = json.loads(path.read_text())
        for event in document["traceEvents"]:
            if str(event.get("name", "")).startswith("ncclDevKernel"):
                event["args"].update(
                    {
                        "Collective name": "allreduce",
                        "dtype": "Float",
                        "In msg nelems": 1 << 20,
                        "Out msg nelems": 1 << 20,
                        "Group size": 2,
                    }
                )
        path.write_text(json.dumps(document))


def _json(capsys: pytest.CaptureFixture[str], folder: Path) -> dict[str, Any]:
    assert main(["collectives", str(folder), "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def test_gloo_waits_are_the_arrival_skew(tmp_path: Path) -> None:
    run = read_run_collectives(write_run(tmp_path / "run", ARRIVALS))
    assert run.matched_steps == 3
    split = {rank.rank: rank.split(rank.reading.calls) for rank in run.ranks}
    transfer = (500 - 2 + 600 - 2 + 650 - 2) * 1000
    assert split[0] == (350_000, transfer, 3)
    assert split[1] == (200_000, transfer, 3)
    # gloo:all_reduce only: the c10d::allreduce_ call that hands it over is not a second one.
    assert [len(rank.reading.calls) for rank in run.ranks] == [3, 3]


def test_device_split_and_busbw_over_the_transfer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_run(tmp_path / "run", ARRIVALS, on_gpu=(0, 1))
    _with_sizes(folder)
    document = _json(capsys, folder)
    ranks = {item["rank"]: item for item in document["ranks"]}
    assert document["matched_steps"] == 3
    assert ranks[0]["wait_us"] == 350 and ranks[1]["wait_us"] == 200
    (row,) = ranks[0]["rows"]
    assert row["kind"] == "all_reduce" and row["size_bytes"] == 4 * 1024 * 1024
    assert row["transfer_us"] == 1750 and row["matched"] == 3
    # all_reduce on 2 ranks: factor 2(n-1)/n = 1; 3 × 4 MiB over 1.75 ms.
    assert row["transfer_busbw_gbps"] == pytest.approx(3 * 4_194_304 / 1_750_000)
    # rank 0's whole time (with its wait) reads a lower busbw.
    assert row["busbw_gbps"] == pytest.approx(3 * 4_194_304 / 2_100_000)
    assert main(["collectives", str(folder)]) == 0
    text = capsys.readouterr().out
    assert "wait 350 µs (17 %), transfer 1.75 ms" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_steps_with_uneven_collectives_are_left_out(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "run", ARRIVALS)
    # Rank 1 issues a second collective in step 2 (1,950 µs, after its first).
    path = folder / "rank-1.pt.trace.json"
    document = json.loads(path.read_text())
    extra = next(
        dict(event)
        for event in document["traceEvents"]
        if event.get("name") == "gloo:all_reduce"
    )
    extra["ts"] += 1950 - 402
    extra["dur"] = 10
    document["traceEvents"].append(extra)
    path.write_text(json.dumps(document))
    run = read_run_collectives(folder)
    assert run.matched_steps == 2
    assert any("step(s) 2" in warning for warning in run.warnings)
    split = {rank.rank: rank.split(rank.reading.calls) for rank in run.ranks}
    assert split[0][0] == 350_000 and split[0][2] == 2

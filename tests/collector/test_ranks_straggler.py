"""A real 2-rank gloo job where rank 1 sleeps 40 ms in its data zone each step: `ranks` names it.

The traces are measured, so the checks are against what was injected (the
delay) and against the raw JSON: both ranks run on this host, so their
clocks agree and the true lateness is the difference of the absolute times
at which each rank issued its first collective of the step.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

import pytest

pytest.importorskip("torch")

from tests.builders.distributed import DistributedRun, shared_straggler_run
from tui.cli import main

# The module runs one real 2-rank torchrun job for all its tests.
pytestmark = [pytest.mark.torch, pytest.mark.slow]
ACTIVE_STEPS = [2, 3, 4, 5]
COLLECTIVE = re.compile(r"^(?:gloo:|c10d::|nccl:)")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> DistributedRun:
    made = shared_straggler_run(tmp_path_factory, slow_rank=1, window="1,1,4")
    assert made.completed.returncode == 0, made.completed.stderr
    return made


def arrival_us(trace: dict[str, Any], step: int) -> tuple[float, float]:
    """From the raw JSON: when (absolute µs) the rank issued its first collective op
    of a step, and how long after its own step start."""
    events = [event for event in trace["traceEvents"] if event.get("ph") == "X"]
    (span,) = [event for event in events if event["name"] == f"ProfilerStep#{step}"]
    first = min(
        event["ts"]
        for event in events
        if COLLECTIVE.match(event["name"])
        and span["ts"] <= event["ts"] < span["ts"] + span["dur"]
    )
    return first, first - span["ts"]


def test_ranks_names_the_slow_rank_and_its_peer_waits_the_delay(
    run: DistributedRun, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ranks", str(run.folder), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["world_size"] == 2
    assert [rank["rank"] for rank in result["ranks"]] == [0, 1]
    assert [step["step"] for step in result["steps"]] == ACTIVE_STEPS
    assert [step["straggler"] for step in result["steps"]] == [1] * len(ACTIVE_STEPS)
    delay_us = run.delay_ms * 1000.0
    slow, fast = run.trace(1), run.trace(0)
    waits = []
    for step in result["steps"]:
        arrival = step["arrival_us"]
        skew = arrival["1"] - arrival["0"]
        (slow_at, slow_in), (fast_at, fast_in) = (
            arrival_us(slow, step["step"]),
            arrival_us(fast, step["step"]),
        )
        # Each rank's arrival is read from its own step start (clocks of two
        # hosts never meet): the raw JSON's, to the µs...
        assert arrival == pytest.approx({"1": slow_in, "0": fast_in}, abs=1), step
        # ...so the skew is the true lateness (same host, same clock) up to how
        # far apart the two ranks began the step, which two loaded cores can
        # make several ms; and it is about the injected sleep (the collector's
        # own test allows half the delay per step).
        assert skew == pytest.approx(delay_us, abs=delay_us / 2), step
        assert slow_at - fast_at == pytest.approx(delay_us, abs=delay_us / 2), step
        # What rank 0 then waits in the collective holds that lateness plus the
        # transfer and, with the suite's other workers on the two cores, scheduling
        # (24 to 67 ms seen for 40 ms under -n auto): loosely per step...
        wait = step["wait_us"]["0"]
        waits.append(wait)
        assert 0 < wait <= step["duration_us"]["0"], step
        assert wait == pytest.approx(delay_us, abs=delay_us / 2), step
    # ...and within a quarter of the delay over the window.
    assert statistics.median(waits) == pytest.approx(delay_us, abs=delay_us / 4), waits
    # CPU-only capture: the figures say what they cannot show.
    assert any("CPU-side only" in warning for warning in result["warnings"])
    # Its peer waits most of a step for it: far over 10 % of the step.
    assert result["finding"]["status"] == "likely"
    assert result["finding"]["share_of_step_pct"] > 50
    assert result["finding"]["observation"].startswith(
        "rank 1 reached the collectives last in 4 of 4 steps"
    )
    for rank in result["ranks"]:
        assert rank["breakdown"] is None and rank["collectives"] == "cpu"


def test_the_text_says_so_in_80_columns(
    run: DistributedRun, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ranks", str(run.folder), "--workers", "2"]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert re.search(r"^\s+1\s+4/4(\s+\*\d+\.\d{3}){4}$", text, re.MULTILINE), text
    assert "CPU-side only" in text
    assert "One rank reaches the collectives late — likely" in text

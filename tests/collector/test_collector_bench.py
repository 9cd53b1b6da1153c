"""Measuring without the profiler: same starting state, same warm-up, raw values kept."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import orjson
import pytest

pytest.importorskip("torch")

import torch

from collector import OutputExistsError, bench
from collector.demo import bench_demo

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def noisy_training() -> tuple[torch.nn.Module, torch.optim.Optimizer, object]:
    """A step whose loss depends on the weights, the optimizer state and every RNG."""
    torch.manual_seed(1)
    model = torch.nn.Sequential(
        torch.nn.Linear(8, 8), torch.nn.Dropout(0.5), torch.nn.Linear(8, 1)
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    def step(_index: int) -> object:
        inputs = torch.randn(4, 8) + float(np.random.rand()) + random.random()
        loss = model(inputs).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return model, optimizer, step


def test_every_run_starts_from_the_same_state() -> None:
    model, optimizer, step = noisy_training()
    weights_before = {k: v.clone() for k, v in model.state_dict().items()}
    result = bench(step, model=model, optimizer=optimizer, runs=2, warmup=2, steps=4)  # type: ignore[arg-type]
    runs = result.data["runs"]
    assert len(runs) == 2
    assert runs[0]["loss"] == runs[1]["loss"]
    assert len(set(runs[0]["loss"])) == 4  # the weights do move within a run
    assert result.data["summary"]["loss"]["identical_across_runs"] is True
    for (
        key,
        value,
    ) in model.state_dict().items():  # the caller's model is left as it was
        assert torch.equal(value, weights_before[key])
    assert not optimizer.state


def test_raw_values_and_summary_are_kept() -> None:
    model, optimizer, step = noisy_training()
    data = bench(step, model=model, optimizer=optimizer, runs=2, warmup=1, steps=3).data  # type: ignore[arg-type]
    assert data["steptrace_bench"] == 1
    assert data["config"] == {
        "runs": 2,
        "warmup": 1,
        "steps": 3,
        "device": "cpu",
        "samples_per_step": None,
    }
    for run in data["runs"]:
        assert len(run["wall_ms"]) == 3 and all(value > 0 for value in run["wall_ms"])
        assert run["gpu_ms"] is None
    wall = data["summary"]["wall_ms"]
    assert len(wall["run_medians"]) == 2
    assert wall["min"] <= wall["median"] <= wall["max"]
    assert wall["spread"] == pytest.approx(wall["max"] - wall["min"])
    assert data["summary"]["gpu_ms"] is None
    assert set(data["environment"]) >= {
        "torch",
        "cpu_model",
        "cpu_cores",
        "python",
        "platform",
        "host_name",
    }
    assert any("only 2 run(s)" in warning for warning in data["warnings"])


def test_bench_demo_writes_a_fresh_result(tmp_path: Path) -> None:
    result = bench_demo(
        tmp_path / "before.json", runs=2, warmup=1, steps=2, read_delay_ms=0
    )
    assert result.path == tmp_path / "before.json"
    written = orjson.loads(result.path.read_bytes())
    assert (
        written["name"] == "demo"
        and written["summary"]["loss"]["identical_across_runs"] is True
    )
    with pytest.raises(OutputExistsError):
        bench_demo(tmp_path / "before.json", runs=1, warmup=0, steps=1, read_delay_ms=0)
    assert orjson.loads(result.path.read_bytes()) == written

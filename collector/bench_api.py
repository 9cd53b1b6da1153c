"""Checking a change without the profiler: the same starting state, the same warm-up, several runs.

Training steps change the weights, so two runs in a row are not equivalent:
the model, optimizer and RNG states are snapshotted once and restored before
every run. Every step is timed end to end on a plain clock, with the device
synchronised at step boundaries; on CUDA the GPU time between events around
the step is kept as a separate figure, never mixed with wall time. Raw values
are kept; min, median, max and spread are reported, with the loss of every
step as a quality signal.
"""

from __future__ import annotations

import copy
import datetime
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import orjson
import torch

from collector import paths
from collector.capture_setup import resolve_device
from collector.environment import current_command, describe_environment
from collector.errors import InvalidSettingError
from collector.schema import (
    BENCH_FORMAT,
    BENCH_FORMAT_KEY,
    Scenario,
    scenario_or_default,
)
from collector.stats import spread_of

METHOD = (
    "no profiler; model, optimizer and RNG states restored before every run; the same warm-up steps before "
    "each run; every step timed end to end with time.perf_counter, the device synchronised at step boundaries; "
    "gpu_ms is the time between CUDA events around the step, never mixed with wall time"
)
FEW_RUNS = 3
WIDE_SPREAD_PCT = 10.0


@dataclass
class StartingState:
    """Everything a run starts from: model and optimizer states, torch/CUDA/numpy/python RNG states."""

    model_state: dict[str, Any]
    optimizer_state: dict[str, Any] | None
    torch_rng: torch.Tensor
    cuda_rng: list[torch.Tensor] | None
    numpy_rng: Any
    python_rng: Any

    @classmethod
    def take(
        cls, model: torch.nn.Module, optimizer: torch.optim.Optimizer | None
    ) -> StartingState:
        """Deep copies, so the snapshot cannot drift while runs train the live objects."""
        cuda_rng = None
        if torch.cuda.is_available() and torch.cuda.is_initialized():  # type: ignore[no-untyped-call]
            cuda_rng = torch.cuda.get_rng_state_all()
        return cls(
            model_state=copy.deepcopy(model.state_dict()),
            optimizer_state=copy.deepcopy(optimizer.state_dict())
            if optimizer is not None
            else None,
            torch_rng=torch.get_rng_state(),
            cuda_rng=cuda_rng,
            numpy_rng=np.random.get_state(),
            python_rng=random.getstate(),
        )

    def restore(
        self, model: torch.nn.Module, optimizer: torch.optim.Optimizer | None
    ) -> None:
        """Put every state back; the optimizer gets a fresh copy since it may keep the tensors it loads."""
        model.load_state_dict(self.model_state)
        if optimizer is not None and self.optimizer_state is not None:
            optimizer.load_state_dict(copy.deepcopy(self.optimizer_state))
        torch.set_rng_state(self.torch_rng)
        if self.cuda_rng is not None:
            torch.cuda.set_rng_state_all(self.cuda_rng)
        np.random.set_state(self.numpy_rng)
        random.setstate(self.python_rng)


@dataclass
class BenchResult:
    """A bench result: the JSON object written to RESULT.json, and where it was written."""

    data: dict[str, Any]
    path: Path | None = field(default=None)

    @property
    def warnings(self) -> list[str]:
        """What makes these figures fragile."""
        return list(self.data["warnings"])

    def to_json(self) -> bytes:
        """The result as indented JSON."""
        return orjson.dumps(self.data, option=orjson.OPT_INDENT_2)

    def write(self, output: str | os.PathLike[str] | None = None) -> Path:
        """Write to a fresh file (never overwriting); `None` or `auto` picks a timestamped name."""
        target = paths.resolve_output(output, "steptrace-bench")
        self.path = paths.write_new_file(target, self.to_json())
        return self.path


def _loss_value(loss: Any) -> float | None:
    """A step's loss as a plain number; None when the step returns none."""
    if loss is None:
        return None
    if isinstance(loss, torch.Tensor):
        return float(loss.detach().float().item())
    try:
        return float(loss)
    except (TypeError, ValueError):
        return None


def _check_count(name: str, value: int, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise InvalidSettingError(
            f"{name} must be a whole number of at least {least}, got {value!r}"
        )


def bench(
    step: Callable[[int], Any],
    *,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer | None = None,
    reset: Callable[[], None] | None = None,
    runs: int = 5,
    warmup: int = 2,
    steps: int = 20,
    device: str | torch.device | None = None,
    samples_per_step: int | None = None,
    name: str = "custom",
    scenario: Scenario | None = None,
    output: str | os.PathLike[str] | None = None,
    include_host_name: bool = False,
    command: Sequence[str] | None = None,
    progress: bool = False,
    stream: TextIO | None = None,
) -> BenchResult:
    """Time `step(index)` over several runs that all start from the same state.

    `step` runs one whole step (index counts from 0 within a run, warm-up
    included) and returns its loss (a tensor or a number) or None. `reset` is
    called after the states are restored and before the warm-up of every run:
    recreate data iterators there, so every run reads the same batches. The
    model and optimizer are left in their starting state afterwards. With
    `output`, the path is checked before anything runs and the result written.
    """
    _check_count("runs", runs, 1)
    _check_count("warmup", warmup, 0)
    _check_count("steps", steps, 1)
    if samples_per_step is not None:
        _check_count("samples_per_step", samples_per_step, 1)
    resolved = resolve_device(device, model)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InvalidSettingError("the work runs on cuda but torch sees no GPU here")
    target = (
        paths.resolve_output(output, "steptrace-bench") if output is not None else None
    )
    run_records = _timed_runs(
        step,
        model,
        optimizer,
        reset,
        runs=runs,
        warmup=warmup,
        steps=steps,
        device=resolved,
        stream=(stream or sys.stderr) if progress else None,
    )
    data = _result_data(
        run_records,
        runs=runs,
        warmup=warmup,
        steps=steps,
        device=str(resolved),
        samples_per_step=samples_per_step,
        name=name,
        scenario=scenario_or_default(scenario),
        environment=describe_environment(str(resolved), include_host_name),
        command=list(command) if command is not None else current_command(),
    )
    result = BenchResult(data)
    if target is not None:
        result.write(target)
    return result


def _timed_runs(
    step: Callable[[int], Any],
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer | None,
    reset: Callable[[], None] | None,
    *,
    runs: int,
    warmup: int,
    steps: int,
    device: torch.device,
    stream: TextIO | None,
) -> list[dict[str, Any]]:
    """Each run's raw values, every run from the same starting state (restored after the last).

    With a `stream`, each run's median is told there as it ends.
    """
    starting_state = StartingState.take(model, optimizer)
    run_records: list[dict[str, Any]] = []
    try:
        for run in range(runs):
            starting_state.restore(model, optimizer)
            if reset is not None:
                reset()
            record = _timed_run(step, warmup=warmup, steps=steps, device=device)
            run_records.append({"run": run + 1, **record})
            if stream is not None:
                print(
                    f"steptrace: bench run {run + 1}/{runs}: median {statistics.median(record['wall_ms']):.3f} ms/step",
                    file=stream,
                    flush=True,
                )
    finally:
        starting_state.restore(model, optimizer)
    return run_records


def _timed_run(
    step: Callable[[int], Any], *, warmup: int, steps: int, device: torch.device
) -> dict[str, Any]:
    """One run after its warm-up: each step's wall time, GPU time (on CUDA) and loss."""
    on_cuda = device.type == "cuda"

    def synchronize() -> None:
        if on_cuda:
            torch.cuda.synchronize(device)

    for index in range(warmup):
        step(index)
    synchronize()
    wall_ms: list[float] = []
    gpu_ms: list[float] = []
    losses: list[float | None] = []
    for offset in range(steps):
        synchronize()
        start_event = end_event = None
        if on_cuda:
            start_event = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            end_event = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
        began = time.perf_counter()
        if start_event is not None:
            start_event.record()
        loss = step(warmup + offset)
        if end_event is not None:
            end_event.record()
        synchronize()
        wall_ms.append((time.perf_counter() - began) * 1000.0)
        if start_event is not None and end_event is not None:
            gpu_ms.append(float(start_event.elapsed_time(end_event)))
        losses.append(_loss_value(loss))
    return {
        "wall_ms": wall_ms,
        "gpu_ms": gpu_ms if on_cuda else None,
        "loss": losses,
    }


def _result_data(
    run_records: list[dict[str, Any]],
    *,
    runs: int,
    warmup: int,
    steps: int,
    device: str,
    samples_per_step: int | None,
    name: str,
    scenario: Scenario,
    environment: dict[str, Any],
    command: list[str],
) -> dict[str, Any]:
    """The RESULT.json object: settings, raw values per run, summaries, environment, warnings."""
    wall_medians = [statistics.median(record["wall_ms"]) for record in run_records]
    gpu_medians = [
        statistics.median(record["gpu_ms"])
        for record in run_records
        if record["gpu_ms"]
    ]
    all_steps = [value for record in run_records for value in record["wall_ms"]]
    loss_lists = [record["loss"] for record in run_records]
    final_losses = [losses[-1] if losses else None for losses in loss_lists]
    has_loss = all(value is not None for losses in loss_lists for value in losses)
    identical = has_loss and all(losses == loss_lists[0] for losses in loss_lists)
    wall_summary = {"run_medians": wall_medians, **spread_of(wall_medians)}
    return {
        BENCH_FORMAT_KEY: BENCH_FORMAT,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        ),
        "name": name,
        "config": {
            "runs": runs,
            "warmup": warmup,
            "steps": steps,
            "device": device,
            "samples_per_step": samples_per_step,
        },
        "scenario": scenario.to_dict(),
        "unit": "ms/step",
        "method": METHOD,
        "runs": run_records,
        "summary": {
            "wall_ms": wall_summary,
            "gpu_ms": {"run_medians": gpu_medians, **spread_of(gpu_medians)}
            if gpu_medians
            else None,
            "wall_ms_all_steps": spread_of(all_steps),
            "samples_per_s": _samples_summary(samples_per_step, wall_medians),
            "loss": {"final": final_losses, "identical_across_runs": identical},
        },
        "environment": environment,
        "command": command,
        "warnings": _fragility_warnings(
            runs, wall_summary["spread_pct"], has_loss=has_loss, identical=identical
        ),
    }


def _samples_summary(
    samples_per_step: int | None, wall_medians: list[float]
) -> dict[str, Any] | None:
    """Samples per second of each run (from its median step), with their spread; None without a sample count."""
    if samples_per_step is None:
        return None
    per_second = [
        samples_per_step / (median / 1000.0) for median in wall_medians if median > 0
    ]
    if not per_second:
        return None
    return {"run_medians": per_second, **spread_of(per_second)}


def _fragility_warnings(
    runs: int, spread_pct: Any, *, has_loss: bool, identical: bool
) -> list[str]:
    """What makes the figures fragile: few runs, a wide spread, losses that differ or are missing."""
    warnings: list[str] = []
    if runs < FEW_RUNS:
        warnings.append(f"only {runs} run(s): the range says little about the spread")
    if isinstance(spread_pct, float) and spread_pct > WIDE_SPREAD_PCT:
        warnings.append(
            f"run medians spread by {spread_pct:.1f}%: the machine may be busy or the work variable; "
            "the median is fragile"
        )
    if has_loss and not identical:
        warnings.append(
            "losses differ between runs although every run started from the same state: something outside "
            "the model, optimizer and RNG states changes (data order, non-deterministic kernels)"
        )
    if not has_loss:
        warnings.append("the step returned no loss for some steps: no quality signal")
    return warnings

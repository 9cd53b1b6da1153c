"""Fresh CPU captures made with torch, returned with torch's own key_averages(), as oracles."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def capture_training(
    output: Path,
    *,
    record_shapes: bool = False,
    profile_memory: bool = False,
    group_by_input_shape: bool = False,
) -> Any:
    """A few CPU training steps under the profiler (schedule 1/1/2); returns the
    last window's key_averages(). Two batch sizes and a tensor-list op (cat)
    give operators several input shapes."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    averages: list[Any] = []

    def on_ready(prof: Any) -> None:
        prof.export_chrome_trace(str(output))
        averages.append(prof.key_averages(group_by_input_shape=group_by_input_shape))

    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=2),
        on_trace_ready=on_ready,
        record_shapes=record_shapes,
        profile_memory=profile_memory,
    ) as prof:
        for step in range(4):
            batch = 16 if step % 2 == 0 else 8
            with record_function("lecture_batch_cpu"):
                halves = [torch.randn(batch // 2, 32), torch.randn(batch // 2, 32)]
                inputs = torch.cat(halves)
                targets = torch.randint(0, 4, (batch,))
            with record_function("entrainement"):
                optimizer.zero_grad()
                loss = loss_fn(model(inputs), targets)
                loss.backward()
                optimizer.step()
            prof.step()
    assert averages, "the profiler schedule never produced a trace"
    return averages[-1]


def capture_handler_folder(
    output: Path,
    *,
    workers: tuple[str, ...] = ("host_1",),
    windows: int = 1,
    read_s: float = 0.01,
) -> list[Path]:
    """A user's own CPU training loop, as a new user writes it: the batch read
    (a sleep standing for the disk) inside `record_function("load_batch")`, no
    other annotation, and `tensorboard_trace_handler(output)` writing one file
    per window and worker. Returns the files written, in the order written."""
    import time

    import torch
    from torch.profiler import (
        ProfilerActivity,
        profile,
        record_function,
        schedule,
        tensorboard_trace_handler,
    )

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    for worker in workers:
        with profile(
            activities=[ProfilerActivity.CPU],
            schedule=schedule(wait=1, warmup=1, active=3, repeat=windows),
            on_trace_ready=tensorboard_trace_handler(str(output), worker_name=worker),
        ) as prof:
            for _ in range(5 * windows):
                with record_function("load_batch"):
                    time.sleep(read_s)
                    inputs = torch.randn(16, 32)
                    targets = torch.randint(0, 4, (16,))
                optimizer.zero_grad()
                loss = loss_fn(model(inputs), targets)
                loss.backward()
                optimizer.step()
                prof.step()
    written = sorted(
        output.glob("*.pt.trace.json"), key=lambda path: path.stat().st_mtime_ns
    )
    assert len(written) == len(workers) * windows, written
    return written

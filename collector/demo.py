"""The method's four-step example, embedded: a capture and a bench anyone can run in seconds.

A small model trains on synthetic data read through a DataLoader whose
per-item delay stands for a slow input pipeline, so the reading gap is visible.
Each step has three zones: `lecture_batch_cpu` (reading the batch on the CPU),
`transfert` (moving it to the device) and `entrainement` (zero_grad, forward,
loss, backward, optimizer step). `preload=True` is the table's next check:
the same computation with batches prepared in advance.

`device="auto"` runs it on the GPU when torch sees one it can profile (ROCm
included), else on the CPU; an automatic name goes under `captures/`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from collector import paths
from collector.bench_api import BenchResult, bench
from collector.capture_api import Capture
from collector.capture_setup import resolve_device
from collector.errors import InvalidSettingError, OutputFolderError
from collector.schema import DATA_ZONE, Scenario, Window

TRANSFER_ZONE = "transfert"
TRAIN_ZONE = "entrainement"
DEMO_ZONES = (DATA_ZONE, TRANSFER_ZONE, TRAIN_ZONE)
DEFAULT_READ_DELAY_MS = 1.0
BATCH_SIZE = 32
FEATURES = 256
HIDDEN = 512
CLASSES = 10
SEED = 0
# Where an automatically named demo capture goes, under the current folder.
CAPTURES_FOLDER = "captures"
GPU_NOT_PROFILABLE = (
    "torch sees a GPU but this build cannot record GPU events, so the demo ran on the CPU; "
    "use a torch build with CUDA or ROCm profiling to capture it on the GPU"
)

Batch = tuple[torch.Tensor, torch.Tensor]


class SlowSyntheticDataset(Dataset[Batch]):
    """Generated samples, each read with a fixed delay, like a slow decode on the CPU.

    The samples depend only on their index, so every run reads the same data.
    """

    def __init__(self, length: int, read_delay_ms: float, seed: int = SEED) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(length, FEATURES, generator=generator)
        self.targets = torch.randint(0, CLASSES, (length,), generator=generator)
        self.read_delay_s = read_delay_ms / 1000.0

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, index: int) -> Batch:
        if self.read_delay_s > 0:
            time.sleep(self.read_delay_s)
        return self.inputs[index], self.targets[index]


@dataclass
class DemoWorkload:
    """The demo's model, optimizer and data, built identically every time for a seed."""

    device: torch.device
    model: nn.Module
    optimizer: torch.optim.Optimizer
    loss_fn: nn.Module
    dataset: SlowSyntheticDataset

    def loader(self) -> DataLoader[Batch]:
        """Batches read in the main process (num_workers=0), so the read sits inside the step."""
        return DataLoader(
            self.dataset,
            batch_size=BATCH_SIZE,
            shuffle=False,
            num_workers=0,
            pin_memory=self.device.type == "cuda",
        )

    def transfer(self, batch: Batch) -> Batch:
        """Move one batch to the device."""
        inputs, targets = batch
        non_blocking = self.device.type == "cuda"
        return inputs.to(self.device, non_blocking=non_blocking), targets.to(
            self.device, non_blocking=non_blocking
        )

    def train(self, batch: Batch) -> torch.Tensor:
        """zero_grad, forward, loss, backward, optimizer step; returns the loss (not synchronised)."""
        inputs, targets = batch
        self.optimizer.zero_grad(set_to_none=True)
        loss: torch.Tensor = self.loss_fn(self.model(inputs), targets)
        loss.backward()  # type: ignore[no-untyped-call]
        self.optimizer.step()
        return loss.detach()


def build_demo(
    device: torch.device, read_delay_ms: float, batches: int, seed: int = SEED
) -> DemoWorkload:
    """A small MLP classifier and enough slow synthetic samples for `batches` steps."""
    _check_read_delay(read_delay_ms)
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(FEATURES, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, HIDDEN),
        nn.ReLU(),
        nn.Linear(HIDDEN, CLASSES),
    ).to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    dataset = SlowSyntheticDataset(batches * BATCH_SIZE, read_delay_ms, seed)
    return DemoWorkload(device, model, optimizer, nn.CrossEntropyLoss(), dataset)


def _check_read_delay(read_delay_ms: float) -> None:
    if not read_delay_ms >= 0:
        raise InvalidSettingError(
            f"read delay must be 0 ms or more, got {read_delay_ms:g}"
        )


def demo_scenario(read_delay_ms: float, preload: bool) -> Scenario:
    """The demo's scenario: synthetic, simplified inputs, and said so."""
    source = f"synthetic tensors through a DataLoader (num_workers=0), {read_delay_ms:g} ms read delay per item"
    if preload:
        source += "; batches prepared in advance"
    return Scenario(
        shapes=f"inputs [{BATCH_SIZE}, {FEATURES}] float32, targets [{BATCH_SIZE}] int64",
        batch_size=BATCH_SIZE,
        precision="float32",
        mode="train",
        compiled=False,
        data_source=source,
        inputs_simplified=True,
        simplified_note="synthetic data with an artificial read delay: it shows the mechanism, not a real pipeline's load",
    )


def gpu_profilable() -> bool:
    """Whether this torch build can record GPU events (CUPTI on NVIDIA, roctracer on ROCm)."""
    supported = torch.profiler.supported_activities()  # type: ignore[no-untyped-call]
    return torch.profiler.ProfilerActivity.CUDA in supported


def choose_device(
    device: str | torch.device, *, for_capture: bool = False
) -> tuple[torch.device, str | None]:
    """Where the demo runs, and why it is not the GPU when `auto` found one it could not use.

    `auto` means the GPU when torch sees one (and, for a capture, can record
    its events), else the CPU. An explicit `cuda` without a GPU is refused
    here; without GPU collection, by the capture itself.
    """
    note: str | None = None
    if str(device) == "auto":
        device = "cpu"
        if torch.cuda.is_available():
            if not for_capture or gpu_profilable():
                device = "cuda"
            else:
                note = GPU_NOT_PROFILABLE
    resolved = resolve_device(device, None)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InvalidSettingError(
            "device cuda was asked for but torch sees no GPU here; use --device cpu"
        )
    return resolved, note


def _demo_device(device: str | torch.device) -> torch.device:
    """The bench's device: `auto` is the GPU when there is one."""
    return choose_device(device)[0]


def captures_folder() -> Path:
    """`captures/` under the current folder, created when missing."""
    folder = Path.cwd() / CAPTURES_FOLDER
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise OutputFolderError(
            f"cannot create {folder} for the demo's capture ({error.strerror}); give -o PATH"
        ) from None
    return folder


def _batches(workload: DemoWorkload, preload: bool) -> Iterator[Batch]:
    """Batches from the loader, or all read beforehand when `preload` asks for it."""
    loader = workload.loader()
    return iter(list(loader)) if preload else iter(loader)


def run_demo(
    output: str | os.PathLike[str] | None = None,
    device: str | torch.device = "cpu",
    window: Window | None = None,
    read_delay_ms: float = DEFAULT_READ_DELAY_MS,
    *,
    preload: bool = False,
    question: str | None = None,
    record_shapes: bool = False,
    with_stack: bool = False,
    profile_memory: bool = False,
    progress: bool = False,
    stream: TextIO | None = None,
    command: Sequence[str] | None = None,
) -> Path:
    """Capture the demo's window and return the trace path (the first cycle's, if repeated).

    `output` None (or `auto`) picks a fresh timestamped name under
    `captures/` in the current folder; an existing path is refused before
    anything runs. `device` is cpu, cuda or auto (see `choose_device`).
    """
    startup_began = time.perf_counter()
    _check_read_delay(read_delay_ms)
    window = window if window is not None else Window()
    resolved_device, device_note = choose_device(device, for_capture=True)
    automatic = output is None or os.fspath(output) == paths.AUTO
    path = paths.resolve_output(
        output,
        "steptrace-demo",
        cycles=window.repeat,
        auto_folder=captures_folder() if automatic else None,
    )
    default_question = (
        "is the GPU waiting for data?"
        if resolved_device.type == "cuda"
        else "is compute waiting for data?"
    )
    capture = Capture(
        path,
        question=question or default_question,
        window=window,
        scenario=demo_scenario(read_delay_ms, preload),
        device=resolved_device,
        zones=DEMO_ZONES,
        samples_per_step=BATCH_SIZE,
        record_shapes=record_shapes,
        with_stack=with_stack,
        profile_memory=profile_memory,
        startup_began=startup_began,
        command=command,
        progress=progress,
        stream=stream,
    )
    if device_note is not None:
        capture.add_warning(device_note)
    workload = build_demo(resolved_device, read_delay_ms, window.total_steps)
    batches = _batches(workload, preload)
    with capture as cap:
        for _ in range(cap.total_steps):
            with cap.zone(DATA_ZONE):
                batch = next(batches)
            with cap.zone(TRANSFER_ZONE):
                batch = workload.transfer(batch)
            with cap.zone(TRAIN_ZONE):
                workload.train(batch)
            cap.step()
    return cap.outputs[0]


def bench_demo(
    output: str | os.PathLike[str] | None = None,
    device: str | torch.device = "cpu",
    *,
    runs: int = 5,
    warmup: int = 2,
    steps: int = 20,
    read_delay_ms: float = DEFAULT_READ_DELAY_MS,
    preload: bool = False,
    progress: bool = False,
    stream: TextIO | None = None,
    command: Sequence[str] | None = None,
) -> BenchResult:
    """Time the demo's steps without the profiler; writes the result when `output` is given.

    Every run starts from the same model, optimizer and RNG states, reads the
    same batches, and repeats the same warm-up.
    """
    _check_read_delay(read_delay_ms)
    resolved_device = _demo_device(device)
    if output is not None:
        output = paths.resolve_output(output, "steptrace-bench")
    workload = build_demo(resolved_device, read_delay_ms, max(warmup + steps, 1))
    batches: list[Iterator[Batch]] = [iter(())]

    def reset() -> None:
        batches[0] = _batches(workload, preload)

    def step(_index: int) -> torch.Tensor:
        batch = workload.transfer(next(batches[0]))
        return workload.train(batch)

    return bench(
        step,
        model=workload.model,
        optimizer=workload.optimizer,
        reset=reset,
        runs=runs,
        warmup=warmup,
        steps=steps,
        device=resolved_device,
        samples_per_step=BATCH_SIZE,
        name="demo, batches prepared in advance" if preload else "demo",
        scenario=demo_scenario(read_delay_ms, preload),
        output=output,
        command=command,
        progress=progress,
        stream=stream,
    )

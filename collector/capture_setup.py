"""What a capture settles about the machine before it runs, and the words of its standing warnings.

The machine: the device the work runs on, its GPU tracer, a rank's run folder.

Each refusal here comes when the capture is made, so nothing runs on a
machine or into a folder that cannot hold the capture asked for.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity

from collector import distributed, paths
from collector.errors import GpuCollectionUnavailableError, InvalidSettingError

OPTION_COSTS = {
    "record_shapes": (
        "record_shapes is on: it adds cost to every operator, and recording shapes can keep tensors alive longer"
    ),
    "with_stack": "with_stack is on: recording Python stacks adds cost to every operator and puts code paths in the trace",
    "profile_memory": "profile_memory is on: tracking every allocation adds cost",
}
GPU_NOT_OBSERVED = (
    "GPU collection was requested but the trace holds no GPU event (kernel, copy or set): the GPU tracer "
    "(CUPTI on NVIDIA, roctracer on ROCm) may be unavailable or not permitted, or no GPU work ran in the window; "
    "GPU figures are not observed, not zero"
)
GPU_NOT_REQUESTED = "GPU collection was not requested: the capture ran on the CPU"
SIMPLIFIED_INPUTS = "inputs are simplified: the capture isolates a behaviour but no longer represents the full load"


def resolve_device(
    device: str | torch.device | None, model: torch.nn.Module | None
) -> torch.device:
    """The device the captured work runs on: given, else the model's, else the CPU."""
    if device is None and model is not None:
        tensor: torch.Tensor | None = next(iter(model.parameters()), None)
        if tensor is None:
            tensor = next(iter(model.buffers()), None)
        device = tensor.device if tensor is not None else None
    try:
        resolved = torch.device(device if device is not None else "cpu")
    except (RuntimeError, TypeError):
        raise InvalidSettingError(
            f"device {device!r} is not a device torch knows (use cpu or cuda)"
        ) from None
    if resolved.type not in ("cpu", "cuda"):
        raise InvalidSettingError(
            f"device {resolved.type!r} is not supported by the collector: use cpu, or cuda (which also covers ROCm)"
        )
    return resolved


def requested_activities(device: torch.device) -> list[ProfilerActivity]:
    """CPU always; GPU when the work runs on `cuda`, refused if this build cannot record it.

    A CPU-only capture must never pass for GPU analysis, so a missing GPU tracer
    is an error here, not a quiet downgrade.
    """
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        supported = torch.profiler.supported_activities()  # type: ignore[no-untyped-call]
        if ProfilerActivity.CUDA not in supported:
            names = ", ".join(sorted(activity.name for activity in supported)) or "none"
            raise GpuCollectionUnavailableError(
                f"GPU collection is not supported by this torch build (torch {torch.__version__}, "
                f"cuda {torch.version.cuda}, hip {getattr(torch.version, 'hip', None)}; "
                f"supported activities: {names}); refusing to present a CPU-only capture as GPU analysis. "
                "Use a torch build with CUDA or ROCm profiling, or capture on the CPU (device cpu)"
            )
        activities.append(ProfilerActivity.CUDA)
    return activities


def _run_folder(output: str | os.PathLike[str] | None) -> Path:
    """The run folder of a rank's capture: named by the caller, checked and created on every rank."""
    if output is None or os.fspath(output) == paths.AUTO:
        raise InvalidSettingError(
            "under torch.distributed every rank writes rank-N.pt.trace.json into one run folder, "
            "and the ranks must agree on it: name it, e.g. collector.capture('run-1', ...)"
        )
    folder = distributed.check_run_folder(output)
    distributed.make_run_folder(folder)
    return folder

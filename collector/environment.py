"""Where a capture or a bench ran, so results from different machines are not ranked together.

Torch is imported inside `describe_environment` only: `compare` and the CLI can
import this module's neighbours without it.
"""

from __future__ import annotations

import os
import platform
import re
import socket
import sys
from pathlib import Path
from typing import Any

# Keys `compare` checks when deciding whether two results come from the same environment.
COMPARED_KEYS = (
    "torch",
    "cuda",
    "hip",
    "driver",
    "device_name",
    "cpu_model",
    "cpu_cores",
    "python",
    "platform",
)


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def gpu_driver_version() -> str | None:
    """The kernel driver's version (NVIDIA or AMD), when the system exposes it."""
    nvidia = _read_text("/proc/driver/nvidia/version")
    if nvidia:
        match = re.search(r"Kernel Module\s+(?:for\s+\S+\s+)?([0-9][0-9.]*)", nvidia)
        if match:
            return f"nvidia {match.group(1)}"
    amd = _read_text("/sys/module/amdgpu/version")
    if amd and amd.strip():
        return f"amdgpu {amd.strip()}"
    return None


def cpu_model() -> str | None:
    """The host CPU's model name: one machine's host CPU does not rank another's."""
    cpuinfo = _read_text("/proc/cpuinfo")
    if cpuinfo:
        match = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or None


def describe_environment(
    device: str = "cpu", include_host_name: bool = False
) -> dict[str, Any]:
    """The `environment` object of a description or a bench result.

    The device name is read only when the work runs on `cuda`, so a CPU capture
    never initialises a GPU. The host name is left out unless asked for: traces
    leak.
    """
    import torch

    device_name: str | None = None
    if device.startswith("cuda") and torch.cuda.is_available():
        index = torch.device(device).index
        device_name = torch.cuda.get_device_name(
            index if index is not None else torch.cuda.current_device()
        )
    return {
        "torch": str(torch.__version__),
        "cuda": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "driver": gpu_driver_version(),
        "device_name": device_name,
        "cpu_model": cpu_model(),
        "cpu_cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "host_name": socket.gethostname() if include_host_name else None,
    }


def current_command() -> list[str]:
    """The command line of this process, as recorded in a description."""
    return (
        [os.path.basename(sys.executable), *sys.argv]
        if sys.argv and sys.argv[0]
        else list(sys.argv)
    )

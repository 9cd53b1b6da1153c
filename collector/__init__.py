"""steptrace collector: makes well-bounded captures inside training code, and checks a change without the profiler.

Needs torch for capturing and benchmarking; never imports textual or tui.
Importing this package does not import torch: `capture`, `bench`, `run_demo`
and friends load it on first use, so `collector.compare` works without torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collector.errors import (
    CaptureIncompleteError,
    CollectorError,
    GpuCollectionUnavailableError,
    InvalidSettingError,
    OutputExistsError,
    OutputFolderError,
    ResultFormatError,
)
from collector.schema import (
    DATA_ZONE,
    METADATA_KEY,
    SCHEMA_VERSION,
    Scenario,
    Window,
    validate_description,
)

if TYPE_CHECKING:
    from collector.bench_api import BenchResult, bench
    from collector.capture_api import Capture, capture
    from collector.demo import bench_demo, run_demo

TORCH_MISSING = "install the collect extra: pip install 'steptrace[collect]'"

_LAZY = {
    "capture": "collector.capture_api",
    "Capture": "collector.capture_api",
    "bench": "collector.bench_api",
    "BenchResult": "collector.bench_api",
    "run_demo": "collector.demo",
    "bench_demo": "collector.demo",
}

__all__ = [
    "DATA_ZONE",
    "METADATA_KEY",
    "SCHEMA_VERSION",
    "TORCH_MISSING",
    "BenchResult",
    "Capture",
    "CaptureIncompleteError",
    "CollectorError",
    "GpuCollectionUnavailableError",
    "InvalidSettingError",
    "OutputExistsError",
    "OutputFolderError",
    "ResultFormatError",
    "Scenario",
    "Window",
    "bench",
    "bench_demo",
    "capture",
    "run_demo",
    "torch_import_error",
    "validate_description",
]


def __getattr__(name: str) -> Any:
    """Load the torch-backed parts on first use."""
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'collector' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def torch_import_error() -> str | None:
    """Why torch cannot be imported here (one line), or None when it can."""
    try:
        import torch  # noqa: F401
    except ImportError as error:
        return f"torch is not importable ({error}): {TORCH_MISSING}"
    return None

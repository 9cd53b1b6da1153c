"""The two fixture captures most app tests open: a training trace with GPU
events and the same without (their figures are known by construction)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace


@pytest.fixture
def cuda_trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train-cuda.json", gpu=True)


@pytest.fixture
def cpu_trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_training_trace(tmp_path / "train-cpu.json", gpu=False)

"""Tensor Core figures on the shared real traces equal torch-tb-profiler's own
(tests/fixtures/tensorboard/tb_tensor_cores.json, made by make_tb_tensor_cores.py).

The kernel-name rule is checked on every trace through the kernel view's
`tc_used_ratio` (Tensor-Core kernel time over all kernel time: no operator
needed). The operator figures are checked where torch-tb-profiler can tie a
launch to its operator: on HTA's rewritten traces every launch's External id
is its correlation id, so it ties none (or the wrong one), while steptrace
finds the launching operator by nesting; those are left out of that check.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests import shared_traces as shared
from tui.core.figures.analysis import Analysis
from tui.core.figures.tensor_cores import (
    TensorCoreKernels,
    TensorCoreUse,
    tensor_core_kernels,
    tensor_core_use,
)
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Trace

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tensorboard"
    / "tb_tensor_cores.json"
)
RUNTIME_CATEGORIES = ("cuda_runtime", "runtime", "hip_runtime")


@cache
def tensorboard() -> dict[str, Any]:
    traces: dict[str, Any] = json.loads(FIXTURE.read_text())["traces"]
    return traces


@cache
def figures(name: str) -> tuple[Trace, TensorCoreKernels, TensorCoreUse]:
    trace = load_trace(shared.FOLDER / name)
    analysis = Analysis(trace)
    kernels = tensor_core_kernels(trace, analysis.gpu_owner, analysis.parent)
    return trace, kernels, tensor_core_use(trace, kernels)


@cache
def launches_carry_correlation_ids(name: str) -> bool:
    """Whether every runtime call's External id is its own correlation id.

    orjson reads the nine traces in a fifth of json's time."""
    raw = orjson.loads(gzip.decompress((shared.FOLDER / name).read_bytes()))
    events = raw["traceEvents"] if isinstance(raw, dict) else raw
    pairs = [
        (event["args"].get("External id"), event["args"].get("correlation"))
        for event in events
        if event.get("cat") in RUNTIME_CATEGORIES and "args" in event
    ]
    return bool(pairs) and all(external == corr for external, corr in pairs)


NAMES = sorted(tensorboard())


def tied() -> list[str]:
    """The traces whose launches do not carry their own correlation ids, where
    TensorBoard's operator shares can be compared with ours."""
    return [name for name in NAMES if not launches_carry_correlation_ids(name)]


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_name_rule_equals_tensorboard(name: str) -> None:
    trace, kernels, _ = figures(name)
    durations = trace.duration_ns[kernels.events]
    total = int(durations.sum())
    ours = int(durations[kernels.on_tensor_cores].sum()) / total
    assert ours == pytest.approx(tensorboard()[name]["tc_used_ratio"], abs=1e-12)


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("name", NAMES)
def test_operator_shares_equal_tensorboard(name: str) -> None:
    # Which traces are comparable is read from the traces when the test runs,
    # not at collection (every test process collects every module).
    if launches_carry_correlation_ids(name):
        pytest.skip("its launches carry their own correlation ids: not comparable")
    theirs = tensorboard()[name]
    _, _, use = figures(name)
    # torch-tb-profiler says 0.0 where no kernel was launched by an operator.
    assert (use.eligible_share or 0.0) == pytest.approx(
        theirs["tc_eligible_ops_kernel_ratio"], abs=1e-12
    )
    per_gpu = [ratio for ratio in theirs["tc_ratio"] if ratio is not None]
    if per_gpu:
        assert len(per_gpu) == 1
        assert (use.tensor_core_share or 0.0) == pytest.approx(per_gpu[0], abs=1e-12)


@pytest.mark.usefixtures("shared_traces")
def test_the_comparable_traces_include_a_real_one() -> None:
    # ns_resolution: 4,350 kernels, real External ids, TB's ratio 0.1926 (not 0 or 1).
    assert "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz" in tied()
    ratio = tensorboard()[
        "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    ]["tc_eligible_ops_kernel_ratio"]
    assert 0.1 < ratio < 0.3

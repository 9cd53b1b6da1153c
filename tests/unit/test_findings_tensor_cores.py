"""Tensor Cores: torch-tb-profiler's rules on its own test trace, and the reading's
cost on hand-made traces whose figures are known by construction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.tensor_cores import (
    runs_on_tensor_cores,
    tensor_core_kernels,
    tensor_core_use,
)
from tui.core.findings.finding import (
    Finding,
    MissingReason,
    ShowOperator,
)
from tui.core.findings.readings import compute_findings
from tui.core.findings.tensor_cores import TensorCoreFigures, tensor_cores
from tui.core.ingest.load import load_trace
from tui.report.findings import words

STEP_US = 1000.0

# torch-tb-profiler's test_tensor_core (pytorch/kineto,
# tb_plugin/test/test_profiler.py, BSD licence), its trace verbatim; it asserts
# tc_ratio[0] == tc_eligible_ops_kernel_ratio == 15 / (15 + 10), the
# volta_fp16_s884cudnn kernel as Tensor-Core, kernel_no_tc as not, and
# aten::cudnn_convolution's kernel as launched by an eligible operator.
TB_TEST_TENSOR_CORE = """[
    {
        "ph": "X", "cat": "Operator",
        "name": "aten::conv2d", "pid": 13721, "tid": "123",
        "ts": 200, "dur": 100,
        "args": {"Input Dims": [[]], "External id": 3}
    },
    {
        "ph": "X", "cat": "Operator",
        "name": "op_no_tc", "pid": 13721, "tid": "123",
        "ts": 205, "dur": 10,
        "args": {"Input Dims": [[]], "External id": 4}
    },
    {
        "ph": "X", "cat": "Operator",
        "name": "aten::cudnn_convolution", "pid": 13721, "tid": "123",
        "ts": 215, "dur": 10,
        "args": {"Input Dims": [[]], "External id": 5}
    },
    {
        "ph": "X", "cat": "Kernel",
        "name": "kernel_no_tc", "pid": 0, "tid": "stream 7",
        "ts": 210, "dur": 10,
        "args": {"correlation": 1000, "external id": 4, "device": 0}
    },
    {
        "ph": "X", "cat": "Runtime",
        "name": "cudaLaunchKernel", "pid": 13721, "tid": "123",
        "ts": 205, "dur": 5,
        "args": {"correlation": 1000, "external id": 4}
    },
    {
        "ph": "X", "cat": "Kernel",
        "name": "volta_fp16_s884cudnn_fp16_128x128_ldg8_splitK_relu_f2f_exp_small_nhwc_tn_v1",
        "pid": 0, "tid": "stream 7",
        "ts": 220, "dur": 15,
        "args": {"correlation": 1001, "external id": 5, "device": 0}
    },
    {
        "ph": "X", "cat": "Runtime",
        "name": "cudaLaunchKernel", "pid": 13721, "tid": "123",
        "ts": 215, "dur": 5,
        "args": {"correlation": 1001, "external id": 5}
    }
]"""

SGEMM = "ampere_sgemm_128x64_nn"  # FP32 SIMT GEMM: no Tensor Cores
TF32_GEMM = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>"
FP16_CONV = (
    "volta_fp16_s884cudnn_fp16_128x128_ldg8_splitK_relu_f2f_exp_small_nhwc_tn_v1"
)
ELEMENTWISE = "void at::native::vectorized_elementwise_kernel<4>"


def test_tensorboard_test_trace(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "tb.json", json.loads(TB_TEST_TENSOR_CORE))
    trace = load_trace(path)
    analysis = Analysis(trace)
    kernels = tensor_core_kernels(trace, analysis.gpu_owner, analysis.parent)
    use = tensor_core_use(trace, kernels)
    assert use.tensor_core_share == pytest.approx(15 / (15 + 10))
    assert use.eligible_share == pytest.approx(15 / (15 + 10))
    by_name = {
        trace.names[trace.name_id[event]]: index
        for index, event in enumerate(kernels.events.tolist())
    }
    no_tc, conv = by_name["kernel_no_tc"], by_name[FP16_CONV]
    assert not kernels.on_tensor_cores[no_tc] and kernels.on_tensor_cores[conv]
    assert not kernels.eligible[no_tc] and kernels.eligible[conv]


@pytest.mark.parametrize(
    ("name", "tensor_cores"),
    [
        (SGEMM, False),
        (TF32_GEMM, True),  # s1688: the shared traces' TF32 cutlass GEMMs
        (FP16_CONV, True),  # s884
        ("ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_32x3_nn", True),
        ("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize160x128x32", True),
        ("cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", False),
        (ELEMENTWISE, False),
    ],
)
def test_the_kernel_name_rule(name: str, tensor_cores: bool) -> None:
    assert runs_on_tensor_cores(name) is tensor_cores


def _launch(
    events: list[dict[str, Any]],
    ids: list[int],
    at: float,
    ops: list[str],
    kernel: str,
    kernel_us: float,
    kernel_at: float,
) -> None:
    """Nested operators (outermost first), the innermost launching one kernel."""
    for depth, name in enumerate(ops):
        ids[0] += 1
        events.append(cpu(name, at + depth, 10 - 2 * depth, external_id=ids[0]))
    ids[1] += 1
    events.append(
        cpu(
            "cudaLaunchKernel",
            at + len(ops),
            1,
            cat="cuda_runtime",
            correlation=ids[1],
            external_id=ids[0],
        )
    )
    events.append(
        gpu(
            kernel,
            kernel_at,
            kernel_us,
            correlation=ids[1],
            external_id=ids[0],
        )
    )


def tc_trace(
    path: Path,
    sgemm_us: float,
    *,
    steps: int = 4,
    gemm: str = SGEMM,
    extra: dict[str, Any] | None = None,
) -> Path:
    """1 ms steps, each: aten::linear > aten::addmm launching `gemm` (sgemm_us),
    aten::conv2d > ... > aten::cudnn_convolution launching an FP16 Tensor-Core
    convolution (200 µs), aten::relu launching an elementwise kernel (50 µs)."""
    events = list(metadata())
    ids = [0, 0]
    for index in range(steps):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        _launch(
            events,
            ids,
            at + 10,
            ["aten::linear", "aten::addmm"],
            gemm,
            sgemm_us,
            at + 20,
        )
        conv = [
            "aten::conv2d",
            "aten::convolution",
            "aten::_convolution",
            "aten::cudnn_convolution",
        ]
        _launch(events, ids, at + 30, conv, FP16_CONV, 200, at + 300)
        _launch(events, ids, at + 50, ["aten::relu"], ELEMENTWISE, 50, at + 600)
    return write_trace(path, events, extra=extra)


def _reading(path: Path) -> Finding:
    return tensor_cores(Analysis(load_trace(path)))


def _figures(finding: Finding) -> TensorCoreFigures:
    assert isinstance(finding.figures, TensorCoreFigures)
    return finding.figures


@pytest.mark.parametrize(
    ("sgemm_us", "status"),
    [
        (38.0, FindingStatus.MINOR),
        (40.0, FindingStatus.POSSIBLE),  # half of it, 2 % of the 1 ms step: the floor
        (199.0, FindingStatus.POSSIBLE),
        (200.0, FindingStatus.LIKELY),  # 10 %
    ],
)
def test_half_the_eligible_time_off_tensor_cores_is_its_cost(
    tmp_path: Path, sgemm_us: float, status: FindingStatus
) -> None:
    finding = _reading(tc_trace(tmp_path / "t.json", sgemm_us))
    assert finding.id is FindingId.TENSOR_CORES
    assert finding.status is status
    # aten::linear over aten::addmm: the GEMM counts once, under aten::addmm;
    # at a 2x Tensor Core speed-up, half its time could come back.
    assert finding.cost_ns_per_step == pytest.approx(sgemm_us * 1000 / 2)
    assert finding.share_of_step == pytest.approx(sgemm_us / 2 / STEP_US)
    figures = _figures(finding)
    kernel_us = sgemm_us + 200 + 50
    assert figures.kernel_ns == pytest.approx(4 * kernel_us * 1000)
    assert figures.eligible_share == pytest.approx((sgemm_us + 200) / kernel_us)
    assert figures.tensor_core_share == pytest.approx(200 / kernel_us)
    assert figures.operator == "aten::addmm"
    assert finding.anchor == ShowOperator("aten::addmm")


def test_words_say_mixed_precision_or_tf32(tmp_path: Path) -> None:
    finding = _reading(tc_trace(tmp_path / "t.json", 300.0))
    said = words(finding)
    assert "Tensor Cores" in said.title
    assert " may " in f" {said.hypothesis} "
    assert "torch.autocast" in said.next_check
    assert "allow_tf32" in said.next_check
    assert "aten::addmm" in said.observation
    assert "300 µs" in said.observation


def test_not_seen_when_eligible_kernels_use_tensor_cores(tmp_path: Path) -> None:
    finding = _reading(tc_trace(tmp_path / "t.json", 300.0, gemm=TF32_GEMM))
    assert finding.status is FindingStatus.NOT_SEEN
    assert finding.cost_ns_per_step is None
    assert _figures(finding).tensor_core_share == pytest.approx(500 / 550)


def test_an_operator_launching_tensor_core_kernels_is_eligible(tmp_path: Path) -> None:
    """node.py: an operator off the list that launched a Tensor-Core kernel is
    eligible, so its other kernels count as eligible time off Tensor Cores."""
    events = list(metadata())
    ids = [0, 0]
    events.append(cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"))
    _launch(events, ids, 10, ["my::fused"], TF32_GEMM, 100, 100)
    ids[1] += 1
    events.append(
        cpu(
            "cudaLaunchKernel",
            12,
            1,
            cat="cuda_runtime",
            correlation=ids[1],
            external_id=ids[0],
        )
    )
    events.append(gpu(ELEMENTWISE, 300, 40, correlation=ids[1], external_id=ids[0]))
    finding = _reading(write_trace(tmp_path / "t.json", events))
    assert finding.status is FindingStatus.POSSIBLE  # half of 4 % of the step
    assert finding.cost_ns_per_step == pytest.approx(20_000)
    assert _figures(finding).eligible_share == pytest.approx(1.0)


def test_kernels_of_other_operators_are_not_eligible(tmp_path: Path) -> None:
    events = list(metadata())
    ids = [0, 0]
    events.append(cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"))
    _launch(events, ids, 10, ["aten::add"], ELEMENTWISE, 400, 100)
    finding = _reading(write_trace(tmp_path / "t.json", events))
    assert finding.status is FindingStatus.NOT_SEEN
    assert _figures(finding).eligible_share == 0.0
    assert "none was launched by a Tensor-Core-eligible" in words(finding).observation


def test_without_steps_the_capture_is_one_step(tmp_path: Path) -> None:
    events = list(metadata())
    ids = [0, 0]
    _launch(events, ids, 0, ["aten::mm"], SGEMM, 100, 10)
    _launch(events, ids, 20, ["aten::mm"], SGEMM, 100, 200)
    finding = _reading(write_trace(tmp_path / "t.json", events))
    assert finding.cost_ns_per_step == pytest.approx(100_000)
    assert finding.weight is not None
    assert finding.weight.median_step_ns == pytest.approx(300_000)


@pytest.mark.parametrize(
    ("device", "detail"),
    [
        ({"id": 0, "name": "AMD Radeon Graphics", "computeMajor": 9}, "AMD"),
        ({"id": 0, "name": "Tesla P100-SXM2-16GB", "computeMajor": 6}, "6.x"),
    ],
)
def test_not_observed_on_devices_the_rule_cannot_read(
    tmp_path: Path, device: dict[str, Any], detail: str
) -> None:
    path = tc_trace(tmp_path / "t.json", 300.0, extra={"deviceProperties": [device]})
    finding = _reading(path)
    assert finding.status is FindingStatus.NOT_OBSERVED
    assert finding.missing is not None
    assert finding.missing.reason is MissingReason.NO_TENSOR_CORES
    assert detail in words(finding).observation


def test_not_observed_without_gpu(tmp_path: Path) -> None:
    events = [*metadata(), cpu("aten::mm", 0, 100)]
    finding = _reading(write_trace(tmp_path / "t.json", events))
    assert finding.status is FindingStatus.NOT_OBSERVED
    assert finding.missing is not None
    assert finding.missing.reason is MissingReason.NO_GPU


def test_not_observed_when_no_kernel_has_its_operator(tmp_path: Path) -> None:
    events = [*metadata(), gpu(SGEMM, 0, 100, correlation=5)]
    finding = _reading(write_trace(tmp_path / "t.json", events))
    assert finding.status is FindingStatus.NOT_OBSERVED
    assert finding.missing is not None
    assert finding.missing.reason is MissingReason.NO_KERNEL_OPERATORS
    assert "0 launched outside any operator, 1 not tied" in words(finding).observation


def test_compute_findings_holds_the_reading(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(tc_trace(tmp_path / "t.json", 300.0)))
    ids = [finding.id for finding in compute_findings(analysis)]
    assert FindingId.TENSOR_CORES in ids


def test_an_eligible_operator_over_another_is_not_bottom(tmp_path: Path) -> None:
    """tensor_cores_parser.py counts the kernels of the bottom eligible operators
    only: aten::matmul's own copy kernel is not eligible, aten::mm's GEMM is."""
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"),
        cpu("aten::matmul", 10, 20, external_id=1),
        cpu(
            "cudaLaunchKernel",
            11,
            1,
            cat="cuda_runtime",
            correlation=1,
            external_id=1,
        ),
        cpu("aten::mm", 15, 10, external_id=2),
        cpu(
            "cudaLaunchKernel",
            16,
            1,
            cat="cuda_runtime",
            correlation=2,
            external_id=2,
        ),
        gpu(ELEMENTWISE, 100, 30, correlation=1, external_id=1),
        gpu(SGEMM, 200, 100, correlation=2, external_id=2),
    ]
    finding = _reading(write_trace(tmp_path / "t.json", events))
    assert finding.cost_ns_per_step == pytest.approx(50_000)
    assert _figures(finding).eligible_share == pytest.approx(100 / 130)
    assert _figures(finding).operator == "aten::mm"

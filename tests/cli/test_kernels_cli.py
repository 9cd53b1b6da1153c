"""`steptrace kernels`: the documented JSON, 80-column text, readable names, errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tests.builders.app_traces import HOSTILE_NAMES, write_training_trace
from tui.cli import main
from tui.core.figures.kernels import readable_kernel_name, short_kernel_name

TRACES = shared.FOLDER
GPU = TRACES / "timeline_analysis-sampled_rank-0.json.gz"
CPU_ONLY = TRACES / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
DOCUMENTED_KEYS = {
    "name",
    "count",
    "total_us",
    "min_us",
    "median_us",
    "max_us",
    "busy_pct",
    "launch_us_median",
    "launch_delay_us_median",
    "short_count",
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.usefixtures("shared_traces")
def test_json_rows_carry_the_listed_keys(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "kernels", str(GPU), "--json")
    assert status == 0
    document = json.loads(out)
    assert document["gpu_observed"] is True
    rows = document["kernels"]
    assert rows and all(set(row) >= DOCUMENTED_KEYS for row in rows)
    # Independent count of kernel events by name in the raw file.
    raw = json.loads(gzip.decompress(GPU.read_bytes()))["traceEvents"]
    counts: dict[str, int] = {}
    for event in raw:
        if event.get("cat") == "kernel" and event.get("ph") == "X":
            counts[event["name"]] = counts.get(event["name"], 0) + 1
    assert {row["name"]: row["count"] for row in rows} == counts
    totals = [row["total_us"] for row in rows]
    assert totals == sorted(totals, reverse=True)
    for row in rows:
        assert row["min_us"] <= row["median_us"] <= row["max_us"]
        assert 0 < row["busy_pct"] <= 100


@pytest.mark.usefixtures("shared_traces")
def test_cpu_only_capture_has_null_kernels(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "kernels", str(CPU_ONLY), "--json")
    assert status == 0
    document = json.loads(out)
    assert document["gpu_observed"] is False
    assert document["kernels"] is None and document["device_busy_us"] is None
    status, text, _ = _run(capsys, "kernels", str(CPU_ONLY))
    assert status == 0 and "not observed" in text and " 0 " not in text


def test_step_scope_and_unknown_step(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = write_training_trace(tmp_path / "t.json", gpu=True)
    status, out, _ = _run(capsys, "kernels", str(trace), "--json", "--step", "2")
    assert status == 0
    rows = {row["name"]: row for row in json.loads(out)["kernels"]}
    # One step of the fixture: one sgemm and twelve relu kernels of 8 µs.
    assert rows["ampere_sgemm_128x64_nn"]["count"] == 1
    assert rows["elementwise_kernel<relu>"]["count"] == 12
    assert rows["elementwise_kernel<relu>"]["short_count"] == 12
    status, _, err = _run(capsys, "kernels", str(trace), "--step", "99")
    assert status == 2
    assert err.startswith("steptrace: no step 99") and "Traceback" not in err


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("path", [GPU, CPU_ONLY], ids=["gpu", "cpu-only"])
def test_text_fits_80_columns(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    status, text, _ = _run(capsys, "kernels", str(path))
    assert status == 0
    assert max(len(line) for line in text.splitlines()) <= 80


def test_hostile_kernel_names_are_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "hostile.json"
    events: list[dict[str, Any]] = []
    for index, name in enumerate(HOSTILE_NAMES):
        events.append(
            {
                "ph": "X",
                "cat": "kernel",
                "name": name,
                "pid": 0,
                "tid": 7,
                "ts": 10.0 * index,
                "dur": 5.0,
                "args": {"device": 0, "stream": 7},
            }
        )
    path.write_text(json.dumps({"traceEvents": events}))
    status, text, _ = _run(capsys, "kernels", str(path))
    assert status == 0
    assert "\x1b" not in text and "\u202e" not in text and "\x9b" not in text


@pytest.mark.parametrize(
    ("mangled", "readable", "short"),
    [
        (
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>,"
            " at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>,"
            " at::detail::Array<char*, 1>)",
            "vectorized_elementwise_kernel<4, FillFunctor<int>, Array<char*, 1>>",
            "vectorized_elementwise_kernel<…>",
        ),
        (
            "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned"
            " int, 2, 128, 1>(float*, at::native::(anonymous namespace)::"
            "CatArrInputTensorMetadata<float, unsigned int, 128, 1>, int, unsigned int)",
            "CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>",
            "CatArrayBatchedCopy<…>",
        ),
        (
            "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda"
            "(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::"
            "operator()() const::{lambda(long)#1}, at::detail::Array<char*, 2> >(int, "
            "at::detail::Array<char*, 2>)",
            "unrolled_elementwise_kernel<direct_copy_kernel_cuda{lambda}, Array<char*, 2>>",
            "unrolled_elementwise_kernel<…>",
        ),
        ("volta_sgemm_64x64_nt", "volta_sgemm_64x64_nt", "volta_sgemm_64x64_nt"),
        (
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t",
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t",
        ),
        ("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)", None),
    ],
    ids=[
        "elementwise",
        "anonymous-namespace",
        "lambda-chain",
        "plain",
        "nccl",
        "not-cpp",
    ],
)
def test_readable_kernel_names(mangled: str, readable: str, short: str | None) -> None:
    assert readable_kernel_name(mangled) == readable
    if short is not None:
        assert short_kernel_name(mangled) == short

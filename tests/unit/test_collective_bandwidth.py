"""Collectives per kind and message size, with nccl-tests' bandwidths.

Oracles: a constructed trace whose bandwidths are computed by hand from
nccl-tests' doc/PERFORMANCE.md (S the whole array, algbw = S/t, busbw =
algbw × factor(n)); and the shared ns_resolution trace's `record_param_comms`
args parsed from the raw JSON, grouped and summed here, independently of the
columns.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.collective_bandwidth import (
    CollectiveBandwidth,
    bus_factor,
    collective_bandwidth,
    collective_kind,
)
from tui.core.ingest.load import load_trace

NS_RESOLUTION = "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"


def _comms(
    at: float, dur: float, corr: int, kernel: str, kernel_dur: float, **args: Any
) -> list[dict[str, Any]]:
    """record_param_comms around an nccl:* range around the kernel's launch."""
    return [
        cpu("record_param_comms", at, dur, **args),
        cpu(f"nccl:{kernel}", at + 1, dur - 2, cat="user_annotation"),
        cpu(
            "cudaLaunchKernel",
            at + 2,
            dur - 4,
            cat="cuda_runtime",
            correlation=corr,
        ),
        gpu(
            f"ncclDevKernel_{kernel}_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            at + 20,
            kernel_dur,
            correlation=corr,
        ),
    ]


def _meta(name: str, dtype: str, nelems_in: int, nelems_out: int, n: int) -> Any:
    return {
        "Collective name": name,
        "dtype": dtype,
        "In msg nelems": nelems_in,
        "Out msg nelems": nelems_out,
        "Group size": n,
        "Process Group Name": "0",
    }


def _constructed(path: Path) -> Path:
    events = metadata()
    # all_reduce of 1 Mi floats on 4 ranks, twice: 100 µs and 300 µs.
    for index, (at, took) in enumerate(((0, 100), (1000, 300))):
        events += _comms(
            at,
            20,
            10 + index,
            "AllReduce",
            took,
            **_meta("allreduce", "Float", 1 << 20, 1 << 20, 4),
        )
    # all_gather: 65,664 BFloat16 in, 8 ranks, so 525,312 out; 50 µs.
    events += _comms(
        3000,
        20,
        20,
        "AllGather",
        50,
        **_meta("_allgather_base", "BFloat16", 65_664, 525_312, 8),
    )
    # reduce_scatter: 8 Mi Half in, 2 ranks; 1 ms.
    events += _comms(
        5000,
        20,
        30,
        "ReduceScatter",
        1000,
        **_meta("_reduce_scatter_base", "Half", 8 << 20, 4 << 20, 2),
    )
    # broadcast of 1,000 Long from root, 4 ranks: 8 µs.
    events += _comms(
        8000, 20, 40, "Broadcast", 8, **_meta("broadcast", "Long", 1000, 1000, 4)
    )
    # A kernel that carries the args itself (Kineto copies them from the op);
    # all_to_all of 3 Mi Int on 3 ranks: 600 µs.
    events.append(
        gpu(
            "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
            9000,
            600,
            correlation=99,
            **_meta("all_to_all", "Int", 3 << 20, 3 << 20, 3),
        )
    )
    return write_trace(path, events)


def _reading(path: Path) -> CollectiveBandwidth:
    return collective_bandwidth(Analysis(load_trace(path)))


def test_names_read_as_nccl_tests_kinds() -> None:
    assert collective_kind("allreduce") == "all_reduce"
    assert collective_kind("nccl:_all_gather_base") == "all_gather"
    assert collective_kind("_reduce_scatter_base") == "reduce_scatter"
    assert collective_kind("reduce_scatter_tensor_coalesced") == "reduce_scatter"
    assert collective_kind("nccl:all_to_all") == "all_to_all"
    assert collective_kind("alltoall_base") == "all_to_all"
    assert collective_kind("gloo:broadcast") == "broadcast"
    assert collective_kind("reduce") == "reduce"
    assert collective_kind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t") == "send_recv"
    assert collective_kind("wait") == "wait"


def test_bus_factors_are_nccl_tests() -> None:
    assert bus_factor("all_reduce", 8) == 2 * 7 / 8
    assert bus_factor("reduce_scatter", 8) == 7 / 8
    assert bus_factor("all_gather", 8) == 7 / 8
    assert bus_factor("all_to_all", 8) == 7 / 8
    assert bus_factor("broadcast", 8) == 1
    assert bus_factor("reduce", 8) == 1
    assert bus_factor("barrier", 8) is None
    assert bus_factor("all_reduce", 0) is None


def test_bandwidths_equal_a_hand_computation(tmp_path: Path) -> None:
    reading = _reading(_constructed(tmp_path / "c.json"))
    rows = {row.kind: row for row in reading.rows}
    assert reading.side is not None and reading.side.value == "gpu"
    assert len(reading.calls) == reading.sized == 6
    # all_reduce: S = 4 MiB over 400 µs for two: algbw = 2·4,194,304 B / 400,000 ns.
    all_reduce = rows["all_reduce"]
    assert (all_reduce.count, all_reduce.time_ns) == (2, 400_000)
    assert all_reduce.size_bytes == 4_194_304
    assert all_reduce.algbw_gbps == pytest.approx(20.97152)
    assert all_reduce.busbw_gbps == pytest.approx(20.97152 * 1.5)
    # all_gather: S = the output, 525,312 × 2 B = 1,050,624 B in 50 µs.
    gather = rows["all_gather"]
    assert gather.size_bytes == 1_050_624
    assert gather.algbw_gbps == pytest.approx(21.01248)
    assert gather.busbw_gbps == pytest.approx(21.01248 * 7 / 8)
    # reduce_scatter: S = the input, 8 Mi × 2 B = 16 MiB in 1 ms.
    scatter = rows["reduce_scatter"]
    assert scatter.size_bytes == 16_777_216
    assert scatter.algbw_gbps == pytest.approx(16.777216)
    assert scatter.busbw_gbps == pytest.approx(16.777216 / 2)
    # broadcast: 8,000 B in 8 µs, factor 1.
    assert rows["broadcast"].algbw_gbps == rows["broadcast"].busbw_gbps == 1.0
    # all_to_all from the kernel's own args: 12 MiB in 600 µs, factor 2/3.
    to_all = rows["all_to_all"]
    assert to_all.size_bytes == 12_582_912
    assert to_all.busbw_gbps == pytest.approx(12_582_912 / 600_000 * 2 / 3)
    assert [row.kind for row in reading.rows][:2] == ["reduce_scatter", "all_to_all"]


def test_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _constructed(tmp_path / "c.json")
    assert main(["collectives", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["side"] == "gpu" and document["count"] == 6
    row = next(row for row in document["rows"] if row["kind"] == "all_reduce")
    assert row["mean_us"] == 200.0 and row["group_size"] == 4
    assert row["busbw_gbps"] == pytest.approx(31.45728)
    assert main(["collectives", str(path)]) == 0
    text = capsys.readouterr().out
    assert "timed on the device" in text and "31.5" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_trace_without_collectives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_trace(tmp_path / "none.json", [*metadata(), cpu("aten::mm", 0, 5)])
    assert main(["collectives", str(path)]) == 0
    assert "collectives: none" in capsys.readouterr().out


def _raw_param_comms(path: Path) -> dict[tuple[Any, ...], tuple[int, float]]:
    """(kind name, dtype, in, out, group size) → (count, µs), straight from the JSON."""
    document = json.loads(gzip.decompress(path.read_bytes()))
    totals: dict[tuple[Any, ...], list[float]] = defaultdict(lambda: [0, 0.0])
    for event in document["traceEvents"]:
        args = event.get("args") or {}
        if event.get("name") == "record_param_comms" and "Collective name" in args:
            key = (
                args["Collective name"],
                args["dtype"],
                args["In msg nelems"],
                args["Out msg nelems"],
                args["Group size"],
            )
            totals[key][0] += 1
            totals[key][1] += event["dur"]
    return {key: (int(count), us) for key, (count, us) in totals.items()}


def test_a_shared_trace_reads_its_raw_args(shared_traces: Path) -> None:
    path = shared_traces / NS_RESOLUTION
    raw = _raw_param_comms(path)
    reading = _reading(path)
    assert reading.side is not None and reading.side.value == "cpu"
    assert len(reading.calls) == sum(count for count, _ in raw.values()) == 45
    ours: dict[tuple[Any, ...], tuple[int, float]] = {}
    for call in reading.calls:
        key = (call.name, call.dtype, call.in_nelems, call.out_nelems, call.group_size)
        count, time_us = ours.get(key, (0, 0.0))
        ours[key] = (count + 1, time_us + call.duration_ns / 1000)
    assert ours.keys() == raw.keys()
    for key, (count, time_us) in raw.items():
        assert ours[key][0] == count
        assert ours[key][1] == pytest.approx(time_us, abs=1e-3)
    # One hand-checked row: allreduce of 2,049,000 floats (8,196,000 B).
    row = next(r for r in reading.rows if r.size_bytes == 2_049_000 * 4)
    count, time_us = raw[("allreduce", "Float", 2_049_000, 2_049_000, 1)]
    assert row.algbw_gbps == pytest.approx(8_196_000 * count / (time_us * 1000))
    assert row.busbw_gbps == 0.0  # one rank: 2(n-1)/n = 0


def _raw_range_sizes(path: Path, name: str) -> dict[int, int]:
    """Bytes → count of the `name` ranges, from their Input Dims (float: 4 B)."""
    document = json.loads(gzip.decompress(path.read_bytes()))
    sizes: dict[int, int] = defaultdict(int)
    for event in document["traceEvents"]:
        if event.get("name") == name:
            (shape,) = event["args"]["Input Dims"]
            assert event["args"]["Input type"] == ["float"]
            elements = 1
            for size in shape:
                elements *= size
            sizes[elements * 4] += 1
    return dict(sizes)


@pytest.mark.parametrize(
    ("name", "range_name"),
    [
        ("negative_queue_length_values_check-rank0.json.gz", "nccl:all_reduce"),
        ("cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", "gloo:all_reduce"),
    ],
)
def test_all_reduce_without_kineto_keys_is_sized_from_its_inputs(
    shared_traces: Path, name: str, range_name: str
) -> None:
    """Before record_param_comms carried sizes, an all_reduce's range recorded its
    input (the whole array): its size, with no group size, so algbw but no busbw."""
    reading = _reading(shared_traces / name)
    rows = [row for row in reading.rows if row.kind == "all_reduce"]
    assert {row.size_bytes: row.count for row in rows} == _raw_range_sizes(
        shared_traces / name, range_name
    )
    for row in rows:
        assert row.algbw_gbps is not None and row.busbw_gbps is None
    # The other kinds' inputs are a rank's part: left unsized.
    assert all(row.size_bytes is None for row in reading.rows if row not in rows)

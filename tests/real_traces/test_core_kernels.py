"""Kernels per name against an independent parse of real traces."""

from __future__ import annotations

import gzip
import json
import statistics
from collections import defaultdict
from decimal import Decimal

import pytest

from tests import shared_traces as shared
from tui.core.figures.kernels import kernel_events, kernel_table
from tui.core.ingest.load import load_trace

TRACES = shared.FOLDER
GPU_TRACES = [
    "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
    "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "trace_file_list-inference_rank_1.json.gz",
]


@pytest.mark.parametrize("name", GPU_TRACES)
def test_kernel_table_matches_the_raw_events(name: str) -> None:
    path = TRACES / name
    document = json.loads(gzip.decompress(path.read_bytes()), parse_float=Decimal)
    events = document["traceEvents"] if isinstance(document, dict) else document
    durations: dict[str, list[int]] = defaultdict(list)
    for event in events:
        if event.get("ph") == "X" and str(event.get("cat", "")).lower() == "kernel":
            durations[event["name"]].append(round(Decimal(event["dur"]) * 1000))
    table = kernel_table(load_trace(path), kernel_events(load_trace(path)))
    assert sorted(table.names) == sorted(durations)
    for row, kernel in enumerate(table.names):
        expected = durations[kernel]
        assert table.count[row] == len(expected)
        assert table.total_ns[row] == sum(expected)
        assert table.min_ns[row] == min(expected)
        assert table.max_ns[row] == max(expected)
        assert table.median_ns[row] == statistics.median(expected)
        assert table.events[row].size == len(expected)

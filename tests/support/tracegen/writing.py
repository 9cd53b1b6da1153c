"""Writing the file: Kineto's header and trailer, and events joined with its separators."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, Any

from tests.support.tracegen.formats import (
    COPY_STREAM,
    DEVICE,
    MAIN_STREAM,
    META_FMT,
    OLD_PROCESS_FMT,
    OLD_THREAD_FMT,
    SYNC_TID,
    us_text,
)
from tests.support.tracegen.truth import Stats

DEVICE_PROPERTIES = (
    "[\n    {\n"
    '      "id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 84987740160,\n'
    '      "computeMajor": 8, "computeMinor": 0,\n'
    '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
    '      "regsPerBlock": 65536, "warpSize": 32,\n'
    '      "sharedMemPerBlock": 49152, "numSms": 108\n'
    '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 166912,'
    ' "sharedMemPerMultiprocessor": 167936\n'
    "    }\n  ]"
)


def old_header_text() -> str:
    """The header PyTorch 1.8-1.10 wrote: no distributed info, no trace id."""
    return (
        "\n{\n"
        '  "schemaVersion": 1,\n'
        f'  "deviceProperties": {DEVICE_PROPERTIES},\n'
        '  "traceEvents": [\n'
    )


def header_text(trace_id: str) -> str:
    """The header torch 2.x writes, with one rank's distributed info."""
    pg = {
        "pg_name": "0",
        "pg_desc": "default_pg",
        "backend_config": "cuda:nccl",
        "pg_size": 1,
        "ranks": [0],
    }
    dist = {
        "backend": "nccl",
        "rank": 0,
        "world_size": 1,
        "pg_count": 1,
        "pg_config": [pg],
        "nccl_version": "2.21.5",
    }
    return (
        "\n{\n"
        '  "schemaVersion": 1,\n'
        f'  "deviceProperties": {DEVICE_PROPERTIES},\n'
        '  "cupti_version": 24,\n'
        '  "cuda_runtime_version": 12040,\n'
        '  "cuda_driver_version": 12040,\n'
        '  "with_flops": 0,\n'
        '  "record_shapes": 1,\n'
        '  "profile_memory": 0,\n'
        '  "with_stack": 0,\n'
        f'  "trace_id": "{trace_id}",\n'
        f'  "distributedInfo": {json.dumps(dist)},\n'
        '  "traceEvents": [\n'
    )


def meta_event(
    name: str, ts: int, pid: int | str, tid: int, key: str, value: Any
) -> str:
    """One metadata (``M``) event in Kineto's layout."""
    return META_FMT % (name, us_text(ts), json.dumps(pid), tid, key, json.dumps(value))


def old_trailer_events(
    pid: int, bwd_tid: int, t_start: int, t_end: int, stats: Stats
) -> list[str]:
    """Metadata, the profiler span and instants as PyTorch 1.8-1.10 ended a trace.

    Thread ids are strings here too; there are no sort indexes and no stream names.
    """
    proc = "python3.8"
    ts = t_start // 1000
    out = [
        OLD_PROCESS_FMT % (name, ts, p, k, v)
        for name, p, k, v in (
            ("process_name", pid, "name", proc),
            ("process_labels", pid, "labels", "CPU"),
            ("process_name", DEVICE, "name", proc),
            ("process_labels", DEVICE, "labels", f"GPU {DEVICE}"),
        )
    ]
    for tid, label in ((pid, proc), (bwd_tid, "pt_autograd_0")):
        out.append(OLD_THREAD_FMT % (ts, pid, tid, tid, label))
    span_start = (t_start - 4_873_211) // 1000
    span_end = (t_end + 2_113_407) // 1000
    out.append(
        f'  {{\n    "ph": "X", "cat": "Trace", "ts": {span_start}, '
        f'"dur": {span_end - span_start},\n'
        '    "pid": "Traces", "tid": "PyTorch Profiler",\n'
        '    "name": "PyTorch Profiler (0)",\n'
        '    "args": {\n      "Op count": 0\n    }\n  }'
    )
    out.append(
        '  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
        f'    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": {span_start}\n  }}'
    )
    out.append(
        '  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
        f'    "pid": "", "tid": "", "ts": {span_end}\n  }}'
    )
    stats.by_ph["M"] += 6
    stats.by_ph["X"] += 1
    stats.by_ph["i"] += 2
    stats.by_cat["Trace"] = stats.by_cat.get("Trace", 0) + 1
    stats.calls["Trace", "PyTorch Profiler (0)"] = 1
    return out


def trailer_events(
    pid: int, bwd_tid: int, t_start: int, t_end: int, stats: Stats
) -> list[str]:
    """Metadata, the profiler span and instants, as Kineto ends a trace."""
    proc = "python3.11"
    main = f"thread {pid} ({proc})"
    items: list[tuple[str, int | str, int, str, Any]] = [
        ("process_name", pid, 0, "name", proc),
        ("process_labels", pid, 0, "labels", "CPU"),
        ("process_sort_index", pid, 0, "sort_index", pid),
        ("process_name", DEVICE, 0, "name", proc),
        ("process_labels", DEVICE, 0, "labels", f"GPU {DEVICE}"),
        ("process_sort_index", DEVICE, 0, "sort_index", 16777216 + DEVICE),
        ("thread_name", DEVICE, SYNC_TID, "name", f"Device {DEVICE}"),
        ("thread_sort_index", DEVICE, SYNC_TID, "sort_index", SYNC_TID),
        ("thread_name", DEVICE, MAIN_STREAM, "name", f"stream {MAIN_STREAM} "),
        ("thread_sort_index", DEVICE, MAIN_STREAM, "sort_index", MAIN_STREAM),
        ("thread_name", DEVICE, COPY_STREAM, "name", f"stream {COPY_STREAM} "),
        ("thread_sort_index", DEVICE, COPY_STREAM, "sort_index", COPY_STREAM),
        ("thread_name", pid, pid, "name", main),
        ("thread_sort_index", pid, pid, "sort_index", pid),
        # Kineto writes the main thread twice; readers must cope.
        ("thread_name", pid, pid, "name", main),
        ("thread_sort_index", pid, pid, "sort_index", pid),
        ("thread_name", pid, bwd_tid, "name", f"thread {bwd_tid} (pt_autograd_0)"),
        ("thread_sort_index", pid, bwd_tid, "sort_index", bwd_tid),
    ]
    out = [meta_event(name, t_start, p, t, k, v) for name, p, t, k, v in items]
    span_start = t_start - 4_873_211
    span_end = t_end + 2_113_407
    out.append(
        f'  {{\n    "ph": "X", "cat": "Trace", "ts": {us_text(span_start)}, '
        f'"dur": {us_text(span_end - span_start)},\n'
        '    "pid": "Spans", "tid": "PyTorch Profiler",\n'
        '    "name": "PyTorch Profiler (0)",\n'
        '    "args": {\n      "Op count": 0\n    }\n  }'
    )
    out.append(
        f'  {{\n    "name": "process_sort_index", "ph": "M", "ts": {us_text(span_start)},\n'
        '    "pid": "Spans", "tid": 0,\n'
        '    "args": {\n      "sort_index": 536870912\n    }\n  }'
    )
    out.append(
        '  {\n    "name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",\n'
        f'    "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": {us_text(span_start)}\n  }}'
    )
    out.append(
        '  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
        f'    "pid": "", "tid": "", "ts": {us_text(span_end)}\n  }}'
    )
    stats.by_ph["M"] += len(items) + 1
    stats.by_ph["X"] += 1
    stats.by_ph["i"] += 2
    stats.by_cat["Trace"] = stats.by_cat.get("Trace", 0) + 1
    stats.calls["Trace", "PyTorch Profiler (0)"] = 1
    return out


class EventWriter:
    """Joins events with Kineto's separators and counts the raw bytes."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f = f
        self.raw = 0
        self.first = True

    def text(self, text: str) -> None:
        """Write raw text, counting its bytes."""
        data = text.encode("ascii")
        self.raw += len(data)
        self.f.write(data)

    def events(self, items: Sequence[str | None]) -> None:
        """Write events, comma-separated from the ones before."""
        if not items:
            return
        body = ",\n".join(x for x in items if x is not None)
        self.text(body if self.first else ",\n" + body)
        self.first = False

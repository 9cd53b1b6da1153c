"""An independent parse of a shared trace's raw JSON, the oracle of the copies'
figures: exact times, directions as Kineto spells them, issuers and steps linked by
hand (External id, correlation), never through steptrace's loader."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from decimal import Decimal
from functools import cache
from typing import Any

import numpy as np

from tests import shared_traces as shared

TRACES = shared.FOLDER
MEMCPY_HEAVY = "negative_queue_length_values_check-rank0.json.gz"
# How a reader of Kineto's names spells each direction.
WORDS = {"HtoD": "htod", "DtoH": "dtoh", "DtoD": "dtod", "PtoP": "dtod", "HtoH": "htoh"}


def raw_ns(value: Any) -> int:
    return int((Decimal(str(value)) * 1000).to_integral_value())


@cache
def raw_events(name: str) -> list[dict[str, Any]]:
    document = json.loads(
        gzip.decompress((TRACES / name).read_bytes()), parse_float=Decimal
    )
    return [e for e in document["traceEvents"] if e.get("ph") == "X" and "dur" in e]


def raw_union_ns(spans: list[tuple[int, int]]) -> int:
    total, end = 0, None
    for start, stop in sorted(spans):
        if end is None or start > end:
            total, end = total + stop - start, stop
        elif stop > end:
            total, end = total + stop - end, stop
    return total


def raw_direction(event: dict[str, Any]) -> str:
    if event["cat"] == "gpu_memset":
        return "set"
    word = event["name"].split()[1]
    return WORDS[word]


def raw_copies(name: str) -> list[dict[str, Any]]:
    return [e for e in raw_events(name) if e.get("cat") in ("gpu_memcpy", "gpu_memset")]


@cache
def raw_threads(
    name: str,
) -> dict[tuple[Any, Any], tuple[np.ndarray, np.ndarray, list[str]]]:
    """Per CPU thread: starts, ends and names of its ops and annotations."""
    rows: dict[tuple[Any, Any], list[tuple[int, int, str]]] = defaultdict(list)
    for e in raw_events(name):
        if e.get("cat") in ("cpu_op", "user_annotation"):
            start = raw_ns(e["ts"])
            rows[(e["pid"], e["tid"])].append(
                (start, start + raw_ns(e["dur"]), e["name"])
            )
    return {
        key: (
            np.array([r[0] for r in items]),
            np.array([r[1] for r in items]),
            [r[2] for r in items],
        )
        for key, items in rows.items()
    }


def raw_containing(name: str, event: dict[str, Any]) -> list[str]:
    """Names of the ops and annotations of the event's thread that contain it
    (itself included), outermost first."""
    starts, ends, names = raw_threads(name)[(event["pid"], event["tid"])]
    start = raw_ns(event["ts"])
    end = start + raw_ns(event["dur"])
    hits = np.flatnonzero((starts <= start) & (ends >= end)).tolist()
    hits.sort(key=lambda i: (int(starts[i]), -int(ends[i])))
    return [names[i] for i in hits]


def raw_issuers_and_steps(
    name: str,
) -> tuple[list[dict[str, Any]], dict[int, tuple[str, ...]], dict[int, int]]:
    """Raw linking: each copy's issuing path (the op with its External id, ops before
    annotations; else the innermost op around its runtime call), steps left out;
    and the step holding its runtime call."""
    events = raw_events(name)
    by_external: dict[int, dict[str, Any]] = {}
    for event in events:
        external = event.get("args", {}).get("External id")
        if (
            event.get("cat") in ("cpu_op", "user_annotation")
            and external is not None
            and (external not in by_external or event["cat"] == "cpu_op")
        ):
            by_external[external] = event
    runtime = {
        e["args"]["correlation"]: e
        for e in events
        if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})
    }
    steps = sorted(
        (
            e
            for e in events
            if e["name"].startswith("ProfilerStep#") and e["cat"] == "user_annotation"
        ),
        key=lambda e: raw_ns(e["ts"]),
    )
    copies = raw_copies(name)
    paths: dict[int, tuple[str, ...]] = {}
    step_of: dict[int, int] = {}
    for index, copy in enumerate(copies):
        op = by_external.get(copy["args"].get("External id"))
        call = runtime.get(copy["args"].get("correlation"))
        chain = (
            raw_containing(name, op)
            if op
            else raw_containing(name, call)
            if call
            else []
        )
        named = tuple(n for n in chain if not n.startswith("ProfilerStep#"))
        if named:
            paths[index] = named
        at = (
            raw_ns(call["ts"])
            if call
            else raw_ns(op["ts"])
            if op
            else raw_ns(copy["ts"])
        )
        for number, step in enumerate(steps):
            if raw_ns(step["ts"]) <= at < raw_ns(step["ts"]) + raw_ns(step["dur"]):
                step_of[index] = number
                break
    return copies, paths, step_of

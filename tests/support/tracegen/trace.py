"""One synthetic trace: ``generate`` writes it step by step, and its ground truth beside it."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from tests.support.tracegen.formats import STYLES
from tests.support.tracegen.model import ModelBuilder
from tests.support.tracegen.nodes import DEVSYNC, ITEM, Node, op
from tests.support.tracegen.simulator import Simulator
from tests.support.tracegen.truth import Stats, expected_truth
from tests.support.tracegen.writing import (
    EventWriter,
    header_text,
    old_header_text,
    old_trailer_events,
    trailer_events,
)
from tests.support.tracegen.zones import data_loading, training, transfer

#: Timestamp of the first step by default: an absolute epoch, nanoseconds.
DEFAULT_BASE_TS_NS = 1_712_195_495_519_689_047


class GenerationResult:
    """What ``generate`` wrote, and how fast."""

    def __init__(
        self, path: Path, expected: dict[str, Any], raw_bytes: int, seconds: float
    ) -> None:
        self.path = path
        self.expected = expected
        self.raw_bytes = raw_bytes
        self.seconds = seconds

    @property
    def events(self) -> int:
        """How many events the trace holds."""
        return int(self.expected["events"]["total"])

    @property
    def expected_path(self) -> Path:
        """Where the ground truth was written."""
        return expected_path_for(self.path)


def expected_path_for(path: str | os.PathLike[str]) -> Path:
    """``PATH.expected.json``, next to the trace."""
    p = Path(path)
    return p.with_name(p.name + ".expected.json")


def generate(
    path: str | os.PathLike[str],
    steps: int | None = None,
    seed: int = 0,
    *,
    size_bytes: int | None = None,
    gzip_output: bool = False,
    first_step: int = 2,
    base_ts_ns: int = DEFAULT_BASE_TS_NS,
    depth: int = 6,
    batch: int = 32,
    samples: int = 16,
    sync_probability: float = 0.3,
    item_probability: float = 0.5,
    gpu_scale: float = 0.5,
    style: str = "current",
    progress: Callable[[int, int, int], None] | None = None,
) -> GenerationResult:
    """Write a synthetic Kineto trace to ``path`` and ``PATH.expected.json``.

    Give ``steps`` (the exact number of ``ProfilerStep``) or ``size_bytes``
    (stop after the first step that brings the uncompressed JSON to that
    size).  Refuses to overwrite either file.  Same arguments, same bytes.
    ``gpu_scale`` multiplies every GPU duration (higher: GPU-bound steps).
    ``style`` is "current" (torch 2.x) or "1.9" (what PyTorch 1.8-1.10 wrote:
    string thread ids, ``Operator``/``Runtime``/``Kernel``/``Memcpy``/``Memset``
    categories, ``async`` launch flows, whole microseconds).
    ``progress(steps, raw_bytes, events)`` is called after each step.
    """
    if (steps is None) == (size_bytes is None):
        raise ValueError("give exactly one of steps or size_bytes")
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}")
    if style == "1.9":
        base_ts_ns -= base_ts_ns % 1_000
    if steps is not None and steps < 1:
        raise ValueError("steps must be >= 1")
    out_path = Path(path)
    exp_path = expected_path_for(out_path)
    if exp_path.exists():
        raise FileExistsError(f"{exp_path} exists; refusing to overwrite")
    t0 = time.perf_counter()
    rng = random.Random(seed)
    pid = rng.randrange(100_000, 4_000_000)
    bwd_tid = pid + rng.randrange(60, 900)
    trace_id = f"{rng.getrandbits(128):032X}"
    width = rng.choice((384, 512, 768))
    model = ModelBuilder(
        rng, batch=batch, width=width, depth=depth, gpu_scale=gpu_scale
    )
    zones = (
        data_loading(samples, decode_us=rng.choice((350, 420, 480))),
        transfer(batch, 3 * 128 * 128 * 4),
        training(model, model.forward(), model.optimizer()),
    )
    item = op("aten::item", 2_500, op("aten::_local_scalar_dense", 4_000, Node(ITEM)))
    sync = Node(DEVSYNC, "cudaDeviceSynchronize")

    stats = Stats()
    sim = Simulator(rng, pid, bwd_tid, base_ts_ns, stats, style)
    f = open(out_path, "xb")  # noqa: SIM115 - closed below, removed on error
    ok = False
    try:
        gz = (
            gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0)
            if gzip_output
            else None
        )
        sink: IO[bytes] = io.BufferedWriter(gz, 1 << 22) if gz is not None else f
        w = EventWriter(sink)
        w.text(old_header_text() if sim.old else header_text(trace_id))
        t = base_ts_ns
        n = 0
        while True:
            tail = []
            if rng.random() < item_probability:
                tail.append(item)
            if rng.random() < sync_probability:
                tail.append(sync)
            number = first_step + n
            end = sim.step(number, t, (*zones, *tail))
            sim.account_step(number, t, end)
            w.events(sim.out_main)
            w.events(sim.out_bwd)
            w.events(sim.out_gpu)
            w.events(sim.take_gpu_annotations())
            sim.out_main.clear()
            sim.out_bwd.clear()
            sim.out_gpu.clear()
            n += 1
            t = end + sim.between(4_000, 30_000)
            if progress is not None:
                progress(n, w.raw, sum(stats.by_ph.values()))
            if n == steps or (size_bytes is not None and w.raw >= size_bytes):
                break
        sim.finish()
        trailer = old_trailer_events if sim.old else trailer_events
        w.events(trailer(pid, bwd_tid, base_ts_ns, t, stats))
        w.text(
            f'\n  ],\n  "traceName": "{out_path.name}",\n  "displayTimeUnit": "ms"\n}}'
        )
        if gz is not None:
            sink.flush()
            gz.close()
        ok = True
    finally:
        f.close()
        if not ok:
            out_path.unlink(missing_ok=True)
    seconds = time.perf_counter() - t0
    expected = expected_truth(
        stats,
        out_path,
        w.raw,
        gzip_output,
        seed,
        pid,
        bwd_tid,
        base_ts_ns,
        first_step,
        style,
    )
    with open(exp_path, "x", encoding="utf-8") as ef:
        json.dump(expected, ef, indent=1)
        ef.write("\n")
    return GenerationResult(out_path, expected, w.raw, seconds)

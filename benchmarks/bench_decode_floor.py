"""What decoding alone costs per event, nothing else done: the floor under a cold load.

    .venv/bin/python -m benchmarks.bench_decode_floor [TRACE]   (default bench-out/big-1g.json)

The events array is cut into pieces as the parallel loader cuts it; each
piece is decoded by msgspec into the loader's own record (`RawEvent`), into
raw elements only, and by orjson, with the garbage collector off, and the
whole load's column-making is timed on the same pieces. Divided by the
workers, the first line is what no pure-msgspec loader can go under: the cold
goal is judged against it (benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import gc
import mmap
import time
from pathlib import Path

import msgspec
import orjson

from tui.core.ingest.collect.batches import Collector
from tui.core.ingest.decode.records import RawEvent
from tui.core.ingest.parallel.layout import event_ranges, locate_events

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description="What decoding alone costs per event: the floor under a cold load."
    )
    parser.add_argument(
        "trace", type=Path, nargs="?", default=ROOT / "bench-out" / "big-1g.json"
    )
    path = parser.parse_args().trace
    if not path.exists():
        raise SystemExit(
            f"{path} is missing (python -m tests.support.tracegen --size-gb 1.1 -o {path})"
        )
    with open(path, "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        layout = locate_events(data)
        if layout is None:
            raise SystemExit(f"{path}: not a plain trace the parallel loader reads")
        pieces = event_ranges(data, layout.start, layout.end, 40)
        texts = [b"[" + data[begin:stop] + b"]" for begin, stop in pieces]
    records = msgspec.json.Decoder(list[RawEvent])
    elements = msgspec.json.Decoder(list[msgspec.Raw])
    events = sum(len(elements.decode(text)) for text in texts)
    print(f"{path.name}: {events:,} events, {sum(map(len, texts)) / 1e6:.0f} MB")
    gc.disable()
    for label, decode in (
        ("msgspec, the loader's records", records.decode),
        ("msgspec, raw elements only", elements.decode),
        ("orjson, Python objects", orjson.loads),
    ):
        began = time.perf_counter()
        for text in texts:
            decode(text)
        seconds = time.perf_counter() - began
        print(f"  {label:<34} {seconds:6.2f} s  {seconds / events * 1e9:5.0f} ns/event")
    gc.enable()
    began = time.perf_counter()
    collector = Collector()
    decoding = 0.0
    for text in texts:
        start = time.perf_counter()
        batch = records.decode(text)
        decoding += time.perf_counter() - start
        collector.add_batch(batch)
        del batch
    seconds = time.perf_counter() - began
    print(
        f"  {'records and columns (the load)':<34} {seconds:6.2f} s  "
        f"{seconds / events * 1e9:5.0f} ns/event "
        f"(columns: {(seconds - decoding) / events * 1e9:.0f} ns/event)"
    )


if __name__ == "__main__":
    main()

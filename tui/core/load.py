"""Load a trace file into the model: the one entry point for every front end."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.core.build import build_trace
from tui.core.decode import decode_trace
from tui.core.errors import LoadCancelled
from tui.core.model import Trace
from tui.core.source import ReadProgress, read_trace_bytes

# Traces whose JSON is at least this big are worth a cache entry.
CACHE_MIN_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class LoadProgress:
    """Progress of a load, for a progress bar: bytes while reading, then named phases.

    During the "events" phase, `events_done` of `events_total` elements of the
    trace have been turned into columns.
    """

    phase: str
    bytes_read: int
    bytes_total: int
    events_done: int = 0
    events_total: int = 0


def load_trace(
    path: str | os.PathLike[str],
    *,
    progress: Callable[[LoadProgress], None] | None = None,
    cancel: threading.Event | None = None,
    max_bytes: int | None = None,
    cache: str = "off",
) -> Trace:
    """Read, decode and model a trace; raises TraceLoadError with a one-line reason.

    `cache` is "off", "auto" (reuse a cache entry; write one for big traces) or
    "on" (always write one). The column cache makes reopening a big trace cheap.
    """
    trace_path = Path(path)
    use_cache = cache != "off" and not os.environ.get("STEPTRACE_NO_CACHE")
    if use_cache:
        from tui.core import cache as column_cache

        cached = column_cache.load(trace_path)
        if cached is not None:
            if progress is not None:
                progress(LoadProgress("cached", cached.file_size, cached.file_size))
            return cached
    total = 0

    def on_read(read: ReadProgress) -> None:
        nonlocal total
        total = read.bytes_total
        if progress is not None:
            progress(LoadProgress(read.phase, read.bytes_read, read.bytes_total))

    def on_phase(phase: str, done: int = 0, count: int = 0) -> None:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if progress is not None:
            progress(LoadProgress(phase, total, total, done, count))

    raw = read_trace_bytes(
        trace_path, progress=on_read, cancel=cancel, max_bytes=max_bytes
    )
    on_phase("decoding")
    raw_size = len(raw.data)
    decoded = decode_trace(raw.data, str(trace_path))
    del raw.data
    trace = build_trace(
        decoded,
        trace_path,
        file_size=raw.file_size,
        compressed=raw.compressed,
        read_warnings=raw.warnings,
        progress=on_phase,
    )
    if use_cache and (cache == "on" or raw_size >= CACHE_MIN_BYTES):
        from tui.core import cache as column_cache

        column_cache.save(trace)
    return trace

"""Load a trace file into the model: the one entry point for every front end."""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.core.base.errors import LoadCancelled, TraceLoadError
from tui.core.base.settings import settings
from tui.core.base.textsafe import printable
from tui.core.base.vocab import CacheUse, LoadPhase
from tui.core.ingest.source import (
    GZIP_MAGIC,
    MemoryBudget,
    RawTrace,
    ReadProgress,
    check_plain_memory,
    default_max_bytes,
    read_trace_bytes,
)

if TYPE_CHECKING:
    from tui.core.model.trace import Trace

# Traces whose JSON is at least this big are worth a cache entry.
CACHE_MIN_BYTES = 64 * 1024 * 1024
# Below this much JSON, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class LoadProgress:
    """Progress of a load, for a progress bar: bytes while reading, then named phases.

    During the "events" phase, `events_done` of `events_total` elements of the
    trace have been turned into columns. When workers decode the events in
    parallel ("decoding"), the bytes are those of the events array and
    `workers` holds each worker's (bytes decoded, bytes of the pieces it took
    so far): the workers take pieces from one queue, so what each does is
    known only as it goes.
    """

    phase: LoadPhase
    bytes_read: int
    bytes_total: int
    events_done: int = 0
    events_total: int = 0
    workers: tuple[tuple[int, int], ...] = ()
    detail: str = ""

    @property
    def text(self) -> str:
        """The phase as people read it, with its detail (`analysing 4,123 events`)."""
        return f"{self.phase.value} {self.detail}" if self.detail else self.phase.value


def load_trace(
    path: str | os.PathLike[str],
    *,
    progress: Callable[[LoadProgress], None] | None = None,
    cancel: threading.Event | None = None,
    max_bytes: int | None = None,
    cache: CacheUse = CacheUse.OFF,
    workers: int | None = None,
    max_memory: int | None = None,
) -> Trace:
    """Read, decode and model a trace; raises TraceLoadError with a one-line reason.

    `cache` is OFF, AUTO (reuse a cache entry; write one for big traces) or
    ON (always write one); its text ("auto") is read as the same word, a
    misspelt one is a ValueError. The column cache makes reopening a big
    trace cheap.
    `workers` processes decode a big trace's events in parallel (default: the
    machine's cores); the trace is the same whatever their number.
    `max_memory`: refuse a trace whose events would need more (default:
    `default_max_memory`), estimated while its bytes are read.
    """
    trace_path = Path(path)
    cache = CacheUse(cache)
    use_cache = cache is not CacheUse.OFF and not settings().no_cache
    # The file's key before it is read: an entry is saved under the key of the
    # bytes parsed, and only when the file still has that key once they are.
    key_before: dict[str, Any] | None = None
    damage: str | None = None
    if use_cache:
        key_before, damage, cached = _cache_entry(trace_path)
        if cached is not None:
            if progress is not None:
                progress(
                    LoadProgress(LoadPhase.CACHED, cached.file_size, cached.file_size)
                )
            return cached
    budget = MemoryBudget.of(max_memory)
    trace, raw_size, cut_off = _parse(
        trace_path, progress, cancel, max_bytes, workers, budget
    )
    if (
        key_before is not None
        and not cut_off
        and (cache is CacheUse.ON or raw_size >= CACHE_MIN_BYTES)
    ):
        _save_if_unchanged(trace, trace_path, key_before)
    trace.cut_off = cut_off
    if damage is not None:
        trace.warnings.append(
            f"the column cache entry of this trace was damaged ({printable(damage)}); "
            "the trace was read again"
        )
    return trace


def _cache_entry(
    trace_path: Path,
) -> tuple[dict[str, Any] | None, str | None, Trace | None]:
    """The file's key now, what damage its cache entry had, and the cached trace if sound.

    A file whose key cannot be read has no entry: (None, None, None).
    """
    from tui.core.ingest import cache as column_cache

    key_before: dict[str, Any] | None = None
    with contextlib.suppress(OSError, ValueError):
        key_before = column_cache.file_key(trace_path)
    if key_before is None:
        return None, None, None
    found = column_cache.lookup(trace_path, key=key_before)
    return key_before, found.damage, found.trace


def _save_if_unchanged(
    trace: Trace, trace_path: Path, key_before: dict[str, Any]
) -> None:
    """Keep a cache entry of `trace`, unless its file changed while it was read.

    A file still being written (a profiler, rsync) is not kept: its key moved
    while it was read, or its end was missing.
    """
    from tui.core.ingest import cache as column_cache

    with contextlib.suppress(OSError, ValueError):
        if column_cache.file_key(trace_path) == key_before:
            column_cache.save(trace, key=key_before)


def _parse(
    trace_path: Path,
    progress: Callable[[LoadProgress], None] | None,
    cancel: threading.Event | None,
    max_bytes: int | None,
    workers: int | None,
    budget: MemoryBudget,
) -> tuple[Trace, int, bool]:
    """The trace read and modelled, by worker processes when it is big.

    Also the size of its JSON and whether its end was missing (cut off),
    which decide whether it is worth a cache entry.
    """
    total = 0

    def on_read(read: ReadProgress) -> None:
        nonlocal total
        total = read.bytes_total
        if progress is not None:
            progress(LoadProgress(read.phase, read.bytes_read, read.bytes_total))

    def on_phase(phase: LoadPhase, done: int = 0, count: int = 0) -> None:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if progress is not None:
            progress(LoadProgress(phase, total, total, done, count))

    worker_count = default_workers() if workers is None else max(1, int(workers))
    limit = default_max_bytes() if max_bytes is None else max_bytes
    read = partial(
        read_trace_bytes,
        progress=on_read,
        cancel=cancel,
        max_bytes=limit,
        memory=budget,
    )
    raw: RawTrace | None = None
    trace: Trace | None = None
    cut_off = False
    raw_size = _plain_size(trace_path, limit)
    if settings().native_decoder:
        if raw_size is None:
            raw = read(trace_path)
            raw_size = len(raw.data)
        else:
            check_plain_memory(trace_path, raw_size, budget)
        trace = _load_native(trace_path, worker_count, raw, raw_size, on_phase)
        if trace is not None:
            return trace, raw_size, raw is not None and raw.cut_off
    if raw is None and raw_size is not None and raw_size >= PARALLEL_MIN_BYTES:
        check_plain_memory(trace_path, raw_size, budget)
        trace = _load_parallel(
            trace_path, worker_count, None, raw_size, progress, cancel
        )
    elif raw is not None or raw_size is None:
        if raw is None:
            raw = read(trace_path)
        raw_size = len(raw.data)
        if raw.compressed and raw_size >= PARALLEL_MIN_BYTES:
            trace = _load_parallel(
                trace_path, worker_count, raw, raw_size, progress, cancel
            )
    if trace is None:
        if raw is None:
            raw = read(trace_path)
            raw_size = len(raw.data)
        trace, cut_off = _decode_here(raw, trace_path, on_phase)
    cut_off = cut_off or (raw is not None and raw.cut_off)
    return trace, raw_size, cut_off


def _decode_here(
    raw: RawTrace, trace_path: Path, on_phase: Callable[..., None]
) -> tuple[Trace, bool]:
    """The trace decoded and modelled in this process, and whether its end was
    missing; the raw bytes are let go once decoded."""
    # Imported when a trace is parsed: a reopen from the cache never pays for them.
    from tui.core.ingest.assemble.assembler import build_trace
    from tui.core.ingest.decode.document import decode_trace

    on_phase(LoadPhase.DECODING)
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
    return trace, decoded.truncated


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _plain_size(path: Path, limit: int) -> int | None:
    """The size of an uncompressed regular file within the limit, else None.

    None sends the file through the ordinary reader, which decompresses gzip
    and turns every unreadable or oversized file into a one-line error.
    """
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        with path.open("rb") as handle:
            if handle.read(2) == GZIP_MAGIC:
                return None
    except (OSError, ValueError):
        return None
    return status.st_size


def _load_native(
    path: Path,
    workers: int,
    raw: RawTrace | None,
    raw_size: int,
    on_phase: Callable[..., None],
) -> Trace | None:
    """The trace with its complete events decoded by DuckDB (`STEPTRACE_DECODER=native`),
    or None when the usual decoder must read it."""
    from tui.core.ingest.native.decoder import load_native

    on_phase(LoadPhase.DECODING)
    return load_native(
        path,
        workers,
        data=None if raw is None else raw.data,
        file_size=raw_size if raw is None else raw.file_size,
        compressed=raw is not None and raw.compressed,
        read_warnings=[] if raw is None else raw.warnings,
        progress=on_phase,
    )


def _load_parallel(
    path: Path,
    workers: int,
    raw: RawTrace | None,
    raw_size: int,
    progress: Callable[[LoadProgress], None] | None,
    cancel: threading.Event | None,
) -> Trace | None:
    """The trace decoded by `workers` processes, or None for the sequential path."""
    from tui.core.ingest.parallel.driver import load_parallel

    def on_progress(
        phase: LoadPhase,
        done: int,
        total: int,
        per_worker: tuple[tuple[int, int], ...],
    ) -> None:
        if progress is None:
            return
        if phase is LoadPhase.DECODING:
            progress(LoadProgress(phase, done, total, workers=per_worker))
        else:
            progress(LoadProgress(phase, raw_size, raw_size, done, total))

    try:
        return load_parallel(
            path,
            workers,
            data=None if raw is None else raw.data,
            file_size=raw_size if raw is None else raw.file_size,
            compressed=raw is not None and raw.compressed,
            read_warnings=[] if raw is None else raw.warnings,
            progress=on_progress,
            cancel=cancel,
        )
    except MemoryError:
        raise TraceLoadError(
            f"{printable(str(path))}: not enough memory to hold this trace's events "
            "(try a machine with more memory, or a shorter capture)"
        ) from None

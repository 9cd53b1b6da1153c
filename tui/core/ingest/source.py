"""Read a trace file's bytes: gzip by magic bytes, bounded size, progress, cancel.

Decompression is streamed so that a decompression bomb stops at a limit with
a clear message instead of filling memory; damaged gzip data keeps what came
before the damage. Only regular files are read: a FIFO or a device would
block or never end.
"""

from __future__ import annotations

import io
import os
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.core.base.errors import LoadCancelled, TraceLoadError
from tui.core.base.paths import path_problem
from tui.core.base.settings import settings
from tui.core.base.textsafe import printable
from tui.core.base.units import size_text
from tui.core.base.vocab import LoadPhase

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 8 * 1024 * 1024


def inflate_module() -> Any:
    """zlib-ng when installed (`pip install 'steptrace[fast]'`: inflates about 1.7x
    faster, same API and output), the standard zlib otherwise."""
    try:
        from zlib_ng import zlib_ng
    except ImportError:
        return zlib
    return zlib_ng


@dataclass(frozen=True)
class ReadProgress:
    """How far reading has come, for a progress bar."""

    bytes_read: int
    bytes_total: int
    phase: LoadPhase


ProgressCallback = Callable[[ReadProgress], None]


@dataclass
class RawTrace:
    """The decompressed bytes of a trace file and what happened while reading."""

    data: bytes | bytearray
    compressed: bool
    file_size: int
    warnings: list[str]
    cut_off: bool = False  # the gzip stream ended early


def _physical_memory() -> int:
    """This machine's physical memory in bytes (16 GiB where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 16 * 1024**3


def default_max_bytes() -> int:
    """The largest decompressed trace we accept: half of physical memory, or the env override."""
    override = settings().max_bytes
    if override is not None:
        return override
    return max(_physical_memory() // 2, 256 * 1024**2)


# What a load holds at its peak per event beyond the JSON's own bytes (columns,
# tables, the decoder's records), and what scrub's walk of the whole document
# holds: measured as peak RSS over 3 million small events (0.9 and 1.8 GB for
# 276 MB of JSON), rounded up. Memory follows the events, not the bytes: a
# gzip of tiny events passes any ratio guard and still fills the machine.
LOAD_BYTES_PER_EVENT = 220
SCRUB_BYTES_PER_EVENT = 520
# Every event has a phase: counting its key counts the events as bytes arrive.
_EVENT_KEY = b'"ph"'
# Past this much JSON, the rest of a gzip file is projected from what came so far.
_PROJECT_AFTER = 256 * 1024 * 1024


def default_max_memory() -> int:
    """The memory a load may plan to use: STEPTRACE_MAX_MEMORY, else a quarter of
    physical memory (at least 1 GiB)."""
    chosen = settings().max_memory
    if chosen is not None:
        return chosen
    return max(_physical_memory() // 4, 1024**3)


@dataclass(frozen=True)
class MemoryBudget:
    """How much memory reading may plan for, and what each event costs."""

    limit: int
    per_event: int = LOAD_BYTES_PER_EVENT

    @classmethod
    def of(
        cls, limit: int | None, per_event: int = LOAD_BYTES_PER_EVENT
    ) -> MemoryBudget:
        """The budget for `limit` bytes (None: `default_max_memory`)."""
        return cls(default_max_memory() if limit is None else limit, per_event)

    def needed(self, json_bytes: float, events: float) -> float:
        """The peak a load of this much JSON and this many events reaches."""
        return json_bytes + events * self.per_event

    def check(
        self, trace_path: Path, json_bytes: float, events: float, *, about: bool
    ) -> None:
        """Refuse (TraceLoadError) what would need more than the limit."""
        needed = self.needed(json_bytes, events)
        if needed <= self.limit:
            return
        whole = "about " if about else ""
        raise TraceLoadError(
            f"{trace_path}: {whole}{events:,.0f} events ({size_text(int(json_bytes))} "
            f"of JSON) would need about {size_text(int(needed))} of memory, over the "
            f"{size_text(self.limit)} limit; stopped before reading on "
            "(--max-memory SIZE or STEPTRACE_MAX_MEMORY raises it)"
        )


def count_events(data: bytes | bytearray) -> int:
    """How many events a piece of trace JSON holds (its phase keys)."""
    return data.count(_EVENT_KEY)


def check_plain_memory(trace_path: Path, file_size: int, budget: MemoryBudget) -> None:
    """Refuse a plain JSON file whose events, projected from its first 32 MB,
    would need more than the budget; nothing read beyond that sample."""
    try:
        with trace_path.open("rb") as handle:
            sample = handle.read(32 * 1024 * 1024)
    except OSError:
        return  # the reader says why, in its own words
    if not sample:
        return
    events = count_events(sample) * file_size / len(sample)
    budget.check(trace_path, file_size, events, about=len(sample) < file_size)


def read_trace_bytes(
    path: str | os.PathLike[str],
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    max_bytes: int | None = None,
    memory: MemoryBudget | None = None,
) -> RawTrace:
    """Read `path`, gunzipping when it starts with the gzip magic, whatever its
    name; refused when its events would need more than `memory` (default: the
    load's budget)."""
    trace_path = Path(path)
    # Paths may hold escapes too (a colleague's file name): messages show them escaped.
    shown = Path(printable(str(trace_path)))
    limit = default_max_bytes() if max_bytes is None else max_bytes
    # A FIFO or device would block or never end, a loop of links never
    # resolves: only regular files are read.
    problem = path_problem(trace_path)
    if problem is not None:
        raise TraceLoadError(f"{shown}: {printable(problem)}")
    try:
        file_size = trace_path.stat().st_size
        handle = trace_path.open("rb")
    except FileNotFoundError:
        raise TraceLoadError(f"{shown}: no such file") from None
    except PermissionError:
        raise TraceLoadError(f"{shown}: permission denied") from None
    except OSError as error:
        raise TraceLoadError(
            f"{shown}: cannot read ({error.strerror or error})"
        ) from None
    except ValueError:  # a NUL byte in the path
        raise TraceLoadError(f"{shown}: not a valid file name") from None
    try:
        with handle:
            return _read_open(
                handle,
                shown,
                file_size,
                limit,
                memory or MemoryBudget.of(None),
                progress,
                cancel,
            )
    except OSError as error:
        raise TraceLoadError(
            f"{shown}: cannot read ({error.strerror or error})"
        ) from None
    except MemoryError:
        raise TraceLoadError(
            f"{shown}: not enough memory to read {size_text(file_size)} "
            "(try a machine with more memory, or set STEPTRACE_MAX_BYTES lower)"
        ) from None


def _read_open(
    handle: io.BufferedReader,
    trace_path: Path,
    file_size: int,
    limit: int,
    budget: MemoryBudget,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
) -> RawTrace:
    """Read an open file: gzip by its magic bytes, plain otherwise."""
    head = handle.read(2)
    handle.seek(0)
    if head == GZIP_MAGIC:
        return _read_gzip(
            handle, trace_path, file_size, limit, budget, progress, cancel
        )
    if file_size > limit:
        raise _over_limit(trace_path, limit)
    # One buffer of the file's size, filled in place: never two copies of a big file.
    data = bytearray(file_size)
    view = memoryview(data)
    done = 0
    while True:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if done == len(data):
            extra = handle.read(_CHUNK)  # the file grew while we read it
            if not extra:
                break
            view.release()
            data += extra
            view = memoryview(data)
            done = len(data)
            if done > limit:
                raise _over_limit(trace_path, limit)
            continue
        count = handle.readinto(view[done : done + _CHUNK])
        if not count:
            break
        done += count
        if progress is not None:
            progress(ReadProgress(done, file_size, LoadPhase.READING))
    view.release()
    if done < len(data):  # the file shrank while we read it
        del data[done:]
    budget.check(trace_path, len(data), count_events(data), about=False)
    return RawTrace(data=data, compressed=False, file_size=file_size, warnings=[])


def _over_limit(trace_path: Path, limit: int) -> TraceLoadError:
    return TraceLoadError(
        f"{trace_path}: larger than the {size_text(limit)} limit "
        "(set STEPTRACE_MAX_BYTES to raise it)"
    )


_SALVAGE_STEP = 4096


def _salvage(
    decompressor: Any,
    chunk: bytes,
    max_length: int,
    errors: tuple[type[Exception], ...],
) -> bytes:
    """What `chunk` decompresses to before its first corrupt byte.

    4 kB steps, and the failing step again one byte at a time from a copy of
    the state before it, so nearly everything before the damage is kept.
    """
    pieces: list[bytes] = []
    produced = 0
    for begin in range(0, len(chunk), _SALVAGE_STEP):
        step = chunk[begin : begin + _SALVAGE_STEP]
        saved = decompressor.copy()
        try:
            pieces.append(decompressor.decompress(step))
        except errors:
            for offset in range(len(step)):
                try:
                    pieces.append(saved.decompress(step[offset : offset + 1]))
                except errors:
                    break
            break
        produced += len(pieces[-1])
        if produced > max_length or decompressor.eof:
            break
    return b"".join(pieces)


# Kineto JSON compresses 10-40:1; past this ratio a big output is a bomb, not a trace.
# Each inflate call is capped so the checks run before memory fills.
_INFLATE_STEP = 64 * 1024 * 1024
BOMB_RATIO = 500
BOMB_RATIO_AFTER = 256 * 1024 * 1024


def _check_bomb(
    trace_path: Path, out_size: int, limit: int, compressed_read: int = 0
) -> None:
    if out_size > limit:
        raise TraceLoadError(
            f"{trace_path}: decompresses to more than {size_text(limit)}; stopped "
            "(a decompression bomb, or set STEPTRACE_MAX_BYTES to raise the limit)"
        )
    if (
        compressed_read > 0
        and out_size > BOMB_RATIO_AFTER
        and out_size > BOMB_RATIO * compressed_read
        and settings().max_bytes is None
    ):
        raise TraceLoadError(
            f"{trace_path}: {size_text(compressed_read)} of gzip already inflated to "
            f"{size_text(out_size)} (over {BOMB_RATIO}:1, no trace compresses so well); "
            "stopped as a decompression bomb (set STEPTRACE_MAX_BYTES to read it anyway)"
        )


def _check_growth(
    trace_path: Path,
    budget: MemoryBudget,
    limit: int,
    file_size: int,
    out_size: int,
    events: int,
    consumed: int,
) -> None:
    """Refuse a gzip bomb, or events past `budget`: so far, or projected over the file.

    `consumed` compressed bytes gave `out_size` bytes holding `events` events.
    """
    _check_bomb(trace_path, out_size, limit, consumed)
    budget.check(trace_path, out_size, events, about=False)
    if out_size >= _PROJECT_AFTER and 0 < consumed < file_size:
        whole = out_size * file_size / consumed
        budget.check(trace_path, whole, events * whole / out_size, about=True)


def _next_member(rest: bytes, warnings: list[str]) -> bytes:
    """What follows a gzip member: the next member, else nothing (other bytes told)."""
    if rest[:2] == GZIP_MAGIC:
        return rest
    if rest.strip(b"\x00"):
        warnings.append("trailing bytes after the gzip data were ignored")
    return b""


def _read_gzip(
    handle: io.BufferedReader,
    trace_path: Path,
    file_size: int,
    limit: int,
    budget: MemoryBudget,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
) -> RawTrace:
    """Stream-decompress every gzip member, stopping at `limit` decompressed bytes
    or when the events so far, or projected over the file, exceed `budget`."""
    warnings: list[str] = []
    events = 0
    # Grown in place (large reallocations are remapped, not copied).
    out = bytearray()
    out_size = 0
    inflate = inflate_module()
    errors: tuple[type[Exception], ...] = (zlib.error, inflate.error)
    decompressor = inflate.decompressobj(wbits=31)
    member_open = False
    pending = b""
    while True:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        chunk = pending or handle.read(_CHUNK)
        pending = b""
        if not chunk:
            break
        member_open = True
        before = decompressor.copy()
        try:
            piece = decompressor.decompress(
                chunk, max(1, min(limit - out_size + 1, _INFLATE_STEP))
            )
        except errors as error:
            # zlib drops the whole call's output on an error (a bad checksum at
            # the very end included): replay the chunk in small steps to keep it.
            salvaged = _salvage(before, chunk, max(1, limit - out_size + 1), errors)
            out += salvaged
            out_size += len(salvaged)
            if out_size == 0:
                raise TraceLoadError(
                    f"{trace_path}: unreadable gzip data ({error})"
                ) from None
            _check_bomb(trace_path, out_size, limit)
            warnings.append(
                f"gzip data is corrupt after {out_size} bytes ({error}); kept what "
                "came before"
            )
            member_open = False
            break
        out += piece
        out_size += len(piece)
        events += count_events(piece)
        consumed = handle.tell() - len(decompressor.unconsumed_tail)
        _check_growth(trace_path, budget, limit, file_size, out_size, events, consumed)
        if decompressor.unconsumed_tail:
            pending = decompressor.unconsumed_tail
        elif decompressor.eof:
            pending = _next_member(decompressor.unused_data, warnings)
            decompressor = inflate.decompressobj(wbits=31)
            member_open = False
        if progress is not None:
            progress(
                ReadProgress(
                    min(handle.tell(), file_size), file_size, LoadPhase.DECOMPRESSING
                )
            )
    if member_open and not decompressor.eof:
        # A killed exporter cuts the gzip stream; the JSON layer reports what was lost.
        warnings.append("the gzip stream ends early (file cut off)")
    if out_size == 0:
        raise TraceLoadError(f"{trace_path}: the gzip data decompresses to nothing")
    return RawTrace(
        data=out,
        compressed=True,
        file_size=file_size,
        warnings=warnings,
        cut_off=member_open and not decompressor.eof,
    )

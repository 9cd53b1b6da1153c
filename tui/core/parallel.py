"""Decode a big trace's events in parallel: one byte range of `traceEvents` per worker.

The array is cut at event boundaries found by a cheap pattern search; each
worker decodes its range with the same typed decoding and the same collector
as the sequential path, writes its columns to a scratch file, and the parts
are merged in order. A range is only accepted if it decodes as a sequence of
whole events, which proves the cut was between events; a wrong cut, like any
damage, NaN or odd encoding, makes the attempt give way to the sequential
path, which handles and reports every kind of broken file. Either way the
trace is the same.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import mmap
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from tui.core.build import CollectedPart, _Collector, finish_trace
from tui.core.decode import (
    _EVENTS_DECODER,
    _RAW_LIST_DECODER,
    _TOP_DECODER,
    EventSource,
    _decode_generic,
)
from tui.core.errors import LoadCancelled
from tui.core.model import Trace

# Where one event ends and the next begins: "}", a comma, "{" (whitespace between).
_EVENT_SEPARATOR = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")
_SPACE = b" \t\r\n"
# Each worker decodes its range this much at a time (bounds its memory, paces progress).
RANGE_STEP_BYTES = 8 * 1024 * 1024
# Below this much JSON per worker, starting one costs more than it saves.
MIN_RANGE_BYTES = 48 * 1024 * 1024
# How far past a wanted cut to look for an event boundary.
_SEARCH_WINDOW = 4 * 1024 * 1024
# The header (before "traceEvents") and the trailer (after it) are small in Kineto files.
_HEADER_LIMIT = 64 * 1024 * 1024
_TRAILER_LIMIT = 1024 * 1024
_TRAILER_TRIES = 64


@dataclass(frozen=True)
class EventsLayout:
    """Where the events array lies in a document, and the document's other keys."""

    start: int  # first byte after "["
    end: int  # the closing "]"
    top_level: dict[str, Any]
    array_form: bool


def locate_events(data: Any) -> EventsLayout | None:
    """The `traceEvents` array of a plain UTF-8 Chrome trace, or None when unsure.

    The header before the array and the trailer after it are decoded on their
    own; each decodes only if the cut is where the document says it is. Any
    doubt (a byte-order mark, padding, a second `traceEvents`) is left to the
    sequential path.
    """
    size = len(data)
    first = 0
    while first < size and data[first] in _SPACE:
        first += 1
    end = size
    while end > first and data[end - 1] in _SPACE:
        end -= 1
    if end - first < 2:
        return None
    opening = data[first]
    if opening == ord("["):
        if data[end - 1] != ord("]"):
            return None
        return EventsLayout(first + 1, end - 1, {}, array_form=True)
    if opening != ord("{") or data[end - 1] != ord("}"):
        return None
    key = data.find(b'"traceEvents"', first, min(end, first + _HEADER_LIMIT))
    if key < 0:
        return None
    header = _decode_top(bytes(data[first:key]) + b'"traceEvents":0}')
    if header is None:
        return None
    position = key + len(b'"traceEvents"')
    position = _skip_space(data, position, end)
    if position >= end or data[position] != ord(":"):
        return None
    position = _skip_space(data, position + 1, end)
    if position >= end or data[position] != ord("["):
        return None
    start = position + 1
    close, trailer = _find_trailer(data, start, end)
    if trailer is None:
        return None
    top = dict(header)
    top.update(trailer)
    top.pop("traceEvents", None)
    top_level = {name: _decode_generic(value) for name, value in top.items()}
    return EventsLayout(start, close, top_level, array_form=False)


def _skip_space(data: Any, position: int, end: int) -> int:
    while position < end and data[position] in _SPACE:
        position += 1
    return position


def _decode_top(text: bytes) -> dict[str, msgspec.Raw] | None:
    """A top-level object whose last `traceEvents` is the 0 put there, or None."""
    try:
        decoded = _TOP_DECODER.decode(text)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None
    if bytes(decoded.get("traceEvents", b"")) != b"0":
        return None  # a second traceEvents key: the sequential path decides
    return decoded


def _find_trailer(
    data: Any, start: int, end: int
) -> tuple[int, dict[str, msgspec.Raw] | None]:
    """The array's closing bracket and the keys after it, searched from the end.

    A bracket after an event's "}" (or opening an empty array) is preferred: a
    bracket inside a trailing key's value is not the end of the events. The
    last range's decode proves the choice either way.
    """
    lowest = max(start - 1, end - _TRAILER_LIMIT)
    close = end
    fallback: tuple[int, dict[str, msgspec.Raw]] | None = None
    for _ in range(_TRAILER_TRIES):
        close = data.rfind(b"]", lowest, close)
        if close < start:
            break
        trailer = _decode_top(b'{"traceEvents":0' + bytes(data[close + 1 : end]))
        if trailer is None:
            continue
        before = close - 1
        while before >= start and data[before] in _SPACE:
            before -= 1
        if before == start - 1 or data[before] == ord("}"):
            return close, trailer
        if fallback is None:
            fallback = (close, trailer)
    if fallback is not None:
        return fallback
    return -1, None


def event_ranges(data: Any, start: int, end: int, parts: int) -> list[tuple[int, int]]:
    """Cut [start, end) into at most `parts` ranges of whole events, at separators.

    Each cut is the comma between two events; the ranges exclude it. A cut is
    only a guess until its range decodes.
    """
    if parts <= 1 or end - start < 2:
        return [(start, end)]
    ranges: list[tuple[int, int]] = []
    begin = start
    for index in range(1, parts):
        target = max(start + (end - start) * index // parts, begin)
        match = _EVENT_SEPARATOR.search(data, target, min(end, target + _SEARCH_WINDOW))
        if match is None:
            continue
        comma = match.start() + match.group().index(b",")
        ranges.append((begin, comma))
        begin = comma + 1
    ranges.append((begin, end))
    return ranges


@dataclass(frozen=True)
class _RangeTask:
    """One worker's share: a byte range of the events array in a file."""

    source: str
    start: int
    end: int
    slot: int
    scratch: str
    control: str
    step: int


@dataclass
class _RangeResult:
    """A decoded range: its part (columns stored in a scratch file), or why not."""

    part: CollectedPart | None = None
    layout: dict[str, tuple[int, str, int]] = field(default_factory=dict)
    path: str = ""
    failure: str = ""


class _Control:
    """A tiny shared file: a cancel flag, then bytes decoded per worker."""

    def __init__(self, path: str) -> None:
        self.values = np.memmap(path, dtype=np.int64, mode="r+")

    @staticmethod
    def create(path: str, workers: int) -> _Control:
        np.zeros(1 + workers, dtype=np.int64).tofile(path)
        return _Control(path)

    @property
    def cancelled(self) -> bool:
        return bool(self.values[0])

    def cancel(self) -> None:
        self.values[0] = 1

    def report(self, slot: int, done: int) -> None:
        self.values[1 + slot] = done

    def done(self) -> list[int]:
        return [int(value) for value in self.values[1:]]


class _Cancelled(Exception):
    """The parent asked the workers to stop."""


def decode_range(
    data: Any,
    start: int,
    end: int,
    on_step: Callable[[int], None] | None = None,
    reader: io.RawIOBase | None = None,
    step: int | None = None,
) -> _Collector | None:
    """Columns of the events in data[start:end], or None if that is not whole events.

    `reader`, when given, reads the same bytes as `data` (a mapping of it).
    """
    collector = _Collector()
    for begin, stop in event_ranges(
        data, start, end, math.ceil((end - start) / (step or RANGE_STEP_BYTES))
    ):
        text = _framed(data, reader, begin, stop)
        try:
            collector.add_batch(_EVENTS_DECODER.decode(text))
        except msgspec.DecodeError:
            # Something an element-by-element decode must look at (or not JSON).
            try:
                elements = _RAW_LIST_DECODER.decode(text)
            except (msgspec.DecodeError, RecursionError):
                return None
            source = EventSource(elements=elements)
            for batch in source.batches():
                collector.add_batch(batch)
            collector.repaired_utf8 |= source.repaired_utf8
        except RecursionError:
            return None
        del text
        if on_step is not None:
            on_step(stop - start)
    return collector


def _framed(data: Any, reader: io.RawIOBase | None, begin: int, stop: int) -> bytearray:
    """data[begin:stop] between "[" and "]", copied once.

    Read from the file when there is one: a read copies faster than touching
    every page of a mapping.
    """
    text = bytearray(stop - begin + 2)
    text[0], text[-1] = ord("["), ord("]")
    with memoryview(text) as view:
        if reader is None:
            view[1:-1] = memoryview(data)[begin:stop]
        else:
            reader.seek(begin)
            done = 0
            while done < stop - begin:
                count = reader.readinto(view[1 + done : 1 + stop - begin])
                if not count:
                    raise OSError("the file is shorter than when it was opened")
                done += count
    return text


def _run_task(task: _RangeTask) -> _RangeResult:
    """In a worker: decode one range of the file, store the columns in a scratch file."""
    control = _Control(task.control)

    def on_step(done: int) -> None:
        control.report(task.slot, done)
        if control.cancelled:
            raise _Cancelled()

    try:
        with (
            open(task.source, "rb", buffering=0) as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            collector = decode_range(
                data, task.start, task.end, on_step, handle, task.step
            )
            if collector is None:
                return _RangeResult(failure="not whole events")
            part = collector.export()
    except _Cancelled:
        return _RangeResult(failure="cancelled")
    except (MemoryError, OSError, ValueError) as error:
        return _RangeResult(failure=f"{type(error).__name__}: {error}")
    path = os.path.join(task.scratch, f"part-{task.slot}.bin")
    layout = _store(part, path)
    light = replace(part, columns={}, flow_columns={}, args_blob=b"")
    return _RangeResult(part=light, layout=layout, path=path)


def _store(part: CollectedPart, path: str) -> dict[str, tuple[int, str, int]]:
    """Write a part's arrays and args one after the other; return where each lies."""
    layout: dict[str, tuple[int, str, int]] = {}
    arrays: list[tuple[str, Any]] = [
        *[(f"c.{name}", array) for name, array in part.columns.items()],
        *[(f"f.{name}", array) for name, array in part.flow_columns.items()],
        ("args", np.frombuffer(part.args_blob, dtype=np.uint8)),
    ]
    offset = 0
    with open(path, "wb") as handle:
        for name, array in arrays:
            contiguous = np.ascontiguousarray(array)
            layout[name] = (offset, contiguous.dtype.str, int(contiguous.size))
            handle.write(contiguous.data)
            offset += contiguous.nbytes
    return layout


def _restore(result: _RangeResult) -> CollectedPart:
    """The part of a result, its arrays read back from the scratch file."""
    assert result.part is not None
    arrays: dict[str, Any] = {}
    with open(result.path, "rb") as handle:
        for name, (offset, dtype, count) in sorted(
            result.layout.items(), key=lambda item: item[1][0]
        ):
            handle.seek(offset)
            if name == "args":
                arrays[name] = handle.read(count)
            else:
                arrays[name] = np.fromfile(handle, dtype=dtype, count=count)
    return replace(
        result.part,
        columns={name[2:]: a for name, a in arrays.items() if name.startswith("c.")},
        flow_columns={
            name[2:]: a for name, a in arrays.items() if name.startswith("f.")
        },
        args_blob=arrays["args"],
    )


ProgressCallback = Callable[[int, int, tuple[tuple[int, int], ...]], None]


def _scratch_root() -> str:
    return os.environ.get("STEPTRACE_SCRATCH_DIR") or tempfile.gettempdir()


def collect_parallel(
    source: str | os.PathLike[str] | bytes | bytearray,
    layout: EventsLayout,
    workers: int,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
) -> _Collector | None:
    """Decode the events array in `workers` ranges and merge them, or None if unsure.

    `source` is a file to map, or the decompressed bytes themselves (then
    written to a scratch file for the workers). One worker decodes in this
    process.
    """
    workers = min(workers, max(1, (layout.end - layout.start) // MIN_RANGE_BYTES))
    if isinstance(source, (bytes, bytearray)) and workers <= 1:
        return _collect_here(source, layout, progress, cancel)
    scratch = tempfile.mkdtemp(prefix="steptrace-", dir=_scratch_root())
    try:
        if isinstance(source, (bytes, bytearray)):
            path = os.path.join(scratch, "trace.json")
            with open(path, "wb") as copy:
                copy.write(source)
        else:
            path = os.fspath(source)
        if workers <= 1 or not hasattr(os, "fork"):
            with (
                open(path, "rb", buffering=0) as handle,
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
            ):
                return _collect_here(data, layout, progress, cancel, handle)
        return _collect_in_workers(path, layout, workers, scratch, progress, cancel)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _collect_here(
    data: Any,
    layout: EventsLayout,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    reader: io.RawIOBase | None = None,
) -> _Collector | None:
    total = layout.end - layout.start

    def on_step(done: int) -> None:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if progress is not None:
            progress(done, total, ((done, total),))

    return decode_range(data, layout.start, layout.end, on_step, reader)


_POLL_SECONDS = 0.05


def _collect_in_workers(
    path: str,
    layout: EventsLayout,
    workers: int,
    scratch: str,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
) -> _Collector | None:
    """This process decodes the first range; a helper process forks one worker per other range."""
    total = layout.end - layout.start
    with (
        open(path, "rb", buffering=0) as handle,
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
    ):
        ranges = event_ranges(data, layout.start, layout.end, workers)
        control_path = os.path.join(scratch, "control")
        control = _Control.create(control_path, len(ranges))
        sizes = [stop - begin for begin, stop in ranges]
        total = sum(sizes)  # the commas between ranges are nobody's
        helper = _start_helper(path, ranges, scratch, control_path)

        def report() -> None:
            if cancel is not None and cancel.is_set():
                raise LoadCancelled()
            if progress is not None:
                done = control.done()
                progress(sum(done), total, tuple(zip(done, sizes, strict=True)))

        def on_step(done: int) -> None:
            control.report(0, done)
            report()

        try:
            collector = decode_range(data, ranges[0][0], ranges[0][1], on_step, handle)
            if collector is None:
                return None
            if helper is not None:
                while helper.poll() is None:
                    report()
                    time.sleep(_POLL_SECONDS)
            for slot in range(1, len(ranges)):
                result = _read_result(scratch, slot)
                if result is None or result.failure:
                    return None  # not whole events: the sequential path decides
                collector.absorb(_restore(result))
                with contextlib.suppress(OSError):
                    os.unlink(result.path)
            return collector
        finally:
            if helper is not None and helper.poll() is None:
                control.cancel()
                helper.wait()


def _start_helper(
    path: str, ranges: list[tuple[int, int]], scratch: str, control: str
) -> subprocess.Popen[bytes] | None:
    """Start the process that forks the workers for ranges 1 and after (None if none)."""
    if len(ranges) < 2:
        return None
    spec = {
        "source": path,
        "ranges": ranges,
        "scratch": scratch,
        "control": control,
        "parent": os.getpid(),
        "step": RANGE_STEP_BYTES,
    }
    spec_path = os.path.join(scratch, "tasks.json")
    with open(spec_path, "w", encoding="utf-8") as handle:
        json.dump(spec, handle)
    # The helper imports this very package, whatever sys.path found it here.
    package_root = str(Path(__file__).resolve().parents[2])
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    with open(os.path.join(scratch, "helper.log"), "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "tui.core.parallel_worker", spec_path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=environment,
            close_fds=True,
        )


def _read_result(scratch: str, slot: int) -> _RangeResult | None:
    try:
        with open(os.path.join(scratch, f"result-{slot}.pickle"), "rb") as handle:
            result = pickle.load(handle)
    except (OSError, EOFError, pickle.UnpicklingError):
        return None  # the worker died (killed, out of memory)
    return result if isinstance(result, _RangeResult) else None


def serve(arguments: list[str]) -> int:
    """The helper process: fork one worker per range after the first, wait for them.

    It has imported the decoder once, so each worker starts at once. If the
    loading process goes away, the workers are told to stop.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the loading process handles Ctrl+C
    with open(arguments[0], encoding="utf-8") as handle:
        spec = json.load(handle)
    children: dict[int, int] = {}
    for slot, (start, end) in enumerate(spec["ranges"]):
        if slot == 0:
            continue
        task = _RangeTask(
            spec["source"],
            start,
            end,
            slot,
            spec["scratch"],
            spec["control"],
            spec["step"],
        )
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                _write_result(task, _run_task(task))
                code = 0
            finally:
                os._exit(code)
        children[pid] = slot
    control = _Control(spec["control"])
    orphaned = False
    while children:
        pid, _status = os.waitpid(-1, os.WNOHANG)
        if pid:
            children.pop(pid, None)
            continue
        if os.getppid() != spec["parent"]:
            orphaned = True
            control.cancel()  # the loading process is gone
        time.sleep(_POLL_SECONDS)
    if orphaned or os.getppid() != spec["parent"]:
        shutil.rmtree(spec["scratch"], ignore_errors=True)  # nobody else will
    return 0


def _write_result(task: _RangeTask, result: _RangeResult) -> None:
    final = os.path.join(task.scratch, f"result-{task.slot}.pickle")
    with open(final + ".part", "wb") as handle:
        pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(final + ".part", final)


def load_parallel(
    path: Path,
    workers: int,
    *,
    data: bytes | bytearray | None,
    file_size: int,
    compressed: bool,
    read_warnings: list[str],
    progress: Callable[[str, int, int, tuple[tuple[int, int], ...]], None]
    | None = None,
    cancel: threading.Event | None = None,
) -> Trace | None:
    """The trace decoded in parallel, or None when the sequential path must decide.

    `data` is the decompressed document when the file was gzip; otherwise the
    file is mapped and never read whole in this process.
    """
    if data is not None:
        layout = locate_events(data)
        source: str | bytes | bytearray = data
    else:
        with open(path, "rb") as handle:
            if not os.fstat(handle.fileno()).st_size:
                return None
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                layout = locate_events(mapped)
        source = str(path)
    if layout is None:
        return None

    def on_bytes(
        done: int, total: int, per_worker: tuple[tuple[int, int], ...]
    ) -> None:
        if progress is not None:
            progress("decoding", done, total, per_worker)

    collector = collect_parallel(
        source, layout, workers, progress=on_bytes, cancel=cancel
    )
    if collector is None:
        return None

    def on_phase(phase: str, done: int = 0, count: int = 0) -> None:
        if cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if progress is not None:
            progress(phase, done, count, ())

    return finish_trace(
        collector,
        path,
        top_level=layout.top_level,
        array_form=layout.array_form,
        warnings=list(read_warnings),
        file_size=file_size,
        compressed=compressed,
        progress=on_phase,
    )

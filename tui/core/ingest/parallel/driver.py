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
import mmap
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.core.base.errors import LoadCancelled
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.assemble.assembler import finish_trace
from tui.core.ingest.collect.batches import _Collector
from tui.core.ingest.parallel.layout import EventsLayout, event_ranges, locate_events
from tui.core.ingest.parallel.ranges import (
    _Control,
    _RangeTask,
    _read_result,
    _restore,
    _run_task,
    _write_result,
    decode_range,
)
from tui.core.model.trace import Trace

# Each worker decodes its range this much at a time (bounds its memory, paces progress).
RANGE_STEP_BYTES = 8 * 1024 * 1024


# Below this much JSON per worker, starting one costs more than it saves:
# workers forked from this process start at once and only store what they
# decoded (a 52 MB trace decodes 0.65 -> 0.49 s, whole process, in two);
MIN_RANGE_BYTES = 16 * 1024 * 1024
# workers forked by a helper process wait for it to start Python and import
# the decoder first (about 0.2 s), so this process also takes a head start.
HELPER_MIN_RANGE_BYTES = 48 * 1024 * 1024
HELPER_HEAD_START_BYTES = 80 * 1024 * 1024


ProgressCallback = Callable[[int, int, tuple[tuple[int, int], ...]], None]


# Shared memory, where Linux has it: workers store their columns there when it has room.
MEMORY_FOLDER = "/dev/shm"


def scratch_root(needed_bytes: int, memory_folder: str = MEMORY_FOLDER) -> str:
    """Where workers store what they decoded: STEPTRACE_SCRATCH_DIR when set, else
    shared memory when it has `needed_bytes` free, else the temporary folder.

    The columns are read back at once: a worker of the 1.1 GB trace stored
    its 312 MB in 0.10 s in memory, 0.67 s on this machine's disk. A small
    /dev/shm (64 MB in a default container) is passed over.
    """
    chosen = os.environ.get("STEPTRACE_SCRATCH_DIR")
    if chosen:
        return chosen
    try:
        memory = os.statvfs(memory_folder)
        usable = os.access(memory_folder, os.W_OK | os.X_OK)
    except (OSError, AttributeError):  # no such folder; no statvfs (Windows)
        usable = False
    if usable and memory.f_bavail * memory.f_frsize >= needed_bytes:
        return memory_folder
    return tempfile.gettempdir()


# The scratch folders this process is using now: a process stopped by a
# signal (a pool worker terminated on Ctrl+C) runs no `finally`, so its
# handler removes them through remove_scratch_folders().
_LIVE_SCRATCH: set[str] = set()


def _new_scratch(needed_bytes: int) -> str:
    """A fresh scratch folder, known to `remove_scratch_folders` before it exists:
    a stop between its creation and its registration would leave it behind."""
    root = scratch_root(needed_bytes)
    while True:
        scratch = os.path.join(root, f"steptrace-{secrets.token_hex(6)}")
        _LIVE_SCRATCH.add(scratch)
        try:
            os.mkdir(scratch, 0o700)
        except FileExistsError:
            _LIVE_SCRATCH.discard(scratch)
            continue
        except BaseException:
            _LIVE_SCRATCH.discard(scratch)
            raise
        return scratch


def remove_scratch_folders() -> None:
    """Remove the scratch folders this process is using (it is being stopped)."""
    for scratch in list(_LIVE_SCRATCH):
        shutil.rmtree(scratch, ignore_errors=True)
        _LIVE_SCRATCH.discard(scratch)


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
    fork_here = _may_fork_here()
    min_range = MIN_RANGE_BYTES if fork_here else HELPER_MIN_RANGE_BYTES
    workers = min(workers, max(1, (layout.end - layout.start) // min_range))
    if isinstance(source, (bytes, bytearray)) and workers <= 1:
        return _collect_here(source, layout, progress, cancel)
    # Room for the workers' columns (at most about the JSON they decode, twice
    # for safety) and for the decompressed bytes if they must be written.
    in_memory = len(source) if isinstance(source, (bytes, bytearray)) else 0
    scratch = _new_scratch(in_memory + 2 * (layout.end - layout.start))
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
        return _collect_in_workers(
            path, layout, workers, scratch, fork_here, progress, cancel
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        _LIVE_SCRATCH.discard(scratch)


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

    return decode_range(
        data, layout.start, layout.end, on_step, reader, step=RANGE_STEP_BYTES
    )


_POLL_SECONDS = 0.01


def _collect_in_workers(
    path: str,
    layout: EventsLayout,
    workers: int,
    scratch: str,
    fork_here: bool,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
) -> _Collector | None:
    """This process decodes the first range and forks one worker per other
    range, itself when `fork_here`, else through a helper process."""
    total = layout.end - layout.start
    with (
        open(path, "rb", buffering=0) as handle,
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
    ):
        head_start = 0 if fork_here else HELPER_HEAD_START_BYTES
        ranges = event_ranges(data, layout.start, layout.end, workers, head_start)
        control_path = os.path.join(scratch, "control")
        control = _Control.create(control_path, len(ranges))
        sizes = [stop - begin for begin, stop in ranges]
        total = sum(sizes)  # the commas between ranges are nobody's
        running: _Workers | subprocess.Popen[bytes] | None
        if fork_here:
            running = _fork_workers(
                path, ranges, scratch, control_path, RANGE_STEP_BYTES
            )
        else:
            running = _start_helper(path, ranges, scratch, control_path)

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
            collector = decode_range(
                data,
                ranges[0][0],
                ranges[0][1],
                on_step,
                handle,
                step=RANGE_STEP_BYTES,
            )
            if collector is None:
                return None
            if running is not None:
                while running.poll() is None:
                    report()
                    time.sleep(_POLL_SECONDS)
                report()  # the workers' last figures: they may end between polls
            for slot in range(1, len(ranges)):
                result = _read_result(scratch, slot)
                if result is None or result.failure:
                    return None  # not whole events: the sequential path decides
                collector.absorb(_restore(result))
                with contextlib.suppress(OSError):
                    os.unlink(result.path)
            return collector
        finally:
            if running is not None and running.poll() is None:
                control.cancel()
                running.wait()


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
            [sys.executable, "-m", "tui.core.ingest.parallel.worker", spec_path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=environment,
            close_fds=True,
        )


def _may_fork_here() -> bool:
    """Whether this process may fork its workers itself: only with no other
    thread, since a fork copies the calling thread alone and a lock another
    thread held would stay held in the child (the app loads in a thread)."""
    return hasattr(os, "fork") and threading.active_count() == 1


class _Workers:
    """Forked workers, waited for like one process (`poll`, `wait`)."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = set(pids)

    def poll(self) -> int | None:
        """None while a worker runs, then 0."""
        for pid in list(self.pids):
            try:
                ended, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # reaped already
                ended = pid
            if ended:
                self.pids.discard(pid)
        return None if self.pids else 0

    def wait(self) -> int:
        for pid in list(self.pids):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self.pids.clear()
        return 0


def _fork_workers(
    path: str, ranges: list[tuple[int, int]], scratch: str, control: str, step: int
) -> _Workers:
    """One forked worker per range after the first; each stores its result and exits."""
    parent = os.getpid()
    pids: list[int] = []
    for slot, (start, end) in enumerate(ranges):
        if slot == 0:
            continue
        task = _RangeTask(path, start, end, slot, scratch, control, step, parent)
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 1
            try:
                # Ctrl+C is the loading process's to handle: it cancels us.
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                result = _run_task(task)
                if os.getppid() != parent:  # orphaned: nobody will read it
                    shutil.rmtree(scratch, ignore_errors=True)
                else:
                    _write_result(task, result)
                    code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    return _Workers(pids)


def serve(arguments: list[str]) -> int:
    """The helper process: fork one worker per range after the first, wait for them.

    It has imported the decoder once, so each worker starts at once. If the
    loading process goes away, the workers are told to stop.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the loading process handles Ctrl+C
    with open(arguments[0], encoding="utf-8") as handle:
        spec = json.load(handle)
    workers = _fork_workers(
        spec["source"], spec["ranges"], spec["scratch"], spec["control"], spec["step"]
    )
    control = _Control(spec["control"])
    orphaned = False
    while workers.poll() is None:
        if os.getppid() != spec["parent"]:
            orphaned = True
            control.cancel()  # the loading process is gone
        time.sleep(_POLL_SECONDS)
    if orphaned or os.getppid() != spec["parent"]:
        shutil.rmtree(spec["scratch"], ignore_errors=True)  # nobody else will
    return 0


def load_parallel(
    path: Path,
    workers: int,
    *,
    data: bytes | bytearray | None,
    file_size: int,
    compressed: bool,
    read_warnings: list[str],
    progress: Callable[[LoadPhase, int, int, tuple[tuple[int, int], ...]], None]
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
            progress(LoadPhase.DECODING, done, total, per_worker)

    collector = collect_parallel(
        source, layout, workers, progress=on_bytes, cancel=cancel
    )
    if collector is None:
        return None

    def on_phase(phase: LoadPhase, done: int = 0, count: int = 0) -> None:
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

"""Decode a big trace's events in parallel: pieces of `traceEvents` taken from one queue.

The array is cut at event boundaries found by a cheap pattern search into
pieces of about `PIECE_BYTES`; this process and its workers each take the
next piece nobody has taken until none is left. A piece is decoded with the
same typed decoding and the same collector as the sequential path, a
worker's part is written to a scratch file, and the parts are merged in the
pieces' order. A piece is only accepted if it decodes as a sequence of whole
events, which proves the cut was between events; a wrong cut, like any
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
from tui.core.base.settings import child_environment, settings
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.assemble.assembler import finish_trace
from tui.core.ingest.collect.batches import Collector
from tui.core.ingest.parallel.layout import EventsLayout, event_ranges, locate_events
from tui.core.ingest.parallel.ranges import (
    _Control,
    _RangeTask,
    _read_result,
    _restore,
    _run_worker,
    decode_range,
    take_pieces,
)
from tui.core.model.trace import Trace

# Each worker decodes its range this much at a time (bounds its memory, paces progress).
RANGE_STEP_BYTES = 8 * 1024 * 1024

# The events are cut into pieces of about this size, which the processes take
# from one queue until none is left: a process slowed down (a busy core, a
# helper still starting) takes fewer, and the last to finish waits at most
# for one piece, where halves fixed in advance left one process idle for up
# to 0.9 s of a 1.1 GB trace's 6 s on this machine. Each piece costs its own
# stored part and merge, so they are not made smaller.
PIECE_BYTES = 32 * 1024 * 1024


# Below this much JSON per worker, starting one costs more than it saves:
# workers forked from this process start at once and only store what they
# decoded (a 52 MB trace decodes 0.65 -> 0.49 s, whole process, in two);
MIN_RANGE_BYTES = 16 * 1024 * 1024
# workers forked by a helper process wait for it to start Python and import
# the decoder first (about 0.2 s), while this process decodes the first pieces.
HELPER_MIN_RANGE_BYTES = 48 * 1024 * 1024


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
    chosen = settings().scratch_dir
    if chosen is not None:
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
) -> Collector | None:
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
) -> Collector | None:
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
) -> Collector | None:
    """This process and `workers - 1` others (forked here when `fork_here`, else
    by a helper process) take pieces from one queue, this one from the front,
    the others from the back; the parts are merged in the pieces' order."""
    with (
        open(path, "rb", buffering=0) as handle,
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
    ):
        count = max(workers, math.ceil((layout.end - layout.start) / PIECE_BYTES))
        pieces = tuple(event_ranges(data, layout.start, layout.end, count))
        total = sum(stop - begin for begin, stop in pieces)  # not the commas between
        control_path = os.path.join(scratch, "control")
        control = _Control.create(control_path, workers)
        running: _Workers | subprocess.Popen[bytes] | None
        if fork_here:
            running = _fork_workers(
                path, pieces, workers, scratch, control_path, RANGE_STEP_BYTES
            )
        else:
            running = _start_helper(path, pieces, workers, scratch, control_path)

        def report() -> None:
            if cancel is not None and cancel.is_set():
                raise LoadCancelled()
            if progress is not None:
                shares = control.shares()
                progress(sum(done for done, _ in shares), total, tuple(shares))

        front = Collector()  # the pieces this process takes, from the first on
        taken = 0
        try:
            for index, collector in take_pieces(
                data,
                handle,
                pieces,
                range(len(pieces)),
                scratch,
                0,
                control,
                RANGE_STEP_BYTES,
                report,
                into=front,
            ):
                if collector is None:
                    return None  # not whole events: the sequential path decides
                taken = index + 1
            if running is not None:
                while running.poll() is None:
                    report()
                    time.sleep(_POLL_SECONDS)
                report()  # the workers' last figures: they may end between polls
            if control.cancelled:
                return None  # a worker's piece was not whole events, or it failed
            return _merge(front, taken, len(pieces), scratch)
        finally:
            if running is not None and running.poll() is None:
                control.cancel()
                running.wait()


def _merge(front: Collector, taken: int, count: int, scratch: str) -> Collector | None:
    """The columns of this process's first `taken` pieces, then of the workers'
    pieces read back in order (None if one is missing)."""
    for index in range(taken, count):
        result = _read_result(scratch, index)
        if result is None:
            return None  # a worker died: the sequential path decides
        front.absorb(_restore(result))
        with contextlib.suppress(OSError):
            os.unlink(result.path)
    return front


def _start_helper(
    path: str,
    pieces: tuple[tuple[int, int], ...],
    workers: int,
    scratch: str,
    control: str,
) -> subprocess.Popen[bytes] | None:
    """Start the process that forks the other `workers - 1` (None if none)."""
    if workers < 2:
        return None
    spec = {
        "source": path,
        "pieces": pieces,
        "workers": workers,
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
    environment = child_environment(python_path_first=package_root)
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
    path: str,
    pieces: tuple[tuple[int, int], ...],
    workers: int,
    scratch: str,
    control: str,
    step: int,
) -> _Workers:
    """Workers 1 to `workers - 1`, forked: each takes pieces until none is left, then exits."""
    parent = os.getpid()
    pids: list[int] = []
    for slot in range(1, workers):
        task = _RangeTask(path, pieces, slot, scratch, control, step, parent)
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 1
            try:
                # Ctrl+C is the loading process's to handle: it cancels us.
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                _run_worker(task)
                if os.getppid() != parent:  # orphaned: nobody will read it
                    shutil.rmtree(scratch, ignore_errors=True)
                else:
                    code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    return _Workers(pids)


def serve(arguments: list[str]) -> int:
    """The helper process: fork the workers after the first, wait for them.

    It has imported the decoder once, so each worker starts at once. If the
    loading process goes away, the workers are told to stop.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the loading process handles Ctrl+C
    with open(arguments[0], encoding="utf-8") as handle:
        spec = json.load(handle)
    workers = _fork_workers(
        spec["source"],
        tuple(map(tuple, spec["pieces"])),
        spec["workers"],
        spec["scratch"],
        spec["control"],
        spec["step"],
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

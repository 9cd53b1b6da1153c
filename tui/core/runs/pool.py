"""Summarise the ranks of a run in parallel worker processes, within the machine's memory.

Each worker maps `rank_summary.summarise_file` over rank files and sends
back a small JSON summary, so the parent holds summaries, never traces.
There are as many workers as cores by default, fewer when the largest
ranks would not fit in the available memory together: peak memory stays
that of the few ranks in flight, not of the whole run. Workers are spawned
(safe beside threads), ignore Ctrl+C, and are ended by the parent when it is
interrupted or cancelled, so none outlives it. Each rank reports its loading
phases through a callback the CLI and the app share.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.core.base.errors import LoadCancelled, TraceLoadError
from tui.core.base.vocab import LoadPhase, RankEnd
from tui.core.ingest.source import GZIP_MAGIC
from tui.core.runs import summary_cache
from tui.core.runs.rank_summary import RankSummary, summarise_file

# A loading rank's peak memory: the interpreter with numpy, plus a multiple
# of its JSON (bench_load.py: 2.1 GB of peak for 1.1 GB of JSON, 315 MB for 87 MB).
BASE_PEAK_BYTES = 128 * 1024 * 1024
PEAK_PER_JSON_BYTE = 2.5
# Share of the available memory the workers may plan to use together.
MEMORY_SHARE = 0.8
_PROGRESS_SECONDS = 0.2
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class RankProgress:
    """Where one rank's loading stands, and how many ranks are finished."""

    path: str
    phase: LoadPhase | RankEnd
    fraction: float | None
    finished: int
    total: int


ProgressCallback = Callable[[RankProgress], None]


@dataclass(frozen=True)
class RankOutcome:
    """One rank file's summary, or why it has none."""

    path: str
    summary: RankSummary | None
    error: str | None
    seconds: float


# Computes the summaries of the ranks not kept (paths, zones, progress, cancel,
# ranks already finished), as the pool does: a cluster (`cluster.py`).
Summariser = Callable[
    [
        Sequence[Path],
        Sequence[str] | None,
        ProgressCallback | None,
        threading.Event | None,
        int,
    ],
    list[RankOutcome],
]


def json_bytes_of(path: Path) -> int:
    """The size of a trace's JSON: the file, or a gzip file's recorded size (its last 4 bytes)."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            if handle.read(2) != GZIP_MAGIC or size < 18:
                return size
            handle.seek(size - 4)
            recorded = int.from_bytes(handle.read(4), "little")
    except OSError:
        return 0
    # The field holds the size modulo 4 GiB: never believe less than the file.
    return recorded if recorded >= size else size * 10


def peak_bytes_of(json_bytes: int) -> int:
    """Estimated peak memory of a worker loading a trace of this much JSON."""
    return BASE_PEAK_BYTES + int(PEAK_PER_JSON_BYTE * json_bytes)


def available_memory() -> int | None:
    """Memory this process may still use: MemAvailable, capped by a cgroup v2 limit."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as handle:
            limit = handle.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as handle:
            used = int(handle.read().strip())
        if limit != "max":
            found.append(max(int(limit) - used, 0))
    except (OSError, ValueError):
        pass
    if not found:
        try:
            return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, AttributeError):
            return None
    return min(found)


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def plan_workers(
    json_sizes: Sequence[int],
    requested: int | None = None,
    *,
    core_count: int | None = None,
    memory: int | None = None,
) -> int:
    """How many ranks to load at once: cores (or `requested`), no more than the files,
    and few enough that the largest ranks in flight fit in the available memory."""
    if not json_sizes:
        return 1
    wanted = requested if requested is not None else (core_count or cores())
    workers = max(1, min(int(wanted), len(json_sizes)))
    budget = memory if memory is not None else available_memory()
    if budget is None:
        return workers
    largest = sorted(json_sizes, reverse=True)
    usable = MEMORY_SHARE * budget
    fitting = 0
    for size in largest[:workers]:
        usable -= peak_bytes_of(size)
        if usable < 0:
            break
        fitting += 1
    return max(1, min(workers, fitting))


# -- in the worker processes --------------------------------------------------

_messages: Any = None


def _start_worker(messages: Any) -> None:
    """Worker initialiser: Ctrl+C is the parent's to handle; progress goes to `messages`.

    The worker's own output goes nowhere: it inherits the parent's terminal,
    where a warning or a crash would print over the app (or into a served
    app's stream). Failures reach the parent through the futures.
    """
    global _messages
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_worker)
    _messages = messages
    with contextlib.suppress(OSError):
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        os.close(quiet)


def _stop_worker(_number: int, _frame: Any) -> None:
    """Terminated (Ctrl+C, cancel): remove this worker's scratch folders, then end now.

    The default action would end the worker without them; no other cleanup
    matters, the parent is tearing the pool down.
    """
    driver = sys.modules.get("tui.core.ingest.parallel.driver")
    if driver is not None:
        driver.remove_scratch_folders()
    os._exit(128 + signal.SIGTERM)


def _summarise_in_worker(
    path: str, zones: Sequence[str] | None, decode_workers: int
) -> tuple[dict[str, Any] | None, str | None, float]:
    started = time.monotonic()
    last = [0.0]

    def report(step: Any) -> None:
        now = time.monotonic()
        if _messages is None or now - last[0] < _PROGRESS_SECONDS:
            return
        last[0] = now
        fraction = (
            step.bytes_read / step.bytes_total
            if step.bytes_total
            and (step.phase.counts_bytes or step.phase is LoadPhase.DECODING)
            else None
        )
        with contextlib.suppress(queue.Full, ValueError, OSError):
            _messages.put_nowait((path, step.phase.value, fraction))

    try:
        summary = summarise_file(
            path, zones, decode_workers=decode_workers, progress=report
        )
        return summary, None, time.monotonic() - started
    except TraceLoadError as error:
        return None, str(error), time.monotonic() - started
    except MemoryError:
        return None, f"{path}: not enough memory", time.monotonic() - started


# -- in the parent --------------------------------------------------------------


def summarise_files(
    paths: Sequence[Path],
    *,
    workers: int | None = None,
    zones: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    elsewhere: Summariser | None = None,
) -> list[RankOutcome]:
    """Each file's summary (in the order given); `workers` 1 works in this process.

    Summaries kept from an earlier run of the same files and code are reused;
    the others are computed here, or by `elsewhere` (a cluster) when given.

    Raises LoadCancelled when `cancel` is set, KeyboardInterrupt on Ctrl+C,
    after ending every worker.
    """
    outcomes: dict[str, RankOutcome] = {}
    # Each file's key before it is read: a summary is kept only under the key
    # its file still has once read (never one of a file still being written).
    keys = {str(path): summary_cache.key_of(path, zones) for path in paths}
    for path in paths:
        stored = summary_cache.load(path, zones, keys[str(path)])
        if stored is None:
            continue
        try:
            summary = RankSummary.from_json(stored)
        except (KeyError, TypeError, ValueError):
            continue
        outcomes[str(path)] = RankOutcome(str(path), summary, None, 0.0)
        report_end(progress, outcomes[str(path)], len(outcomes), len(paths))
    missing = [path for path in paths if str(path) not in outcomes]
    sizes = [json_bytes_of(path) for path in missing]
    count = plan_workers(sizes, workers)
    if missing and elsewhere is not None:
        fresh = elsewhere(missing, zones, progress, cancel, len(outcomes))
    elif missing and count <= 1:
        fresh = _summarise_here(missing, zones, progress, cancel, len(outcomes))
    elif missing:
        fresh = _summarise_in_pool(
            missing, sizes, count, zones, progress, cancel, len(outcomes)
        )
    else:
        fresh = []
    for outcome in fresh:
        outcomes[outcome.path] = outcome
        key = keys[outcome.path]
        if (
            outcome.summary is not None
            and key is not None
            and summary_cache.key_of(outcome.path, zones) == key
        ):
            summary_cache.save(outcome.path, zones, outcome.summary.to_json(), key)
    return [outcomes[str(path)] for path in paths]


def _summarise_here(
    paths: Sequence[Path],
    zones: Sequence[str] | None,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    already: int = 0,
) -> list[RankOutcome]:
    total = already + len(paths)
    outcomes: list[RankOutcome] = []
    for path in paths:
        started = time.monotonic()
        name = str(path)

        def report(
            step: Any, name: str = name, finished: int = already + len(outcomes)
        ) -> None:
            if progress is not None:
                fraction = (
                    step.bytes_read / step.bytes_total if step.bytes_total else None
                )
                progress(RankProgress(name, step.phase, fraction, finished, total))

        try:
            data = summarise_file(name, zones, progress=report, cancel=cancel)
            outcome = RankOutcome(
                name, RankSummary.from_json(data), None, time.monotonic() - started
            )
        except TraceLoadError as error:
            outcome = RankOutcome(name, None, str(error), time.monotonic() - started)
        outcomes.append(outcome)
        report_end(progress, outcome, already + len(outcomes), total)
    return outcomes


def report_end(
    progress: ProgressCallback | None, outcome: RankOutcome, finished: int, total: int
) -> None:
    """Tell `progress` that a rank is done (or failed): `finished` of `total`."""
    if progress is not None:
        phase = RankEnd.DONE if outcome.summary is not None else RankEnd.FAILED
        progress(RankProgress(outcome.path, phase, None, finished, total))


def _summarise_in_pool(
    paths: Sequence[Path],
    sizes: list[int],
    workers: int,
    zones: Sequence[str] | None,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    already: int = 0,
) -> list[RankOutcome]:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    decode_workers = max(1, cores() // workers)
    outcomes: dict[str, RankOutcome] = {}
    executor: ProcessPoolExecutor | None = None
    messages: Any = None
    finished_cleanly = False
    try:
        with _ctrl_c_held():
            messages = context.Queue()
            executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context,
                initializer=_start_worker,
                initargs=(messages,),
            )
            # Largest first: the run ends sooner, and big ranks never meet at the end.
            order = sorted(range(len(paths)), key=lambda index: -sizes[index])
            pending: dict[Future[Any], str] = {
                executor.submit(
                    _summarise_in_worker, str(paths[index]), zones, decode_workers
                ): str(paths[index])
                for index in order
            }
        while pending:
            done, _ = wait(pending, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            if cancel is not None and cancel.is_set():
                raise LoadCancelled()
            finished = already + len(outcomes)
            _relay(messages, progress, finished, already + len(paths))
            for future in done:
                name = pending.pop(future)
                outcome = _outcome_of(name, future)
                outcomes[name] = outcome
                report_end(
                    progress, outcome, already + len(outcomes), already + len(paths)
                )
        finished_cleanly = True
    finally:
        if executor is not None:
            if not finished_cleanly:
                _end_workers(executor)
            executor.shutdown(wait=True, cancel_futures=True)
        if messages is not None:
            messages.close()
            messages.cancel_join_thread()
    return [outcomes[str(path)] for path in paths]


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl+C back while workers are spawned, then act on it.

    Workers inherit a blocked SIGINT, so one interrupted while it starts
    cannot die with a traceback (it ignores SIGINT once started); here, a
    Ctrl+C that comes meanwhile is only noted, so no worker is left half
    started, and raises KeyboardInterrupt once all are. multiprocessing's
    resource tracker unblocks SIGINT whenever it starts, so it starts first.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    noted: list[int] = []
    handler = signal.signal(signal.SIGINT, lambda number, _frame: noted.append(number))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(
            signal.SIGINT, signal.default_int_handler if handler is None else handler
        )
    if noted:
        raise KeyboardInterrupt


def _outcome_of(name: str, future: Future[Any]) -> RankOutcome:
    try:
        data, error, seconds = future.result()
    except Exception as failure:  # a worker that died (out of memory?) breaks the pool
        reason = f"{name}: {type(failure).__name__}: {failure}"
        return RankOutcome(name, None, reason, 0.0)
    summary = None if data is None else RankSummary.from_json(data)
    return RankOutcome(name, summary, error, seconds)


def _relay(
    messages: Any, progress: ProgressCallback | None, finished: int, total: int
) -> None:
    """Pass the workers' progress messages on to the callback."""
    while True:
        try:
            path, phase, fraction = messages.get_nowait()
        except (queue.Empty, OSError, ValueError, EOFError):
            return
        if progress is not None:
            progress(RankProgress(path, LoadPhase(phase), fraction, finished, total))


def _end_workers(executor: ProcessPoolExecutor) -> None:
    """Stop every worker now (Ctrl+C, cancel): none may outlive the command."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)

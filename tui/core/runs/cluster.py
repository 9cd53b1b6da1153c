"""Summarise the ranks of a run as tasks on a running Dask scheduler (`--cluster ADDRESS`).

The same pure function the local pool maps, `rank_summary.summarise_file`,
runs on the cluster's workers, which read the rank files where they are (a
filesystem they share with this machine, at the same paths); only the small
JSON summaries travel back. The kept summaries are checked here before
anything is submitted (`pool.summarise_files` does that and hands this module
the ranks it lacks). Dask is imported only on this path.

Faults: a malformed address, or a scheduler that does not answer within
`CONNECT_SECONDS`, raises ClusterUnreachable; a task that raises is retried
once (`retries=1`), and a rank whose workers died is rerun elsewhere by the
scheduler (as often as its `allowed-failures` says) and then reported failed
with the reason; a path the workers cannot see, or a summary lost with the
scheduler, is that rank's error; Ctrl+C or a cancel cancels the run's
futures and tells the ranks still loading to stop.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui.core.base.errors import LoadCancelled, TraceLoadError
from tui.core.base.vocab import LoadPhase
from tui.core.runs.pool import (
    ProgressCallback,
    RankOutcome,
    RankProgress,
    json_bytes_of,
    report_end,
)
from tui.core.runs.rank_summary import RankSummary, summarise_file

# How long to wait for the scheduler to answer before giving up.
CONNECT_SECONDS = 5.0
_POLL_SECONDS = 0.1
# How often a rank loading on a worker asks whether the run was cancelled,
# and tells how far it is (the local pool's pace).
_CANCEL_CHECK_SECONDS = 0.5
_PROGRESS_SECONDS = 0.2
# The workers' loading phases travel as Dask events on this topic, each
# tagged with its run.
PROGRESS_TOPIC = "steptrace-rank-progress"


class ClusterUnreachable(TraceLoadError):
    """No scheduler answered at the address given, or it is not an address; one line."""


def _distributed() -> Any:
    """The `distributed` package (untyped), imported on the cluster path only."""
    import distributed

    return distributed


# -- on the workers -------------------------------------------------------------


class _RunStopped:
    """`cancel` for the loader on a worker: is the run's Dask Event set? Asked at most
    every `_CANCEL_CHECK_SECONDS`, so a cancelled run stops loading soon, cheaply."""

    def __init__(self, event_name: str) -> None:
        self.event_name = event_name
        self.checked = 0.0
        self.stopped = False

    def is_set(self) -> bool:
        now = time.monotonic()
        if self.stopped or now - self.checked < _CANCEL_CHECK_SECONDS:
            return self.stopped
        self.checked = now
        try:
            self.stopped = bool(_distributed().Event(self.event_name).is_set())
        except Exception:  # no client on this worker (yet): keep loading
            self.stopped = False
        return self.stopped


class _PhaseReporter:
    """The loader's progress on a worker, sent as Dask events at most every
    `_PROGRESS_SECONDS` (the first at once); lost events cost nothing."""

    def __init__(self, run: str, path: str) -> None:
        self.run = run
        self.path = path
        self.last: float | None = None

    def __call__(self, step: Any) -> None:
        now = time.monotonic()
        if self.last is not None and now - self.last < _PROGRESS_SECONDS:
            return
        self.last = now
        fraction = (
            step.bytes_read / step.bytes_total
            if step.bytes_total
            and (step.phase.counts_bytes or step.phase is LoadPhase.DECODING)
            else None
        )
        message = {
            "run": self.run,
            "path": self.path,
            "phase": step.phase.value,
            "fraction": fraction,
        }
        with contextlib.suppress(Exception):  # not on a worker: nobody listens
            _distributed().get_worker().log_event(PROGRESS_TOPIC, message)


def summarise_on_worker(
    path: str, zones: Sequence[str] | None, run: str
) -> tuple[dict[str, Any] | None, str | None, float]:
    """One rank's summary JSON, or why it has none, and the seconds it took (a Dask task).

    One decoding process per task: a worker's processes are its slots.
    `run` names the run's stop event and its progress events.
    """
    started = time.monotonic()
    if not os.path.exists(path):
        return (
            None,
            f"{path}: not found on the worker at {socket.gethostname()} "
            "(the workers must see the run's folder at the same path)",
            0.0,
        )
    try:
        summary = summarise_file(
            path,
            zones,
            decode_workers=1,
            progress=_PhaseReporter(run, path),
            cancel=_RunStopped(_stop_event(run)),
        )
        return summary, None, time.monotonic() - started
    except LoadCancelled:
        return None, f"{path}: cancelled", time.monotonic() - started
    except TraceLoadError as error:
        return None, str(error), time.monotonic() - started
    except MemoryError:
        return None, f"{path}: not enough memory", time.monotonic() - started


def _stop_event(run: str) -> str:
    """The name of the Dask Event that stops a run's ranks."""
    return f"steptrace-stop-{run}"


# -- here -------------------------------------------------------------------------


def connect(address: str, timeout: float = CONNECT_SECONDS) -> Any:
    """A Dask client of the scheduler at `address`; ClusterUnreachable when it does not answer."""
    try:
        client_class = _distributed().Client
    except ImportError as error:
        raise ClusterUnreachable(
            f"--cluster needs Dask: pip install 'steptrace[cluster]' ({error})"
        ) from None
    _check_address(address)
    _quiet_dask_logging()
    try:
        return client_class(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ClusterUnreachable(
            f"no Dask scheduler answered at {address} within {timeout:g} s ({reason})"
        ) from None


def _quiet_dask_logging() -> None:
    """Dask logs to stderr: over the app's screen, and tracebacks of its own
    reconnects when a scheduler is lost. What matters reaches the ranks'
    reasons instead, so its loggers (each has its own level) say nothing."""
    for name in list(logging.Logger.manager.loggerDict):
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def _check_address(address: str) -> None:
    """Refuse a malformed address before a client is made: a half-made one
    hangs for seconds and prints a traceback as Python exits."""
    import importlib

    addressing: Any = importlib.import_module("distributed.comm.addressing")
    registry: Any = importlib.import_module("distributed.comm.registry")
    try:
        scheme, location = addressing.parse_address(address)
        registry.get_backend(scheme).get_address_host_port(location)
    except NotImplementedError:  # a transport without host:port (ucx): let Dask try
        return
    except ValueError as error:
        raise ClusterUnreachable(
            f"{address} is not a Dask scheduler address ({error}): give tcp://HOST:PORT"
        ) from None


def summarise_on_cluster(
    paths: Sequence[Path],
    zones: Sequence[str] | None,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    already: int,
    *,
    address: str,
    timeout: float = CONNECT_SECONDS,
) -> list[RankOutcome]:
    """Each file's summary (in the order given), computed on the cluster at `address`.

    Raises ClusterUnreachable when the scheduler does not answer, LoadCancelled
    when `cancel` is set and KeyboardInterrupt on Ctrl+C, after cancelling
    every future of the run.
    """
    client = connect(address, timeout)
    names = [os.path.abspath(path) for path in paths]
    total = already + len(paths)
    outcomes: dict[str, RankOutcome] = {}
    run = uuid.uuid4().hex
    pending: dict[Any, tuple[str, str]] = {}
    given_of = {name: str(path) for path, name in zip(paths, names, strict=True)}
    phases: queue.SimpleQueue[Any] = queue.SimpleQueue()
    finished_cleanly = False
    try:
        if progress is not None:
            client.subscribe_topic(PROGRESS_TOPIC, phases.put)
        for given, name in zip(paths, names, strict=True):
            # Largest first, as the local pool does: big ranks never meet at the end.
            future = client.submit(
                summarise_on_worker,
                name,
                None if zones is None else list(zones),
                run,
                pure=False,
                retries=1,
                priority=json_bytes_of(Path(given)),
            )
            pending[future] = (str(given), name)
        while pending:
            if cancel is not None and cancel.is_set():
                raise LoadCancelled()
            _relay(phases, run, given_of, outcomes, progress, already, total)
            done = [future for future in pending if future.done()]
            if not done:
                time.sleep(_POLL_SECONDS)
                continue
            for future in done:
                path, name = pending.pop(future)
                outcome = outcome_of(path, name, future)
                outcomes[path] = outcome
                report_end(progress, outcome, already + len(outcomes), total)
        finished_cleanly = True
    finally:
        if not finished_cleanly:
            _stop(client, list(pending), _stop_event(run))
        if progress is not None:
            with contextlib.suppress(Exception):
                client.unsubscribe_topic(PROGRESS_TOPIC)
        with contextlib.suppress(Exception):  # a lost scheduler: nothing to close
            client.close(timeout=timeout)
    return [outcomes[str(path)] for path in paths]


def _relay(
    phases: queue.SimpleQueue[Any],
    run: str,
    given_of: dict[str, str],
    outcomes: dict[str, RankOutcome],
    progress: ProgressCallback | None,
    already: int,
    total: int,
) -> None:
    """Pass this run's phase events on, except those of ranks already back."""
    while progress is not None:
        try:
            _stamp, message = phases.get_nowait()
        except queue.Empty:
            return
        try:
            if message["run"] != run:
                continue
            path = given_of[message["path"]]
            phase = LoadPhase(message["phase"])
            fraction = message["fraction"]
        except (KeyError, TypeError, ValueError):
            continue
        if path not in outcomes:
            finished = already + len(outcomes)
            progress(RankProgress(path, phase, fraction, finished, total))


def outcome_of(path: str, name: str, future: Any) -> RankOutcome:
    """The rank's outcome from its finished future: its summary, or the reason it has none.

    The status is read once: a result held by a worker that died since goes
    back to pending while the cluster computes it again, so a second look
    can disagree with the first; `result()` waits for that recomputation.
    """
    status = future.status
    if status == "cancelled":
        reason = (
            f"{name}: its task was cancelled on the cluster (was the scheduler lost?)"
        )
        return RankOutcome(path, None, reason, 0.0)
    try:
        if status == "error":
            failure = future.exception()
        else:
            data, error, seconds = future.result()
            summary = None if data is None else RankSummary.from_json(data)
            return RankOutcome(path, summary, error, seconds)
    except Exception as lost:  # the scheduler went away with the summary
        first = str(lost).splitlines()[0] if str(lost) else ""
        reason = (
            f"{name}: its summary could not be fetched from the cluster "
            f"({type(lost).__name__}: {first})"
        )
        return RankOutcome(path, None, reason, 0.0)
    last = getattr(getattr(failure, "last_worker", None), "address", None)
    if last is not None:  # KilledWorker: every worker that ran it died
        reason = f"{name}: the workers running it died (the last at {last})"
    else:
        reason = f"{name}: {type(failure).__name__}: {failure}"
    return RankOutcome(path, None, reason, 0.0)


def _stop(client: Any, futures: list[Any], event_name: str) -> None:
    """Cancel the run's futures and tell the ranks still loading to stop."""
    try:
        _distributed().Event(event_name, client=client).set()
        client.cancel(futures, force=True)
    except Exception:  # the scheduler is gone: nothing is left to stop
        return

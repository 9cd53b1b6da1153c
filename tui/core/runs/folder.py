"""What a folder named where one trace is expected stands for.

`tensorboard_trace_handler(dir)` writes one file per profiling window and
worker, `<worker>.<time in ms or ns>.pt.trace.json[.gz]` (the worker defaults to
`<host>_<pid>`). A folder holding one trace stands for that trace; several
windows of one worker for one of them, the newest unless asked; several
workers for a run, read rank by rank. A folder holding no trace says what it
holds instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.core.runs.discover import natural_key, trace_files

# tensorboard_trace_handler's name: `{worker_name}.{time}.pt.trace.json[.gz]`.
_WINDOW_NAME = re.compile(
    r"^(?P<worker>.+)\.(?P<time>\d+)\.pt\.trace\.json(?:\.gz)?$", re.I
)
_TRACE_SUFFIX = re.compile(r"(?:\.pt\.trace)?\.json(?:\.gz)?$", re.I)

_ENTRIES_NAMED = 5


@dataclass(frozen=True)
class FolderTrace:
    """The trace a folder stands for: its only trace, or one window of its only worker."""

    path: Path
    windows: tuple[Path, ...]
    """Every window of the worker, oldest first (the only trace when just one)."""
    worker: str | None
    """The worker the handler named, when the names follow its pattern."""

    @property
    def number(self) -> int:
        """The window's place among the worker's windows, from 1 (the oldest)."""
        return self.windows.index(self.path) + 1


@dataclass(frozen=True)
class FolderRun:
    """A folder of several workers' traces: a run, read rank by rank."""

    folder: Path
    workers: tuple[str, ...]


def worker_of(name: str) -> tuple[str, int | None]:
    """The worker a trace file's name stands for, and its window's time when
    the handler wrote it (a name of another form is its own worker)."""
    match = _WINDOW_NAME.match(name)
    if match is None:
        return _TRACE_SUFFIX.sub("", name), None
    return match.group("worker"), int(match.group("time"))


def read_folder(folder: Path, window: int | None = None) -> FolderTrace | FolderRun:
    """The trace or the run `folder` stands for; `window` (from 1, the oldest)
    picks one of a single worker's windows, the newest by default.

    A folder without traces, or a window out of range, raises TraceLoadError
    naming what the folder holds.
    """
    try:
        paths, _ = trace_files(folder)
    except TraceLoadError as error:
        raise TraceLoadError(f"{error}{_holding(folder)}") from None
    workers: dict[str, list[tuple[int, Path]]] = {}
    for path in paths:
        worker, time = worker_of(path.name)
        workers.setdefault(worker, []).append((-1 if time is None else time, path))
    if len(workers) > 1:
        return FolderRun(folder, tuple(sorted(workers, key=natural_key)))
    ((worker, timed),) = workers.items()
    windows = tuple(path for _, path in sorted(timed, key=lambda pair: pair[0]))
    if window is not None and not 1 <= window <= len(windows):
        raise TraceLoadError(
            f"{printable(str(folder))}: no window {window}; it holds "
            f"{window_list(windows)}"
        )
    chosen = windows[-1 if window is None else window - 1]
    named = worker if len(windows) > 1 or _WINDOW_NAME.match(chosen.name) else None
    return FolderTrace(chosen, windows, named)


def window_list(windows: tuple[Path, ...]) -> str:
    """`3 windows: 1 a.json, 2 b.json, 3 c.json` (oldest first)."""
    if len(windows) == 1:
        return f"1 trace: {printable(windows[0].name)}"
    listed = ", ".join(
        f"{number} {printable(path.name)}" for number, path in enumerate(windows, 1)
    )
    return f"{len(windows)} windows: {listed}"


def _holding(folder: Path) -> str:
    """`; it holds 2 entries: a.txt, plugins/` — what a folder without traces holds."""
    try:
        entries = sorted(folder.iterdir(), key=lambda entry: natural_key(entry.name))
    except OSError:
        return ""
    if not entries:
        return "; it is empty"
    named = [
        printable(entry.name) + ("/" if entry.is_dir() else "")
        for entry in entries[:_ENTRIES_NAMED]
    ]
    more = (
        f", +{len(entries) - _ENTRIES_NAMED} more"
        if len(entries) > _ENTRIES_NAMED
        else ""
    )
    count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    return f"; it holds {count}: {', '.join(named)}{more}"

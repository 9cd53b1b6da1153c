"""Opening a run: its ranks read across (`read_run`), its data zone checked.

The CLI's `steptrace ranks` and the run loading screen open a folder here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from tui.core.base.errors import LoadCancelled, TraceLoadError
from tui.core.base.textsafe import printable
from tui.core.opening.zones import ZoneRefusal, resolve_run_zones, zone_names
from tui.core.runs import RunAnalysis, RunLayout, read_run
from tui.core.runs.pool import ProgressCallback


def open_run(
    folder: str | Path,
    *,
    asked: Sequence[str] = (),
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    discovered: Callable[[RunLayout], None] | None = None,
    cluster: str | None = None,
) -> RunAnalysis | ZoneRefusal:
    """Read a run folder's ranks (in worker processes) on the zone `asked`; refused
    when a name is held by no rank.

    TraceLoadError when no rank can be read, core LoadCancelled when `cancel`
    is set; `discovered` hears which files are the ranks before any is read;
    `cluster`: a Dask scheduler's address to summarise the ranks on.
    """
    run = read_run(
        folder,
        workers=workers,
        zones=zone_names(asked) or None,
        progress=progress,
        cancel=cancel,
        discovered=discovered,
        cluster=cluster,
    )
    if cancel is not None and cancel.is_set():
        raise LoadCancelled()
    if not run.ranks:
        reasons = "; ".join(printable(warning) for warning in run.warnings[-3:])
        raise TraceLoadError(f"no rank could be read ({reasons})")
    refused = resolve_run_zones(run, asked)
    return run if refused is None else refused

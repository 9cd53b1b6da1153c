"""Distributed runs: a folder of per-rank traces read as one run.

- `discover`: which file is which rank, read from a few kilobytes per file;
- `rank_summary`: one trace in, one small JSON summary out (a pure function);
- `pool`: that function mapped over the ranks by worker processes, memory-bounded;
- `cluster`: the same function as tasks on a running Dask scheduler (`--cluster`);
- `across`: step times per rank, stragglers and waits, from the summaries alone;
- `late_rank`: the run's reading (one rank late at the collectives).
- `many`: a run of many ranks as distributions (spreads, outliers, top ranks, hosts).

Because the per-rank work is `rank_summary.summarise_file(path) -> dict`, a
run of hundreds of ranks is summarised on a Dask cluster by mapping that same
function there (`cluster`, `read_run(cluster=ADDRESS)`): the kept summaries,
`RankSummary.from_json` and `RunAnalysis.of` are those of the local pool.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from tui.core.runs.across import RankRow, RunAnalysis, StepAcross
from tui.core.runs.discover import RankFile, RunLayout, discover_run
from tui.core.runs.pool import ProgressCallback, RankProgress, summarise_files
from tui.core.runs.rank_summary import RankStep, RankSummary, summarise_file

__all__ = [
    "RankFile",
    "RankProgress",
    "RankRow",
    "RankStep",
    "RankSummary",
    "RunAnalysis",
    "RunLayout",
    "StepAcross",
    "discover_run",
    "read_run",
    "summarise_file",
]


def read_run(
    folder: str | Path,
    *,
    workers: int | None = None,
    zones: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    discovered: Callable[[RunLayout], None] | None = None,
    cluster: str | None = None,
) -> RunAnalysis:
    """Discover a run folder, summarise its ranks in worker processes, read them across.

    `discovered` hears which files are the ranks before any is read; with
    `cluster` (a Dask scheduler's address) the ranks not kept are summarised
    there (Dask is imported only then).
    """
    layout = discover_run(folder)
    if discovered is not None:
        discovered(layout)
    elsewhere = None
    if cluster is not None:
        from tui.core.runs.cluster import summarise_on_cluster

        elsewhere = functools.partial(summarise_on_cluster, address=cluster)
    outcomes = summarise_files(
        [item.path for item in layout.files],
        workers=workers,
        zones=zones,
        progress=progress,
        cancel=cancel,
        elsewhere=elsewhere,
    )
    return RunAnalysis.of(layout, outcomes)

"""Distributed runs: a folder of per-rank traces read as one run.

- `discover`: which file is which rank, read from a few kilobytes per file;
- `rank_summary`: one trace in, one small JSON summary out (a pure function);
- `pool`: that function mapped over the ranks by worker processes, memory-bounded;
- `across`: step times per rank, stragglers and waits, from the summaries alone;
- `late_rank`: the run's reading (one rank late at the collectives).

Because the per-rank work is `rank_summary.summarise_file(path) -> dict`, a
run of hundreds of ranks can be summarised on a cluster by mapping that same
function with Dask or Ray (`RankSummary.from_json` on the results) and
handing the summaries to `RunAnalysis.of`; nothing else changes.
"""

from __future__ import annotations

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
) -> RunAnalysis:
    """Discover a run folder, summarise its ranks in worker processes, read them across.

    `discovered` hears which files are the ranks before any is read.
    """
    layout = discover_run(folder)
    if discovered is not None:
        discovered(layout)
    outcomes = summarise_files(
        [item.path for item in layout.files],
        workers=workers,
        zones=zones,
        progress=progress,
        cancel=cancel,
    )
    return RunAnalysis.of(layout, outcomes)

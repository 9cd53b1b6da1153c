"""The words of a folder opened where one trace is expected: which window was
opened and how to pick another, or why a run folder is not one trace."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.runs.folder import FolderRun, FolderTrace, window_list

_WORKERS_NAMED = 4


def window_notice(folder: str, found: FolderTrace) -> str | None:
    """Which of a worker's windows was opened, and the others (None: the folder
    holds one trace)."""
    if len(found.windows) == 1:
        return None
    newest = " (the newest)" if found.number == len(found.windows) else ""
    worker = f" of worker {printable(found.worker)}" if found.worker else ""
    return (
        f"{printable(folder)} holds {window_list(found.windows)}{worker}; "
        f"opened {found.number}{newest}; --window N opens another"
    )


def run_folder_lines(folder: str, run: FolderRun, command: str) -> tuple[str, ...]:
    """A run folder refused by a command that reads one trace: what it holds and
    what reads it."""
    shown = ", ".join(printable(worker) for worker in run.workers[:_WORKERS_NAMED])
    more = (
        f", +{len(run.workers) - _WORKERS_NAMED} more"
        if len(run.workers) > _WORKERS_NAMED
        else ""
    )
    return (
        f"{printable(folder)}: holds the traces of {len(run.workers)} workers "
        f"({shown}{more}), not one trace",
        f"steptrace ranks {printable(folder)} compares them, steptrace open "
        f"{printable(folder)} explores them; {command} reads one of their files",
    )

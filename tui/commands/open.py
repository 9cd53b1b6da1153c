"""`steptrace open TRACE|DIR` (also `steptrace TRACE`): explore a capture, or a run's ranks, in the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tui.commands._cluster import add_cluster_option
from tui.commands._common import add_window_option
from tui.commands._zones import add_zone_option
from tui.commands.errors import CommandError
from tui.core.base.paths import path_problem

NO_TERMINAL = (
    "the explorer needs a terminal (its input or output is not one); "
    "scripts and CI read the same figures with steptrace summary, ops, gaps"
)


def register(subparsers: Any) -> None:
    """Add the `open` subcommand."""
    parser = subparsers.add_parser(
        "open",
        help="explore a trace, or a run folder of rank traces, in the terminal "
        "(also: steptrace TRACE)",
        description="Open a PyTorch profiler trace (.json or .json.gz) in the "
        "explorer, or a run folder (one trace per rank) in its ranks screen.",
    )
    parser.add_argument(
        "trace",
        help="trace file (Kineto / Chrome trace JSON), or a folder of per-rank traces",
    )
    add_window_option(parser)
    add_zone_option(parser)
    add_cluster_option(parser)
    # Set by `steptrace serve` on the app process of each browser connection.
    parser.add_argument("--served", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--allow-capture", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def target_error(path: Path) -> str | None:
    """Why the explorer cannot open `path` (one line), or None when it can.
    `steptrace serve` asks the same question before it starts."""
    if path_problem(path, folder_ok=True) is None and path.is_dir():
        from tui.core.runs.discover import is_trace_name

        try:
            names = [entry for entry in path.iterdir() if is_trace_name(entry.name)]
        except OSError as error:
            return f"is a folder that cannot be read ({error.strerror})"
        if not any(entry.is_file() for entry in names):
            return (
                "is a folder without trace files (*.json, *.json.gz): give a "
                "trace file, or a run folder of per-rank traces"
            )
        return None
    return path_problem(path)


def openable(given: str) -> Path:
    """The path `given` names, refused (CommandError) when the explorer cannot open it."""
    path = Path(given)
    problem = target_error(path)
    if problem is not None:
        raise CommandError(f"{given}: {problem}")
    return path


def has_terminal() -> bool:
    """Whether keys can be read and the screen drawn (stdin and stdout are terminals)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def open_in_app(
    path: Path,
    *,
    served: bool = False,
    allow_capture: bool = False,
    zones: tuple[str, ...] = (),
    cluster: str | None = None,
    notices: tuple[str, ...] = (),
) -> int:
    """Run the explorer on `path`; its exit status: 2 when the file could not be
    read or a `--zone` name occurs nowhere. Refused (CommandError) when there
    is no terminal to run in.

    `served`: the app runs for a browser (`steptrace serve`, through pipes):
    it says so, and launching captures is off unless `allow_capture`.
    A folder opens as a run: its ranks screen, each rank's timeline from there;
    `cluster`: a Dask scheduler's address to read its ranks on; `notices`:
    lines the app shows once it starts (which window of a folder it opened)."""
    if not served and not has_terminal():
        raise CommandError(NO_TERMINAL)
    from tui.app.app import StepTraceApp

    app = StepTraceApp(
        path,
        served=served,
        allow_capture=allow_capture,
        zones=zones,
        rank_cluster=cluster,
        notices=notices,
    )
    app.run()
    for line in app.exit_lines:
        print(line, file=sys.stderr)
    return int(app.return_code or 0)


def one_trace_or_run(path: Path, window: int | None) -> tuple[Path, tuple[str, ...]]:
    """What the app opens for `path`: a folder of one worker's traces opens one
    of them (the newest unless `window`), saying which; a folder of several
    workers opens as a run."""
    from tui.core.base.errors import TraceLoadError
    from tui.core.runs.folder import FolderRun, read_folder
    from tui.report.folder import window_notice

    if not path.is_dir():
        if window is not None:
            raise CommandError(
                f"--window picks a window of a folder; {path} is not a folder"
            )
        return path, ()
    try:
        found = read_folder(path, window)
    except TraceLoadError as error:
        raise CommandError(str(error)) from None
    if isinstance(found, FolderRun):
        return path, ()
    said = window_notice(str(path), found)
    return found.path, () if said is None else (said,)


def run(args: argparse.Namespace) -> int:
    """Check the file exists, then start the app (which loads it with progress)."""
    path, notices = one_trace_or_run(openable(args.trace), args.window)
    zones = tuple(args.zone)
    if args.served:
        return open_in_app(
            path,
            served=True,
            allow_capture=args.allow_capture,
            zones=zones,
            cluster=args.cluster,
            notices=notices,
        )
    return open_in_app(path, zones=zones, cluster=args.cluster, notices=notices)

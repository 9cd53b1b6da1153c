"""`steptrace ranks DIR`: a run folder's ranks side by side — step times, stragglers, waits, GPU breakdowns."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui.commands._cluster import add_cluster_option
from tui.commands._common import at_least_one
from tui.commands._zones import add_zone_option, zone_refused


def register(subparsers: Any) -> None:
    """Add the `ranks` subcommand."""
    parser = subparsers.add_parser(
        "ranks",
        help="a run folder (one trace per rank): step times, stragglers, waits, "
        "GPU breakdowns",
    )
    parser.add_argument(
        "folder",
        help="a folder of per-rank traces (*.pt.trace.json[.gz], rank-N.json…)",
    )
    parser.add_argument(
        "--workers",
        type=at_least_one,
        default=None,
        metavar="N",
        help="ranks loaded at once in worker processes (default: the cores, "
        "fewer if memory is short; 1: in this process)",
    )
    add_cluster_option(parser)
    add_zone_option(parser)
    parser.add_argument(
        "--json", action="store_true", help="print JSON (see docs/ranks.md)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read the run and print its figures."""
    from tui.commands._common import print_json
    from tui.core.opening.run import open_run
    from tui.core.opening.zones import ZoneRefusal
    from tui.core.results.ranks import RanksResult
    from tui.report.ranks import ranks_json, ranks_text

    progress = RunProgressLine() if sys.stderr.isatty() else None
    try:
        analysis = open_run(
            args.folder,
            asked=args.zone,
            workers=args.workers,
            progress=progress,
            cluster=args.cluster,
        )
    finally:
        if progress is not None:
            progress.clear()
    if isinstance(analysis, ZoneRefusal):
        raise zone_refused(analysis)
    result = RanksResult.of(analysis)
    if args.json:
        print_json(ranks_json(result))
    else:
        print(ranks_text(result))
    return 0


class RunProgressLine:
    """One refreshed stderr line: ranks finished, and the phase of those loading."""

    def __init__(self) -> None:
        self.loading: dict[str, str] = {}

    def __call__(self, progress: Any) -> None:
        from pathlib import Path

        from tui.core.base.textsafe import printable
        from tui.core.base.vocab import RankEnd
        from tui.report.progress import rank_phase

        name = Path(progress.path).name
        if isinstance(progress.phase, RankEnd):
            self.loading.pop(name, None)
        else:
            self.loading[name] = rank_phase(progress)
        busy = ", ".join(
            f"{key} {value}" for key, value in list(self.loading.items())[:3]
        )
        line = f"steptrace: {progress.finished}/{progress.total} ranks read"
        if busy:
            line += f"; {printable(busy)}"
        sys.stderr.write("\r" + line[:79].ljust(79))
        sys.stderr.flush()

    def clear(self) -> None:
        """Remove the line."""
        sys.stderr.write("\r" + " " * 79 + "\r")
        sys.stderr.flush()

"""`steptrace ranks DIR`: a run folder's ranks side by side — step times, stragglers, waits, GPU breakdowns."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui.commands._zones import add_zone_option


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
        type=_positive,
        default=None,
        metavar="N",
        help="ranks loaded at once in worker processes (default: the cores, "
        "fewer if memory is short; 1: in this process)",
    )
    add_zone_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run(args: argparse.Namespace) -> int:
    """Read the run and print its figures."""
    from tui.commands._common import print_json
    from tui.commands._run_zones import run_zone_refusal, zone_names
    from tui.core.results.ranks import RanksResult
    from tui.core.runs import read_run

    progress = RunProgressLine() if sys.stderr.isatty() else None
    try:
        analysis = read_run(
            args.folder,
            workers=args.workers,
            zones=zone_names(args.zone) or None,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.clear()
    refused = run_zone_refusal(analysis, args.zone)
    if refused:
        for line in refused:
            print(line, file=sys.stderr)
        return 2
    if not analysis.ranks:
        from tui.core.base.textsafe import printable

        reasons = "; ".join(printable(warning) for warning in analysis.warnings[-3:])
        print(f"steptrace: no rank could be read ({reasons})", file=sys.stderr)
        return 2
    result = RanksResult.of(analysis)
    if args.json:
        print_json(result.to_json())
    else:
        print(result.to_text())
    return 0


class RunProgressLine:
    """One refreshed stderr line: ranks finished, and the phase of those loading."""

    def __init__(self) -> None:
        self.loading: dict[str, str] = {}

    def __call__(self, progress: Any) -> None:
        from pathlib import Path

        from tui.core.base.textsafe import printable
        from tui.core.base.vocab import RankEnd

        name = Path(progress.path).name
        if isinstance(progress.phase, RankEnd):
            self.loading.pop(name, None)
        else:
            shown = str(progress.phase)
            if progress.fraction is not None:
                shown += f" {100 * progress.fraction:.0f}%"
            self.loading[name] = shown
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

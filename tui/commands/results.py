"""The result commands: each opens a capture, computes one typed result from it
and prints it as text or JSON.

A `ResultCommand` is declared as data in the command registry
(`tui.commands.registry`): its result type (whose `of` computes it and whose
`to_json` is its JSON) and the words that print it (`tui.report`), named as
`module:name` and imported only when the command runs, so `--help` stays fast;
the options, checks and computations that are not the result's plain `of` are
here. `ResultCommand.run` is the one way they all run (open with
`tui.core.opening`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tui.commands._common import (
    add_max_memory_option,
    add_window_option,
    add_workers_option,
)
from tui.commands._zones import add_zone_option
from tui.commands.errors import WARNED, CommandError, notice, warn

if TYPE_CHECKING:
    from tui.core.figures.analysis import Analysis
    from tui.core.results.critical import CriticalResult
    from tui.core.results.findings import FindingsResult
    from tui.core.results.gaps import GapsResult
    from tui.core.results.kernels import KernelsResult
    from tui.core.results.memory import MemoryResult
    from tui.core.results.modules import ModulesResult
    from tui.core.results.ops import OpsResult
    from tui.core.results.zones import ZonesResult
    from tui.report.report import ReportResult

TRACE_HELP = (
    "a .json or .json.gz Kineto/Chrome trace, or the folder tensorboard_trace_handler "
    "wrote it in"
)
JSON_HELP = "print JSON (see docs/commands.md)"


def imported(reference: str) -> Any:
    """The object a `module:name` reference names, its module imported now."""
    import importlib

    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class ResultCommand:
    """A command computing one result from an opened capture.

    `result` names the result type (`module:Class`): `Class.of(analysis)`
    computes it unless `compute` does (given the type, the analysis and the
    arguments), and `to_json()` is its JSON unless `json` names a function of
    the result that is. `words` names the function of the result whose text
    stdout gets without `--json` (a line end added), unless `text` makes it from
    the result and the arguments. `options` adds the command's own flags (after
    `--zone`, before `--json`); `output` adds `--json` and any other output
    flag; `check` refuses bad flags (raises CommandError) before the capture is
    read.
    """

    name: str
    help: str
    result: str
    words: str | None = None
    description: str | None = None
    zones: bool = False
    workers: bool = False
    options: Callable[[argparse.ArgumentParser], None] | None = None
    output: Callable[[argparse.ArgumentParser], None] | None = None
    check: Callable[[argparse.Namespace], None] | None = None
    compute: Callable[[Any, Analysis, argparse.Namespace], Any] | None = None
    text: Callable[[Any, argparse.Namespace], str] | None = None
    json: str | None = None

    def __post_init__(self) -> None:
        if (self.words is None) == (self.text is None):
            raise ValueError(f"{self.name}: give its words or its text, one of them")

    def register(self, subparsers: Any) -> None:
        """Add this command's parser, with its flags in their usual order."""
        parser = subparsers.add_parser(
            self.name, help=self.help, description=self.description
        )
        parser.add_argument("trace", help=TRACE_HELP)
        add_window_option(parser)
        if self.zones:
            add_zone_option(parser)
        if self.options is not None:
            self.options(parser)
        if self.output is not None:
            self.output(parser)
        else:
            parser.add_argument("--json", action="store_true", help=JSON_HELP)
        if self.workers:
            add_workers_option(parser)
        add_strict_option(parser)
        add_max_memory_option(parser)
        parser.set_defaults(func=self.run)

    def run(self, args: argparse.Namespace) -> int:
        """Open the capture, compute the result, print it; a flag, a zone or a
        step refused raises CommandError."""
        import gc
        import importlib

        # Opening a capture imports modules (numpy, the core) whose tens of
        # thousands of objects live as long as the command: collections walking
        # them find nothing to free (20-40 ms of a cached summary). None runs while
        # they are made, and the command's own collections skip them (frozen).
        gc.disable()
        importlib.import_module("tui.core.opening.capture")
        gc.freeze()
        gc.enable()
        try:
            return self._run(args)
        finally:
            gc.unfreeze()

    def _run(self, args: argparse.Namespace) -> int:
        from tui.commands._common import print_json, progress_on_stderr, trace_in
        from tui.commands._zones import zone_refused
        from tui.core.opening.capture import open_capture
        from tui.core.opening.zones import ZoneRefusal

        if self.check is not None:
            self.check(args)
        # A command parsing its own flags (collectives) may have no --window,
        # --strict or --max-memory: read as not given.
        window = getattr(args, "window", None)
        args.trace, which = trace_in(args.trace, window, self.name)
        if which is not None:
            notice(which)
        with progress_on_stderr() as progress:
            opened = open_capture(
                args.trace,
                asked=args.zone if self.zones else (),
                progress=progress,
                workers=args.workers if self.workers else None,
                max_memory=getattr(args, "max_memory", None),
            )
        if isinstance(opened, ZoneRefusal):
            raise zone_refused(opened)
        warnings = said_before_the_output(opened.analysis)
        kind = imported(self.result)
        if self.compute is None:
            result = kind.of(opened.analysis)
        else:
            result = self.compute(kind, opened.analysis, args)
        if args.json:
            if self.json is None:
                print_json(result.to_json())
            else:
                print_json(imported(self.json)(result))
        elif self.text is not None:
            sys.stdout.write(self.text(result, args))
        else:
            sys.stdout.write(imported(str(self.words))(result) + "\n")
        return WARNED if warnings and getattr(args, "strict", False) else 0


def said_before_the_output(analysis: Analysis) -> list[str]:
    """On stderr, before any output: each capture warning once, then the data
    zone when steptrace proposed it; the warnings, for `--strict`."""
    from tui.core.results.summary import capture_warnings
    from tui.report.zone_choice import proposed_zone_line

    warnings = capture_warnings(analysis)
    for warning in warnings:
        warn(warning)
    choice = analysis.zone_choice
    proposed = proposed_zone_line(choice.names, choice.source)
    if proposed is not None:
        notice(proposed)
    return warnings


def add_strict_option(parser: argparse.ArgumentParser) -> None:
    """`--strict`: a capture with warnings is an error once the output is printed."""
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with status {WARNED} when the capture has warnings (a cut-off "
        "file, steps counted twice…), after printing the output",
    )


# -- the rows' own parts ---------------------------------------------------------


def limit_checked(args: argparse.Namespace) -> None:
    """Refuse a negative `--limit`."""
    if args.limit is not None and args.limit < 0:
        raise CommandError("--limit must be 0 or more")


def _no_step(analysis: Analysis, number: int) -> CommandError:
    numbers = ", ".join(str(step.number) for step in analysis.steps) or "none"
    return CommandError(f"no step {number} in this trace (steps: {numbers})")


def ops_options(parser: argparse.ArgumentParser) -> None:
    """`ops`: sort key and device, limit, one step, rows per name or shape,
    Python frames."""
    parser.add_argument(
        "--sort",
        choices=("self", "total", "calls", "name"),
        default="self",
        help="sort key (default: self time, as the app)",
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        default=None,
        help="which time to sort by (default: GPU when observed, else CPU)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N rows"
    )
    parser.add_argument(
        "--step", type=int, default=None, metavar="N", help="only ProfilerStep#N"
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help="every name whole (default: the table takes the terminal's width and "
        "cuts longer names at their end; --json always has them whole)",
    )
    parser.add_argument(
        "--group-by",
        choices=("name", "shape"),
        default="name",
        help="rows per operator name (default), or per name and input shapes "
        "as key_averages(group_by_input_shape=True)",
    )
    parser.add_argument(
        "--python",
        action="store_true",
        help="list the Python frames and nn.Module ranges of a with_stack "
        "capture too (operators only by default)",
    )


def ops_result(
    kind: type[OpsResult], analysis: Analysis, args: argparse.Namespace
) -> OpsResult:
    """torch's key_averages() per name (or name and shapes), whole trace or one step."""
    start = end = None
    scope = "whole trace"
    if args.step is not None:
        matching = [step for step in analysis.steps if step.number == args.step]
        if not matching:
            raise _no_step(analysis, args.step)
        start, end = matching[0].start_ns, matching[0].end_ns
        scope = f"step {args.step}"
    if args.group_by == "shape":
        from tui.core.figures.shapes import shape_op_table, shapes_in_trace

        return kind.of(
            shape_op_table(analysis, start, end, python=args.python),
            sort=args.sort,
            device=args.device,
            limit=args.limit,
            scope=scope,
            shapes_recorded=shapes_in_trace(analysis.trace),
            python=args.python,
        )
    return kind.of(
        analysis.op_table(start, end, python=args.python),
        sort=args.sort,
        device=args.device,
        limit=args.limit,
        scope=scope,
        python=args.python,
    )


MODULE_SORTS = ("tree", "total", "self", "backward", "calls", "gpu")
"""`modules --sort`: the tree's own order, or a column, largest first."""


def modules_options(parser: argparse.ArgumentParser) -> None:
    """`modules --sort`."""
    parser.add_argument(
        "--sort",
        choices=MODULE_SORTS,
        default="tree",
        help="the tree's order (default), or a column, largest first",
    )


def modules_result(
    kind: type[ModulesResult], analysis: Analysis, args: argparse.Namespace
) -> ModulesResult:
    """The module tree, in the order asked for."""
    return kind.of(analysis, args.sort)


def ops_text(result: OpsResult, args: argparse.Namespace) -> str:
    """The operator table as wide as the terminal, or with every name whole (`--wide`)."""
    import shutil

    from tui.report.ops import ops_text as words

    width = None if args.wide else shutil.get_terminal_size().columns
    return words(result, width) + "\n"


def kernels_options(parser: argparse.ArgumentParser) -> None:
    """`kernels`: one step, limit."""
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        metavar="N",
        help="only kernels starting in ProfilerStep#N",
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N rows"
    )


def kernels_result(
    kind: type[KernelsResult], analysis: Analysis, args: argparse.Namespace
) -> KernelsResult:
    """The kernels of the trace or of one step, at most `--limit` rows."""
    try:
        return kind.of(analysis, step=args.step, limit=args.limit)
    except KeyError:
        raise _no_step(analysis, args.step) from None


def step_option(parser: argparse.ArgumentParser) -> None:
    """`--step N`: one step only."""
    parser.add_argument(
        "--step", type=int, default=None, metavar="N", help="only ProfilerStep#N"
    )


def critical_result(
    kind: type[CriticalResult], analysis: Analysis, args: argparse.Namespace
) -> CriticalResult:
    """HTA's critical path over the steps' range and per step (or one step)."""
    if args.step is not None and all(
        step.number != args.step for step in analysis.steps
    ):
        raise _no_step(analysis, args.step)
    return kind.of(analysis, args.step)


def memory_options(parser: argparse.ArgumentParser) -> None:
    """`memory --timeline`."""
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="each device over the window: a sparkline in text, the series in "
        "JSON (at most 512 points, each its bucket's highest level), the peak "
        "and the operator holding it",
    )


def memory_result(
    kind: type[MemoryResult], analysis: Analysis, args: argparse.Namespace
) -> MemoryResult:
    """The memory figures, with each device's timeline when asked."""
    return kind.of(analysis, timeline=args.timeline)


def gaps_options(parser: argparse.ArgumentParser) -> None:
    """`gaps`: the shortest gap listed, at most N gaps."""
    from tui.core.findings.weights import SLIVER_NS

    parser.add_argument(
        "--min-us",
        type=float,
        metavar="N",
        default=SLIVER_NS / 1000,
        help="list gaps of N µs or more; the shorter ones are summed in one line "
        f"(default: {SLIVER_NS / 1000:g})",
    )
    parser.add_argument(
        "--limit", type=int, metavar="N", help="list at most N gaps, the largest"
    )


def gaps_checked(args: argparse.Namespace) -> None:
    """Refuse a negative or not finite `--min-us`, a negative `--limit`."""
    import math

    if not (math.isfinite(args.min_us) and args.min_us >= 0):
        raise CommandError("--min-us must be 0 or more")
    limit_checked(args)


def gaps_result(
    kind: type[GapsResult], analysis: Analysis, args: argparse.Namespace
) -> GapsResult:
    """The gaps in the data zones, those of `--min-us` or more listed."""
    return kind.of(analysis, round(args.min_us * 1000), args.limit)


def zones_options(parser: argparse.ArgumentParser) -> None:
    """`zones --all`, `--wide`."""
    parser.add_argument("--all", action="store_true", help="list every candidate")
    parser.add_argument(
        "--wide",
        action="store_true",
        help="every name whole (default: the table takes the terminal's width and "
        "cuts longer names at their end; --json always has them whole)",
    )


def zones_text(result: ZonesResult, args: argparse.Namespace) -> str:
    """The candidate zones, the first 40 unless `--all`, as wide as the terminal
    unless `--wide`."""
    import shutil

    from tui.report.zones import zones_text as words

    width = None if args.wide else shutil.get_terminal_size().columns
    return words(result, None if args.all else 40, width) + "\n"


def min_share_option(parser: argparse.ArgumentParser) -> None:
    """`--min-share PCT`: the share of the median step under which a finding is minor."""
    from tui.core.findings.weights import DEFAULT_MIN_SHARE

    parser.add_argument(
        "--min-share",
        type=float,
        metavar="PCT",
        default=100.0 * DEFAULT_MIN_SHARE,
        help="a finding costing less than PCT %% of the median step is minor "
        f"(default: {100.0 * DEFAULT_MIN_SHARE:g})",
    )


def min_share_checked(args: argparse.Namespace) -> None:
    """Refuse a `--min-share` that is not a percentage."""
    import math

    if not (math.isfinite(args.min_share) and 0.0 <= args.min_share <= 100.0):
        raise CommandError("--min-share must be a percentage from 0 to 100")


def findings_result(
    kind: type[FindingsResult], analysis: Analysis, args: argparse.Namespace
) -> FindingsResult:
    """The findings weighed, those under `--min-share` minor."""
    return kind.of(analysis, args.min_share / 100.0)


def report_output(parser: argparse.ArgumentParser) -> None:
    """`report`: `--md` or `--json`."""
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--md", action="store_true", help="print Markdown (to paste in a ticket)"
    )
    output.add_argument("--json", action="store_true", help=JSON_HELP)


def report_result(
    kind: type[ReportResult], analysis: Analysis, args: argparse.Namespace
) -> ReportResult:
    """The report with the capture's notes; notes that cannot be read are warned
    about, never fatal."""
    from pathlib import Path

    from tui.notes.store import NotesStore

    store = NotesStore.open(Path(args.trace))
    for problem in store.problems:
        warn(problem)
    return kind.of(analysis, store.notes, args.min_share / 100.0)


def report_text(result: ReportResult, args: argparse.Namespace) -> str:
    """The report as text, or as Markdown with `--md`."""
    if args.md:
        from pathlib import Path

        from tui.report.report_markdown import report_markdown

        return report_markdown(result, Path(args.trace).name)
    from tui.report.report_text import report_text as words

    return words(result) + "\n"

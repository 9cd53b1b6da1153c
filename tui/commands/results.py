"""The result commands as one table: each row a command that opens a capture,
computes one typed result from it and prints it as text or JSON.

`steptrace summary|ops|kernels|copies|syncs|critical|queue|memory|gaps|zones|report|findings TRACE`: a row
says its own options, how it computes its result from the opened capture and,
when not as every other, how it prints; `run` is the one way they all run
(open with `tui.core.opening`, words from `tui.report`). Every import that costs
is inside a function, so `--help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.commands._common import add_workers_option
from tui.commands._zones import add_zone_option

if TYPE_CHECKING:
    from tui.core.figures.analysis import Analysis
    from tui.core.results.copies import CopiesResult
    from tui.core.results.critical import CriticalResult
    from tui.core.results.findings import FindingsResult
    from tui.core.results.gaps import GapsResult
    from tui.core.results.kernels import KernelsResult
    from tui.core.results.memory import MemoryResult
    from tui.core.results.ops import OpsResult
    from tui.core.results.queue import QueueResult
    from tui.core.results.summary import SummaryResult
    from tui.core.results.syncs import SyncsResult
    from tui.core.results.zones import ZonesResult
    from tui.report.report import ReportResult

TRACE_HELP = "a .json or .json.gz Kineto/Chrome trace"
JSON_HELP = "print JSON (see README)"


class Refused(Exception):
    """The command cannot answer as asked (the line says why; exit status 2)."""


@dataclass(frozen=True)
class ResultCommand:
    """One row: a command computing one result from an opened capture.

    `compute` makes the result from the analysis; `text` is what stdout gets
    without `--json` (the result's words from tui.report, imported when
    printed), JSON is the result's own; `options` adds the command's own flags
    (after `--zone`, before `--json`); `output` adds `--json` (and any other
    output flag); `check` refuses bad flags before the capture is read.
    """

    help: str
    compute: Callable[[Analysis, argparse.Namespace], Any]
    text: Callable[[Any, argparse.Namespace], str]
    description: str | None = None
    zones: bool = False
    workers: bool = False
    options: Callable[[argparse.ArgumentParser], None] | None = None
    output: Callable[[argparse.ArgumentParser], None] | None = None
    check: Callable[[argparse.Namespace], str | None] | None = None
    json: Callable[[Any], Any] | None = None


def register(subparsers: Any, name: str) -> None:
    """Add the subcommand `name` of the table, with its flags in their usual order."""
    command = TABLE[name]
    parser = subparsers.add_parser(
        name, help=command.help, description=command.description
    )
    parser.add_argument("trace", help=TRACE_HELP)
    if command.zones:
        add_zone_option(parser)
    if command.options is not None:
        command.options(parser)
    if command.output is not None:
        command.output(parser)
    else:
        parser.add_argument("--json", action="store_true", help=JSON_HELP)
    if command.workers:
        add_workers_option(parser)
    parser.set_defaults(func=partial(run, command))


def run(command: ResultCommand, args: argparse.Namespace) -> int:
    """Open the capture, compute the row's result, print it; 2 for a flag, a
    zone or a step refused (one line each on stderr)."""
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
        return _run(command, args)
    finally:
        gc.unfreeze()


def _run(command: ResultCommand, args: argparse.Namespace) -> int:
    from tui.commands._common import print_json, progress_on_stderr
    from tui.commands._zones import print_refusal
    from tui.core.opening.capture import open_capture
    from tui.core.opening.zones import ZoneRefusal

    problem = command.check(args) if command.check is not None else None
    if problem is not None:
        print(f"steptrace: {problem}", file=sys.stderr)
        return 2
    with progress_on_stderr() as progress:
        opened = open_capture(
            args.trace,
            asked=args.zone if command.zones else (),
            progress=progress,
            workers=args.workers if command.workers else None,
        )
    if isinstance(opened, ZoneRefusal):
        print_refusal(opened)
        return 2
    try:
        result = command.compute(opened.analysis, args)
    except Refused as refused:
        print(f"steptrace: {refused}", file=sys.stderr)
        return 2
    if args.json:
        print_json(result.to_json() if command.json is None else command.json(result))
    else:
        sys.stdout.write(command.text(result, args))
    return 0


# -- the rows' own parts ---------------------------------------------------------


def _limit_checked(args: argparse.Namespace) -> str | None:
    if args.limit is not None and args.limit < 0:
        return "--limit must be 0 or more"
    return None


def _no_step(analysis: Analysis, number: int) -> Refused:
    numbers = ", ".join(str(step.number) for step in analysis.steps) or "none"
    return Refused(f"no step {number} in this trace (steps: {numbers})")


def _summary(analysis: Analysis, args: argparse.Namespace) -> SummaryResult:
    from tui.core.results.summary import SummaryResult

    return SummaryResult.of(analysis)


def _summary_text(result: SummaryResult, args: argparse.Namespace) -> str:
    from tui.report.summary import summary_text

    return summary_text(result) + "\n"


def _ops_options(parser: argparse.ArgumentParser) -> None:
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
        "--group-by",
        choices=("name", "shape"),
        default="name",
        help="rows per operator name (default), or per name and input shapes "
        "as key_averages(group_by_input_shape=True)",
    )


def _ops(analysis: Analysis, args: argparse.Namespace) -> OpsResult:
    """torch's key_averages() per name (or name and shapes), whole trace or one step."""
    from tui.core.results.ops import OpsResult

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

        return OpsResult.of(
            shape_op_table(analysis, start, end),
            sort=args.sort,
            device=args.device,
            limit=args.limit,
            scope=scope,
            shapes_recorded=shapes_in_trace(analysis.trace),
        )
    return OpsResult.of(
        analysis.op_table(start, end),
        sort=args.sort,
        device=args.device,
        limit=args.limit,
        scope=scope,
    )


def _ops_text(result: OpsResult, args: argparse.Namespace) -> str:
    from tui.report.ops import ops_text

    return ops_text(result) + "\n"


def _kernels_options(parser: argparse.ArgumentParser) -> None:
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


def _kernels(analysis: Analysis, args: argparse.Namespace) -> KernelsResult:
    from tui.core.results.kernels import KernelsResult

    try:
        return KernelsResult.of(analysis, step=args.step, limit=args.limit)
    except KeyError:
        raise _no_step(analysis, args.step) from None


def _kernels_text(result: KernelsResult, args: argparse.Namespace) -> str:
    from tui.report.kernels import kernels_text

    return kernels_text(result) + "\n"


def _copies(analysis: Analysis, args: argparse.Namespace) -> CopiesResult:
    from tui.core.results.copies import CopiesResult

    return CopiesResult.of(analysis)


def _copies_text(result: CopiesResult, args: argparse.Namespace) -> str:
    from tui.report.copies import copies_text

    return copies_text(result) + "\n"


def _syncs(analysis: Analysis, args: argparse.Namespace) -> SyncsResult:
    from tui.core.results.syncs import SyncsResult

    return SyncsResult.of(analysis)


def _syncs_text(result: SyncsResult, args: argparse.Namespace) -> str:
    from tui.report.syncs import syncs_text

    return syncs_text(result) + "\n"


def _critical_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--step", type=int, default=None, metavar="N", help="only ProfilerStep#N"
    )


def _critical(analysis: Analysis, args: argparse.Namespace) -> CriticalResult:
    """HTA's critical path over the steps' range and per step (or one step)."""
    from tui.core.results.critical import CriticalResult

    if args.step is not None and all(
        step.number != args.step for step in analysis.steps
    ):
        raise _no_step(analysis, args.step)
    return CriticalResult.of(analysis, args.step)


def _critical_text(result: CriticalResult, args: argparse.Namespace) -> str:
    from tui.report.critical import critical_text

    return critical_text(result) + "\n"


def _queue(analysis: Analysis, args: argparse.Namespace) -> QueueResult:
    from tui.core.results.queue import QueueResult

    return QueueResult.of(analysis)


def _queue_text(result: QueueResult, args: argparse.Namespace) -> str:
    from tui.report.queue import queue_text

    return queue_text(result) + "\n"


def _memory_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="each device over the window: a sparkline in text, the series in "
        "JSON (at most 512 points, each its bucket's highest level), the peak "
        "and the operator holding it",
    )


def _memory(analysis: Analysis, args: argparse.Namespace) -> MemoryResult:
    from tui.core.results.memory import MemoryResult

    return MemoryResult.of(analysis, timeline=args.timeline)


def _memory_text(result: MemoryResult, args: argparse.Namespace) -> str:
    from tui.report.memory import memory_text

    return memory_text(result) + "\n"


def _gaps_options(parser: argparse.ArgumentParser) -> None:
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


def _gaps_checked(args: argparse.Namespace) -> str | None:
    import math

    if not (math.isfinite(args.min_us) and args.min_us >= 0):
        return "--min-us must be 0 or more"
    return _limit_checked(args)


def _gaps(analysis: Analysis, args: argparse.Namespace) -> GapsResult:
    from tui.core.results.gaps import GapsResult

    return GapsResult.of(analysis, round(args.min_us * 1000), args.limit)


def _gaps_text(result: GapsResult, args: argparse.Namespace) -> str:
    from tui.report.gaps import gaps_text

    return gaps_text(result) + "\n"


def _zones_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true", help="list every candidate")


def _zones(analysis: Analysis, args: argparse.Namespace) -> ZonesResult:
    from tui.core.results.zones import ZonesResult

    return ZonesResult.of(analysis)


def _zones_text(result: ZonesResult, args: argparse.Namespace) -> str:
    from tui.report.zones import zones_text

    return zones_text(result, None if args.all else 40) + "\n"


def _min_share_option(parser: argparse.ArgumentParser) -> None:
    from tui.core.findings.weights import DEFAULT_MIN_SHARE

    parser.add_argument(
        "--min-share",
        type=float,
        metavar="PCT",
        default=100.0 * DEFAULT_MIN_SHARE,
        help="a finding costing less than PCT %% of the median step is minor "
        f"(default: {100.0 * DEFAULT_MIN_SHARE:g})",
    )


def _min_share_checked(args: argparse.Namespace) -> str | None:
    import math

    if not (math.isfinite(args.min_share) and 0.0 <= args.min_share <= 100.0):
        return "--min-share must be a percentage from 0 to 100"
    return None


def _findings(analysis: Analysis, args: argparse.Namespace) -> FindingsResult:
    from tui.core.results.findings import FindingsResult

    return FindingsResult.of(analysis, args.min_share / 100.0)


def _findings_text(result: FindingsResult, args: argparse.Namespace) -> str:
    from tui.report.findings import findings_text

    return findings_text(result) + "\n"


def _findings_json(result: FindingsResult) -> Any:
    from tui.report.findings import findings_json

    return findings_json(result)


def _report_options(parser: argparse.ArgumentParser) -> None:
    _min_share_option(parser)


def _report_output(parser: argparse.ArgumentParser) -> None:
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--md", action="store_true", help="print Markdown (to paste in a ticket)"
    )
    output.add_argument("--json", action="store_true", help=JSON_HELP)


def _report(analysis: Analysis, args: argparse.Namespace) -> ReportResult:
    """The report with the capture's notes; notes that cannot be read are warned
    about, never fatal."""
    from pathlib import Path

    from tui.core.base.textsafe import printable
    from tui.notes.store import NotesStore
    from tui.report.report import ReportResult

    store = NotesStore.open(Path(args.trace))
    for problem in store.problems:
        print(f"steptrace: warning: {printable(problem)}", file=sys.stderr)
    return ReportResult.of(analysis, store.notes, args.min_share / 100.0)


def _report_text(result: ReportResult, args: argparse.Namespace) -> str:
    """The report as text, or as Markdown with `--md`."""
    if args.md:
        from pathlib import Path

        from tui.report.report_markdown import report_markdown

        return report_markdown(result, Path(args.trace).name)
    from tui.report.report_text import report_text

    return report_text(result) + "\n"


TABLE: dict[str, ResultCommand] = {
    "summary": ResultCommand(
        "steps, zones, device busy and gaps of a capture",
        _summary,
        _summary_text,
        zones=True,
        workers=True,
    ),
    "ops": ResultCommand(
        "operator table: calls, self/total CPU and GPU time",
        _ops,
        _ops_text,
        workers=True,
        options=_ops_options,
        check=_limit_checked,
    ),
    "kernels": ResultCommand(
        "kernels per name: count, min/median/max, busy share, launch figures",
        _kernels,
        _kernels_text,
        options=_kernels_options,
        check=_limit_checked,
    ),
    "copies": ResultCommand(
        "host↔device copies and sets: count, bytes, time, per step, repeated",
        _copies,
        _copies_text,
    ),
    "syncs": ResultCommand(
        "host synchronisations: the causing operator, host time blocked, device idle"
        " after; per kind, operator and step",
        _syncs,
        _syncs_text,
    ),
    "critical": ResultCommand(
        "critical path per step (HTA 0.5.0's): its time split into CPU, kernels, "
        "gaps between kernels and launch delays",
        _critical,
        _critical_text,
        options=_critical_options,
    ),
    "queue": ResultCommand(
        "launch queue per stream (HTA's queue length): ops launched and not "
        "started over time, time at a full queue, longest wait",
        _queue,
        _queue_text,
    ),
    "memory": ResultCommand(
        "profile_memory captures: peak allocated per step, bytes per operator",
        _memory,
        _memory_text,
        options=_memory_options,
    ),
    "gaps": ResultCommand(
        "device idle time inside data zones (lecture_batch_cpu…)",
        _gaps,
        _gaps_text,
        zones=True,
        workers=True,
        options=_gaps_options,
        check=_gaps_checked,
    ),
    "zones": ResultCommand(
        "ranges that can be the data zone (annotations, DataLoader, operators)",
        _zones,
        _zones_text,
        zones=True,
        options=_zones_options,
    ),
    "report": ResultCommand(
        "one document in the method's order: question, window, CPU/GPU/waiting, "
        "findings, notes, instrumentation, resources",
        _report,
        _report_text,
        description="The capture's report, in the method's order: question, "
        "scenario, unit, window and start-up, CPU time / GPU work / waiting kept "
        "apart, findings (possible observation → hypothesis → next check), the "
        "notes with their verdicts, instrumentation and its cost, and what the "
        "capture can and cannot say about resources.",
        zones=True,
        workers=True,
        options=_report_options,
        output=_report_output,
        check=_min_share_checked,
    ),
    "findings": ResultCommand(
        "the method's readings weighed by their cost per step, costliest first",
        _findings,
        _findings_text,
        description="Every reading of the capture with its cost per step (an "
        "upper bound of what fixing it could save) and its share of the median "
        "step: likely, possible, minor (under --min-share), not seen, or not "
        "observed with the reason; costliest first.",
        zones=True,
        workers=True,
        options=_min_share_option,
        check=_min_share_checked,
        json=_findings_json,
    ),
}

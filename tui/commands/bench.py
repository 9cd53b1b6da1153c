"""`steptrace bench demo`: time the demo's steps without the profiler, to check a change.

Every run starts from the same model, optimizer and RNG states and repeats
the same warm-up; raw step times, their range and the loss are written to a
RESULT.json that `steptrace compare` reads. Torch is imported only in `run`.
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.commands.errors import CommandError, notice, warn

EPILOG = """\
examples:
  steptrace bench demo -o before.json
  steptrace bench demo --preload -o after.json      batches prepared in advance
  steptrace compare before.json after.json

Your own step: call collector.bench(step, model=..., optimizer=...) from Python.
"""


def register(subparsers: Any) -> None:
    """Add the `bench` subcommand."""
    parser = subparsers.add_parser(
        "bench",
        help="time steps without the profiler (same starting state, several runs)",
        description="Time the demo's steps without the profiler: same starting state, same warm-up, several runs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "workload", metavar="demo", help="the workload to time (the embedded demo)"
    )
    parser.add_argument(
        "-o",
        "--output",
        default="auto",
        help="RESULT.json to create (default: auto, a fresh name)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        help="runs, each from the same starting state (default 5)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=2,
        help="untimed steps before each run (default 2)",
    )
    parser.add_argument(
        "--steps", type=int, default=20, help="timed steps per run (default 20)"
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where the demo runs (default auto: the GPU when torch sees one)",
    )
    parser.add_argument(
        "--read-delay-ms",
        type=float,
        metavar="N",
        help="read delay per item (default 1)",
    )
    parser.add_argument(
        "--preload",
        action="store_true",
        help="prepare batches in advance (the next check)",
    )
    parser.set_defaults(func=run)


def _command_line(args: argparse.Namespace) -> list[str]:
    """The bench as a command line, recorded in RESULT.json (rebuilt: main() may not own sys.argv)."""
    words = [
        "steptrace",
        "bench",
        args.workload,
        "-o",
        str(args.output),
        "--device",
        args.device,
    ]
    words += [
        "--runs",
        str(args.runs),
        "--warmup",
        str(args.warmup),
        "--steps",
        str(args.steps),
    ]
    if args.read_delay_ms is not None:
        words += ["--read-delay-ms", f"{args.read_delay_ms:g}"]
    return [*words, "--preload"] if args.preload else words


def run(args: argparse.Namespace) -> int:
    """Bench the demo and write RESULT.json; returns the exit status."""
    if args.workload != "demo":
        raise CommandError(
            f"unknown workload {args.workload!r}: the command line benches `demo`; "
            "for your own step call collector.bench(step, model=..., optimizer=...)"
        )
    import collector
    from collector.errors import CollectorError

    problem = collector.torch_import_error()
    if problem is not None:
        raise CommandError(problem)
    from collector.compare import format_value
    from collector.demo import DEFAULT_READ_DELAY_MS, bench_demo

    try:
        result = bench_demo(
            args.output,
            device=args.device,
            runs=args.runs,
            warmup=args.warmup,
            steps=args.steps,
            read_delay_ms=DEFAULT_READ_DELAY_MS
            if args.read_delay_ms is None
            else args.read_delay_ms,
            preload=args.preload,
            progress=True,
            command=_command_line(args),
        )
    except CollectorError as error:
        raise CommandError(str(error)) from error
    wall = result.data["summary"]["wall_ms"]
    notice(
        f"{args.runs} runs × {args.steps} steps: median {format_value(wall['median'])} ms/step, "
        f"run medians {format_value(wall['min'])}–{format_value(wall['max'])}"
    )
    for warning in result.warnings:
        warn(warning)
    print(result.path)
    return 0

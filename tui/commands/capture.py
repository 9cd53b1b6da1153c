"""`steptrace capture`: record a bounded window of steps to a fresh trace file.

Two forms: `steptrace capture demo` runs the embedded four-step example, and
`steptrace capture -o PATH -- python train.py ARGS` runs an unmodified
training script under the profiler (one step per optimizer step); with
`-o DIR -- torchrun ARGS` every rank of the job writes `DIR/rank-N.pt.trace.json`.
Torch is imported only inside `run`, through `collector`, never at module level.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui.commands.errors import CommandError, notice

EPILOG = """\
examples:
  steptrace capture demo                          the method's four-step example
  steptrace capture demo --device cuda -o demo.json
  steptrace capture -o trace.json --question "is the GPU waiting for data?" -- python train.py --epochs 1
  steptrace capture -o run1 -- torchrun --nproc-per-node 8 train.py --epochs 1

The output file is never overwritten; -o auto (the default) picks a fresh
timestamped name. The window is WAIT,WARMUP,ACTIVE[,REPEAT[,SKIP_FIRST]]
(default 1,1,2). A zero-code capture needs wait+warmup+active optimizer steps
after the first DataLoader read; the script's output and exit status pass
through (exit 3 when the script ran fine but no trace could be written).
Under torchrun, -o names the run folder (auto: a fresh steptrace-run-…
folder); every rank records the same window and writes rank-N.pt.trace.json
there; a folder that already holds a rank trace is refused before the job
starts. torchrun's output and exit status pass through.
"""


def register(subparsers: Any) -> None:
    """Add the `capture` subcommand."""
    parser = subparsers.add_parser(
        "capture",
        help="record a bounded window of steps to a fresh trace file",
        description="Record a bounded window of steps (wait → warmup → active) to a fresh trace file.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target",
        nargs="*",
        metavar="demo | -- python SCRIPT ARGS | -- torchrun ARGS",
        help="'demo', or the training command after --",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="auto",
        help="trace file to create, or the run folder under torchrun (default: auto, a fresh name)",
    )
    parser.add_argument(
        "--window",
        default="1,1,2",
        metavar="W,U,A",
        help="wait,warmup,active[,repeat[,skip_first]]",
    )
    parser.add_argument(
        "--question", help="the question this capture answers (recorded in the trace)"
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        help="where the work runs (default auto: the GPU when torch sees one, else the CPU)",
    )
    parser.add_argument(
        "--read-delay-ms",
        type=float,
        metavar="N",
        help="demo: read delay per item (default 1)",
    )
    parser.add_argument(
        "--preload",
        action="store_true",
        help="demo: prepare batches in advance (the next check)",
    )
    parser.add_argument(
        "--data-zone",
        default="lecture_batch_cpu",
        help="script: the zone around DataLoader reads",
    )
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="script: scenario field (shapes, batch_size, precision, mode, compiled, data_source, "
        "inputs_simplified, simplified_note); repeatable",
    )
    parser.add_argument(
        "--record-shapes",
        action="store_true",
        help="record input shapes (adds cost, keeps tensors)",
    )
    parser.add_argument(
        "--with-stack",
        action="store_true",
        help="record Python stacks (adds cost, leaks paths)",
    )
    parser.add_argument(
        "--profile-memory", action="store_true", help="track allocations (adds cost)"
    )
    parser.add_argument(
        "--host-name",
        action="store_true",
        help="record the host name in the description",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Capture the demo or a script; returns the exit status (the script's, for a script)."""
    target: list[str] = list(args.target)
    if not target:
        raise CommandError(
            "say what to capture: `steptrace capture demo` or `steptrace capture -o trace.json -- python train.py`"
        )
    if target[0] == "demo" and len(target) > 1:
        raise CommandError(
            "`capture demo` takes options, not arguments; a script goes after --: -- python train.py ARGS"
        )
    from collector.errors import CollectorError

    try:
        if target == ["demo"]:
            return _run_demo(args)
        return _run_script(args, target)
    except CollectorError as error:
        raise CommandError(str(error)) from error


def _demo_command_line(args: argparse.Namespace) -> list[str]:
    """The demo capture as a command line, for its description (rebuilt: main() may not own sys.argv)."""
    words = [
        "steptrace",
        "capture",
        "demo",
        "-o",
        str(args.output),
        "--window",
        args.window,
    ]
    if args.device:
        words += ["--device", args.device]
    if args.read_delay_ms is not None:
        words += ["--read-delay-ms", f"{args.read_delay_ms:g}"]
    if args.question:
        words += ["--question", args.question]
    for flag in ("preload", "record_shapes", "with_stack", "profile_memory"):
        if getattr(args, flag):
            words.append("--" + flag.replace("_", "-"))
    return words


def _run_demo(args: argparse.Namespace) -> int:
    import collector
    from collector.schema import Window

    if args.scenario or args.data_zone != "lecture_batch_cpu":
        raise CommandError(
            "--scenario and --data-zone apply to a script capture; the demo sets its own"
        )
    window = Window.parse(args.window)
    problem = collector.torch_import_error()
    if problem is not None:
        raise CommandError(problem)
    from collector.demo import DEFAULT_READ_DELAY_MS, run_demo

    path = run_demo(
        args.output,
        device=args.device or "auto",
        window=window,
        read_delay_ms=DEFAULT_READ_DELAY_MS
        if args.read_delay_ms is None
        else args.read_delay_ms,
        preload=args.preload,
        question=args.question,
        record_shapes=args.record_shapes,
        with_stack=args.with_stack,
        profile_memory=args.profile_memory,
        progress=True,
        command=_demo_command_line(args),
    )
    print(path)
    return 0


def _run_script(args: argparse.Namespace, command: list[str]) -> int:
    import importlib.util

    from collector import TORCH_MISSING
    from collector.launch import prepare, run_zero_code, written_output
    from collector.schema import Window

    if args.read_delay_ms is not None or args.preload:
        raise CommandError("--read-delay-ms and --preload apply to the demo only")
    script, settings = prepare(
        command,
        args.output,
        window=Window.parse(args.window),
        question=args.question,
        device=args.device or "auto",
        data_zone=args.data_zone,
        scenario_pairs=args.scenario,
        record_shapes=args.record_shapes,
        with_stack=args.with_stack,
        profile_memory=args.profile_memory,
        include_host_name=args.host_name,
    )
    if (
        script.interpreter == sys.executable
        and importlib.util.find_spec("torch") is None
    ):
        raise CommandError(f"torch is not installed here: {TORCH_MISSING}")
    if script.replaced is not None:
        notice(
            f"the python on PATH ({script.replaced}) cannot import torch; "
            f"running it with steptrace's own interpreter, {sys.executable}"
        )
    status = run_zero_code(script, settings)
    written = written_output(settings)
    if written is not None:
        print(written)
    return status

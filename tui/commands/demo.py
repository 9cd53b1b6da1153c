"""`steptrace demo`: capture the method's four-step example, then open it.

The capture runs in a child `steptrace capture demo` so the explorer's
process never imports torch.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tui.commands.errors import CommandError

INSTALL_HINT = "install the collect extra: pip install 'steptrace[collect]'"


def register(subparsers: Any) -> None:
    """Add the `demo` subcommand."""
    parser = subparsers.add_parser(
        "demo",
        help="capture the four-step demo and open it",
        description="Capture the demo (lecture_batch_cpu, transfert, entrainement"
        " under wait 1, warmup 1, active 2) to a fresh file under captures/, then open it.",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="auto",
        help="trace file to create (default: auto, a fresh name under captures/)",
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where the demo runs (default auto: the GPU when torch sees one it can profile, else the CPU)",
    )
    parser.add_argument(
        "--no-open", action="store_true", help="capture only; print the trace path"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Capture in a child process, then open the trace it wrote."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise CommandError(f"the demo needs torch: {INSTALL_HINT}")
    if not args.no_open:
        # Checked before the capture, which takes a while and is wasted without a screen.
        from tui.commands.open import NO_TERMINAL, has_terminal

        if not has_terminal():
            raise CommandError(
                f"{NO_TERMINAL}; `steptrace demo --no-open` captures without opening"
            )
    argv = [sys.executable, "-m", "tui", "capture", "demo", "-o", args.output]
    argv += ["--device", args.device]
    import subprocess

    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    last = ""
    for line in process.stdout:
        sys.stdout.write(line)
        if line.strip():
            last = line.strip()
    status = process.wait()
    if status != 0:
        return status
    path = Path(last)
    if not path.is_file():
        raise CommandError("the demo ran but wrote no trace file", status=3)
    if args.no_open:
        return 0
    from tui.commands.open import open_in_app

    return open_in_app(path)

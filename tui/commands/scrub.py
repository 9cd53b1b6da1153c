"""`steptrace scrub` (being built)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `scrub` subcommand."""
    parser = subparsers.add_parser("scrub", help="(not available yet)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not available yet."""
    print("steptrace: 'scrub' is not available yet", file=sys.stderr)
    return 2

"""`steptrace bench` (being built)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `bench` subcommand."""
    parser = subparsers.add_parser("bench", help="(not available yet)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not available yet."""
    print("steptrace: 'bench' is not available yet", file=sys.stderr)
    return 2

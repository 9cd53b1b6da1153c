"""`steptrace summary` (being built)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `summary` subcommand."""
    parser = subparsers.add_parser("summary", help="(not available yet)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not available yet."""
    print("steptrace: 'summary' is not available yet", file=sys.stderr)
    return 2

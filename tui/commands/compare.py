"""`steptrace compare` (being built)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `compare` subcommand."""
    parser = subparsers.add_parser("compare", help="(not available yet)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not available yet."""
    print("steptrace: 'compare' is not available yet", file=sys.stderr)
    return 2

"""`steptrace demo` (being built)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `demo` subcommand."""
    parser = subparsers.add_parser("demo", help="(not available yet)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not available yet."""
    print("steptrace: 'demo' is not available yet", file=sys.stderr)
    return 2

"""`steptrace ops` (being built)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `ops` subcommand."""
    parser = subparsers.add_parser("ops", help="(not available yet)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not available yet."""
    print("steptrace: 'ops' is not available yet", file=sys.stderr)
    return 2

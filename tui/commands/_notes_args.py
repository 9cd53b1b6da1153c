"""What both halves of `steptrace notes` read: its verbs, usage and output flags."""

from __future__ import annotations

import argparse

VERBS = ("add", "set", "rm")

USAGE = """\
steptrace notes TRACE [--json | --md]
       steptrace notes add TRACE --hypothesis TEXT [--observation TEXT]
                 [--next-check TEXT] [--anchor step:N|op:NAME|range:START-END]
                 [--author NAME]
       steptrace notes set TRACE ID [--status STATUS] [--result TEXT]
                 [--before V,V,...] [--after V,V,...] [--unit UNIT]
                 [--tested-by AFTER] [any option of add]
       steptrace notes rm TRACE ID"""


def add_format_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", action="store_true", help="print the notes as JSON")
    group.add_argument(
        "--md", action="store_true", help="print a Markdown report with the figures"
    )

"""The `--zone NAME` option shared by the commands that read the data zone, and
its refusal."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tui.commands.errors import CommandError

if TYPE_CHECKING:
    from tui.core.opening.zones import ZoneRefusal

ZONE_HELP = (
    "use NAME as the data zone (repeatable; default: the capture's own data zone, "
    "lecture_batch_cpu and enumerate(DataLoader)#… ranges)"
)


def add_zone_option(parser: argparse.ArgumentParser) -> None:
    """Add `--zone NAME` (repeatable)."""
    parser.add_argument(
        "--zone", action="append", default=[], metavar="NAME", help=ZONE_HELP
    )


def zone_refused(refusal: ZoneRefusal) -> CommandError:
    """The command's refusal of a zone the core refused: one line per name."""
    from tui.report.refusals import zone_refusal_lines

    return CommandError(*zone_refusal_lines(refusal))

"""A command's refusal, raised wherever it refuses and printed in one place.

A command that cannot run as asked raises `CommandError`; `tui.cli.main`
catches it and writes each line as `steptrace: LINE` on stderr, terminal-safe,
and exits with its status. Nothing is printed where the refusal is found.
Refusals the core returns as values (a zone refused) or raises as its own
errors become a `CommandError` at the command that meets them.
"""

from __future__ import annotations

import sys

REFUSED = 2
"""The exit status of a refusal: the command was asked what it cannot do."""

WARNED = 3
"""The exit status of a result command under `--strict` when the capture has
warnings (its output is printed all the same)."""


class CommandError(Exception):
    """A command refuses: one line or more saying why, and the exit status."""

    def __init__(self, *lines: str, status: int = REFUSED) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.status = status


def print_refusal(error: CommandError) -> None:
    """The refusal on stderr, each line after `steptrace: `, unsafe characters escaped."""
    from tui.core.base.textsafe import printable

    for line in error.lines:
        print(f"steptrace: {printable(line)}", file=sys.stderr)


def notice(message: str) -> None:
    """A line for the user on stderr, apart from the output: `steptrace: MESSAGE`."""
    from tui.core.base.textsafe import printable

    print(f"steptrace: {printable(message)}", file=sys.stderr)


def warn(message: str) -> None:
    """A warning on stderr (the command goes on): `steptrace: warning: MESSAGE`."""
    from tui.core.base.textsafe import printable

    print(f"steptrace: warning: {printable(message)}", file=sys.stderr)

"""The events array cut between events into JSON array files DuckDB reads, one
core each, in a scratch folder removed on every way out.

A cut is made at a `}`, `,`, `{` run (Kineto's layout, one line or many, any
indentation, `\\r\\n`); one inside a string or a nested object leaves its piece
unbalanced, so DuckDB refuses it and the usual decoder takes the trace: a
piece that is read is a run of whole events.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterator
from typing import Any

from tui.core.ingest.parallel.driver import _LIVE_SCRATCH, _new_scratch
from tui.core.ingest.parallel.layout import EventsLayout, event_ranges

# Pieces smaller than this are not worth a file of their own.
MIN_PIECE_BYTES = 8 * 1024 * 1024


class NoScratchRoom(Exception):
    """The scratch folder cannot hold the pieces (full, or not writable)."""


def piece_ranges(data: Any, layout: EventsLayout, parts: int) -> list[tuple[int, int]]:
    """The events array cut into at most `parts` ranges of whole events (by guess)."""
    size = layout.end - layout.start
    wanted = max(1, min(parts, size // MIN_PIECE_BYTES))
    return event_ranges(data, layout.start, layout.end, wanted)


@contextlib.contextmanager
def scratch_pieces(data: Any, ranges: list[tuple[int, int]]) -> Iterator[list[str]]:
    """Each range written as `[` … `]` to its own file; the folder is removed
    when the block ends, whatever ends it (a stopped pool worker's signal
    handler removes it too, as the parallel decoder's). NoScratchRoom when it
    cannot be written."""
    needed = sum(end - begin + 2 for begin, end in ranges)
    try:
        folder = _new_scratch(needed)
    except OSError as error:
        raise NoScratchRoom(str(error)) from None
    try:
        paths = []
        with memoryview(data) as view:
            for index, (begin, end) in enumerate(ranges):
                path = os.path.join(folder, f"piece-{index}.json")
                try:
                    with open(path, "wb") as handle:
                        handle.write(b"[")
                        handle.write(view[begin:end])
                        handle.write(b"]")
                except OSError as error:
                    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EACCES):
                        raise NoScratchRoom(str(error)) from None
                    raise
                paths.append(path)
        yield paths
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _LIVE_SCRATCH.discard(folder)

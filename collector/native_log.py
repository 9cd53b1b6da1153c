"""torch's native log lines, kept out of the user's terminal and in the trace.

Kineto, torch's profiler library, writes lines such as
`USDT:2026-12-02 00:07:54 25260:25260 SyncActivityProfilerHandler.cpp:52] profiler_start`
straight to file descriptor 2 as the profiler starts and stops, between the
capture's own progress lines. While the profiler starts, steps or stops, file
descriptor 2 is sent to a temporary file; routine lines (USDT, STAGE, INFO,
VERBOSE) are kept for the trace, under their level as Kineto keeps its own log
in a trace; its warnings and errors, and anything else, go on to the terminal
in the order they came. A process that torch aborts in there (an exception
reaching the end of one of its threads) dies with that file: Python's fault
handler then writes where it was to the terminal instead. Torch-free.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from typing import IO

_KINETO_LINE = re.compile(
    rb"^(?P<level>[A-Z]+):\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \S+:\d+\] "
)
ROUTINE_LEVELS = frozenset({"USDT", "STAGE", "INFO", "VERBOSE"})


@contextlib.contextmanager
def _fatal_errors_to(terminal: int) -> Iterator[None]:
    """Python's fault handler on, writing to `terminal`, while the block runs.

    Afterwards it is off again, or back on standard error where it was on
    (where Python's -X faulthandler and PYTHONFAULTHANDLER put it).
    """
    was_enabled = faulthandler.is_enabled()
    faulthandler.enable(file=terminal, all_threads=True)
    try:
        yield
    finally:
        if was_enabled:
            try:
                faulthandler.enable(file=sys.stderr, all_threads=True)
            except (AttributeError, ValueError, RuntimeError, OSError):
                faulthandler.enable(file=2, all_threads=True)  # no usable sys.stderr
        else:
            faulthandler.disable()


class NativeLog:
    """What the profiler's C++ side logged during a capture, by level, not yet written."""

    def __init__(self) -> None:
        self._levels: dict[str, list[str]] = {}
        self._sink: IO[bytes] | None = None
        self._read = 0
        self._terminal = 2
        self._partial = b""

    @contextlib.contextmanager
    def catching(self) -> Iterator[None]:
        """Send file descriptor 2 to a temporary file while the block runs, then sort it."""
        if self._sink is not None:  # already catching (a nested call)
            yield
            return
        sys.stderr.flush()
        try:
            terminal = os.dup(2)
        except OSError:  # no stderr to take: nothing can leak either
            yield
            return
        try:
            with tempfile.TemporaryFile() as sink, _fatal_errors_to(terminal):
                os.dup2(sink.fileno(), 2)
                self._sink, self._terminal, self._read = sink, terminal, 0
                try:
                    yield
                finally:
                    self.collect()
                    if self._partial:
                        self._sort(self._partial)
                        self._partial = b""
                    os.dup2(terminal, 2)
                    self._sink, self._terminal = None, 2
        finally:
            os.close(terminal)  # once the fault handler no longer writes to it

    def collect(self) -> None:
        """Sort what was written since the last look: routine lines kept, the rest shown."""
        sink = self._sink
        if sink is None:
            return
        sys.stderr.flush()
        # Read at an offset: descriptor 2 shares the file's position and keeps writing.
        size = os.fstat(sink.fileno()).st_size
        data = os.pread(sink.fileno(), size - self._read, self._read)
        self._read += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        for line in lines:
            self._sort(line)

    def _sort(self, line: bytes) -> None:
        match = _KINETO_LINE.match(line)
        level = match.group("level").decode() if match else None
        if level in ROUTINE_LEVELS:
            text = line.decode("utf-8", errors="replace").rstrip("\r")
            self._levels.setdefault(level, []).append(text)
            return
        with contextlib.suppress(OSError):
            os.write(self._terminal, line + b"\n")

    def take(self) -> dict[str, list[str]]:
        """The lines kept so far, by level; they are handed over once."""
        self.collect()
        levels, self._levels = self._levels, {}
        return levels

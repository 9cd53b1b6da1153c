"""Which files of a cache entry were checked whole, so a reopen need not read them again.

Every file of an entry carries a CRC; checking it reads the whole file (575 MB
on the 1.1 GB trace: about 0.1-0.2 s, more than the rest of a reopen). Once a
file's CRC has checked out, its stat stamp (size, modification and change
times, inode) is written in `verified.json`; a later reopen checks the CRC
only of a file whose stamp moved. Any write to a file moves its change time,
which no tool can set back, and a replaced file has another inode, so an
edited or damaged file is still checked (and refused). A stamp is kept only
for a file whose change time is SETTLED_NS older than the check (as git's
racy-clean rule), so a write in the same clock tick as the check cannot hide.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import orjson

VERIFIED = "verified.json"
SETTLED_NS = 2_000_000_000

Stamp = tuple[int, int, int, int]


def file_stamp(path: Path) -> Stamp:
    """Size, modification and change times and inode of a file (OSError if gone)."""
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


class Verified:
    """The stamps of an entry's files whose CRC checked out, read once per use."""

    def __init__(self, entry: Path) -> None:
        self.entry = entry
        self._stamps: dict[str, Stamp] = {}
        self._added: dict[str, Stamp] = {}
        with contextlib.suppress(OSError, ValueError, TypeError):
            stored = orjson.loads((entry / VERIFIED).read_bytes())
            if isinstance(stored, dict):
                self._stamps = {
                    str(name): (int(s[0]), int(s[1]), int(s[2]), int(s[3]))
                    for name, s in stored.items()
                    if isinstance(s, list) and len(s) == 4
                }

    def unchanged(self, name: str) -> bool:
        """Whether the file `name` is the one whose CRC was checked (not modified since)."""
        stamp = self._stamps.get(name)
        if stamp is None:
            return False
        try:
            return file_stamp(self.entry / name) == stamp
        except OSError:
            return False

    def checked(self, name: str) -> None:
        """Note that the CRC of `name` just checked out (kept once it has settled)."""
        try:
            stamp = file_stamp(self.entry / name)
        except OSError:
            return
        if time.time_ns() - stamp[2] > SETTLED_NS:
            self._added[name] = stamp

    def save(self) -> None:
        """Write the stamps noted (best effort: a stamp lost is one more check)."""
        if not self._added:
            return
        stamps = {**self._stamps, **self._added}
        staging = self.entry / f".{VERIFIED}.{os.getpid()}.{os.urandom(4).hex()}"
        try:
            staging.write_bytes(orjson.dumps(stamps))
            os.replace(staging, self.entry / VERIFIED)
        except OSError:
            with contextlib.suppress(OSError):
                staging.unlink()
            return
        self._stamps = stamps
        self._added = {}

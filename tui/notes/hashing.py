"""Content hash of a trace, computed in chunks so it can run in the background.

A trace can be gigabytes: the hash reports progress and can be cancelled, and
the notes store works before it is known (it only binds notes to the trace).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

CHUNK_SIZE = 4 * 1024 * 1024


class HashCancelled(Exception):
    """Hashing stopped because the caller asked it to."""


def sha256_file(
    path: str | os.PathLike[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> str:
    """The sha256 hex digest of the file at `path`, read chunk by chunk.

    `progress(done_bytes, total_bytes)` is called after each chunk;
    `cancelled()` (e.g. `threading.Event().is_set`) is checked before each one
    and raises HashCancelled when true. hashlib releases the GIL on large
    updates, so a worker thread does not stall the UI.
    """
    digest = hashlib.sha256()
    buffer = bytearray(max(1, chunk_size))
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as stream:
        total = os.fstat(stream.fileno()).st_size
        done = 0
        while True:
            if cancelled is not None and cancelled():
                raise HashCancelled(f"hashing {os.fspath(path)} was cancelled")
            count = stream.readinto(buffer)
            if not count:
                break
            digest.update(view[:count])
            done += count
            if progress is not None:
                progress(done, max(total, done))
    return digest.hexdigest()

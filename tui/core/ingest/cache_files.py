"""What the column cache reads of a trace file and leaves on disk.

A trace's identity (taken before and after it is read, so that a file still
being written is never kept), the CRC every file of an entry carries, and the
staging folders an entry is written in: a writer holds a lock in its folder,
so the next run removes the folders of writers that were killed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

from tui.core.base.paths import resolved as resolved_path
from tui.core.ingest.source import inflate_module

# A file up to this size is hashed whole for its key; a bigger one by
# _SAMPLE_BLOCKS blocks spread over it (its first and last included).
SAMPLE_WHOLE_BYTES = 8 * 1024 * 1024
_SAMPLE_BLOCKS = 16
_SAMPLE_BLOCK_BYTES = 64 * 1024
_READ_CHUNK = 1024 * 1024
# A staging folder without a lock, or a staging file, this old was left by a killed writer.
STALE_AFTER_S = 10 * 60
STAGING_PREFIX = ".staging-"
_WRITER_LOCK = ".writer"


def crc32(data: Any, value: int = 0) -> int:
    """CRC-32 of a buffer (zlib-ng's when installed: the same value, faster)."""
    crc: int = inflate_module().crc32(data, value)
    return crc


def file_identity(trace_path: str | os.PathLike[str]) -> dict[str, Any]:
    """What says a trace file is the one an entry was made from.

    Path, size, modification and change times, device and inode (an edit that
    keeps the size and restores the modification time still moves the change
    time) and a CRC of the bytes: all of them up to SAMPLE_WHOLE_BYTES, else of
    sampled blocks. Opened without blocking; OSError for anything but a
    regular file.
    """
    resolved = resolved_path(trace_path)
    if not stat.S_ISREG(os.stat(resolved).st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(resolved))
    fd = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(resolved))
        sample = _sampled_crc(fd, status.st_size)
    finally:
        os.close(fd)
    return {
        "path": str(resolved),
        "size": status.st_size,
        "mtime_ns": status.st_mtime_ns,
        "ctime_ns": status.st_ctime_ns,
        "inode": [status.st_dev, status.st_ino],
        "sample_crc": sample,
    }


def _sampled_crc(fd: int, size: int) -> int:
    """CRC of the whole file when small, else of a few fixed blocks."""
    if size <= SAMPLE_WHOLE_BYTES:
        offsets = range(0, size, _READ_CHUNK)
        length = _READ_CHUNK
    else:
        step = (size - _SAMPLE_BLOCK_BYTES) // (_SAMPLE_BLOCKS - 1)
        offsets = range(0, step * _SAMPLE_BLOCKS, step)
        length = _SAMPLE_BLOCK_BYTES
    crc = 0
    for offset in offsets:
        crc = crc32(os.pread(fd, length, offset), crc)
    return crc


def stage(root: Path) -> tuple[Path, int]:
    """A new staging folder under `root` and the lock its writer holds.

    The caller calls release() when the folder is renamed or removed. Stale
    folders of killed writers are removed first.
    """
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(root)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    try:
        lock = os.open(
            staging / _WRITER_LOCK, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600
        )
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    fcntl.flock(lock, fcntl.LOCK_EX)
    return staging, lock


def release(staging: Path, lock: int) -> None:
    """Drop a staging folder's lock file (before its rename) and close the lock."""
    with contextlib.suppress(OSError):
        (staging / _WRITER_LOCK).unlink()
    os.close(lock)


def remove_stale_staging(root: Path) -> None:
    """Remove the staging folders of writers that died (kill -9, power loss).

    A writer holds a lock inside its folder while it writes: a folder whose
    lock can be taken has no writer. A folder without a lock file (its writer
    died before making it) is removed once it is STALE_AFTER_S old.
    """
    try:
        folders = [
            item for item in root.iterdir() if item.name.startswith(STAGING_PREFIX)
        ]
    except OSError:
        return
    for folder in folders:
        if _unheld(folder):
            shutil.rmtree(folder, ignore_errors=True)


def _unheld(folder: Path) -> bool:
    try:
        fd = os.open(folder / _WRITER_LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        try:
            return time.time() - folder.lstat().st_mtime > STALE_AFTER_S
        except OSError:
            return False
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def remove_stale_files(entry: Path, pattern: str) -> None:
    """Hidden staging files (`pattern`) in an entry whose writer died long ago."""
    now = time.time()
    with contextlib.suppress(OSError):
        for item in entry.glob(pattern):
            with contextlib.suppress(OSError):
                if now - item.lstat().st_mtime > STALE_AFTER_S:
                    item.unlink()

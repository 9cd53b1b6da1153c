"""The advisory lock every notes save holds (its file exists only while a save
runs), and reading a notes file. The notes file itself is written whole by
`tui.core.base.safe_write`.

Anyone who can write to a shared trace folder can put a FIFO, a device or a
symbolic link at these names: they are opened without blocking, a link is
never followed to create a lock, and only regular files are used.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from tui.notes.model import NotesLockTimeout

DEFAULT_LOCK_TIMEOUT = 5.0


@contextlib.contextmanager
def locked(path: Path, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive `flock` on the lock file `path` for the block, then remove it.

    The notes file itself cannot carry the lock: every save replaces it with a
    new inode. So the lock is a separate file that lives only while held:

    * the holder unlinks it *before* releasing the lock;
    * after `flock` succeeds, a waiter checks that `path` still names the inode
      it locked. If not, the holder it waited for has removed that file (and
      maybe another session has created a new one): it retries on the name as
      it is now.

    Two sessions therefore never both believe they hold the lock: whoever
    holds a lock on the inode `path` names is the only one that may unlink
    it. A session killed while holding it leaves the empty file behind; the
    kernel has released its lock, so the next save takes it and removes it.
    Polls instead of blocking so a stuck session costs at most `timeout`
    seconds (NotesLockTimeout), never a hang.
    """
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        fd = _open_lock_file(path)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise NotesLockTimeout(
                            f"another session is saving notes ({path} stayed "
                            f"locked for {timeout:g} s); try again"
                        ) from None
                    time.sleep(min(pause, remaining))
                    pause = min(pause * 2, 0.1)
            if _names_inode(path, fd):
                try:
                    yield
                finally:
                    # Still ours: nobody else unlinks a file they have not locked.
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                    fcntl.flock(fd, fcntl.LOCK_UN)
                return
        finally:
            os.close(fd)


_NO_SURPRISES = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
NOT_REGULAR = "not a regular file: a pipe, socket or device"


def read_notes_file(path: Path) -> bytes:
    """The bytes of a notes file; OSError when it cannot be read or is not a regular file.

    Opened without blocking: a FIFO at the sidecar path would otherwise hang
    every command that reads notes (and the app, which could then not exit).
    A symbolic link to a regular file is read as before.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _check_regular(fd, path)
        with open(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def _check_regular(fd: int, path: Path) -> None:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise OSError(errno.EINVAL, NOT_REGULAR, str(path))


def _open_lock_file(path: Path) -> int:
    """Open (or create) the lock file; PermissionError when it can be neither.

    Never through a symbolic link (which would create its target, anywhere),
    and only a regular file: OSError otherwise.
    """
    denied = PermissionError(f"cannot open {path}")
    for _attempt in range(3):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _NO_SURPRISES, 0o666)
        except PermissionError as error:
            # Another user's lock file in a folder we may still write: flock
            # works on a read-only descriptor.
            try:
                fd = os.open(path, os.O_RDONLY | _NO_SURPRISES)
            except FileNotFoundError:
                # Removed by its holder in between, or a folder we cannot write.
                denied = error
                continue
        except OSError as error:
            if error.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
                raise OSError(
                    errno.ELOOP, "the lock file is a symbolic link", str(path)
                ) from None
            raise
        try:
            _check_regular(fd, path)
        except OSError:
            os.close(fd)
            raise
        return fd
    raise denied


def _names_inode(path: Path, fd: int) -> bool:
    """Whether `path` still names the file open as `fd` (it was not removed meanwhile)."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

"""Writing a notes file so no reader ever sees half of it (temporary file, fsync,
replace, fsync of the folder), under an advisory lock that exists only while a
save runs."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

from tui.notes.model import NotesLockTimeout

DEFAULT_LOCK_TIMEOUT = 5.0


def create_temp_file(folder: Path, target_name: str) -> tuple[int, Path]:
    """Create a new, empty temporary file in `folder` for `target_name`.

    The seam where an unwritable folder shows up (OSError: EACCES, EROFS,
    ENOSPC...). Created with mode 0o666 minus the umask, like any new file.
    """
    path = folder / f".{target_name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    return os.open(path, flags, 0o666), path


def temp_pattern(target_name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(target_name)}\.[0-9a-f]{{16}}\.tmp")


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so a crash leaves the old file or the new one.

    Temporary file in the same folder, write + fsync, `os.replace`, then fsync
    of the folder so the rename itself survives a power loss.
    """
    fd, temp = create_temp_file(path.parent, path.name)
    try:
        try:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(fd, os.stat(path).st_mode & 0o7777)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    # Some file systems refuse fsync on a directory; the rename is done anyway.
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    finally:
        os.close(fd)


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


def _open_lock_file(path: Path) -> int:
    """Open (or create) the lock file; PermissionError when it can be neither."""
    denied = PermissionError(f"cannot open {path}")
    for _attempt in range(3):
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except PermissionError as error:
            # Another user's lock file in a folder we may still write: flock
            # works on a read-only descriptor.
            try:
                return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                # Removed by its holder in between, or a folder we cannot write.
                denied = error
    raise denied


def _names_inode(path: Path, fd: int) -> bool:
    """Whether `path` still names the file open as `fd` (it was not removed meanwhile)."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

"""Files written whole: a reader sees the old state or the new file, never half.

Both ways write the bytes to a temporary file in the same folder, flush it to
disk, give it its final name, and flush the folder so the name itself survives
a power loss:

* `write_fresh` makes a new file and never replaces one (exports, scrubbed
  copies): the name is given by `os.link`, which fails if the name exists,
  even one that appeared a moment ago;
* `write_replacing` replaces a file the program owns (notes) with
  `os.replace`, keeping its permissions.

The collector writes its traces the same way; the explorer keeps its own copy
because it never imports the collector.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import secrets
import stat
from pathlib import Path

_CHUNK = 16 * 1024 * 1024


def temporary_sibling(final: Path) -> tuple[int, Path]:
    """A new, empty file next to `final` (same filesystem, so it can be linked), open for writing.

    Named `.<final name>.<16 hex digits>.tmp` (`temporary_pattern`). Created
    with the usual permissions (0666 less the umask), as the final file should
    have, and locked (`flock`) until closed: remove_abandoned_temporaries
    tells it from one a killed writer left. OSError when the folder cannot be
    written (EACCES, EROFS, ENOSPC...).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for _attempt in range(100):
        candidate = final.with_name(f".{final.name}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(candidate, flags, 0o666)
        except FileExistsError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a sweep took it in the instant before: it goes
            os.close(fd)
            continue
        except OSError:
            pass  # no locks on this filesystem: nothing is ever swept there
        return fd, candidate
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(final.parent))


_ANY_TEMPORARY = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")


def remove_abandoned_temporaries(folder: Path) -> None:
    """Remove the temporary siblings in `folder` that killed writers left (kill -9, power loss).

    A writer holds a lock on its temporary file while it lives: one whose lock
    can be taken is nobody's. Only regular files named as temporary_sibling
    names them; anything else, or anything that cannot be locked, stays.
    """
    try:
        names = [name for name in os.listdir(folder) if _ANY_TEMPORARY.fullmatch(name)]
    except OSError:
        return
    for name in names:
        path = folder / name
        try:
            fd = os.open(
                path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            )
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.unlink(path)
        except OSError:
            pass
        finally:
            os.close(fd)


def temporary_pattern(final_name: str) -> re.Pattern[str]:
    """The names `temporary_sibling` gives for `final_name` (to sweep ones a killed writer left)."""
    return re.compile(rf"\.{re.escape(final_name)}\.[0-9a-f]{{16}}\.tmp")


def write_all(fd: int, data: bytes | bytearray) -> None:
    """Every byte of `data` to `fd`, then flushed to disk (OSError as it comes)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:_CHUNK]) :]
    os.fsync(fd)


def write_fresh(final: str | os.PathLike[str], data: bytes | bytearray) -> Path:
    """Write `data` to the new file `final`; returns its path.

    FileExistsError when `final` exists (it is left untouched); any other
    OSError (cannot create, disk full...) leaves neither `final` nor a
    temporary file behind.
    """
    target = Path(final)
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target))
    fd, temporary = temporary_sibling(target)
    try:
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        _link(temporary, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    fsync_folder(target.parent)
    return target


def write_replacing(path: Path, data: bytes | bytearray) -> None:
    """Replace `path` with `data` so a crash leaves the old file or the new one.

    The new file keeps the old one's permissions. OSError (cannot create the
    temporary file, disk full...) leaves `path` as it was and no temporary
    file behind.
    """
    fd, temporary = temporary_sibling(path)
    try:
        try:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(fd, os.stat(path).st_mode & 0o7777)
            write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_folder(path.parent)


def _link(temporary: Path, final: Path) -> None:
    """Give `temporary`'s content the name `final`; FileExistsError if the name is taken."""
    try:
        os.link(temporary, final)
        return
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    # A filesystem without hard links: create the name exclusively, copy, and
    # remove the copy if it cannot be completed.
    with open(final, "xb") as target:
        try:
            with open(temporary, "rb") as source:
                while chunk := source.read(_CHUNK):
                    target.write(chunk)
                target.flush()
                os.fsync(target.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(final)
            raise


def fsync_folder(folder: Path) -> None:
    """Make a new name in `folder` survive a power loss, where the filesystem allows it.

    A folder that cannot be opened, or a filesystem that refuses fsync on a
    folder, is passed over (the name is given anyway); a real I/O error is raised.
    """
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

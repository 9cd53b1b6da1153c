"""Write a new file whole or not at all, and never over an existing one.

The bytes go to a temporary file in the same folder, are flushed to disk, and
the temporary file is then hard-linked to its final name: `os.link` fails if
the name exists (even one that appeared a moment ago), so nothing is ever
replaced, and the final name only ever shows a complete file. The same path
the collector writes its traces through; the explorer keeps its own copy
because it never imports the collector.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path

_CHUNK = 16 * 1024 * 1024


def temporary_sibling(final: Path) -> tuple[int, Path]:
    """A new, empty file next to `final` (same filesystem, so it can be linked), open for writing.

    Created with the usual permissions (0666 less the umask), as the final file
    should have. OSError when the folder cannot be written.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for _attempt in range(100):
        candidate = final.with_name(f".{final.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(candidate, flags, 0o666), candidate
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(final.parent))


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
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view[:_CHUNK]) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        _link(temporary, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    _fsync_folder(target.parent)
    return target


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


def _fsync_folder(folder: Path) -> None:
    """Make the new name itself survive a power loss (where the filesystem allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)

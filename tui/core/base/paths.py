"""Why a path named on the command line cannot be read: one resolver for every command.

A loop of symbolic links, a link to nothing, a pipe or a device would each
surface somewhere else as a traceback, a hang or a wrong "no such file"; here
each is named in a few words (the caller adds the path and exits 2).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# More links than this in a chain are a loop as far as a reader is concerned
# (Linux's own limit is 40).
_MAX_LINKS = 40


def _link_chain(path: Path) -> tuple[list[str], bool]:
    """The names a chain of symbolic links passes through, and whether it loops."""
    seen: list[str] = [str(path)]
    current = path
    for _ in range(_MAX_LINKS):
        try:
            target = os.readlink(current)
        except OSError:
            return seen, False
        current = Path(os.path.join(os.path.dirname(current), target))
        name = os.path.normpath(str(current))
        looped = name in (os.path.normpath(item) for item in seen)
        seen.append(target)
        if looped:
            return seen, True
    return seen, True


def path_problem(
    path: str | os.PathLike[str], *, folder_ok: bool = False
) -> str | None:
    """What is wrong with `path` as a trace to read, or None when it is a regular file
    (or a folder, with `folder_ok`).

    Never follows a loop, never opens a pipe: only `stat` and `readlink`.
    """
    path = Path(path)
    try:
        status = path.stat()
    except FileNotFoundError:
        try:
            is_link = stat.S_ISLNK(path.lstat().st_mode)
        except OSError:
            is_link = False
        if is_link:
            return f"a symbolic link to {os.readlink(path)}, which does not exist"
        return "no such file"
    except PermissionError:
        return "permission denied"
    except OSError as error:
        if error.errno == errno.ELOOP:
            chain, _ = _link_chain(path)
            return "a loop of symbolic links (" + " → ".join(chain) + ")"
        if error.errno == errno.ENAMETOOLONG:
            return "a file name too long for this system"
        return f"cannot read ({error.strerror or error})"
    except ValueError:  # a NUL byte in the path
        return "not a valid file name"
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        return None if folder_ok else "is a folder, not a trace file"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        kind = "a pipe"
    elif stat.S_ISSOCK(mode):
        kind = "a socket"
    else:
        kind = "a device"
    return f"not a regular file ({kind})"


def resolved(path: str | os.PathLike[str]) -> Path:
    """`path` made absolute with its links followed; OSError (ELOOP) on a loop of
    links, where Python before 3.13 raises RuntimeError."""
    try:
        return Path(path).resolve()
    except RuntimeError as error:
        raise OSError(errno.ELOOP, "a loop of symbolic links", str(path)) from error

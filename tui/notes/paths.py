"""Where a capture's notes file is: beside the trace, numbered when the usual one
cannot be read, or in a per-user data folder when the trace's folder cannot be
written."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from tui.core.base.paths import resolved
from tui.core.base.settings import settings

NOTES_SUFFIX = ".notes.json"
LOCK_SUFFIX = ".lock"
MAX_NUMBERED = 100
"""How many `<trace>.notes.N.json` names are tried before giving up on a folder."""


def sidecar_path(trace_path: str | os.PathLike[str]) -> Path:
    """The notes file next to the trace: `<trace file name>.notes.json`."""
    trace = Path(trace_path)
    return trace.with_name(trace.name + NOTES_SUFFIX)


def numbered_path(notes_path: Path, number: int) -> Path:
    """`TRACE.notes.json` → `TRACE.notes.<number>.json`, the name used when the
    usual file cannot be read and must be kept untouched."""
    stem = notes_path.name[: -len(".json")]
    return notes_path.with_name(f"{stem}.{number}.json")


def lock_path(notes_path: Path) -> Path:
    """The advisory-lock file for one notes file, present only during a save."""
    return notes_path.with_name(notes_path.name + LOCK_SUFFIX)


def data_dir() -> Path:
    """The per-user steptrace data folder.

    `$STEPTRACE_DATA_DIR` when set (tests, unusual setups), else
    `$XDG_DATA_HOME/steptrace`, else `~/.local/share/steptrace`.
    """
    chosen = settings()
    if chosen.data_dir is not None:
        return chosen.data_dir
    return chosen.data_home / "steptrace"


def marked_read_only(folder: Path) -> bool:
    """A folder nobody may write to (no write bit at all) is left alone, even by root."""
    try:
        return folder.stat().st_mode & 0o222 == 0
    except OSError:
        return False


def fallback_path(trace_path: str | os.PathLike[str]) -> Path:
    """Where notes go when the trace's folder cannot be written.

    Keyed by the trace's absolute path, so two traces with the same name in
    different folders keep separate notes: `<data>/notes/<sha1>-<name>.notes.json`.
    """
    absolute = resolved(trace_path)
    key = hashlib.sha1(os.fsencode(absolute)).hexdigest()
    return data_dir() / "notes" / f"{key}-{absolute.name[:150]}{NOTES_SUFFIX}"


def variants(notes_path: Path) -> list[Path]:
    """The notes file and its existing numbered siblings, in number order."""
    stem = notes_path.name[: -len(".json")]
    pattern = re.compile(rf"{re.escape(stem)}\.([1-9][0-9]*)\.json")
    try:
        names = os.listdir(notes_path.parent)
    except OSError:
        return [notes_path]
    numbered = sorted(
        (int(match.group(1)), name)
        for name in names
        if (match := pattern.fullmatch(name)) is not None
    )
    return [notes_path] + [notes_path.with_name(name) for _, name in numbered]

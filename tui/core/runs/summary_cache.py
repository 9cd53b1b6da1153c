"""Rank summaries kept beside the column cache, so reopening a run reads kilobytes, not traces.

An entry is one JSON file keyed by the trace file as it was read (its
identity as the column cache takes it: size, times, inode, a CRC of its
bytes), the data zone asked for, and a hash of the source of every
`tui.core` module (loader and figures alike): a changed trace or a changed
steptrace is a miss, never a stale figure, and so is an entry whose summary
does not match its CRC. `STEPTRACE_NO_CACHE=1` turns it off with the column
cache.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from tui.core.base.settings import settings
from tui.core.ingest.cache import cache_root
from tui.core.ingest.cache_files import crc32, file_identity, remove_stale_files
from tui.core.ingest.code_hash import source_version

FOLDER = "rank-summaries"


def enabled() -> bool:
    """Whether summaries may be read and written (the column cache's switch)."""
    return not settings().no_cache


@functools.cache
def figures_version() -> str:
    """A digest of every tui.core source file: any change to loading or figures."""
    try:
        root = importlib.resources.files("tui.core")
        sources: list[tuple[str, bytes]] = []
        pending = [(root, "")]
        while pending:
            folder, prefix = pending.pop()
            for item in sorted(folder.iterdir(), key=lambda entry: entry.name):
                if item.is_dir() and not item.name.startswith("__"):
                    pending.append((item, f"{prefix}{item.name}/"))
                elif item.name.endswith(".py"):
                    sources.append((prefix + item.name, item.read_bytes()))
        return source_version(sorted(sources))
    except (OSError, TypeError, ValueError, ModuleNotFoundError):
        return "unhashable-" + os.urandom(8).hex()


def key_of(path: str | os.PathLike[str], zones: Sequence[str] | None) -> Any:
    """The key of a trace's summary as the file is now; None when off or unreadable.

    The file's identity as the column cache takes it (size, times, inode, a
    CRC of its bytes), the data zone asked for and the code's version: taken
    before the trace is read, and again after, so that a file still being
    written is never kept.
    """
    if not enabled():
        return None
    try:
        identity = file_identity(path)
    except (OSError, ValueError):
        return None
    return {**identity, "zones": list(zones or ()), "code": figures_version()}


def _entry(key: dict[str, Any]) -> Path:
    """One entry per trace and zone: a newer version of the file replaces it."""
    named = orjson.dumps([key["path"], key["zones"]])
    return cache_root() / FOLDER / f"{hashlib.sha256(named).hexdigest()[:32]}.json"


def load(path: str | os.PathLike[str], zones: Sequence[str] | None, key: Any) -> Any:
    """The kept summary JSON of a trace under `key` (key_of's), or None on any miss.

    An entry whose summary does not match its CRC (damaged) is a miss too.
    """
    if key is None:
        return None
    try:
        stored = orjson.loads(_entry(key).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    summary = stored.get("summary")
    try:
        if crc32(orjson.dumps(summary)) != stored.get("crc"):
            return None
    except TypeError:
        return None
    return summary


def save(
    path: str | os.PathLike[str], zones: Sequence[str] | None, summary: Any, key: Any
) -> None:
    """Keep a summary read under `key`; silently nothing when the cache cannot be written."""
    if key is None:
        return
    try:
        entry = _entry(key)
        entry.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_files(entry.parent, "tmp*.tmp")  # writers killed long ago
        data = orjson.dumps(summary)
        handle, staging = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(
                    orjson.dumps({"key": key, "crc": crc32(data), "summary": summary})
                )
            os.replace(staging, entry)
        except BaseException:
            Path(staging).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError):
        return

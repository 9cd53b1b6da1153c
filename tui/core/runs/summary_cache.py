"""Rank summaries kept beside the column cache, so reopening a run reads kilobytes, not traces.

An entry is one JSON file keyed by the trace's absolute path, size and
modification time, the data zone asked for, and a hash of the source of
every `tui.core` module (loader and figures alike): a changed trace or a
changed steptrace is a miss, never a stale figure. `STEPTRACE_NO_CACHE=1`
turns it off with the column cache.
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

from tui.core.ingest.cache import cache_root, source_version

FOLDER = "rank-summaries"


def enabled() -> bool:
    """Whether summaries may be read and written (the column cache's switch)."""
    return not os.environ.get("STEPTRACE_NO_CACHE")


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


def _entry(path: Path, zones: Sequence[str] | None) -> tuple[Path, dict[str, Any]]:
    resolved = path.resolve()
    status = resolved.stat()
    key = {
        "path": str(resolved),
        "size": status.st_size,
        "mtime_ns": status.st_mtime_ns,
        "zones": list(zones or ()),
        "code": figures_version(),
    }
    digest = hashlib.sha256(orjson.dumps(key)).hexdigest()[:32]
    return cache_root() / FOLDER / f"{digest}.json", key


def load(path: str | os.PathLike[str], zones: Sequence[str] | None) -> Any:
    """The cached summary JSON of a trace, or None on any miss."""
    if not enabled():
        return None
    try:
        entry, key = _entry(Path(path), zones)
        stored = orjson.loads(entry.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    return stored.get("summary")


def save(
    path: str | os.PathLike[str], zones: Sequence[str] | None, summary: Any
) -> None:
    """Keep a summary for next time; silently nothing when the cache cannot be written."""
    if not enabled():
        return
    try:
        entry, key = _entry(Path(path), zones)
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(orjson.dumps({"key": key, "summary": summary}))
            os.replace(staging, entry)
        except BaseException:
            Path(staging).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError):
        return

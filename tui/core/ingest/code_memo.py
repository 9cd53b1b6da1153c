"""The code versions of the column cache, remembered between processes by the files' stamps.

Hashing the source of the code behind an entry (its modules and what they
import) reads and scans some 60 files: 20-40 ms a version, paid by every
process before it can reuse an entry. The version is a pure function of
those files, so a small memo in the cache folder keeps it with each file's
size and modification time and each root folder's list of modules (Python's
own bytecode cache trusts the same stamps). A file edited, added or removed
makes it hashed again; a memo written from files still being edited (changed
while read, or modified in the last SETTLED_NS) is not kept.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

import orjson

from tui.core.ingest.cache_files import remove_stale_files
from tui.core.ingest.code_hash import module_sources, source_version

SETTLED_NS = 2_000_000_000


def remembered_version(package: Path, roots: tuple[str, ...], memo: Path) -> str:
    """`source_version(module_sources(package, roots))`, from `memo` when every
    file it was hashed from is unchanged. OSError as module_sources."""
    key = f"{package}|{'|'.join(roots)}"
    memos = _read(memo)
    kept = memos.get(key)
    if isinstance(kept, dict) and _unchanged(package, roots, kept):
        return str(kept["version"])
    sources = module_sources(package, roots)
    version = source_version(sources)
    files = {name: _stamp(package / name) for name, _data in sources}
    settled = time.time_ns() - SETTLED_NS
    if all(stamp[1] < settled for stamp in files.values()) and (
        module_sources(package, roots) == sources  # not edited while read
    ):
        memos[key] = {
            "version": version,
            "files": files,
            "folders": _folders(package, roots),
        }
        _write(memo, memos)
    return version


def _stamp(path: Path) -> list[int]:
    status = os.stat(path)
    return [status.st_size, status.st_mtime_ns]


def _folders(package: Path, roots: tuple[str, ...]) -> dict[str, list[str]]:
    """The modules under each root folder (a new one must be hashed too)."""
    listed: dict[str, list[str]] = {}
    for root in roots:
        if root.endswith(".py"):
            continue
        for folder, dirs, names in os.walk(package / root):
            dirs[:] = [name for name in dirs if name != "__pycache__"]
            relative = Path(folder).relative_to(package).as_posix()
            listed[relative] = sorted(name for name in names if name.endswith(".py"))
    return listed


def _unchanged(package: Path, roots: tuple[str, ...], kept: dict[str, Any]) -> bool:
    try:
        files = kept["files"]
        return (
            isinstance(kept["version"], str)
            and all(_stamp(package / name) == stamp for name, stamp in files.items())
            and _folders(package, roots) == kept["folders"]
        )
    except (OSError, KeyError, TypeError, AttributeError):
        return False


def _read(memo: Path) -> dict[str, Any]:
    with contextlib.suppress(OSError, ValueError):
        memos = orjson.loads(memo.read_bytes())
        if isinstance(memos, dict):
            return memos
    return {}


def _write(memo: Path, memos: dict[str, Any]) -> None:
    """Best effort (a memo not written is one more hash)."""
    remove_stale_files(memo.parent, f"{memo.name}.*")  # of writers killed
    staging = memo.with_name(f"{memo.name}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        staging.write_bytes(orjson.dumps(memos))
        os.replace(staging, memo)
    except OSError:
        with contextlib.suppress(OSError):
            staging.unlink()

"""A column cache: reopen a big trace from memory-mapped arrays instead of parsing it again.

The model is columns plus a few small tables, so a cache entry is one `.npy`
file per column, the args blob as raw bytes, and one JSON file for the rest.
Arrays are memory-mapped on reopen, so a multi-GB trace opens in well under a
second. An entry is keyed by the trace file as it was read (absolute path,
size, modification and change times, inode, and a CRC of its bytes: all of a
small file, sampled blocks of a big one) and by a hash of the source of the
code that builds columns, so an edited file or a changed loader never reads an
old entry. Every file of an entry carries a CRC checked on reopen (with the
dtype and shape of each column): a damaged entry is a miss, never a wrong
figure or a traceback.

An entry also keeps columns derived from the trace (nesting, launches),
written the first time they are computed and keyed by the hash of the code
that computes them (`tui.core.model.derived` and what it imports).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import mmap
import os
import shutil
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from tui.core.base.paths import resolved as resolved_path
from tui.core.base.settings import settings
from tui.core.ingest.cache_files import (
    crc32,
    file_identity,
    release,
    remove_stale_files,
    stage,
)
from tui.core.ingest.cache_verified import Verified
from tui.core.ingest.code_hash import module_sources
from tui.core.ingest.code_memo import remembered_version
from tui.core.model.trace import Flows, MemoryColumns, Trace, Track, TrackKind

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

CACHE_FORMAT = 2
BUILDER_ROOTS = ("ingest", "model/trace.py")
"""Files and folders of tui.core whose code decides what a cache entry holds.

A folder counts with every module under it (a new decoder moves the key), and
every tui.core module these import (found in their source, transitively)
counts too.
"""
DERIVED_ROOTS = ("model/derived.py",)
"""Files of tui.core whose code computes the derived columns (and what they import)."""
_COLUMNS = (
    "start_ns",
    "duration_ns",
    "track",
    "name_id",
    "category_id",
    "kind",
    "correlation",
    "external_id",
    "stream_arg",
    "args_begin",
    "args_end",
    "track_start",
)
_FLOW_COLUMNS = ("flow_id", "category_id", "source_event", "target_event")
_TABLES = "tables.json"
_ARGS = "args.bin"
_CHECKSUMS = "checksums.json"  # dtype, shape and CRC of each file of an entry
CODE_MEMO = ".code-versions.json"  # hidden: not an entry
_CORE = Path(__file__).resolve().parent.parent  # tui/core, whose sources are hashed


def cache_root() -> Path:
    """Where cache entries live: $STEPTRACE_CACHE_DIR, else $XDG_CACHE_HOME/steptrace/columns."""
    chosen = settings()
    if chosen.cache_dir is not None:
        return chosen.cache_dir
    return chosen.cache_home / "steptrace" / "columns"


def builder_sources(
    package: Traversable, roots: tuple[str, ...] = BUILDER_ROOTS
) -> list[tuple[str, bytes]]:
    """(path, bytes) of each column-building module under `package` (tui.core), sorted."""
    return module_sources(package, roots)


@functools.cache
def code_version() -> str:
    """The version of the column-building code in this process, hashed once."""
    return _hashed(BUILDER_ROOTS)


@functools.cache
def derived_version() -> str:
    """The version of the code computing derived columns in this process, hashed once."""
    return _hashed(DERIVED_ROOTS)


def _hashed(roots: tuple[str, ...]) -> str:
    """The version of the code of `roots`, read as files (nothing is imported),
    remembered in the cache folder by the files' stamps (code_memo).

    Where the sources cannot be read (an install without .py files), a
    per-process random version makes every entry a miss rather than risk a
    stale one.
    """
    try:
        return remembered_version(_CORE, roots, cache_root() / CODE_MEMO)
    except (OSError, TypeError, ValueError):
        return "unhashable-" + os.urandom(8).hex()


# Traces read from or written to an entry: id → (the trace, its entry, a
# digest of its key). Only these keep derived columns and figures.
_ENTRIES: dict[int, tuple[weakref.ref[Trace], Path, bytes]] = {}


def _register(trace: Trace, entry: Path, key: dict[str, Any]) -> None:
    digest = hashlib.sha256(orjson.dumps(key, option=orjson.OPT_SORT_KEYS)).digest()
    identity = id(trace)
    _ENTRIES[identity] = (
        weakref.ref(trace, lambda _gone: _ENTRIES.pop(identity, None)),
        entry,
        digest,
    )


def _entry_stem(trace: Trace, prefix: str, version: str) -> tuple[Path, str] | None:
    """The trace's entry and the name stem there of what `version` of the code
    computed from it (None: the trace has no entry)."""
    registered = _ENTRIES.get(id(trace))
    if registered is None or registered[0]() is not trace:
        return None
    _ref, entry, digest = registered
    tag = hashlib.sha256(digest + version.encode()).hexdigest()[:20]
    return entry, f"{prefix}.{tag}"


def _derived_path(trace: Trace, name: str) -> tuple[Path, str] | None:
    """The trace's entry and the name stem of a derived column there (None: no entry)."""
    return _entry_stem(trace, f"derived.{name}", derived_version())


@functools.cache
def figure_version(roots: tuple[str, ...]) -> str:
    """The version of the code computing a kept figure (its `roots` of tui.core
    and what they import), hashed once per process."""
    return _hashed(roots)


def load_kept(trace: Trace, name: str, roots: tuple[str, ...]) -> bytes | None:
    """A figure kept in the trace's entry by the code of `roots` as it is now;
    None on any miss (a file whose CRC does not match is removed)."""
    place = _entry_stem(trace, f"kept.{name}", figure_version(roots))
    if place is None:
        return None
    entry, stem = place
    for path in entry.glob(f"{stem}.*.bin"):
        try:
            data = path.read_bytes()
            if f"{crc32(data):08x}" == path.name[len(stem) + 1 : -len(".bin")]:
                return data
        except OSError:
            pass
        path.unlink(missing_ok=True)
    return None


def save_kept(trace: Trace, name: str, roots: tuple[str, ...], data: bytes) -> bool:
    """Keep a figure's bytes in the trace's entry (when it has one), replacing
    those of other versions of the code; False when not written."""
    place = _entry_stem(trace, f"kept.{name}", figure_version(roots))
    if place is None:
        return False
    entry, stem = place
    path = entry / f"{stem}.{crc32(data):08x}.bin"
    return _replace_file(
        entry, path, f"kept.{name}.*.bin", lambda at: at.write_bytes(data)
    )


def _replace_file(
    entry: Path, path: Path, family: str, write: Callable[[Path], object]
) -> bool:
    """Write `path` in an entry through a staging name, then remove the other
    files of its `family` (older versions); False when it cannot be written."""
    remove_stale_files(entry, f".{family}")
    staging = entry / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}{path.suffix}"
    try:
        write(staging)
        os.replace(staging, path)
        for stale in entry.glob(family):
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:
        with contextlib.suppress(OSError):
            staging.unlink()
        return False
    return True


def load_derived(trace: Trace, name: str) -> np.ndarray[Any, Any] | None:
    """A derived column kept in the trace's entry, memory-mapped; None on any miss.

    Its file is named after the CRC of its data: one that does not match is
    removed (and computed again by the caller).
    """
    place = _derived_path(trace, name)
    if place is None:
        return None
    entry, stem = place
    verified = Verified(entry)
    for path in entry.glob(f"{stem}.*.npy"):
        try:
            column = _mapped(path)
            if verified.unchanged(path.name):
                return column
            if f"{crc32(column):08x}" == path.name[len(stem) + 1 : -len(".npy")]:
                verified.checked(path.name)
                verified.save()
                return column
        except (OSError, ValueError):
            pass
        path.unlink(missing_ok=True)
    return None


def save_derived(trace: Trace, name: str, column: np.ndarray[Any, Any]) -> bool:
    """Keep a derived column in the trace's entry (when it has one); False when not written."""
    place = _derived_path(trace, name)
    if place is None:
        return False
    entry, stem = place
    array = np.ascontiguousarray(column)
    path = entry / f"{stem}.{crc32(array):08x}.npy"
    return _replace_file(
        entry, path, f"derived.{name}.*.npy", lambda at: np.save(at, array)
    )


def file_key(trace_path: str | os.PathLike[str]) -> dict[str, Any]:
    """The cache key of a trace file as it is now: the file's identity, this cache
    format and the code that builds columns. OSError for anything but a regular file."""
    return {"format": CACHE_FORMAT, "code": code_version(), **file_identity(trace_path)}


def _entry_dir(trace_path: Path, root: Path) -> Path:
    resolved = resolved_path(trace_path)
    digest = hashlib.sha1(str(resolved).encode("utf-8", "surrogatepass")).hexdigest()[
        :16
    ]
    return root / f"{digest}-{resolved.name[:40]}"


def save(
    trace: Trace, root: Path | None = None, *, key: dict[str, Any] | None = None
) -> Path | None:
    """Write the trace's columns to the cache; returns the entry, or None when it cannot be written.

    `key` is the file's key taken before it was read (load_trace passes it:
    the key of the bytes parsed, not of whatever the file holds now).
    """
    root = root or cache_root()
    try:
        key = key or file_key(trace.path)
        entry = _entry_dir(trace.path, root)
        staging, lock = stage(root)
    except OSError:
        return None
    try:
        checksums: dict[str, Any] = {}
        arrays = [(f"{column}.npy", getattr(trace, column)) for column in _COLUMNS]
        arrays += [
            (f"flows.{column}.npy", getattr(trace.flows, column))
            for column in _FLOW_COLUMNS
        ]
        arrays += [
            (f"memory.{column}.npy", getattr(trace.memory, column))
            for column in MemoryColumns.COLUMNS
        ]
        for name, column in arrays:
            array = np.ascontiguousarray(column)
            np.save(staging / name, array)
            checksums[name] = [array.dtype.str, list(array.shape), crc32(array)]
        (staging / _ARGS).write_bytes(trace.args_blob)
        checksums[_ARGS] = crc32(trace.args_blob)
        tables = {
            "key": key,
            "origin_ns": trace.origin_ns,
            "names": trace.names,
            "categories": trace.categories,
            "tracks": [
                [
                    t.index,
                    t.pid,
                    t.tid,
                    int(t.kind),
                    t.name,
                    t.process_name,
                    t.device,
                    list(t.sort_key),
                ]
                for t in trace.tracks
            ],
            "description": trace.description,
            "metadata": trace.metadata,
            "warnings": trace.warnings,
            "file_size": trace.file_size,
            "compressed": trace.compressed,
            "instant_count": trace.instant_count,
            "counter_count": trace.counter_count,
        }
        table_bytes = orjson.dumps(tables, option=orjson.OPT_NON_STR_KEYS, default=str)
        (staging / _TABLES).write_bytes(table_bytes)
        checksums[_TABLES] = crc32(table_bytes)
        (staging / _CHECKSUMS).write_bytes(orjson.dumps(checksums))
        if entry.exists():
            shutil.rmtree(entry, ignore_errors=True)
        os.replace(staging, entry)
    except (OSError, TypeError, ValueError):
        shutil.rmtree(staging, ignore_errors=True)
        os.close(lock)
        return None
    release(entry, lock)  # held until renamed: no cleaner takes a live folder
    _register(trace, entry, key)
    return entry


class DamagedEntry(Exception):
    """A cache entry with the right key whose content does not check out."""


@dataclass(frozen=True)
class Lookup:
    """What the cache held for a trace: its model, or why not (`damage` when an entry was broken)."""

    trace: Trace | None
    damage: str | None = None


def load(trace_path: str | os.PathLike[str], root: Path | None = None) -> Trace | None:
    """The cached model of `trace_path`, memory-mapped; None on any miss."""
    return lookup(trace_path, root).trace


def lookup(
    trace_path: str | os.PathLike[str],
    root: Path | None = None,
    *,
    key: dict[str, Any] | None = None,
) -> Lookup:
    """The cached model of `trace_path` (its `key` when already taken), checked whole.

    An entry for another version of the file or of the code is a plain miss;
    one with the right key whose files fail their checks is removed and
    reported in `damage`, so that the caller re-reads the trace.
    """
    root = root or cache_root()
    path = Path(trace_path)
    try:
        key = key or file_key(path)
        entry = _entry_dir(path, root)
        table_bytes = (entry / _TABLES).read_bytes()
    except (OSError, ValueError):
        return Lookup(None)
    try:
        tables = orjson.loads(table_bytes)
        if not isinstance(tables, dict):
            raise DamagedEntry("tables.json is not an object")
        if tables.get("key") != key:
            return Lookup(None)
        trace = _checked_trace(path, entry, tables, table_bytes)
    except (
        DamagedEntry,
        OSError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        OverflowError,
    ) as error:
        shutil.rmtree(entry, ignore_errors=True)
        return Lookup(None, damage=str(error) or type(error).__name__)
    _register(trace, entry, key)
    return Lookup(trace)


def _checked_trace(
    path: Path, entry: Path, tables: dict[str, Any], table_bytes: bytes
) -> Trace:
    """The trace an entry holds, every file checked against its CRC, dtype and shape.

    The CRC of a file already checked and not modified since (its stamp in
    `verified.json`, while checksums.json and tables.json are unmodified too)
    is not computed again: that reads the whole entry.
    """
    checksums = orjson.loads((entry / _CHECKSUMS).read_bytes())
    if crc32(table_bytes) != checksums[_TABLES]:
        raise DamagedEntry("tables.json does not match its checksum")
    verified = Verified(entry)
    trusted = verified.unchanged(_CHECKSUMS) and verified.unchanged(_TABLES)

    def checked(name: str, data: Any, crc: int) -> None:
        if trusted and verified.unchanged(name):
            return
        if crc32(data) != crc:
            raise DamagedEntry(f"{name} does not match its checksum")
        verified.checked(name)

    def column(name: str) -> np.ndarray[Any, Any]:
        dtype, shape, crc = checksums[name]
        array = _mapped(entry / name)
        if array.dtype.str != dtype or list(array.shape) != shape:
            raise DamagedEntry(f"{name} has the wrong dtype or length")
        checked(name, array, crc)
        return array

    columns = {name: column(f"{name}.npy") for name in _COLUMNS}
    flows = Flows(*(column(f"flows.{name}.npy") for name in _FLOW_COLUMNS))
    memory = MemoryColumns(
        **{name: column(f"memory.{name}.npy") for name in MemoryColumns.COLUMNS}
    )
    args_blob = _map_bytes(entry / _ARGS)
    checked(_ARGS, args_blob, checksums[_ARGS])
    verified.checked(_CHECKSUMS)
    verified.checked(_TABLES)
    tracks = [
        Track(
            int(index),
            pid,
            tid,
            TrackKind(kind),
            str(name),
            process_name,
            device,
            tuple(_tuplify(item) for item in sort_key),
        )
        for index, pid, tid, kind, name, process_name, device, sort_key in tables[
            "tracks"
        ]
    ]
    events = columns["start_ns"].shape[0]
    if any(columns[name].shape != (events,) for name in _COLUMNS[:-1]) or columns[
        "track_start"
    ].shape != (len(tracks) + 1,):
        raise DamagedEntry("columns of different lengths")
    trace = Trace(
        path=path,
        origin_ns=int(tables["origin_ns"]),
        names=list(tables["names"]),
        categories=list(tables["categories"]),
        tracks=tracks,
        flows=flows,
        args_blob=args_blob,
        description=tables["description"],
        metadata=tables["metadata"],
        warnings=list(tables["warnings"]),
        file_size=int(tables["file_size"]),
        compressed=bool(tables["compressed"]),
        instant_count=int(tables["instant_count"]),
        counter_count=int(tables["counter_count"]),
        memory=memory,
        **columns,
    )
    verified.save()
    return trace


def _mapped(path: Path) -> np.ndarray[Any, Any]:
    """A `.npy` file memory-mapped read-only, as a plain array viewing the mapping.

    np.memmap's own indexing costs microseconds per item in Python loops; a
    plain view of the same pages reads them the same way, without that.
    """
    try:
        mapped: np.ndarray[Any, Any] = np.load(path, mmap_mode="r", allow_pickle=False)
    except EOFError as error:  # numpy's word for a file of 0 bytes
        raise ValueError(f"{path.name} is empty") from error
    return np.asarray(mapped)


def is_mapped(column: np.ndarray[Any, Any]) -> bool:
    """Whether an array views a memory-mapped file (a cache entry's column)."""
    base: Any = column
    while base is not None:
        if isinstance(base, (np.memmap, mmap.mmap)):
            return True
        base = getattr(base, "base", None)
    return False


def _tuplify(value: Any) -> Any:
    return tuple(_tuplify(item) for item in value) if isinstance(value, list) else value


def _map_bytes(path: Path) -> Any:
    """A read-only memory map of a file (empty bytes for an empty file: mmap refuses those)."""
    size = path.stat().st_size
    if size == 0:
        return b""
    with path.open("rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)

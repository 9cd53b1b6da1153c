"""Find the rank traces of a run folder and which rank each one is, without loading them.

A run folder holds one trace per rank, as `tensorboard_trace_handler` and
the collector write them (`*.pt.trace.json[.gz]`, `rank-N.json[.gz]`,
`rank-N.pt.trace.json`). A file's rank comes from its `distributedInfo.rank`,
read from the first kilobytes of the file (its top-level keys before
`traceEvents`; the end of the file when they come after it); else from its
name (`rank-N`, `rankN`, `workerN`); else from its place in file order.
Anything that is guessed or does not add up — an unknown rank, the same rank
twice, missing ranks, files of different runs — is a warning, never silent.
"""

from __future__ import annotations

import json
import re
import stat
import zlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tui.core.base.errors import TraceLoadError
from tui.core.base.paths import path_problem
from tui.core.base.textsafe import printable
from tui.core.base.vocab import RankSource
from tui.core.ingest.source import GZIP_MAGIC

HEAD_BYTES = 256 * 1024
TAIL_BYTES = 256 * 1024
_TRACE_SUFFIX = re.compile(r"\.json(?:\.gz)?$", re.IGNORECASE)
_NOTES_SIDECAR = re.compile(r"\.notes(?:\.\d+)?\.json$", re.IGNORECASE)
_RANK_IN_NAME = re.compile(r"(?:^|[^a-z])(?:rank|worker)[-_]?(\d{1,9})(?!\d)", re.I)
_DISTRIBUTED_KEY = re.compile(r'"distributedInfo"\s*:\s*')
_TRACE_ID_KEY = re.compile(r'"trace_id"\s*:\s*')
_BLANK = " \t\r\n"
# tensorboard_trace_handler's default name: `{hostname}_{pid}.{time_ns}.pt.trace.json[.gz]`.
_HOST_IN_NAME = re.compile(r"^(.+)_\d+\.\d+\.pt\.trace\.json(?:\.gz)?$", re.I)


@dataclass(frozen=True)
class TraceHeader:
    """What a trace says about its place in a run, read from its top-level keys."""

    rank: int | None = None
    world_size: int | None = None
    backend: str | None = None
    trace_id: str | None = None
    window: Mapping[str, Any] | None = None
    command: tuple[str, ...] | None = None


@dataclass(frozen=True)
class RankFile:
    """One trace of a run and the rank it stands for."""

    path: Path
    rank: int
    source: RankSource
    size: int
    header: TraceHeader = field(default_factory=TraceHeader)


@dataclass(frozen=True)
class RunLayout:
    """The ranks of a run folder, in rank order, and what did not add up."""

    folder: Path
    files: tuple[RankFile, ...]
    world_size: int | None
    warnings: tuple[str, ...]


def is_trace_name(name: str) -> bool:
    """Whether a file name in a run folder reads as a trace (not a notes sidecar, not hidden)."""
    return (
        not name.startswith(".")
        and _TRACE_SUFFIX.search(name) is not None
        and _NOTES_SIDECAR.search(name) is None
    )


def rank_in_name(name: str) -> int | None:
    """The rank a file name states (`rank-3`, `rank3`, `worker3`, `…_rank_3`), if any."""
    match = _RANK_IN_NAME.search(name)
    return int(match.group(1)) if match else None


def host_in_name(name: str) -> str | None:
    """The host a file name states in tensorboard_trace_handler's default form, if any."""
    match = _HOST_IN_NAME.match(name)
    return match.group(1) if match else None


def natural_key(name: str) -> list[Any]:
    """Sort key that puts `rank-2` before `rank-10`."""
    return [
        (0, int(part)) if part.isdigit() else (1, part)
        for part in re.split(r"(\d+)", name)
    ]


def read_header(path: Path) -> TraceHeader:
    """A trace's run information from its first kilobytes (or its end); empty when unreadable."""
    return _read_start(path)[0]


def _read_start(path: Path) -> tuple[TraceHeader, str | None]:
    """The file's run information, and why its first kilobytes show it holds no
    trace (None when it may hold one: loading it tells)."""
    try:
        head, compressed = _read_head(path)
    except (OSError, zlib.error):
        return TraceHeader(), None
    start = head.lstrip(_BLANK + "\ufeff")  # a byte order mark is not content
    if not start:
        return TraceHeader(), "the file is empty"
    if start[0] not in "{[":
        return TraceHeader(), "the JSON is not an object or a list"
    values, complete = _top_level_keys(start)
    if complete and start[0] == "{" and "traceEvents" not in values:
        # The whole object was read and `traceEvents` is not among its keys.
        return TraceHeader(), "a JSON object without 'traceEvents'"
    if "distributedInfo" not in values and not complete:
        try:
            tail = _read_tail(path, compressed)
        except (OSError, zlib.error):
            tail = ""
        values = {**_keys_in_tail(tail), **values}
    return _header_of(values), None


def _read_head(path: Path) -> tuple[str, bool]:
    with path.open("rb") as handle:
        raw = handle.read(HEAD_BYTES)
        compressed = raw[:2] == GZIP_MAGIC
        if compressed:
            decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
            data = decompressor.decompress(raw, HEAD_BYTES)
            while len(data) < HEAD_BYTES and not decompressor.eof:
                chunk = handle.read(HEAD_BYTES)
                if not chunk:
                    break
                data += decompressor.decompress(chunk, HEAD_BYTES - len(data))
            raw = data
    return raw.decode("utf-8", errors="replace"), compressed


def _read_tail(path: Path, compressed: bool) -> str:
    """The last TAIL_BYTES of the (decompressed) file, streamed: memory stays bounded."""
    with path.open("rb") as handle:
        if not compressed:
            size = path.stat().st_size
            handle.seek(max(0, size - TAIL_BYTES))
            return handle.read().decode("utf-8", errors="replace")
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        tail = b""
        while chunk := handle.read(4 * 1024 * 1024):
            tail = (tail + decompressor.decompress(chunk))[-TAIL_BYTES:]
            if decompressor.eof:
                break
        return tail.decode("utf-8", errors="replace")


def _top_level_keys(text: str) -> tuple[dict[str, Any], bool]:
    """Top-level keys of a JSON object up to `traceEvents`; True when all keys were read."""
    decoder = json.JSONDecoder()
    values: dict[str, Any] = {}
    position = _skip(text, 0)
    if not text.startswith("{", position):
        return values, True  # a bare array of events holds no header
    position += 1
    while True:
        position = _skip(text, position)
        if text.startswith("}", position):
            return values, True
        try:
            key, position = decoder.raw_decode(text, position)
            position = _skip(text, position)
            if not isinstance(key, str) or not text.startswith(":", position):
                return values, False
            if key == "traceEvents":
                return values, False
            value, position = decoder.raw_decode(text, _skip(text, position + 1))
        except ValueError:
            return values, False
        values[key] = value
        position = _skip(text, position)
        if text.startswith(",", position):
            position += 1


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in _BLANK:
        position += 1
    return position


def _keys_in_tail(text: str) -> dict[str, Any]:
    """`distributedInfo` and `trace_id` written after the events (their last occurrence)."""
    decoder = json.JSONDecoder()
    values: dict[str, Any] = {}
    for key, pattern in (
        ("distributedInfo", _DISTRIBUTED_KEY),
        ("trace_id", _TRACE_ID_KEY),
    ):
        matches = list(pattern.finditer(text))
        if not matches:
            continue
        try:
            values[key], _ = decoder.raw_decode(text, matches[-1].end())
        except ValueError:
            continue
    return values


def _whole(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _header_of(values: Mapping[str, Any]) -> TraceHeader:
    info = values.get("distributedInfo")
    info = info if isinstance(info, Mapping) else {}
    description = values.get("steptrace")
    description = description if isinstance(description, Mapping) else {}
    declared = description.get("distributed")
    declared = declared if isinstance(declared, Mapping) else {}
    trace_id = values.get("trace_id")
    window = description.get("window")
    command = description.get("command")
    backend = info.get("backend", declared.get("backend"))
    return TraceHeader(
        rank=_whole(info.get("rank", declared.get("rank"))),
        world_size=_whole(info.get("world_size", declared.get("world_size"))),
        backend=backend if isinstance(backend, str) else None,
        trace_id=trace_id if isinstance(trace_id, str) else None,
        window=window if isinstance(window, Mapping) else None,
        command=tuple(str(part) for part in command)
        if isinstance(command, list)
        else None,
    )


def trace_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The trace files of a run folder, in natural name order, and why any entry
    named like a trace was skipped (a FIFO, a device, a link to one, a folder)."""
    problem = path_problem(folder, folder_ok=True)
    if problem == "no such file":
        raise TraceLoadError(f"{printable(str(folder))}: no such folder")
    if problem is not None:
        raise TraceLoadError(f"{printable(str(folder))}: {printable(problem)}")
    if not folder.is_dir():
        raise TraceLoadError(
            f"{printable(str(folder))}: is a file, not a run folder "
            "(steptrace summary reads one trace)"
        )
    try:
        entries = list(folder.iterdir())
    except OSError as error:
        raise TraceLoadError(
            f"{printable(str(folder))}: cannot be read ({error.strerror})"
        ) from None
    named = sorted(
        (entry for entry in entries if is_trace_name(entry.name)),
        key=lambda entry: natural_key(entry.name),
    )
    found: list[Path] = []
    skipped: list[str] = []
    for entry in named:
        unusable = _not_a_trace_file(entry)
        if unusable is None:
            found.append(entry)
        else:
            skipped.append(f"{printable(entry.name)}: skipped, {unusable}")
    if not found:
        why = f" ({'; '.join(skipped)})" if skipped else ""
        raise TraceLoadError(
            f"{printable(str(folder))}: no trace files (*.json, *.json.gz) in this "
            f"folder{why}"
        )
    return found, skipped


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def _not_a_trace_file(entry: Path) -> str | None:
    """Why a trace-named entry cannot be read as a trace (None: a regular file, or a link to one)."""
    try:
        own = entry.lstat()
        target = entry.stat()
    except FileNotFoundError:
        return "a broken symbolic link"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISREG(target.st_mode):
        return None
    kind = next((word for test, word in _KINDS if test(target.st_mode)), "not a file")
    if stat.S_ISLNK(own.st_mode):
        return f"a symbolic link to {kind}, not a regular file"
    return f"{kind}, not a regular file"


def discover_run(folder: str | Path) -> RunLayout:
    """The run in a folder: one file per rank, with warnings for whatever was guessed or skipped."""
    root = Path(folder)
    paths, skipped = trace_files(root)
    started = {path: _read_start(path) for path in paths}
    # Files whose start shows no trace are set aside before ranks are given:
    # numbered, they took a rank, then fell outside the world size.
    not_traces = {path: why for path, (_, why) in started.items() if why is not None}
    if not_traces:
        shown = "; ".join(
            f"{printable(path.name)} ({why})" for path, why in not_traces.items()
        )
        skipped.append(f"{len(not_traces)} file(s) set aside, not a trace: {shown}")
    paths = [path for path in paths if path not in not_traces]
    headers = {path: started[path][0] for path in paths}
    layout = assign_ranks(root, paths, headers)
    return replace(layout, warnings=(*skipped, *layout.warnings))


def assign_ranks(
    folder: Path, paths: list[Path], headers: Mapping[Path, TraceHeader]
) -> RunLayout:
    """Give each file its rank (distributedInfo, else name, else order) and say what does not add up."""
    warnings: list[str] = []
    ranked: list[tuple[Path, int, RankSource]] = []
    unknown: list[Path] = []
    for path in paths:
        header = headers.get(path, TraceHeader())
        named = rank_in_name(path.name)
        if header.rank is not None:
            if named is not None and named != header.rank:
                warnings.append(
                    f"{printable(path.name)}: its name says rank {named} but its "
                    f"distributedInfo says rank {header.rank}; rank {header.rank} is used"
                )
            ranked.append((path, header.rank, RankSource.DISTRIBUTED_INFO))
        elif named is not None:
            ranked.append((path, named, RankSource.FILE_NAME))
        else:
            unknown.append(path)
    if unknown:
        taken = {rank for _, rank, _ in ranked}
        free = (rank for rank in range(len(paths) + len(taken)) if rank not in taken)
        guessed = [(path, next(free)) for path in unknown]
        ranked += [(path, rank, RankSource.ORDER) for path, rank in guessed]
        shown = ", ".join(f"{printable(path.name)} → {rank}" for path, rank in guessed)
        warnings.append(
            f"{len(unknown)} file(s) state no rank (no distributedInfo, no rank in the "
            f"name); numbered in file order: {shown}"
        )
    by_rank: dict[int, list[tuple[Path, RankSource]]] = {}
    for path, rank, source in ranked:
        by_rank.setdefault(rank, []).append((path, source))
    files: list[RankFile] = []
    for rank in sorted(by_rank):
        (path, source), *others = sorted(
            by_rank[rank], key=lambda item: natural_key(item[0].name)
        )
        if others:
            warnings.append(
                f"rank {rank} appears in {len(others) + 1} files; "
                f"{printable(path.name)} is used, "
                + ", ".join(printable(other.name) for other, _ in others)
                + " left out (several cycles or several runs in one folder?)"
            )
        files.append(
            RankFile(path, rank, source, _size(path), headers.get(path, TraceHeader()))
        )
    world_size = _world_size(files, warnings)
    _check_one_run(files, warnings)
    if world_size is not None:
        present = {item.rank for item in files}
        missing = [rank for rank in range(world_size) if rank not in present]
        outside = sorted(rank for rank in present if rank >= world_size)
        if missing:
            warnings.append(
                f"world size is {world_size} but {len(files)} rank(s) were found; "
                f"missing: {_rank_list(missing)}"
            )
        if outside:
            warnings.append(
                f"rank(s) {_rank_list(outside)} lie outside the world size {world_size}"
            )
    return RunLayout(folder, tuple(files), world_size, tuple(warnings))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _world_size(files: list[RankFile], warnings: list[str]) -> int | None:
    """The world size most files state; files stating another one are named."""
    sizes = Counter(
        item.header.world_size for item in files if item.header.world_size is not None
    )
    if not sizes:
        return None
    world_size, _ = sizes.most_common(1)[0]
    odd = [item for item in files if item.header.world_size not in (None, world_size)]
    if odd:
        warnings.append(
            "files of different runs? world size "
            + ", ".join(
                f"{item.header.world_size} in {printable(item.path.name)}"
                for item in odd
            )
            + f", {world_size} in the others"
        )
    return world_size


def _check_one_run(files: list[RankFile], warnings: list[str]) -> None:
    """Warn when backends, capture windows, commands or shared trace ids differ."""
    for label, value_of in (
        ("backend", lambda item: item.header.backend),
        ("capture window", lambda item: _shown(item.header.window)),
        ("command", lambda item: _shown(item.header.command)),
    ):
        values = Counter(value_of(item) for item in files if value_of(item) is not None)
        if len(values) > 1:
            common, _ = values.most_common(1)[0]
            odd = [item for item in files if value_of(item) not in (None, common)]
            warnings.append(
                f"files of different runs? their {label} differs: "
                + ", ".join(printable(item.path.name) for item in odd)
                + f" against {printable(str(common))} in the others"
            )
    # torch.profiler gives each rank's file its own trace id; ids shared by
    # some files (an on-demand capture of a whole job) mark a run, so a file
    # outside the group that shares one is from elsewhere.
    ids = Counter(item.header.trace_id for item in files if item.header.trace_id)
    shared = [trace_id for trace_id, count in ids.items() if count > 1]
    if shared and len(ids) > 1:
        common = max(shared, key=lambda trace_id: ids[trace_id])
        odd = [item for item in files if item.header.trace_id not in (None, common)]
        warnings.append(
            "files of different runs? trace id differs: "
            + ", ".join(printable(item.path.name) for item in odd)
        )


def _shown(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return ",".join(f"{key}={value[key]}" for key in sorted(value))
    if isinstance(value, tuple):
        return " ".join(value)
    return str(value)


def _rank_list(ranks: list[int]) -> str:
    """`0, 2, 5` or `3-7, 9`: ranks with runs collapsed, at most 12 items."""
    parts: list[str] = []
    start = previous = ranks[0]
    for rank in [*ranks[1:], None]:
        if rank is not None and rank == previous + 1:
            previous = rank
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if rank is not None:
            start = previous = rank
    if len(parts) > 12:
        return ", ".join(parts[:12]) + f", … ({len(ranks)} in all)"
    return ", ".join(parts)

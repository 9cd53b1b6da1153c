"""Complete events decoded by DuckDB into the columns the usual collector makes.

DuckDB reads the pieces (`pieces.py`) with `read_json`, one core each, and
makes the complete events' columns itself: names, categories and threads
numbered in first-seen order, the known ids from the args, the args' text.
Two things it cannot give exactly are taken from the bytes: timestamps (it
reads numbers as float64, which loses the nanoseconds of epoch microseconds)
are the `"ts"` texts found in order and checked against its values, parsed
as the usual decoder parses them. The other events (metadata, flows,
instants, begin/end, a small share) become the usual records and go through
the usual collector.

Anything this path would read differently from the usual decoder — a value
of an odd type, an event it would drop, a timestamp it cannot place, a piece
that is not whole events, no scratch room — makes it give way: `None`, and
the usual decoder reads the trace. Where it reads, the columns are the usual
decoder's, but for the args' text, which DuckDB writes without the file's
whitespace (the same values).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

from tui.core.base.numbers import MAX_DURATION_US, parse_us_to_ns
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.collect.batches import Collector
from tui.core.ingest.collect.interning import _MAX_ID
from tui.core.ingest.collect.tables import _in_time_range
from tui.core.ingest.decode.records import BATCH_EVENTS, EMPTY_RAW, RawEvent
from tui.core.ingest.native.pieces import NoScratchRoom, piece_ranges, scratch_pieces
from tui.core.ingest.parallel.layout import EventsLayout, locate_events
from tui.core.model.trace import Trace

if TYPE_CHECKING:
    import duckdb

# A top-level "ts" number, or an `"args": null` (which DuckDB reads as no args).
_TS_OR_NULL_ARGS = re.compile(rb'"ts"\s*:\s*(-?[0-9][0-9.eE+-]*)|"args"\s*:\s*null\b')

_COLUMNS = (
    "{'ph': 'JSON', 'cat': 'JSON', 'name': 'JSON', 'pid': 'JSON', 'tid': 'JSON', "
    "'ts': 'DOUBLE', 'dur': 'JSON', 'id': 'JSON', 'bp': 'JSON', 'args': 'JSON'}"
)

# The fields the usual records hold as text when they are strings (anything
# else there is odd: the usual decoder names it as its JSON).
_TEXT_FIELDS = ("ph", "cat", "name", "bp")

# The args that become columns, as the usual collector reads them (read from
# the args with one parse, as a list in this order).
_KNOWN_IDS = ("correlation", "External id", "external id", "stream")

# The events table: text fields as text, with whether any was not a string.
_EVENTS = (
    "CREATE TABLE ev AS SELECT "
    + ", ".join(f"{field} ->> '$' AS {field}" for field in _TEXT_FIELDS)
    + ", "
    + " OR ".join(
        f"coalesce(json_type({field}) <> 'VARCHAR', false)" for field in _TEXT_FIELDS
    )
    + " AS odd_text, pid, tid, ts, dur, id, args, json_extract(args, ["
    + ", ".join(f"'$.\"{key}\"'" for key in _KNOWN_IDS)
    + "]) AS ids FROM read_json(?, format = 'array', "
    f"columns = {_COLUMNS}, maximum_object_size = 1073741824)"
)

_NUMBER_TYPES = "('BIGINT', 'UBIGINT', 'DOUBLE')"
_KEY_TYPES = "('BIGINT', 'UBIGINT', 'VARCHAR')"


def _known(key: str) -> str:
    """A known id arg's JSON value."""
    return f"ids[{_KNOWN_IDS.index(key) + 1}]"


def _text_of(key: str) -> str:
    """A known id arg's text, when it is a JSON string."""
    return f"({_known(key)} ->> '$')"


# Complete events the usual decoder reads another way than this path would:
# its tolerant path reads an id given as a string of digits with Python's
# `str.isdigit`, which takes other scripts' digits too.
_ODD_COMPLETE = " OR ".join(
    [
        "ts IS NULL",
        f"json_type(dur) IS NULL OR json_type(dur) NOT IN {_NUMBER_TYPES}",
        "(args IS NOT NULL AND json_type(args) <> 'OBJECT')",
        f"(pid IS NOT NULL AND json_type(pid) NOT IN {_KEY_TYPES})",
        f"(tid IS NOT NULL AND json_type(tid) NOT IN {_KEY_TYPES})",
        *(
            f"(json_type({_known(key)}) = 'VARCHAR' "
            f"AND NOT regexp_full_match({_text_of(key)}, '[\\x00-\\x7f]*'))"
            for key in _KNOWN_IDS[:3]
        ),
    ]
)


def _id_column(key: str) -> str:
    """An id arg as the usual collector reads it: an integer that fits int64, or
    a string of 1 to 17 digits; -1 for anything else or none."""
    value = _known(key)
    return (
        f"coalesce(CASE json_type({value}) "
        f"WHEN 'BIGINT' THEN TRY_CAST({value}::VARCHAR AS BIGINT) "
        f"WHEN 'UBIGINT' THEN TRY_CAST({value}::VARCHAR AS BIGINT) "
        f"WHEN 'VARCHAR' THEN CASE WHEN regexp_full_match({_text_of(key)}, "
        f"'[0-9]{{1,17}}') THEN CAST({_text_of(key)} AS BIGINT) END END, -1)"
    )


def _stream_column() -> str:
    """The stream arg as the usual collector reads it: an integer that fits
    int64, else -1."""
    value = _known("stream")
    return (
        f"coalesce(CASE WHEN json_type({value}) IN ('BIGINT', 'UBIGINT') "
        f"THEN TRY_CAST({value}::VARCHAR AS BIGINT) END, -1)"
    )


def load_native(
    path: Path,
    threads: int,
    *,
    data: bytes | bytearray | None,
    file_size: int,
    compressed: bool,
    read_warnings: list[str],
    progress: Callable[[LoadPhase, int, int], None] | None = None,
) -> Trace | None:
    """The trace with its complete events decoded by DuckDB, or None when the
    usual decoder must read it. `data`: the decompressed document of a gzip
    file; otherwise the file is mapped."""
    import mmap

    from tui.core.ingest.assemble.assembler import finish_trace

    if data is not None:
        collected = _collected(data, threads)
    else:
        with open(path, "rb") as handle:
            if not file_size:
                return None
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                collected = _collected(mapped, threads)
    if collected is None:
        return None
    collector, layout = collected
    return finish_trace(
        collector,
        path,
        top_level=layout.top_level,
        array_form=layout.array_form,
        warnings=list(read_warnings),
        file_size=file_size,
        compressed=compressed,
        progress=progress,
    )


def _collected(data: Any, threads: int) -> tuple[Collector, EventsLayout] | None:
    """What the usual collector would gather from `data`, or None."""
    import duckdb

    layout = locate_events(data)
    if layout is None or layout.end <= layout.start:
        return None
    ranges = piece_ranges(data, layout, threads)
    try:
        with (
            scratch_pieces(data, ranges) as paths,
            ThreadPoolExecutor(1) as beside,
        ):
            # The stamps are searched for while DuckDB reads (it lets go of the GIL).
            searching = beside.submit(_stamp_texts, data, ranges)
            connection = duckdb.connect(":memory:")
            try:
                connection.execute(f"SET threads = {max(1, threads)}")
                connection.execute("SET preserve_insertion_order = true")
                connection.execute(_EVENTS, [paths])
                stamps = searching.result()
                if stamps is None:
                    return None
                return _from_table(connection, stamps, layout)
            finally:
                connection.close()
    except (NoScratchRoom, duckdb.Error, MemoryError):
        return None


def _stamp_texts(data: Any, ranges: list[tuple[int, int]]) -> list[bytes] | None:
    """Every event's `"ts"` text in order, None when an `"args": null` is seen."""
    texts: list[bytes] = []
    for begin, end in ranges:
        found = _TS_OR_NULL_ARGS.findall(data, begin, end)
        texts += found
    if b"" in texts:
        return None
    return texts


def _from_table(
    connection: duckdb.DuckDBPyConnection, stamps: list[bytes], layout: EventsLayout
) -> tuple[Collector, EventsLayout] | None:
    """The collector filled from table `ev`, or None where it would differ."""
    has_ts = connection.execute(
        "SELECT ts IS NOT NULL FROM ev ORDER BY rowid"
    ).fetchnumpy()
    timed = np.asarray(next(iter(has_ts.values())), dtype=np.bool_)
    if int(timed.sum()) != len(stamps):
        return None
    odd = connection.execute(
        f"SELECT count(*) FROM ev WHERE odd_text OR (ph = 'X' AND ({_ODD_COMPLETE}))"
    ).fetchone()
    if odd is None or odd[0]:
        return None
    start_ns, parsed = parse_us_to_ns(stamps)
    if not parsed.all():
        return None
    values = connection.execute(
        "SELECT ts FROM ev WHERE ts IS NOT NULL ORDER BY rowid"
    ).fetchnumpy()["ts"]
    as_us = np.asarray(values, dtype=np.float64)
    if not np.allclose(start_ns / 1000.0, as_us, rtol=1e-14, atol=1e-3):
        return None  # a "ts" text that is not its event's
    stamp_of_row = np.full(timed.size, -1, dtype=np.int64)
    stamp_of_row[timed] = np.arange(len(stamps))
    collector = Collector()
    _collect_others(connection, collector, stamps, stamp_of_row)
    part = _complete_part(connection, start_ns, stamp_of_row)
    if part is None:
        return None
    collector.absorb(part)
    return collector, layout


def _complete_part(
    connection: duckdb.DuckDBPyConnection,
    start_ns: np.ndarray[Any, np.dtype[np.int64]],
    stamp_of_row: np.ndarray[Any, np.dtype[np.int64]],
) -> Any:
    """The complete events as the part a collector absorbs, or None when one
    of them would be dropped (the usual decoder counts and names those)."""
    connection.execute(
        "CREATE VIEW x AS SELECT rowid AS row, name, cat, pid::VARCHAR AS pid, "
        "tid::VARCHAR AS tid, dur::DOUBLE AS dur, args, ids FROM ev WHERE ph = 'X'"
    )
    names = _first_seen(connection, "name")
    categories = _first_seen(connection, "cat")
    connection.execute(
        "CREATE TABLE tracks AS SELECT pid, tid, row_number() OVER (ORDER BY first) - 1 "
        "AS code FROM (SELECT pid, tid, min(row) AS first FROM x GROUP BY pid, tid)"
    )
    track_rows = connection.execute(
        "SELECT pid, tid FROM tracks ORDER BY code"
    ).fetchall()
    columns = connection.execute(
        "SELECT x.row, n.code AS name_id, c.code AS category_id, t.code AS track, "
        f"x.dur, {_id_column('correlation')} AS correlation, "
        f"{_id_column('External id')} AS external_id, "
        f"{_id_column('external id')} AS external_id_old, "
        f"{_stream_column()} AS stream, "
        "coalesce(x.args::VARCHAR, '{}') AS args, "
        "strlen(coalesce(x.args::VARCHAR, '{}')) AS args_length "
        "FROM x "
        "JOIN name_codes n ON x.name IS NOT DISTINCT FROM n.value "
        "JOIN cat_codes c ON x.cat IS NOT DISTINCT FROM c.value "
        "JOIN tracks t ON x.pid IS NOT DISTINCT FROM t.pid "
        "AND x.tid IS NOT DISTINCT FROM t.tid "
        "ORDER BY x.row"
    ).fetchnumpy()
    rows = np.asarray(columns["row"], dtype=np.int64)
    start = start_ns[stamp_of_row[rows]]
    duration_us = np.asarray(columns["dur"], dtype=np.float64)
    valid = np.isfinite(duration_us) & (np.abs(duration_us) < MAX_DURATION_US)
    duration = np.zeros(duration_us.size, dtype=np.int64)
    duration[valid] = np.rint(duration_us[valid] * 1000.0).astype(np.int64)
    if not (valid.all() and _in_time_range(start).all() and (duration >= 0).all()):
        return None
    correlation = np.asarray(columns["correlation"], dtype=np.int64)
    external_id = np.asarray(columns["external_id"], dtype=np.int64)
    external_id = np.where(
        external_id == -1,
        np.asarray(columns["external_id_old"], dtype=np.int64),
        external_id,
    )
    for column in (correlation, external_id):
        column[(column >= _MAX_ID) | (column <= -_MAX_ID)] = -1
    lengths = np.asarray(columns["args_length"], dtype=np.int64)
    offsets = np.zeros(lengths.size, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths[:-1] + 1)
    blob = ",".join(columns["args"].tolist()).encode("utf-8")
    empty = Collector().export()
    return dataclasses.replace(
        empty,
        elements=int(rows.size),
        names=names,
        categories=categories,
        track_keys=[(_json_value(pid), _json_value(tid)) for pid, tid in track_rows],
        columns={
            "start": start,
            "duration": duration,
            "name_id": np.asarray(columns["name_id"], dtype=np.int32),
            "category_id": np.asarray(columns["category_id"], dtype=np.int32),
            "track": np.asarray(columns["track"], dtype=np.int32),
            "correlation": correlation,
            "external_id": external_id,
            "stream_arg": np.asarray(columns["stream"], dtype=np.int64),
            "args_begin": offsets,
            "args_length": lengths,
        },
        args_blob=blob,
    )


def _first_seen(connection: duckdb.DuckDBPyConnection, column: str) -> list[Any]:
    """The distinct values of `x.column` in first-seen order, kept as a code table."""
    table = {"name": "name_codes", "cat": "cat_codes"}[column]
    connection.execute(
        f"CREATE TABLE {table} AS SELECT {column} AS value, "
        "row_number() OVER (ORDER BY first) - 1 AS code "
        f"FROM (SELECT {column}, min(row) AS first FROM x GROUP BY {column})"
    )
    return [
        value
        for (value,) in connection.execute(
            f"SELECT value FROM {table} ORDER BY code"
        ).fetchall()
    ]


def _collect_others(
    connection: duckdb.DuckDBPyConnection,
    collector: Collector,
    stamps: list[bytes],
    stamp_of_row: np.ndarray[Any, np.dtype[np.int64]],
) -> None:
    """Every event but the complete ones, as the usual records, through the collector."""
    cursor = connection.execute(
        "SELECT rowid, ph, cat, name, pid::VARCHAR, tid::VARCHAR, dur::VARCHAR, "
        "id::VARCHAR, bp, args::VARCHAR FROM ev WHERE ph IS DISTINCT FROM 'X' "
        "ORDER BY rowid"
    )
    while batch := cursor.fetchmany(BATCH_EVENTS):
        records = []
        for row, ph, cat, name, pid, tid, dur, flow_id, bp, args in batch:
            stamp = int(stamp_of_row[row])
            records.append(
                RawEvent(
                    ph=ph,
                    cat=cat,
                    name=name,
                    pid=_json_value(pid),
                    tid=_json_value(tid),
                    ts=msgspec.Raw(stamps[stamp]) if stamp >= 0 else EMPTY_RAW,
                    dur=_json_value(dur),
                    id=_json_value(flow_id),
                    bp=bp,
                    args=EMPTY_RAW if args is None else msgspec.Raw(args.encode()),
                )
            )
        collector.add_batch(records)


def _json_value(text: str | None) -> Any:
    """A JSON value's text as the usual records hold it (None for none)."""
    if text is None:
        return None
    return msgspec.json.decode(text)

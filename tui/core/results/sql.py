"""`steptrace sql`: a read-only SQL query over a trace's columns.

The trace's numpy columns are handed to DuckDB as they are (no copy, no
decode: a trace reopened from the column cache is queried from its cache),
and documented views (`events`, `kernels`, `steps`, `flows`, `tracks`) give
them names, text and microseconds. A query reads nothing else: external
access (files, network, extensions) is switched off and the configuration
locked before it runs, and only one SELECT (WITH included) is accepted.
DuckDB is imported here only, when a query runs.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tui.core.figures.analysis import Analysis
from tui.core.model.trace import Kind, Trace, TrackKind

if TYPE_CHECKING:
    import duckdb

# The views a query reads, over the raw columns registered below them.
VIEWS = (
    """CREATE VIEW tracks AS SELECT t.track, t.pid, t.tid, t.track_name,
       t.process_name, k.track_kind, t.device
       FROM raw_tracks t JOIN raw_track_kinds k USING (track_kind_id)""",
    """CREATE VIEW events AS SELECT e.id, n.name, c.category, k.kind,
       (e.start_ns + o.origin_ns) / 1000.0 AS ts_us, e.duration_ns / 1000.0 AS dur_us,
       e.start_ns, e.duration_ns AS dur_ns, e.start_ns + e.duration_ns AS end_ns,
       e.track, t.pid, t.tid, t.track_name, t.track_kind, t.device,
       NULLIF(e.stream_arg, -1) AS stream, NULLIF(e.correlation, -1) AS correlation,
       NULLIF(e.external_id, -1) AS external_id
       FROM raw_events e
       JOIN raw_names n USING (name_id)
       JOIN raw_categories c USING (category_id)
       JOIN raw_kinds k USING (kind_id)
       JOIN tracks t USING (track)
       CROSS JOIN raw_origin o""",
    "CREATE VIEW kernels AS SELECT * FROM events WHERE kind = 'kernel'",
    """CREATE VIEW steps AS SELECT s.step, s.event, s.phase,
       (s.start_ns + o.origin_ns) / 1000.0 AS ts_us, s.duration_ns / 1000.0 AS dur_us,
       s.start_ns, s.duration_ns AS dur_ns, s.start_ns + s.duration_ns AS end_ns
       FROM raw_steps s CROSS JOIN raw_origin o""",
    """CREATE VIEW flows AS SELECT f.flow_id AS id, c.category,
       NULLIF(f.source_event, -1) AS source_event,
       NULLIF(f.target_event, -1) AS target_event
       FROM raw_flows f JOIN raw_categories c USING (category_id)""",
)

ARGS_TABLE = "event_args"
"""Each event's args as JSON: made only for a query that names it, as it holds
every event's args text (read whole from the trace or its cache entry)."""

ARGS_VIEW = f"CREATE VIEW {ARGS_TABLE} AS SELECT id, args::JSON AS args FROM raw_args"

# Settings that close every way out of the database, then lock themselves.
CLOSED = (
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET enable_external_access = false",
    "SET lock_configuration = true",
)


MAX_ROWS = 1_000_000
"""The most rows a query may give (each becomes Python objects, then text)."""


class QueryRefused(ValueError):
    """A query that is not one read-only SELECT, or that DuckDB rejects: one line why."""


@dataclass(frozen=True)
class SqlResult:
    """A query's column names and its rows (JSON-ready values)."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]

    def to_json(self) -> dict[str, Any]:
        """{"columns": [...], "rows": [[...], ...]}."""
        return {"columns": list(self.columns), "rows": [list(row) for row in self.rows]}

    @classmethod
    def of_query(
        cls,
        analysis: Analysis,
        query: str,
        *,
        max_rows: int = MAX_ROWS,
        memory_bytes: int | None = None,
    ) -> SqlResult:
        """Run `query` over the trace's tables; QueryRefused says why it cannot
        (more than `max_rows` rows, more than `memory_bytes` of working memory)."""
        import duckdb

        connection = trace_database(
            analysis, args=ARGS_TABLE in query.lower(), memory_bytes=memory_bytes
        )
        try:
            _check_read_only(connection, query)
            cursor = connection.execute(query)
            columns = tuple(column[0] for column in cursor.description or ())
            fetched = cursor.fetchmany(max_rows + 1)
            if len(fetched) > max_rows:
                raise QueryRefused(
                    f"the query gives more than {max_rows:,} rows: add a LIMIT, "
                    "or raise --max-rows"
                )
            rows = [tuple(map(_plain, row)) for row in fetched]
        except duckdb.Error as error:
            raise QueryRefused(_one_line(error)) from None
        finally:
            connection.close()
        return cls(columns, rows)


def trace_database(
    analysis: Analysis, *, args: bool = False, memory_bytes: int | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory database holding the trace's tables as views of its columns
    (`event_args` too when `args`), closed to files, network and extensions,
    using at most `memory_bytes` (DuckDB's default: most of the machine's),
    its configuration locked."""
    import duckdb

    connection = duckdb.connect(":memory:")
    if memory_bytes is not None:
        connection.execute(f"SET memory_limit = '{int(memory_bytes)}B'")
    for name, columns in _raw_tables(analysis).items():
        connection.register(name, columns)
    for view in VIEWS:
        connection.execute(view)
    if args:
        connection.register("raw_args", _args_table(analysis.trace))
        connection.execute(ARGS_VIEW)
    for setting in CLOSED:
        connection.execute(setting)
    return connection


def _raw_tables(analysis: Analysis) -> dict[str, dict[str, Any]]:
    """The trace's columns as DuckDB scans them, one dict of numpy arrays a table."""
    trace = analysis.trace
    steps = analysis.steps
    flows = trace.flows
    return {
        "raw_events": {
            "id": np.arange(trace.event_count, dtype=np.int64),
            "name_id": trace.name_id,
            "category_id": trace.category_id,
            "kind_id": trace.kind,
            "track": trace.track,
            "start_ns": trace.start_ns,
            "duration_ns": trace.duration_ns,
            "stream_arg": trace.stream_arg,
            "correlation": trace.correlation,
            "external_id": trace.external_id,
        },
        "raw_names": _labels("name_id", "name", trace.names, np.int32),
        "raw_categories": _labels(
            "category_id", "category", trace.categories, np.int32
        ),
        "raw_kinds": _labels(
            "kind_id", "kind", [kind.name.lower() for kind in Kind], np.uint8
        ),
        "raw_track_kinds": _labels(
            "track_kind_id",
            "track_kind",
            [kind.name.lower() for kind in TrackKind],
            np.uint8,
        ),
        "raw_tracks": _tracks(trace),
        "raw_origin": {"origin_ns": np.array([trace.origin_ns], dtype=np.int64)},
        "raw_steps": {
            "step": np.array([step.number for step in steps], dtype=np.int64),
            "event": np.array([step.event for step in steps], dtype=np.int64),
            "phase": np.array([step.phase.value for step in steps], dtype=object),
            "start_ns": np.array([step.start_ns for step in steps], dtype=np.int64),
            "duration_ns": np.array(
                [step.duration_ns for step in steps], dtype=np.int64
            ),
        },
        "raw_flows": {
            "flow_id": flows.flow_id,
            "category_id": flows.category_id,
            "source_event": flows.source_event,
            "target_event": flows.target_event,
        },
    }


def _args_table(trace: Trace) -> dict[str, Any]:
    """Each event's args text, one string an event (the whole args blob read)."""
    blob = trace.args_blob
    texts = [
        bytes(blob[begin:end]).decode("utf-8", errors="replace")
        for begin, end in zip(
            trace.args_begin.tolist(), trace.args_end.tolist(), strict=True
        )
    ]
    return {
        "id": np.arange(trace.event_count, dtype=np.int64),
        "args": np.array(texts, dtype=object),
    }


def _labels(
    key: str, label: str, values: list[str], dtype: type[np.generic]
) -> dict[str, Any]:
    """A lookup table from an id column to its text."""
    return {
        key: np.arange(len(values), dtype=dtype),
        label: np.array(values, dtype=object),
    }


def _tracks(trace: Trace) -> dict[str, Any]:
    """One row per track; pid and tid NULL where the trace names them with text."""
    tracks = trace.tracks
    return {
        "track": np.array([track.index for track in tracks], dtype=np.int32),
        "pid": np.array([_integer(track.pid) for track in tracks], dtype=object),
        "tid": np.array([_integer(track.tid) for track in tracks], dtype=object),
        "track_name": np.array([track.name for track in tracks], dtype=object),
        "process_name": np.array(
            [track.process_name for track in tracks], dtype=object
        ),
        "track_kind_id": np.array(
            [int(track.kind) for track in tracks], dtype=np.uint8
        ),
        "device": np.array([track.device for track in tracks], dtype=object),
    }


def _integer(value: Any) -> int | None:
    """A pid or tid as an integer, None when it is text that is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return None


def _check_read_only(connection: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse anything but one SELECT (a WITH query is one)."""
    import duckdb

    statements = connection.extract_statements(query)
    if not statements:
        raise QueryRefused("no SQL statement given")
    if len(statements) > 1:
        raise QueryRefused("one SQL statement at a time")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise QueryRefused(
            f"only SELECT (or WITH) queries read the trace, not {kind.name}"
        )


def _one_line(error: Exception) -> str:
    """DuckDB's message, first line only (it adds the query and a caret below)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def _plain(value: Any) -> Any:
    """A value JSON and text both print: exact decimals and times as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, decimal.Decimal | datetime.date | datetime.time | uuid.UUID):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return str(value)

"""Which file is which rank: distributedInfo, file names, order — and every guess or oddity is a warning."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from tests.builders.runs import header, rank_events, write_run
from tests.builders.traces import write_trace
from tui.core.base.errors import TraceLoadError
from tui.core.base.vocab import RankSource
from tui.core.runs.discover import HEAD_BYTES, discover_run, read_header

ARRIVALS = [100.0, 120.0]


def write(
    path: Path, rank: int | None, world_size: int | None = 4, **more: object
) -> Path:
    return write_trace(
        path,
        rank_events(ARRIVALS),
        gz=path.suffix == ".gz",
        extra=header(rank, world_size, **more),
    )


def test_ranks_come_from_distributed_info_whatever_the_names(tmp_path: Path) -> None:
    for name, rank in (
        ("b.json", 0),
        ("a.json.gz", 2),
        ("c.pt.trace.json", 1),
        ("d.json", 3),
    ):
        write(tmp_path / name, rank)
    layout = discover_run(tmp_path)
    assert [(item.path.name, item.rank) for item in layout.files] == [
        ("b.json", 0),
        ("c.pt.trace.json", 1),
        ("a.json.gz", 2),
        ("d.json", 3),
    ]
    assert {item.source for item in layout.files} == {RankSource.DISTRIBUTED_INFO}
    assert layout.world_size == 4 and layout.warnings == ()


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_distributed_info_after_the_events_is_found_at_the_end(
    tmp_path: Path, gz: bool
) -> None:
    # Old writers put the events first; the header is then read from the file's end.
    events = rank_events(ARRIVALS) * 400  # well past the first HEAD_BYTES
    document = {
        "traceEvents": events,
        "distributedInfo": {"rank": 5, "world_size": 8},
        "trace_id": "ABC",
    }
    data = orjson.dumps(document)
    assert len(data) > HEAD_BYTES
    path = tmp_path / ("late.json.gz" if gz else "late.json")
    path.write_bytes(gzip.compress(data) if gz else data)
    found = read_header(path)
    assert (found.rank, found.world_size, found.trace_id) == (5, 8, "ABC")


def test_the_header_is_read_without_parsing_the_events(tmp_path: Path) -> None:
    # Everything after the header is garbage: only the first kilobytes are read.
    path = tmp_path / "big.json"
    head = orjson.dumps(header(3, 4, schemaVersion=1))[:-1] + b', "traceEvents": ['
    path.write_bytes(head + b"\x00not json at all" * 200_000)
    found = read_header(path)
    assert (found.rank, found.world_size) == (3, 4)


def test_a_compact_rank_key_is_read_too(tmp_path: Path) -> None:
    # HTA's regex needs a space after "rank": (DEFINITIONS.md §1.1); a parser does not.
    path = tmp_path / "x.json"
    path.write_bytes(b'{"distributedInfo":{"rank":3,"world_size":4},"traceEvents":[]}')
    assert read_header(path).rank == 3


def test_ranks_come_from_file_names_without_distributed_info(tmp_path: Path) -> None:
    for name in (
        "rank-0.json",
        "rank1.pt.trace.json.gz",
        "worker2.json",
        "job_rank_3.json",
    ):
        write(tmp_path / name, None)
    layout = discover_run(tmp_path)
    assert [(item.path.name, item.rank) for item in layout.files] == [
        ("rank-0.json", 0),
        ("rank1.pt.trace.json.gz", 1),
        ("worker2.json", 2),
        ("job_rank_3.json", 3),
    ]
    assert {item.source for item in layout.files} == {RankSource.FILE_NAME}
    assert layout.world_size is None and layout.warnings == ()


def test_ranks_in_file_order_are_a_warning(tmp_path: Path) -> None:
    for name in ("host_b.10.pt.trace.json", "host_a.9.pt.trace.json", "rank-0.json"):
        write(tmp_path / name, None)
    layout = discover_run(tmp_path)
    assert [(item.path.name, item.rank, item.source) for item in layout.files] == [
        ("rank-0.json", 0, RankSource.FILE_NAME),
        ("host_a.9.pt.trace.json", 1, RankSource.ORDER),
        ("host_b.10.pt.trace.json", 2, RankSource.ORDER),
    ]
    (warning,) = layout.warnings
    assert "numbered in file order" in warning
    assert (
        "host_a.9.pt.trace.json → 1" in warning
        and "host_b.10.pt.trace.json → 2" in warning
    )


def test_a_name_that_disagrees_with_distributed_info_is_named(tmp_path: Path) -> None:
    write(tmp_path / "rank-3.json", 2, world_size=None)
    layout = discover_run(tmp_path)
    assert [item.rank for item in layout.files] == [2]
    (warning,) = layout.warnings
    assert "rank 3" in warning and "rank 2" in warning


def test_duplicate_and_missing_ranks_are_reported(tmp_path: Path) -> None:
    for rank in (0, 1, 2, 4, 6):
        write(tmp_path / f"rank-{rank}.json", rank, world_size=8)
    write(tmp_path / "rank-6.cycle2.json", 6, world_size=8)
    layout = discover_run(tmp_path)
    assert [item.rank for item in layout.files] == [0, 1, 2, 4, 6]
    text = "\n".join(layout.warnings)
    assert "rank 6 appears in 2 files" in text and "rank-6.cycle2.json" in text
    assert "world size is 8 but 5 rank(s) were found; missing: 3, 5, 7" in text


def test_files_of_different_runs_are_reported(tmp_path: Path) -> None:
    window = {"wait": 1, "warmup": 1, "active": 2}
    for rank in range(3):
        write(
            tmp_path / f"rank-{rank}.json",
            rank,
            world_size=3,
            steptrace={"window": window},
        )
    write(
        tmp_path / "rank-3.json",
        3,
        world_size=4,
        steptrace={"window": {**window, "active": 4}},
    )
    text = "\n".join(discover_run(tmp_path).warnings)
    assert "world size 4 in rank-3.json, 3 in the others" in text
    assert "capture window differs: rank-3.json" in text
    assert "rank(s) 3 lie outside the world size 3" in text


def test_a_trace_id_shared_by_some_files_marks_the_odd_one(tmp_path: Path) -> None:
    # torch gives every rank's file its own id: distinct ids alone say nothing.
    for rank in range(2):
        write(tmp_path / f"rank-{rank}.json", rank, world_size=2, trace_id=f"ID{rank}")
    assert discover_run(tmp_path).warnings == ()
    for rank, trace_id in ((0, "JOB"), (1, "JOB"), (2, "OTHER")):
        write(tmp_path / f"rank-{rank}.json", rank, world_size=3, trace_id=trace_id)
    (warning,) = discover_run(tmp_path).warnings
    assert "trace id differs: rank-2.json" in warning


def test_sidecars_hidden_files_and_other_files_are_not_ranks(tmp_path: Path) -> None:
    write_run(tmp_path, {0: ARRIVALS, 1: ARRIVALS}, world_size=2)
    (tmp_path / "rank-0.pt.trace.json.notes.json").write_text("{}")
    (tmp_path / "rank-0.pt.trace.json.notes.1.json").write_text("{}")
    (tmp_path / ".rank-1.pt.trace.json.1234.export.tmp").write_text("")
    (tmp_path / ".hidden.json").write_text("{}")
    (tmp_path / "README.md").write_text("")
    layout = discover_run(tmp_path)
    assert [item.path.name for item in layout.files] == [
        "rank-0.pt.trace.json",
        "rank-1.pt.trace.json",
    ]


def test_a_file_or_an_empty_folder_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(TraceLoadError, match="no trace files"):
        discover_run(tmp_path)
    path = write(tmp_path / "rank-0.json", 0)
    with pytest.raises(TraceLoadError, match="is a file, not a run folder"):
        discover_run(path)
    with pytest.raises(TraceLoadError, match="no such folder"):
        discover_run(tmp_path / "missing")

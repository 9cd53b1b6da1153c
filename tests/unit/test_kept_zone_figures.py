"""The figures a reopened summary, gaps or kernels reads from the cache entry
(the steps, the zone names present, the annotations per step, the zone reading
of each zone choice with its gaps, the whole trace's kernel stats) are the very
figures computed from the columns; a choice is never served another choice's
reading, and a damaged one is computed again."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.builders.traces import training_steps, write_trace
from tui.core.base.grouped import exact_median
from tui.core.base.vocab import CacheUse, GapKind
from tui.core.figures import zones
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import kernel_stats_bytes, kernel_stats_from
from tui.core.figures.zone_kept import ZONE_READING_ROOTS, zone_reading_name
from tui.core.figures.zones import ZoneChoice, ZoneReading
from tui.core.ingest import cache
from tui.core.ingest.cache_files import crc32
from tui.core.ingest.load import load_trace
from tui.core.results.gaps import GapsResult
from tui.core.results.kernels import KernelsResult

OTHER_ZONE = ("entrainement",)


def _never(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("computed again")


@pytest.fixture(params=["gpu", "cpu only"])
def trace_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Training steps, with their device work or without (untraced gaps, no device)."""
    events = training_steps(4)
    if request.param == "cpu only":
        events = [event for event in events if event.get("pid") != 0]
    return write_trace(tmp_path / "t.json", events)


def _array(column: np.ndarray[Any, Any]) -> tuple[str, list[Any]]:
    return column.dtype.str, column.tolist()


def _reading(reading: ZoneReading) -> dict[str, Any]:
    """Everything a zone reading says, arrays as their dtype and values."""
    columns = reading.gap_columns
    return {
        "choice": reading.choice,
        "kind": reading.kind,
        "zone": (_array(reading.zone.starts), _array(reading.zone.ends)),
        "zone_events": _array(reading.zone_events),
        "gap_intervals": {
            device: (_array(idle.starts), _array(idle.ends))
            for device, idle in reading.gap_intervals.items()
        },
        "gap_union": (_array(reading.gap_union.starts), _array(reading.gap_union.ends)),
        "steps": reading.steps,
        "gap_columns": [
            _array(column)
            for column in (
                columns.start_ns,
                columns.duration_ns,
                columns.device,
                columns.step,
                columns.zone_event,
            )
        ],
        "gaps": reading.gaps,
    }


def _zone_figures(analysis: Analysis) -> dict[str, Any]:
    return {
        "steps": analysis.steps,
        "present": analysis.zone_names_present,
        "step_zones": [list(map(repr, figures)) for figures in analysis.step_zones],
        "reading": _reading(analysis.zone_reading),
    }


def _forbid_zone_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("find_steps", "zone_event_mask", "zones_in_windows", "read_zone"):
        monkeypatch.setattr(f"tui.core.figures.analysis.{name}", _never)


def test_a_reopened_trace_reads_its_zone_figures_back(
    cache_dir: Path, trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _zone_figures(Analysis(load_trace(trace_path)))
    assert expected["reading"]["gaps"]  # the trace has gaps to keep
    first = Analysis(load_trace(trace_path, cache=CacheUse.ON))
    assert _zone_figures(first) == expected
    _forbid_zone_figures(monkeypatch)
    again = Analysis(load_trace(trace_path, cache=CacheUse.AUTO))
    assert cache.is_mapped(again.trace.start_ns)
    assert _zone_figures(again) == expected


def test_the_gpu_less_reading_is_untraced_time(cache_dir: Path, tmp_path: Path) -> None:
    events = [event for event in training_steps(2) if event.get("pid") != 0]
    path = write_trace(tmp_path / "cpu.json", events)
    _ = Analysis(load_trace(path, cache=CacheUse.ON)).zone_reading
    reading = Analysis(load_trace(path, cache=CacheUse.AUTO)).zone_reading
    assert reading.kind is GapKind.UNTRACED
    assert list(reading.gap_intervals) == [None]
    assert {gap.device for gap in reading.gaps} == {None}


def test_each_zone_choice_reads_its_own(
    cache_dir: Path, trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = load_trace(trace_path)
    default = _reading(Analysis(plain).zone_reading)
    other = _reading(Analysis(plain, OTHER_ZONE).zone_reading)
    assert other != default
    _ = Analysis(load_trace(trace_path, cache=CacheUse.ON)).zone_reading
    calls: list[ZoneChoice] = []
    computed = Analysis(load_trace(trace_path, cache=CacheUse.AUTO), OTHER_ZONE)
    from tui.core.figures import analysis as module

    read_zone = zones.read_zone

    def counted(*args: Any) -> Any:
        calls.append(args[1])
        return read_zone(*args)

    monkeypatch.setattr(module, "read_zone", counted)
    assert _reading(computed.zone_reading) == other
    assert calls == [ZoneChoice(OTHER_ZONE, computed.zone_choice.source)]
    monkeypatch.setattr(module, "read_zone", _never)
    reopened = load_trace(trace_path, cache=CacheUse.AUTO)
    assert _reading(Analysis(reopened, OTHER_ZONE).zone_reading) == other
    assert _reading(Analysis(reopened).zone_reading) == default
    assert len(list(cache_dir.glob("*/kept.zone_reading.*.bin"))) == 2


def test_a_reading_kept_under_another_choice_is_not_served(
    cache_dir: Path, trace_path: Path
) -> None:
    """Even where its file bears the other choice's name (a collision of names)."""
    plain = Analysis(load_trace(trace_path), OTHER_ZONE)
    expected = _reading(plain.zone_reading)
    _ = Analysis(load_trace(trace_path, cache=CacheUse.ON)).zone_reading
    (kept,) = cache_dir.glob("*/kept.zone_reading.*.bin")
    trace = load_trace(trace_path, cache=CacheUse.AUTO)
    analysis = Analysis(trace, OTHER_ZONE)
    name = f"kept.{zone_reading_name(analysis.zone_choice)}"
    place = cache._entry_stem(trace, name, cache.figure_version(ZONE_READING_ROOTS))
    assert place is not None
    entry, stem = place
    data = kept.read_bytes()
    (entry / f"{stem}.{crc32(data):08x}.bin").write_bytes(data)
    assert _reading(analysis.zone_reading) == expected


@pytest.mark.parametrize("damage", ["a byte flipped", "not a reading"])
def test_a_damaged_kept_reading_is_computed_again(
    cache_dir: Path, trace_path: Path, damage: str
) -> None:
    expected = _reading(Analysis(load_trace(trace_path)).zone_reading)
    _ = Analysis(load_trace(trace_path, cache=CacheUse.ON)).zone_reading
    (kept,) = cache_dir.glob("*/kept.zone_reading.*.bin")
    written = kept.read_bytes()
    if damage == "a byte flipped":
        data = bytearray(written)
        data[len(data) // 2] ^= 0x55
        kept.write_bytes(bytes(data))
    else:  # a file whose CRC matches: what it holds is checked too
        kept.unlink()
        stem = kept.name.rsplit(".", 2)[0]
        other = b"\x93\x01\x02\x03"
        kept.with_name(f"{stem}.{crc32(other):08x}.bin").write_bytes(other)
    again = Analysis(load_trace(trace_path, cache=CacheUse.AUTO))
    assert _reading(again.zone_reading) == expected
    assert kept.read_bytes() == written  # the damaged file replaced


def _gaps_as_listed(analysis: Analysis, min_ns: int, limit: int | None) -> Any:
    """What the gaps result lists and leaves out, worked out over every `Gap`."""
    every = analysis.zone_reading.gaps
    sizeable = [gap for gap in every if gap.duration_ns >= min_ns]
    slivers = [gap for gap in every if gap.duration_ns < min_ns]
    kept = sizeable
    if limit is not None and len(sizeable) > limit:
        largest = sorted(
            range(len(sizeable)), key=lambda i: (-sizeable[i].duration_ns, i)
        )[:limit]
        kept = [sizeable[i] for i in sorted(largest)]
    dropped = [gap for gap in sizeable if gap not in kept]
    return (
        kept,
        (len(slivers), sum(gap.duration_ns for gap in slivers)),
        (len(dropped), sum(gap.duration_ns for gap in dropped)),
    )


@pytest.mark.parametrize(
    ("min_ns", "limit"), [(0, None), (10_000, None), (0, 0), (0, 3), (50_000, 2)]
)
def test_the_gaps_listed_from_columns_are_those_of_every_gap(
    trace_path: Path, min_ns: int, limit: int | None
) -> None:
    trace = load_trace(trace_path)
    result = GapsResult.of(Analysis(trace), min_ns, limit)
    listed = (
        result.gaps,
        (result.slivers.count, result.slivers.total_ns),
        (result.past_limit.count, result.past_limit.total_ns),
    )
    assert listed == _gaps_as_listed(Analysis(trace), min_ns, limit)


def _kernels(result: KernelsResult) -> dict[str, Any]:
    stats = result.stats
    assert stats is not None
    table = stats.table
    arrays = {
        name: _array(getattr(source, name))
        for source, names in (
            (table, ("count", "total_ns", "min_ns", "median_ns", "max_ns")),
            (
                stats,
                (
                    "covered_ns",
                    "linked",
                    "launch_median_ns",
                    "delay_median_ns",
                    "short_count",
                    "slow_launches",
                    "late_starts",
                    "graph_count",
                ),
            ),
        )
        for name in names
    }
    return {
        "json": result.to_json(),
        "names": table.names,
        "events": [_array(events) for events in table.events],
        "arrays": arrays,
        "busy": stats.busy_ns,
        "launches": stats.launches,
        "graph_ids": stats.graph_ids,
        "set_aside": result.set_aside,
    }


def test_the_whole_trace_kernel_stats_are_kept_and_read_back(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_trace(tmp_path / "t.json", training_steps(4))
    expected = _kernels(KernelsResult.of(Analysis(load_trace(path))))
    assert expected["names"] == ["gemm_kernel", "relu_kernel"]
    first = Analysis(load_trace(path, cache=CacheUse.ON))
    assert _kernels(KernelsResult.of(first)) == expected
    for name in ("kernel_stats", "set_aside_on_devices"):
        monkeypatch.setattr(f"tui.core.results.kernels.{name}", _never)
    again = Analysis(load_trace(path, cache=CacheUse.AUTO))
    assert _kernels(KernelsResult.of(again)) == expected
    with pytest.raises(AssertionError, match="computed again"):
        KernelsResult.of(again, step=2)  # a step's is not kept


def test_kernel_stats_without_a_kernel_read_back(tmp_path: Path) -> None:
    events = [
        event
        for event in training_steps(2)
        if event["name"] not in ("gemm_kernel", "relu_kernel")
    ]
    result = KernelsResult.of(
        Analysis(load_trace(write_trace(tmp_path / "m.json", events)))
    )
    assert result.stats is not None and not result.stats.table.names
    back = kernel_stats_from(kernel_stats_bytes(result.stats))
    assert back.table.events == [] and back.table.names == []
    assert back.launches == result.stats.launches


@pytest.mark.parametrize(
    "values", [[7], [3, 1], [5, 1, 4, 2], [2**62, 2**62 + 1], [10, 10, 11]]
)
def test_the_median_of_steps_is_statistics_one(values: list[int]) -> None:
    median = exact_median(values)
    assert median == float(statistics.median(values)) and type(median) is float

"""No input exhausts the machine: a trace whose events would need more memory
than the budget is refused while it is read, in one line, by the loader and by
scrub alike; the estimate follows the events, not the bytes."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tui.cli import main
from tui.core.base.errors import TraceLoadError
from tui.core.base.units import parse_size
from tui.core.ingest import source
from tui.core.ingest.load import load_trace

EVENT = (
    b'{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,'
    b'"ts":1712195495000000,"dur":1},\n'
)
# As many bytes as EVENT * 10, in one event: a long name.
BIG_EVENT = (
    b'{"ph":"X","cat":"cpu_op","name":"'
    + b"x" * (len(EVENT) * 10 - 90)
    + b'","pid":1,"tid":1,"ts":1712195495000000,"dur":1},\n'
)


def _trace(path: Path, event: bytes, count: int, *, gz: bool) -> Path:
    body = b'{"schemaVersion":1,"traceEvents":[\n' + event * count
    body = body.rstrip(b",\n") + b"]}\n"
    path.write_bytes(gzip.compress(body, 6) if gz else body)
    return path


@pytest.mark.parametrize("gz", [True, False], ids=["gzip", "plain"])
def test_many_small_events_are_refused_where_few_big_ones_of_the_same_size_are_not(
    tmp_path: Path, gz: bool
) -> None:
    small = _trace(tmp_path / "small.json", EVENT, 200_000, gz=gz)
    big = _trace(tmp_path / "big.json", BIG_EVENT, 20_000, gz=gz)
    limit = 40 * 1024**2  # 200k events * 220 B + 18 MB > 40 MB > 2k * 220 B + 18 MB
    with pytest.raises(TraceLoadError) as refused:
        load_trace(small, max_memory=limit)
    message = str(refused.value)
    assert "200,000 events" in message and "--max-memory" in message
    assert load_trace(big, max_memory=limit).event_count == 20_000


def test_a_gzip_is_refused_from_its_projection_before_it_is_all_inflated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bomb = _trace(tmp_path / "bomb.json", EVENT, 400_000, gz=True)
    inflated: list[int] = []
    real = source.count_events

    def counting(data: bytes | bytearray) -> int:
        inflated.append(len(data))
        return real(data)

    monkeypatch.setattr(source, "count_events", counting)
    monkeypatch.setattr(source, "_PROJECT_AFTER", 1024**2)
    monkeypatch.setattr(source, "_INFLATE_STEP", 1024**2)
    with pytest.raises(TraceLoadError, match="about"):
        source.read_trace_bytes(bomb, memory=source.MemoryBudget(60 * 1024**2))
    assert sum(inflated) < len(EVENT) * 400_000 / 2


@pytest.mark.parametrize("command", [["summary"], ["scrub", "--check"], ["ops"]])
def test_commands_refuse_in_one_line(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    small = _trace(tmp_path / "small.json.gz", EVENT, 100_000, gz=True)
    assert main([*command, str(small), "--max-memory", "20M"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"steptrace: {small}: 100,000 events")


def test_scrub_plans_for_more_memory_per_event_than_a_load(tmp_path: Path) -> None:
    small = _trace(tmp_path / "small.json.gz", EVENT, 100_000, gz=True)
    limit = 9 * 1024 * 1024 + 100_000 * 300  # a load's 220 B fits; scrub's 520 B not
    assert main(["summary", str(small), "--max-memory", str(limit)]) == 0
    assert main(["scrub", "--check", str(small), "--max-memory", str(limit)]) == 2


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("4096", 4096),
        ("512M", 512 * 1024**2),
        ("8G", 8 * 1024**3),
        ("1.5GiB", int(1.5 * 1024**3)),
        ("2gb", 2 * 1024**3),
        ("0", None),
        ("-1G", None),
        ("lots", None),
        ("", None),
        ("inf", None),
    ],
)
def test_sizes_as_people_write_them(text: str, size: int | None) -> None:
    assert parse_size(text) == size


def test_the_default_budget_is_a_quarter_of_memory_or_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("STEPTRACE_MAX_MEMORY", raising=False)
    assert source.default_max_memory() >= 1024**3
    monkeypatch.setenv("STEPTRACE_MAX_MEMORY", "3G")
    assert source.default_max_memory() == 3 * 1024**3


def test_a_big_plain_file_is_refused_from_a_sample_before_parallel_decoding(
    tmp_path: Path,
) -> None:
    from tui.core.ingest.load import PARALLEL_MIN_BYTES

    count = PARALLEL_MIN_BYTES // len(EVENT) + 10_000
    plain = _trace(tmp_path / "plain.json", EVENT, count, gz=False)
    assert plain.stat().st_size >= PARALLEL_MIN_BYTES
    with pytest.raises(TraceLoadError, match=r"about .* events"):
        load_trace(plain, max_memory=64 * 1024**2)

"""Every hostile file loads with honest warnings or fails with one clear line, never a traceback.

The corpus (tests/builders/hostile.py) carries each file's expected outcome. In-process
runs check the figures (dropped events are in no figure); CLI runs check what
a user sees: the exit status, one line on stderr, bounded time and memory.
"""

from __future__ import annotations

import atexit
import functools
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from tests import shared_traces as shared
from tests.builders.hostile import (
    LARGE_CASE,
    HostileCase,
    build_corpus,
    complete,
    isolated_env,
    million_distinct_names,
    missing_messages,
)
from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import has_unsafe
from tui.core.figures.analysis import FILTERED_NAMES, Analysis
from tui.core.ingest.load import load_trace
from tui.core.ingest.source import read_trace_bytes
from tui.core.model.trace import CPU_FUNCTION_KINDS, Trace, TrackKind
from tui.core.results import SummaryResult

REPO = Path(__file__).resolve().parents[2]
CLI_TIMEOUT_S = 20
CLI_ADDRESS_SPACE = 4 * 1024**3
# Share of the complete events written before a cut that recovery must keep.
MIN_RECOVERED_SHARE = 0.99


@functools.cache
def corpus() -> tuple[Path, tuple[HostileCase, ...]]:
    """Build the corpus once per test process; parametrisation needs it at
    collection. The large case is built when its test runs (`case_named`):
    every worker collects, and writing it took 1.5 s of each one's CPU."""
    folder = Path(tempfile.mkdtemp(prefix="steptrace-hostile-"))
    # Built at collection, so removed at exit whatever tests were selected.
    atexit.register(shutil.rmtree, folder, True)
    return folder, tuple(build_corpus(folder, large=False))


@functools.cache
def case_named(name: str) -> HostileCase:
    if name == LARGE_CASE:
        return million_distinct_names(corpus()[0])
    return {case.name: case for case in corpus()[1]}[name]


# Cases that take more than a few seconds in-process (a million events).
SLOW_CASES = frozenset({LARGE_CASE})
# Crashes outside the loader, kept visible until their owners fix them.
# Cases that crash the analysis today (none left): name -> reason.
KNOWN_CRASHES: dict[str, str] = {}


def _marks(name: str) -> list[pytest.MarkDecorator]:
    marks = [pytest.mark.slow] if name in SLOW_CASES else []
    if name in KNOWN_CRASHES:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_CRASHES[name]))
    return marks


def _cases(cli_only: bool = False) -> list[Any]:
    """The cases' names, in the corpus's order (the large one is not a CLI case)."""
    names = [case.name for case in corpus()[1] if case.cli or not cli_only]
    if not cli_only:
        names.append(LARGE_CASE)
    return [pytest.param(name, id=name, marks=_marks(name)) for name in names]


def _cpu_function_events(trace: Trace) -> int:
    """Kept events torch's key_averages() would count: CPU-thread function events."""
    cpu_tracks = np.array(
        [track.kind == TrackKind.CPU for track in trace.tracks] or [False], dtype=bool
    )
    on_cpu = cpu_tracks[trace.track] if trace.track.size else np.zeros(0, bool)
    filtered = trace.name_ids_matching(set(FILTERED_NAMES))
    counted = (
        on_cpu
        & np.isin(trace.kind, np.array(CPU_FUNCTION_KINDS, dtype=np.uint8))
        & ~np.isin(trace.name_id, filtered)
    )
    return int(counted.sum())


def check_loaded(case: HostileCase, trace: Trace) -> None:
    """The expectations of a case that must load: warnings, counts, figures."""
    assert not missing_messages(case, trace.warnings), trace.warnings
    if case.events is not None:
        assert trace.event_count == case.events
    analysis = Analysis(trace)
    summary = SummaryResult.of(analysis).to_json()
    table = analysis.op_table()
    analysis.device_busy_ns()
    assert isinstance(analysis.gaps, list)
    # What scripts get must be valid UTF-8 JSON (no lone surrogates, no NaN).
    orjson.loads(orjson.dumps(summary))
    calls = dict(zip(table.names, table.calls.tolist(), strict=True))
    for name, expected in case.op_calls.items():
        assert calls.get(name, 0) == expected, name[:60]
    # Dropped events are in no figure: every call is a kept CPU function event.
    assert int(table.calls.sum()) == _cpu_function_events(trace)
    assert summary["events"] == trace.event_count
    if trace.event_count:
        assert int(trace.start_ns.min()) >= 0
        assert int(trace.duration_ns.min()) >= 0
        assert int((trace.start_ns + trace.duration_ns).min()) >= 0
    for warning in trace.warnings:
        assert "\n" not in warning
        assert not has_unsafe(warning), warning
    if case.truncation is not None:
        check_recovered(case, trace)


def check_recovered(case: HostileCase, trace: Trace) -> None:
    """A cut file keeps (nearly) every complete event written before the cut, and says what came after is unknown."""
    assert case.truncation is not None
    before = case.truncation.complete_before
    assert trace.event_count <= before
    assert trace.event_count >= math.floor(MIN_RECOVERED_SHARE * before)
    cut = [warning for warning in trace.warnings if "cut off" in warning]
    assert cut, trace.warnings
    kept = re.search(r"kept the ([\d,]+) records .* written before the cut", cut[-1])
    assert kept is not None, cut
    # What the file would have held is unknown: no share of it is given.
    assert "what came after" in cut[-1] and "%" not in cut[-1], cut


@pytest.mark.parametrize("name", _cases())
def test_in_process(name: str) -> None:
    """load_trace, the summary, the op table and the gaps on one hostile file."""
    case = case_named(name)
    if case.outcome == "error":
        with pytest.raises(TraceLoadError) as raised:
            load_trace(case.path, max_bytes=case.max_bytes)
        message = str(raised.value)
        assert "\n" not in message
        assert not has_unsafe(message), message
        for expected in case.messages:
            assert expected in message
        return
    trace = load_trace(case.path, max_bytes=case.max_bytes)
    check_loaded(case, trace)


def _limit_resources() -> None:
    """Runs in the child: a hostile file may not take more than a few GB of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (CLI_ADDRESS_SPACE, CLI_ADDRESS_SPACE))


def run_cli(
    args: list[str], env: dict[str, str] | None = None, timeout: float = CLI_TIMEOUT_S
) -> subprocess.CompletedProcess[bytes]:
    """`steptrace ARGS` in a child with bounded time and memory, caches off ~."""
    child_env = {
        **os.environ,
        **isolated_env(),
        "PYTHONIOENCODING": "utf-8",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        env=child_env,
        capture_output=True,
        timeout=timeout,
        preexec_fn=_limit_resources,
        check=False,
    )


def check_cli_result(
    case: HostileCase, result: subprocess.CompletedProcess[bytes]
) -> None:
    """Exit status and stderr as a user sees them."""
    stderr = result.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in stderr, stderr[-2000:]
    if case.outcome == "error":
        assert result.returncode == 2, stderr
        lines = stderr.strip("\n").split("\n")
        assert len(lines) == 1, stderr
        assert lines[0].startswith("steptrace: ")
        for expected in case.messages:
            assert expected in lines[0]
        assert result.stdout == b""
    else:
        assert result.returncode == 0, stderr


@pytest.mark.parametrize("name", _cases(cli_only=True))
def test_cli_summary_json(name: str) -> None:
    """`steptrace summary --json` exits 0 with valid JSON or 2 with one line."""
    case = case_named(name)
    result = run_cli(["summary", "--json", str(case.path)], case.env)
    check_cli_result(case, result)
    if case.outcome == "load":
        summary = orjson.loads(result.stdout)
        if case.events is not None:
            assert summary["events"] == case.events
        joined = "\n".join(summary["warnings"])
        for expected in case.messages:
            assert expected in joined


@pytest.mark.parametrize(
    "name", ["tmp-leftover", "nan-infinity", "overlapping-kernels"]
)
@pytest.mark.parametrize("command", ["ops", "gaps", "summary"])
def test_cli_text_commands(name: str, command: str) -> None:
    """The text forms of every headless command on loadable hostile files."""
    case = case_named(name)
    result = run_cli([command, str(case.path)], case.env)
    check_cli_result(case, result)
    assert result.stdout.strip()


def test_cli_error_path_is_escaped(tmp_path: Path) -> None:
    """A file name holding terminal escapes is shown escaped in the error line."""
    hostile = tmp_path / "x\x1b]0;pwned\x07\x1b[2J.json"
    hostile.write_bytes(b"")
    result = run_cli(["summary", str(hostile)])
    assert result.returncode == 2
    assert b"\x1b" not in result.stderr and b"\x07" not in result.stderr
    assert b"\\x1b]0;pwned" in result.stderr


@pytest.mark.parametrize(
    "name", ["nul\x00byte.json", "x" * 5000 + ".json", "loop/../loop.json"]
)
def test_unusable_paths_fail_with_one_line(tmp_path: Path, name: str) -> None:
    """Paths the OS refuses (NUL byte, too long, a symlink loop) are load errors too."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(TraceLoadError) as raised:
        load_trace(str(tmp_path / name))
    message = str(raised.value)
    assert "\n" not in message and not has_unsafe(message)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_fails_with_one_line(tmp_path: Path) -> None:
    """A trace without read permission is a load error naming the cause."""
    path = tmp_path / "secret.json"
    path.write_bytes(b'{"traceEvents": []}')
    path.chmod(0)
    with pytest.raises(TraceLoadError, match="permission denied"):
        load_trace(path)


@pytest.mark.parametrize(
    "stage",
    [
        "tui.core.ingest.source._read_open",
        "tui.core.ingest.decode.document._decode_document",
        "tui.core.ingest.assemble.assembler._build",
    ],
)
def test_out_of_memory_is_a_load_error(
    stage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Running out of memory while reading, decoding or building says so in one line."""
    module_name, function_name = stage.rsplit(".", 1)

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(sys.modules[module_name], function_name, exhausted)
    case = case_named("gzip-under-json")
    with pytest.raises(TraceLoadError, match="not enough memory") as raised:
        load_trace(case.path)
    assert "\n" not in str(raised.value)


def test_bomb_stops_early_in_memory() -> None:
    """The decompression bomb is refused after reading about the limit, not the whole stream."""
    case = case_named("decompression-bomb")
    assert case.max_bytes is not None
    assert case.path.stat().st_size < case.max_bytes
    with pytest.raises(TraceLoadError, match="decompression bomb"):
        load_trace(case.path, max_bytes=case.max_bytes)


def test_truncation_offsets_cover_both_forms_and_gzip() -> None:
    """The corpus cuts at many offsets: object and array, plain and gzip."""
    names = [case.name for case in corpus()[1] if case.truncation is not None]
    for prefix in ("cut-object-plain", "cut-array-plain"):
        assert sum(name.startswith(prefix) for name in names) >= 12
    for prefix in ("cut-object-gzip", "cut-array-gzip"):
        assert sum(name.startswith(prefix) for name in names) >= 5


@pytest.mark.slow
def test_deeply_nested_events_stay_fast(tmp_path: Path) -> None:
    """100k events each inside the previous one (a recursive profile) with one kernel."""
    depth = 100_000
    events = [
        complete(
            f"aten::r{index % 7}",
            index,
            2 * (depth - index),
            args={"External id": index + 1},
        )
        for index in range(depth)
    ]
    events.append(
        complete("k", depth, 1, cat="kernel", pid=0, tid=7, args={"External id": depth})
    )
    path = tmp_path / "nested.json"
    path.write_bytes(orjson.dumps({"traceEvents": events}))
    try:
        result = run_cli(["ops", str(path)], timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("steptrace ops took more than 10 s")
    assert result.returncode == 0


def test_op_table_totals_do_not_wrap(tmp_path: Path) -> None:
    """Very long events (each one accepted) never make a total negative."""
    events = [complete("aten::long", 0, 2.2e15, tid=thread) for thread in range(8)]
    path = tmp_path / "long.json"
    path.write_bytes(orjson.dumps({"traceEvents": events}))
    table = Analysis(load_trace(path)).op_table()
    assert int(table.total_cpu_ns.min()) >= 0
    assert int(table.self_cpu_ns.min()) >= 0


def test_many_steps_stay_fast(tmp_path: Path) -> None:
    """20k profiler steps (a long inference profile) summarise without going
    quadratic: a pass per step over the steps would take minutes, so the bound
    is generous (the time itself is a benchmark's business, not a test's)."""
    steps = 20_000
    events: list[dict[str, Any]] = []
    for step in range(steps):
        start = 10 * step
        events += [
            complete(f"ProfilerStep#{step}", start, 9, cat="user_annotation"),
            complete("lecture_batch_cpu", start, 5, cat="user_annotation"),
            complete("k", start + 2, 1, cat="kernel", pid=0, tid=7),
        ]
    path = tmp_path / "many-steps.json"
    path.write_bytes(orjson.dumps({"traceEvents": events}))
    try:
        result = run_cli(["summary", str(path)], timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("steptrace summary took more than 60 s on 20k steps")
    assert result.returncode == 0


# Small enough for a pure-Python oracle; the big ones are cut in the report.
SMALL_REAL_TRACES = shared.paths(
    keep=lambda path: path.stat().st_size < 400_000 and "LICENSE" not in path.name
)


def complete_elements_in(data: bytes) -> int:
    """Oracle: events wholly present in a cut document, read one by one with Python's json."""
    text = data.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder(strict=False)
    start = text.find(
        "[", text.find('"traceEvents"') if text.lstrip()[:1] == "{" else 0
    )
    position, count = start + 1, 0
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        try:
            _, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            return count
        count += 1


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("trace", SMALL_REAL_TRACES, ids=lambda path: path.name[:40])
def test_real_traces_cut_anywhere(trace: Path, tmp_path: Path) -> None:
    """Real Kineto files cut at many offsets keep every event written before the cut."""
    data = read_trace_bytes(trace).data
    for share in (0.02, 0.2, 0.45, 0.7, 0.93, 0.999):
        offset = max(1, int(len(data) * share))
        cut = tmp_path / f"cut-{offset}.json"
        cut.write_bytes(data[:offset])
        expected = complete_elements_in(bytes(data[:offset]))
        if expected == 0:
            with pytest.raises(TraceLoadError):
                load_trace(cut)
            continue
        kept = re.search(
            r"kept the ([\d,]+) records", "\n".join(load_trace(cut).warnings)
        )
        assert kept is not None, offset
        assert int(kept.group(1).replace(",", "")) == expected, offset

"""The vectorised and cached paths give what the plain rules give.

torch's nesting rule (a stack per thread) is transcribed here as the oracle
for the vectorised parents; zones per step and device busy per step are
recomputed from the raw events by brute force; derived columns kept in the
column cache are the computed ones, and a change of their code is a miss.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import shared_traces as shared
from tests.builders.traces import BASE_US, cpu, gpu, metadata, write_trace
from tests.support.tracegen import generate
from tui.core.base.vocab import CacheUse
from tui.core.figures.analysis import Analysis
from tui.core.ingest import cache, code_hash
from tui.core.ingest.load import load_trace
from tui.core.model import nesting
from tui.core.model.trace import TrackKind

SHARED = shared.FOLDER


def torch_rule(starts: list[int], ends: list[int]) -> list[int]:
    """torch.autograd.profiler_util's `_populate_cpu_children` on one thread, sorted by (start, -end)."""
    parent = [-1] * len(starts)
    stack: list[int] = []
    for index, (start, end) in enumerate(zip(starts, ends, strict=True)):
        while stack:
            top = stack[-1]
            if start >= ends[top] or end > ends[top]:
                stack.pop()
            else:
                parent[index] = top
                break
        stack.append(index)
    return parent


def _nested(rng: random.Random, count: int) -> tuple[list[int], list[int]]:
    """Properly nested intervals (the usual trace), some of them instants."""
    starts: list[int] = []
    durations: list[int] = []

    def fill(begin: int, end: int, depth: int) -> None:
        at = begin
        while at < end and len(starts) < count:
            start = rng.randrange(at, end)
            stop = rng.randrange(start, end + 1)
            starts.append(start)
            durations.append(stop - start)
            if depth < 5 and stop > start:
                fill(start, stop, depth + 1)
            at = stop + rng.randrange(0, 2)

    fill(0, 60, 0)
    return starts, durations


@pytest.mark.parametrize("shape", ["nested", "crossing", "crowded"])
def test_vectorised_parents_follow_torchs_rule(shape: str) -> None:
    rng = random.Random(shape)
    for _ in range(1500):
        count = rng.randrange(0, 16)
        if shape == "nested":
            starts, durations = _nested(rng, count)
        elif shape == "crossing":  # partial overlaps, instants, duplicates
            starts = [rng.randrange(0, 24) for _ in range(count)]
            durations = [rng.randrange(0, 9) for _ in range(count)]
        else:  # few distinct times: ties everywhere
            starts = [rng.randrange(0, 5) for _ in range(count)]
            durations = [rng.randrange(0, 3) for _ in range(count)]
        order = sorted(range(len(starts)), key=lambda i: (starts[i], -durations[i]))
        start = np.array([starts[i] for i in order], dtype=np.int64)
        end = start + np.array([durations[i] for i in order], dtype=np.int64)
        expected = torch_rule(start.tolist(), end.tolist())
        assert nesting.thread_parents(start, end).tolist() == expected, (
            start.tolist(),
            end.tolist(),
        )


def _loop_parents(trace: Any, taking_part: Any) -> np.ndarray[Any, Any]:
    parent = np.full(trace.event_count, -1, dtype=np.int64)
    for track in trace.tracks:
        if track.kind != TrackKind.CPU:
            continue
        span = trace.track_slice(track.index)
        indices = np.flatnonzero(taking_part[span]) + span.start
        starts = trace.start_ns[indices].tolist()
        ends = (trace.start_ns[indices] + trace.duration_ns[indices]).tolist()
        for position, found in enumerate(torch_rule(starts, ends)):
            if found >= 0:
                parent[indices[position]] = indices[found]
    return parent


@pytest.mark.parametrize(
    "name",
    [
        # Partial overlaps on two threads: the loop decides those stretches.
        "mtia_trace_single_rank-mtia_rank_0.json.gz",
        "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "call_stack-backward_thread.json",
    ],
)
def test_parents_of_real_traces_follow_torchs_rule(
    name: str, shared_traces: Path
) -> None:
    trace = load_trace(shared_traces / name)
    taking_part = nesting.participants(trace, nesting.cpu_track_mask(trace))
    assert np.array_equal(
        nesting.parents(trace, taking_part), _loop_parents(trace, taking_part)
    )


def _zone_trace(tmp_path: Path, seed: int) -> tuple[Path, list[dict[str, Any]]]:
    """Steps on one thread; zones on two threads, repeated, nested, crossing, cut by steps."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = list(metadata())
    for number in range(4):
        step_start = number * 1000 + rng.randrange(0, 50)
        events.append(
            cpu(f"ProfilerStep#{number + 1}", step_start, 900, cat="user_annotation")
        )
    # 7 and "7" are the same text: one zone name.
    names: list[Any] = ["read", "copy", "read", 7, "7", "enumerate(DataLoader)#x"]
    for _ in range(rng.randrange(20, 60)):
        start = rng.randrange(-100, 4200)
        events.append(
            cpu(
                rng.choice(names),
                start,
                rng.choice([0, rng.randrange(1, 400)]),
                cat="user_annotation",
                tid=rng.choice([100, 101]),
            )
        )
        events.append(gpu("k", rng.randrange(0, 4000), rng.randrange(1, 300)))
    return write_trace(tmp_path / f"zones-{seed}.json", events), events


@pytest.mark.parametrize("seed", range(6))
def test_zones_per_step_match_brute_force(tmp_path: Path, seed: int) -> None:
    path, events = _zone_trace(tmp_path, seed)
    analysis = Analysis(load_trace(path))
    ns = 1000
    origin = min((e["ts"] - BASE_US) * ns for e in events if "ts" in e)
    zones = [
        e
        for e in events
        if e.get("cat") == "user_annotation"
        and not str(e["name"]).startswith("ProfilerStep#")
    ]
    busy_points: set[int] = set()
    for e in events:
        if e.get("cat") == "kernel":
            start = (e["ts"] - BASE_US) * ns
            busy_points.update(range(start, start + int(e["dur"] * ns), ns))
    assert len(analysis.steps) == 4
    busy_per_step = analysis.step_device_busy_ns()
    for step, figures, busy in zip(
        analysis.steps, analysis.step_zones, busy_per_step, strict=True
    ):
        low = step.start_ns + origin
        high = step.end_ns + origin
        expected: dict[str, tuple[int, int, int]] = {}
        for e in zones:
            start = (e["ts"] - BASE_US) * ns
            if not low <= start < high:
                continue
            text = str(e["name"])
            count, first, _ = expected.get(text, (0, start, 0))
            expected[text] = (count + 1, min(first, start), 0)
        for text in expected:
            covered: set[int] = set()
            for e in zones:
                start = (e["ts"] - BASE_US) * ns
                if str(e["name"]) == text and low <= start < high:
                    covered.update(range(start, start + int(e["dur"] * ns)))
            count, first, _ = expected[text]
            expected[text] = (count, first, len(covered))
        got = {figure.name: (figure.count, figure.duration_ns) for figure in figures}
        assert got == {name: (c, u) for name, (c, _f, u) in expected.items()}
        firsts = [expected[figure.name][1] for figure in figures]
        assert firsts == sorted(firsts)
        # The per-step figures are those of the one-window functions.
        assert [repr(f) for f in figures] == [
            repr(f) for f in analysis.zones_in(step.start_ns, step.end_ns)
        ]
        in_step = {p for p in busy_points if low <= p < high}
        assert busy == len(in_step) * ns


def test_per_step_figures_equal_the_generators_truth(tmp_path: Path) -> None:
    result = generate(tmp_path / "g.json", steps=5, seed=3)
    analysis = Analysis(load_trace(tmp_path / "g.json"))
    truth = result.expected["per_step"]
    assert analysis.step_device_busy_ns() == [step["gpu_busy_ns"] for step in truth]
    for figures, step in zip(analysis.step_zones, truth, strict=True):
        durations = {figure.name: figure.duration_ns for figure in figures}
        for name, duration in step["zones_ns"].items():
            assert durations[name] == duration


DERIVED = (
    "parent",
    "depth",
    "self_cpu_ns",
    "gpu_owner",
    "self_gpu_ns",
    "total_gpu_ns",
    "launch_call",
)


def _figures(analysis: Analysis) -> dict[str, Any]:
    figures = {name: np.asarray(getattr(analysis, name)).tolist() for name in DERIVED}
    figures["busy"] = [
        (busy.starts.tolist(), busy.ends.tolist())
        for busy in analysis.busy_by_device.values()
    ]
    return figures


def test_derived_columns_are_kept_in_the_entry_and_read_back(
    tmp_path: Path, cache_dir: Path
) -> None:
    generate(tmp_path / "g.json", steps=3, seed=1)
    fresh = _figures(Analysis(load_trace(tmp_path / "g.json")))
    first = Analysis(load_trace(tmp_path / "g.json", cache=CacheUse.ON))
    assert _figures(first) == fresh
    (entry,) = (item for item in cache_dir.iterdir() if item.name != cache.CODE_MEMO)
    kept = {path.name.split(".")[1] for path in entry.glob("derived.*.npy")}
    assert set(DERIVED) <= kept
    # The next process reads them back: computing them again would fail.
    reopened = cache.load(tmp_path / "g.json")
    assert reopened is not None
    broken = pytest.MonkeyPatch()
    for name in ("parents", "self_times", "gpu_owners", "total_gpu_times"):
        broken.setattr(nesting, name, _refuse)
    try:
        assert _figures(Analysis(reopened)) == fresh
    finally:
        broken.undo()


def _refuse(*args: Any) -> Any:
    raise AssertionError("computed again instead of read from the cache")


def test_derived_columns_of_other_code_are_a_miss(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate(tmp_path / "g.json", steps=2, seed=2)
    monkeypatch.setattr(cache, "derived_version", lambda: "old-nesting")
    Analysis(load_trace(tmp_path / "g.json", cache=CacheUse.ON)).parent  # noqa: B018
    (entry,) = (item for item in cache_dir.iterdir() if item.name != cache.CODE_MEMO)
    (old,) = entry.glob("derived.parent.*.npy")
    np.save(old, np.zeros(np.load(old).size, dtype=np.int64))  # wrong figures
    monkeypatch.setattr(cache, "derived_version", lambda: "new-nesting")
    reopened = cache.load(tmp_path / "g.json")
    assert reopened is not None
    expected = Analysis(load_trace(tmp_path / "g.json")).parent
    assert np.array_equal(Analysis(reopened).parent, expected)


def _core_copy(tmp_path: Path) -> Path:
    source = Path(cache.__file__).parent.parent
    copy = tmp_path / "core"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


@pytest.mark.parametrize(
    "module", ["model/nesting", "model/derived", "base/intervals", "model/masks"]
)
def test_a_change_of_the_nesting_code_moves_the_derived_version(
    tmp_path: Path, module: str
) -> None:
    core = _core_copy(tmp_path)

    def version() -> str:
        return code_hash.source_version(
            cache.builder_sources(core, cache.DERIVED_ROOTS)
        )

    before = version()
    changed = core / f"{module}.py"
    changed.write_bytes(changed.read_bytes().replace(b"\n", b"\n ", 1))
    assert version() != before


def test_a_replaced_entry_never_takes_the_old_traces_derived_columns(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = tmp_path / "g.json"
    generate(path, steps=2, seed=4)
    old = load_trace(path, cache=CacheUse.ON)
    Analysis(old).parent  # noqa: B018
    other = tmp_path / "other"
    other.mkdir()
    generate(other / "g.json", steps=3, seed=5)
    (other / "g.json").replace(path)  # another trace at the same path
    new = load_trace(path, cache=CacheUse.ON)
    expected = Analysis(load_trace(path)).parent
    assert np.array_equal(Analysis(new).parent, expected)
    # The old trace, still open, writes nothing its successor would read.
    assert cache.save_derived(old, "parent", np.zeros(old.event_count, np.int64))
    reopened = cache.load(path)
    assert reopened is not None
    assert np.array_equal(Analysis(reopened).parent, expected)


@pytest.mark.parametrize("seed", range(4))
def test_flows_pair_by_python_equality_of_category_and_id(
    tmp_path: Path, seed: int
) -> None:
    """Flow ends meet their starts exactly when (category, id) are equal in Python (1 == 1.0 == True)."""
    rng = random.Random(seed)
    identities: list[Any] = [1, 1.0, True, 2, "2", 2**70, -3, 3.5, None, "x", 2**63]
    categories: list[Any] = ["ac2g", "fwdbwd", 5]
    events: list[dict[str, Any]] = list(metadata())
    starts: dict[Any, int] = {}
    ends: dict[Any, int] = {}
    for index in range(40):
        at = 10 * index
        events.append(cpu(f"op{index}", at, 5))
        events.append(gpu(f"k{index}", at + 2, 3))
        category = rng.choice(categories)
        first, second = rng.choice(identities), rng.choice(identities)
        flow = {"cat": category, "name": "link", "pid": 100, "tid": 100}
        events.append({**flow, "ph": "s", "id": first, "ts": BASE_US + at})
        end = {**flow, "ph": "f", "bp": "e", "id": second, "pid": 0, "tid": 7}
        events.append({**end, "ts": BASE_US + at + 2})
        starts[(category, first)] = at * 1000
        ends[(category, second)] = (at + 2) * 1000
    path = tmp_path / "flows.json"

    path.write_text(json.dumps({"traceEvents": events}))
    trace = load_trace(path)
    flows = trace.flows
    bound = {
        (int(trace.start_ns[source]), int(trace.start_ns[target]))
        for source, target in zip(
            flows.source_event.tolist(), flows.target_event.tolist(), strict=True
        )
    }
    assert bound == {(starts[key], ends[key]) for key in starts if key in ends}


def test_tied_device_work_is_what_has_an_owner(tmp_path: Path) -> None:
    generate(tmp_path / "g.json", steps=3, seed=6)
    for trace in (load_trace(tmp_path / "g.json"), *_small_real_traces()):
        taking_part = nesting.participants(trace, nesting.cpu_track_mask(trace))
        owners = nesting.gpu_owners(
            trace, taking_part, nesting.parents(trace, taking_part)
        )
        assert np.array_equal(nesting.tied_device_work(trace, taking_part), owners >= 0)


def _small_real_traces() -> list[Any]:
    names = [
        "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
        "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
    ]
    return [load_trace(SHARED / name) for name in names if (SHARED / name).exists()]


@pytest.mark.parametrize(
    "scale", [1, 2**40, 2**61], ids=["small", "large", "saturating"]
)
def test_sums_by_index_are_pythons_exact_sums(scale: int) -> None:
    rng = np.random.default_rng(scale % 1000)
    index = rng.integers(0, 50, 20_000)
    values = rng.integers(-scale, scale, 20_000, dtype=np.int64)
    expected = [0] * 50
    for where, value in zip(index.tolist(), values.tolist(), strict=True):
        expected[where] += value
    limit = int(nesting.SATURATED_NS)
    got = nesting.sum_by_index(50, index, values).tolist()
    for total, want in zip(got, expected, strict=True):
        if abs(want) < limit // 2:
            assert total == want
        else:
            assert abs(total) >= limit // 2


def test_window_operator_tables_take_the_events_starting_in_the_window(
    tmp_path: Path,
) -> None:
    generate(tmp_path / "g.json", steps=4, seed=8)
    trace = load_trace(tmp_path / "g.json")
    analysis = Analysis(trace)
    rng = random.Random(8)
    span = trace.span_ns
    for _ in range(20):
        start, end = sorted(rng.randrange(-10, span + 10) for _ in range(2))
        table = analysis.op_table(start, end)
        inside = (trace.start_ns >= start) & (trace.start_ns < end)
        chosen = np.flatnonzero(analysis._participants & inside)
        names = [trace.names[i] for i in trace.name_id[chosen].tolist()]
        grouped = [
            "ProfilerStep*" if n.startswith("ProfilerStep#") else n for n in names
        ]
        calls = {name: grouped.count(name) for name in set(grouped)}
        assert dict(zip(table.names, table.calls.tolist(), strict=True)) == calls
        self_cpu: dict[str, int] = {}
        for name, event in zip(grouped, chosen.tolist(), strict=True):
            self_cpu[name] = self_cpu.get(name, 0) + int(analysis.self_cpu_ns[event])
        assert dict(zip(table.names, table.self_cpu_ns.tolist(), strict=True)) == (
            self_cpu
        )


def _exact_ns(text: bytes) -> int | None:
    """The oracle: Decimal µs to ns, half up; None for what is not a plain number."""
    from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

    try:
        value = Decimal(text.decode())
    except (InvalidOperation, UnicodeDecodeError):
        return None
    if not value.is_finite():
        return None
    result = int((value * 1000).to_integral_value(rounding=ROUND_HALF_UP))
    return result if abs(result) < 2**63 else None


@pytest.mark.parametrize("shape", ["epoch-ns", "whole-us", "edge", "odd"])
def test_timestamps_parse_exactly(shape: str) -> None:
    from tui.core.base.numbers import parse_us_to_ns

    rng = random.Random(shape)
    for _ in range(200):
        count = rng.randrange(1, 40)
        if shape == "epoch-ns":
            texts = [
                b"%d.%03d" % (rng.randrange(10**15, 9 * 10**15), rng.randrange(1000))
                for _ in range(count)
            ]
        elif shape == "whole-us":
            texts = [b"%d" % rng.randrange(10**15, 9 * 10**15) for _ in range(count)]
        elif shape == "edge":  # 19 nanosecond digits, all within int64
            first = rng.choice([b"8", b"91"])
            texts = [
                first
                + b"%0*d.%03d"
                % (
                    16 - len(first),
                    rng.randrange(10 ** (16 - len(first))),
                    rng.randrange(1000),
                )
                for _ in range(count)
            ]
        else:
            texts = [
                rng.choice([b"12.5", b"-3", b"1e3", b"007", b"1.2345", b"x1", b"12"])
                for _ in range(count)
            ]
        values, valid = parse_us_to_ns(texts)
        for text, value, ok in zip(texts, values.tolist(), valid.tolist(), strict=True):
            expected = _exact_ns(text)
            assert ok == (expected is not None), text
            if ok:
                assert value == expected, text

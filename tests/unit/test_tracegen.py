"""The synthetic trace generator keeps the promises the tests rely on."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.tracegen import expected_path_for, generate
from tests.support.tracegen.check import check
from tests.support.tracegen.cli import main
from tests.support.tracegen.ranks import generate_run
from tests.support.tracegen.ranks import main as ranks_main
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace

# A small model: about 250 kB of JSON a step.
SMALL: dict[str, Any] = {"depth": 1, "samples": 2}


def events_of(path: Path) -> list[dict[str, Any]]:
    """The trace's events, read with the standard json module."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        events: list[dict[str, Any]] = json.load(handle)["traceEvents"]
    return events


@pytest.mark.parametrize("style", ["current", "1.9"])
def test_the_requested_steps_events_and_kernels_are_written(
    tmp_path: Path, style: str
) -> None:
    path = tmp_path / "t.json"
    result = generate(path, steps=3, seed=2, first_step=7, style=style, **SMALL)
    events = events_of(path)
    expected = result.expected

    on_cpu = ("Operator", "user_annotation")  # not the GPU's annotation spans
    steps = [
        e["name"]
        for e in events
        if e["name"].startswith("ProfilerStep#") and e.get("cat") in on_cpu
    ]
    assert steps == ["ProfilerStep#7", "ProfilerStep#8", "ProfilerStep#9"]
    assert expected["steps"]["count"] == 3
    assert result.events == len(events)
    assert expected["events"]["by_ph"] == dict(
        sorted(Counter(e["ph"] for e in events).items())
    )
    categories = Counter(e["cat"] for e in events if "cat" in e)
    assert expected["events"]["by_cat"] == dict(sorted(categories.items()))
    kernel = "Kernel" if style == "1.9" else "kernel"
    kernels = Counter(e["name"] for e in events if e.get("cat") == kernel)
    assert sum(kernels.values()) == expected["gpu_activity"][kernel]["count"] > 0
    assert kernels == Counter(expected["calls"][kernel])
    assert result.raw_bytes == path.stat().st_size
    assert check(path, expected_path_for(path)).failures == []


def test_steptraces_loader_reads_what_it_writes(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    result = generate(path, steps=2, seed=4, first_step=3, **SMALL)
    trace = load_trace(path)
    assert trace.event_count == result.expected["events"]["by_ph"]["X"]
    steps = Analysis(trace).steps
    assert [step.number for step in steps] == [3, 4]
    assert [step.duration_ns for step in steps] == result.expected["steps"][
        "durations_ns"
    ]


def test_one_seed_gives_the_same_bytes_and_another_seed_does_not(
    tmp_path: Path,
) -> None:
    for folder, seed in (("a", 5), ("b", 5), ("c", 6)):
        (tmp_path / folder).mkdir()
        generate(tmp_path / folder / "t.json", steps=1, seed=seed, **SMALL)
    first, again, other = ((tmp_path / f / "t.json").read_bytes() for f in "abc")
    assert first == again
    assert first != other
    truths = [expected_path_for(tmp_path / f / "t.json").read_bytes() for f in "ab"]
    assert truths[0] == truths[1]


def test_a_size_stops_after_the_first_step_that_reaches_it(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    sizes: list[int] = []
    size = 600_000
    result = generate(
        path,
        size_bytes=size,
        seed=1,
        progress=lambda _steps, raw, _events: sizes.append(raw),
        **SMALL,
    )
    assert len(sizes) == result.expected["steps"]["count"] > 1
    assert sizes[-2] < size <= sizes[-1]
    assert size <= result.raw_bytes == path.stat().st_size < size + sizes[0] * 2


def test_gzip_holds_the_same_json_and_counts_it_uncompressed(tmp_path: Path) -> None:
    plain = tmp_path / "t.json"
    packed = tmp_path / "t.json.gz"
    generate(plain, steps=2, seed=3, **SMALL)
    result = generate(packed, steps=2, seed=3, gzip_output=True, **SMALL)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    text = gzip.decompress(packed.read_bytes())
    assert result.raw_bytes == len(text) > packed.stat().st_size
    # Only the trace name, the file's own, differs.
    assert text.replace(b'"t.json.gz"', b'"t.json"') == plain.read_bytes()
    assert result.expected["gzip"] is True


def test_it_refuses_to_overwrite_or_to_guess_the_length(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    generate(path, steps=1, **SMALL)
    with pytest.raises(FileExistsError):
        generate(path, steps=1, **SMALL)
    expected_path_for(path).unlink()
    with pytest.raises(FileExistsError):  # the trace itself is kept too
        generate(path, steps=1, **SMALL)
    with pytest.raises(ValueError, match="exactly one"):
        generate(tmp_path / "u.json", steps=1, size_bytes=10)
    with pytest.raises(ValueError, match="exactly one"):
        generate(tmp_path / "u.json")
    with pytest.raises(ValueError, match="style"):
        generate(tmp_path / "u.json", steps=1, style="2.0")
    assert not (tmp_path / "u.json").exists()


def test_the_old_style_writes_string_threads_and_whole_microseconds(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.json"
    generate(path, steps=1, seed=1, style="1.9", **SMALL)
    complete = [e for e in events_of(path) if e["ph"] == "X" and e["pid"] != "Traces"]
    assert {type(e["ts"]) for e in complete} == {int}
    assert {type(e["tid"]) for e in complete} == {str}
    assert "cpu_op" not in {e["cat"] for e in complete}
    current = tmp_path / "new.json"
    generate(current, steps=1, seed=1, **SMALL)
    now = [e for e in events_of(current) if e["ph"] == "X" and e["cat"] == "cpu_op"]
    assert now and all(isinstance(e["tid"], int) for e in now)


def test_a_run_has_one_trace_per_rank_each_saying_its_rank(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    paths = generate_run(folder, 3, steps=2, seed=4, quiet=True)
    assert [p.name for p in paths] == [f"rank-{r}.pt.trace.json" for r in range(3)]
    for rank, path in enumerate(paths):
        with path.open("rb") as handle:
            info = json.load(handle)["distributedInfo"]
        assert (info["rank"], info["world_size"]) == (rank, 3)
        truth = json.loads(
            (folder / "expected" / (path.name + ".expected.json")).read_text()
        )
        assert truth["steps"]["count"] == 2
    assert len({p.read_bytes() for p in paths}) == 3  # each rank its own seed
    assert sorted(p.name for p in folder.iterdir()) == [
        "expected",
        *(p.name for p in paths),
    ]
    assert ranks_main(["--ranks", "2", "--steps", "1", "-o", str(folder)]) == 2


def test_a_gzip_run_says_its_ranks_too(tmp_path: Path) -> None:
    paths = generate_run(tmp_path, 2, steps=1, seed=1, gzip_output=True, quiet=True)
    for rank, path in enumerate(paths):
        with gzip.open(path, "rb") as handle:
            assert json.load(handle)["distributedInfo"]["rank"] == rank


def test_the_command_line_writes_a_trace_and_refuses_what_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cli.json"
    args = ["--steps", "1", "--depth", "1", "--quiet", "-o", str(path)]
    assert main(args) == 0
    assert "1 steps" in capsys.readouterr().out
    assert expected_path_for(path).exists()
    assert main(args) == 1
    assert main(["--steps", "1", "--gzip", "-o", str(tmp_path / "x.json")]) == 2
    assert "should end in .gz" in capsys.readouterr().err

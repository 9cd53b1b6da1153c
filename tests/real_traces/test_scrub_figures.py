"""A scrubbed trace gives the same figures: step times, operator table, gaps.

Runs `steptrace summary|ops|gaps --json` on a shared trace and on its
scrubbed copy and compares the two outputs. Strings may differ only where the
copy holds a placeholder (`<host-1>`, `<proc-2>`…); every number must be
identical. Skipped only while the core's commands are still placeholders.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tui.cli import main
from tui.scrub import ScrubOptions, check_file, scrub_file
from tui.scrub.detect import PLACEHOLDER_RE

TRACES = shared.FOLDER
# Small enough for the core to read in well under a second each; together they
# hold users, hosts, paths, logs, job metadata, process names and zones.
NAMES = [
    "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "triton_example-triton_example.json.gz",
    "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
    "critical_path-cuda_event_sync-event_sync_trace.json.gz",
    "distributed_info_unavailable-distributed_info_not_found.json.gz",
    "timeline_analysis-sampled_rank-0.json.gz",
    "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "call_stack-backward_thread.json",
]
COMMANDS = ("summary", "ops", "gaps")


def figures(
    command: str, trace: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    # Rows tied on the sort key fall back to name order, which scrubbing may
    # change: sort by total CPU time, where real traces have no ties.
    extra = ["--sort", "total", "--device", "cpu"] if command == "ops" else []
    try:
        status = main([command, str(trace), "--json", *extra])
    except SystemExit as stop:
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    if status != 0:
        _skip_if_not_available(command, capsys)
        pytest.fail(f"steptrace {command} failed ({status}): {err}")
    data: dict[str, Any] = json.loads(out.replace(str(trace), "<TRACE>"))
    return data


def _skip_if_not_available(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The placeholder commands print 'not available yet' (and take no TRACE)."""
    with contextlib.suppress(SystemExit):
        main([command])
    _, err = capsys.readouterr()
    if "not available yet" in err:
        pytest.skip(f"steptrace {command} is not available yet")


def matches(original: str, scrubbed: str) -> bool:
    """Equal, or equal once each placeholder in `scrubbed` stands for some text."""
    if original == scrubbed:
        return True
    if PLACEHOLDER_RE.search(scrubbed) is None:
        return False
    parts = PLACEHOLDER_RE.split(scrubbed)
    pattern = ".+?".join(re.escape(part) for part in parts)
    return re.fullmatch(pattern, original, re.DOTALL) is not None


def assert_same(original: Any, scrubbed: Any, where: str = "") -> None:
    if isinstance(original, dict):
        assert isinstance(scrubbed, dict), where
        assert len(original) == len(scrubbed), f"{where}: keys differ"
        for (key_a, value_a), (key_b, value_b) in zip(
            original.items(), scrubbed.items(), strict=True
        ):
            assert matches(key_a, key_b), f"{where}: key {key_a!r} vs {key_b!r}"
            assert_same(value_a, value_b, f"{where}.{key_a}")
    elif isinstance(original, list):
        assert isinstance(scrubbed, list), where
        assert len(original) == len(scrubbed), f"{where}: lengths differ"
        for index, (a, b) in enumerate(zip(original, scrubbed, strict=True)):
            assert_same(a, b, f"{where}[{index}]")
    elif isinstance(original, str) and isinstance(scrubbed, str):
        assert matches(original, scrubbed), f"{where}: {original!r} vs {scrubbed!r}"
    else:
        assert original == scrubbed, f"{where}: {original!r} vs {scrubbed!r}"
        assert type(original) is type(scrubbed), where


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the core's column cache out of the user's home."""
    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("zones", [False, True], ids=["default", "zones"])
@pytest.mark.parametrize("name", NAMES)
def test_scrubbed_copy_gives_the_same_figures(
    name: str, zones: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = TRACES / name
    # Same file name in another folder: only the folder differs in the output.
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / name
    scrub_file(source, copy, ScrubOptions(zones=zones))
    for command in COMMANDS:
        before = figures(command, source, capsys)
        after = figures(command, copy, capsys)
        assert_same(before, after, command)


def test_placeholder_matching_is_strict() -> None:
    assert matches("thread 7 (trainer)", "thread 7 (<proc-1>)")
    assert matches("/home/a/x.py(3): f", "<path-1>/x.py(3): f")
    assert not matches("thread 7 (trainer)", "thread 8 (<proc-1>)")
    assert not matches("aten::mm", "aten::add")
    assert not matches("12", "<zone-1>3")


@pytest.mark.torch
def test_a_collector_capture_scrubs_clean_with_the_same_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Our own demo capture, with stacks and shapes: the richest leak we write."""
    pytest.importorskip("torch")
    from collector import validate_description
    from collector.demo import run_demo

    command = ["python3", "/home/alice/proj/train.py", "--out", "/home/alice/runs"]
    source = run_demo(
        tmp_path / "demo.json", record_shapes=True, with_stack=True, command=command
    )
    capsys.readouterr()
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / "demo.json"
    report = scrub_file(source, copy, ScrubOptions(zones=True, shapes=True))
    path = report.get("path")
    assert path is not None and "/home/alice/proj/train.py" in path.values
    text = copy.read_text()
    for leak in ("alice", str(tmp_path), str(Path.cwd()), "Input Dims"):
        assert leak not in text
    assert check_file(copy, ScrubOptions(shapes=True)).clean
    description = json.loads(text)["steptrace"]
    assert validate_description(description) == []
    assert description["zones"]["declared"] == [
        "lecture_batch_cpu",
        "transfert",
        "entrainement",
    ]
    for command_name in COMMANDS:
        assert_same(
            figures(command_name, source, capsys),
            figures(command_name, copy, capsys),
            command_name,
        )

"""Two real demo captures on the CPU: with the data-zone delay, and with batches
prepared in advance (the method's next check). The diff must say
`likely_faster` (one capture a side), only because the two ranges of step
times do not overlap — checked against the step events of the raw files — and
name the data zone as what moved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

torch = pytest.importorskip("torch")

from collector import Window  # noqa: E402
from collector.demo import run_demo  # noqa: E402
from tui.cli import main  # noqa: E402

pytestmark = [
    pytest.mark.torch,
    pytest.mark.filterwarnings("ignore:CUDA is not available:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*Profiler clears events:UserWarning"),
]

WINDOW = Window(wait=1, warmup=1, active=5)
READ_DELAY_MS = 1.0


@pytest.fixture(scope="module")
def demo_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The slow capture (1 ms per item read inside the step) and the preloaded one."""
    folder = tmp_path_factory.mktemp("demo-pair")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        slow = run_demo(
            folder / "slow.json", "cpu", WINDOW, READ_DELAY_MS, preload=False
        )
        fast = run_demo(
            folder / "fast.json", "cpu", WINDOW, READ_DELAY_MS, preload=True
        )
    finally:
        torch.set_num_threads(threads)
    yield slow, fast


def window_steps_us(path: Path) -> list[float]:
    """The active steps' durations, read from the raw file and its description."""
    document: dict[str, Any] = orjson.loads(path.read_bytes())
    active = set(document["steptrace"]["active_steps"])
    return [
        float(event["dur"])
        for event in document["traceEvents"]
        if event.get("ph") == "X"
        and str(event.get("name", "")).startswith("ProfilerStep#")
        and int(event["name"].split("#")[1]) in active
    ]


def test_preloaded_batches_read_as_faster_with_ranges_apart(
    demo_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    slow, fast = demo_pair
    slow_steps, fast_steps = window_steps_us(slow), window_steps_us(fast)
    assert len(slow_steps) == len(fast_steps) == WINDOW.active
    # The oracle: the raw ranges do not overlap (32 reads of 1 ms sit in every slow step).
    assert max(fast_steps) < min(slow_steps)

    assert main(["diff", str(slow), str(fast), "--json"]) == 0
    result = orjson.loads(capsys.readouterr().out)
    steps = result["steps"]
    assert steps["verdict"] == "likely_faster"
    assert steps["runs"] == {"before": 1, "after": 1}
    moved = [entry for entry in result["mechanisms"] if entry["moved"]]
    assert moved[0]["id"] == "gpu_idle_data_zone" and moved[0]["moved_in"] == "1/1"
    assert moved[0]["change_us_per_step"] < -32 * READ_DELAY_MS * 1000 * 0.9
    assert steps["before"]["n"] == steps["after"]["n"] == WINDOW.active
    assert steps["before"]["min_us"] == pytest.approx(min(slow_steps))
    assert steps["before"]["max_us"] == pytest.approx(max(slow_steps))
    assert steps["after"]["max_us"] == pytest.approx(max(fast_steps))
    assert steps["after"]["max_us"] < steps["before"]["min_us"]
    assert steps["change_pct"] < 0
    # Same environment, window, options, question, batch size and data zone.
    assert result["comparable"] is True, result["warnings"]
    assert result["warnings"] == []
    assert steps["before"]["samples_per_step"] == 32
    # Start-up is kept apart: the wait and warm-up steps are not in the window.
    startup = steps["startup"]["before"]["steps"]
    assert [entry["step"] for entry in startup] == [0, 1]
    assert not {0, 1} & set(steps["before"]["steps"])
    # The data zone shrinks with the reads gone; the GPU is not observed.
    before_zone, after_zone = result["zone"]["before"], result["zone"]["after"]
    assert before_zone["kind"] == after_zone["kind"] == "untraced"
    assert after_zone["total_zone_us"] < before_zone["total_zone_us"]
    assert before_zone["median_gap_us_per_step"] >= 32 * READ_DELAY_MS * 1000 * 0.9
    # The DataLoader's reads left the window: its row is removed.
    removed = {row["name"] for row in result["ops"] if row["status"] == "removed"}
    assert any(name.startswith("enumerate(DataLoader)#") for name in removed)
    assert result["kernels"] == []

    assert main(["diff", str(slow), str(fast)]) == 0
    text = capsys.readouterr().out
    assert "verdict likely faster" in text
    assert "what moved: Untraced time in the data zone" in " ".join(text.split())
    # Start-up in words, each side's wait and warm-up steps by number and phase.
    words = " ".join(text.split())
    for entry in startup:
        assert f"step {entry['step']} ({entry['phase']})" in words
    assert max(len(line) for line in text.splitlines()) <= 80


def test_notes_record_the_demo_verdict(
    demo_pair: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    isolated_data_dir: Path,
) -> None:
    slow, fast = demo_pair
    argv = ["notes", "add", str(slow), "--hypothesis", "the input pipeline lags"]
    assert main([*argv, "--anchor", "finding:gpu_idle_data_zone"]) == 0
    note_id = capsys.readouterr().out.strip()
    assert main(["notes", "set", str(slow), note_id, "--tested-by", str(fast)]) == 0
    capsys.readouterr()
    assert main(["notes", "--md", str(slow)]) == 0
    markdown = capsys.readouterr().out
    assert "tested by [fast.json](<fast.json>): likely_faster" in markdown
    words = " ".join(markdown.split())
    assert "runs: 1 before, 1 after — what moved: Untraced time in the data zone" in (
        words
    )
    assert main(["report", str(slow), "--md"]) == 0
    report = capsys.readouterr().out
    assert "tested by [fast.json](<fast.json>): likely_faster" in report

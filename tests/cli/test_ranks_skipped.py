"""`ranks` says which files of the run folder it skipped and why, never silently."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.builders.runs import write_run
from tui.cli import main
from tui.core.runs.discover import discover_run


@pytest.fixture
def run(tmp_path: Path) -> Path:
    folder = write_run(tmp_path / "run", {0: [100.0], 1: [110.0], 2: [90.0]})
    os.mkfifo(folder / "rank-3.pt.trace.json")
    (folder / "rank-4.pt.trace.json").symlink_to("/dev/zero")
    (folder / "rank-5.pt.trace.json").symlink_to(folder / "gone.json")
    (folder / "rank-6.pt.trace.json").mkdir()
    return folder


def test_the_layout_names_each_skipped_file_and_why(run: Path) -> None:
    layout = discover_run(run)
    assert [item.rank for item in layout.files] == [0, 1, 2]
    skipped = [warning for warning in layout.warnings if "skipped" in warning]
    assert len(skipped) == 4
    text = "\n".join(skipped)
    assert "rank-3.pt.trace.json" in text and "named pipe" in text
    assert "rank-4.pt.trace.json" in text and "symbolic link to a device" in text
    assert "rank-5.pt.trace.json" in text and "broken symbolic link" in text
    assert "rank-6.pt.trace.json" in text and "folder" in text


def test_ranks_prints_what_it_skipped(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ranks", str(run), "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    shown = out + err
    for name in ("rank-3", "rank-4", "rank-5", "rank-6"):
        assert f"{name}.pt.trace.json" in shown


def test_a_folder_of_only_unusable_files_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    os.mkfifo(folder / "rank-0.pt.trace.json")
    with pytest.raises(Exception, match="named pipe"):
        discover_run(folder)


def test_files_that_are_not_traces_are_set_aside_first_in_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `truth.json` beside rank-0..2 of a world of 3 was numbered rank 3 in
    file order, then said to lie outside the world size, then left out as
    not a trace: three warnings for one stray file. It is set aside before
    ranks are given, in one warning, and takes no rank."""
    folder = write_run(
        tmp_path / "run", {0: [100.0], 1: [110.0], 2: [90.0]}, world_size=3
    )
    (folder / "truth.json").write_text('{"answer": 42, "ranks": [0, 1, 2]}')
    (folder / "empty.json").write_text("")
    layout = discover_run(folder)
    assert [item.rank for item in layout.files] == [0, 1, 2]
    assert main(["ranks", str(folder), "--workers", "1"]) == 0
    shown = "".join(capsys.readouterr())
    assert "→ 3" not in shown and "outside the world size" not in shown
    assert "rank 3" not in shown
    mentions = [line for line in shown.splitlines() if "truth.json" in line]
    assert len(mentions) == 1 and "not a trace" in mentions[0]
    assert "empty.json" in mentions[0]


def test_a_folder_of_only_files_that_are_not_traces_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "truth.json").write_text('{"answer": 42}')
    assert discover_run(folder).files == ()
    assert main(["ranks", str(folder), "--workers", "1"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("steptrace: no rank could be read")
    assert "truth.json (a JSON object without 'traceEvents')" in error

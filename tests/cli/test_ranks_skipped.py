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

"""A path that cannot be read is named in one line, exit 2, by every command.

A loop of symbolic links, a link to nothing and a pipe each reach one
resolver (`tui.core.base.paths`), never a traceback, a hang or a wrong
"no such file".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui.cli import main
from tui.core.base.paths import path_problem, resolved

COMMANDS = (
    ("summary",),
    ("ops",),
    ("findings",),
    ("gaps",),
    ("report",),
    ("kernels",),
    ("zones",),
    ("notes",),
    ("open",),
    ("serve",),
    ("scrub", "--check"),
)


@pytest.fixture
def odd_paths(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    (tmp_path / "dangling.json").symlink_to("missing.json")
    os.mkfifo(tmp_path / "pipe.json")
    return {
        "loop": tmp_path / "a.json",
        "dangling": tmp_path / "dangling.json",
        "pipe": tmp_path / "pipe.json",
    }


WORDS = {
    "loop": "a loop of symbolic links (",
    "dangling": "a symbolic link to missing.json, which does not exist",
    "pipe": "not a regular file (a pipe)",
}


@pytest.mark.parametrize("kind", sorted(WORDS))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda words: words[0])
def test_every_command_names_the_problem_in_one_line(
    command: tuple[str, ...],
    kind: str,
    odd_paths: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = odd_paths[kind]
    assert main([*command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"steptrace: {path}: ")
    assert WORDS[kind] in err


def test_diff_and_ranks_name_a_loop_too(
    odd_paths: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = odd_paths["loop"]
    assert main(["diff", str(loop), str(loop)]) == 2
    assert WORDS["loop"] in capsys.readouterr().err
    (tmp_path / "run").symlink_to("run")
    assert main(["ranks", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "a loop of symbolic links" in err and "Traceback" not in err


def test_the_loop_is_spelled_out(odd_paths: dict[str, Path]) -> None:
    problem = path_problem(odd_paths["loop"])
    assert problem is not None
    assert problem.endswith(
        "(a.json → b.json → a.json)".replace("a.json", str(odd_paths["loop"]), 1)
    )


def test_resolving_a_loop_is_an_os_error(odd_paths: dict[str, Path]) -> None:
    with pytest.raises(OSError):
        resolved(odd_paths["loop"])
    assert resolved(odd_paths["pipe"]) == odd_paths["pipe"].resolve()


def test_a_regular_file_and_a_folder_are_fine(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text("{}")
    assert path_problem(tmp_path / "t.json") is None
    assert path_problem(tmp_path, folder_ok=True) is None
    assert path_problem(tmp_path) == "is a folder, not a trace file"
    assert path_problem(tmp_path / "nothing.json") == "no such file"

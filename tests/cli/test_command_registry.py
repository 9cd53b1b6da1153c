"""The command registry is the only list of commands: the parser, `--help` and
the mistyped-command hint all read it, and every result row names real code."""

from __future__ import annotations

import argparse

import pytest

from tui.cli import build_parser, closest_command
from tui.commands.registry import BY_NAME, COMMANDS, NAMES
from tui.commands.results import ResultCommand, imported


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    (action,) = [
        action
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    return list(action.choices)


def test_the_parser_has_the_registrys_commands_in_its_order() -> None:
    assert _subcommands(build_parser()) == [command.name for command in COMMANDS]
    assert list(NAMES) == [command.name for command in COMMANDS]


def test_help_lists_the_commands_in_the_registrys_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    listed = [
        line.split()[0]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("    ") and not line.startswith("     ")
    ]
    assert listed == list(NAMES)


def test_each_command_is_declared_once() -> None:
    assert len(BY_NAME) == len(COMMANDS)


@pytest.mark.parametrize("name", NAMES)
def test_one_commands_parser_holds_that_command_only(name: str) -> None:
    assert _subcommands(build_parser(name)) == [name]


def test_a_mistyped_command_is_matched_against_the_registry() -> None:
    assert closest_command("findngs") == "findings"
    assert closest_command("xyzzy") is None


RESULT_ROWS = [command for command in COMMANDS if isinstance(command, ResultCommand)]


@pytest.mark.parametrize("row", RESULT_ROWS, ids=[row.name for row in RESULT_ROWS])
def test_a_result_rows_names_are_real_code(row: ResultCommand) -> None:
    kind = imported(row.result)
    assert callable(kind.of)
    assert row.json is not None or callable(kind.to_json)
    for reference in (row.words, row.json):
        if reference is not None:
            assert callable(imported(reference))


def test_a_row_gives_its_words_or_its_text_not_both() -> None:
    def text(result: object, args: argparse.Namespace) -> str:
        return ""

    with pytest.raises(ValueError, match="one of them"):
        ResultCommand("x", "help", "m:R", "m:words", text=text)
    with pytest.raises(ValueError, match="one of them"):
        ResultCommand("x", "help", "m:R")

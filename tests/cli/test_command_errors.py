"""Every command's refusal goes through one handler: `tui.cli.main` prints each
line as `steptrace: LINE` on stderr and exits with the refusal's status (2
unless said), nothing on stdout, no traceback."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.cli import main
from tui.commands.errors import CommandError, print_refusal


def _trace(folder: Path) -> Path:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    return write_trace(folder / "t.json", events)


def _not_a_bench_result(folder: Path) -> Path:
    path = folder / "result.json"
    path.write_text("{}")
    return path


# Each: the words after `steptrace` ({trace}: a small capture, {missing}: no
# file, {json}: a JSON file that is no bench result) and what the refusal says.
REFUSALS = [
    (["open", "{missing}"], "steptrace: {missing}: no such file\n"),
    (["{missing}"], "steptrace: {missing}: no such file\n"),
    (
        ["summry", "x.json"],
        "steptrace: unknown command 'summry' (did you mean summary?)\n",
    ),
    (["summary", "{missing}"], None),
    (["ops", "{trace}", "--limit", "-1"], "steptrace: --limit must be 0 or more\n"),
    (
        ["diff", "{trace}", "{trace}", "--limit", "-1"],
        "steptrace: --limit must be 0 or more\n",
    ),
    (["gaps", "{trace}", "--min-us", "nan"], "steptrace: --min-us must be 0 or more\n"),
    (
        ["ops", "{trace}", "--step", "9"],
        "steptrace: no step 9 in this trace (steps: 1, 2)\n",
    ),
    (
        ["serve", "{trace}", "--port", "70000"],
        "steptrace: --port 70000: not a port (0-65535)\n",
    ),
    (["summary", "{trace}", "--zone", "lecture_batch"], None),
    (["notes", "{missing}"], "steptrace: {missing}: no such file\n"),
    (["scrub", "{missing}", "--check"], None),
    (["compare", "{json}", "{json}"], None),
    (["capture"], None),
]


@pytest.mark.parametrize(
    ("words", "said"), REFUSALS, ids=[" ".join(words) for words, _ in REFUSALS]
)
def test_a_refusal_is_printed_by_the_one_handler(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    words: list[str],
    said: str | None,
) -> None:
    monkeypatch.chdir(tmp_path)
    names = {
        "trace": str(_trace(tmp_path)),
        "missing": str(tmp_path / "missing.json"),
        "json": str(_not_a_bench_result(tmp_path)),
    }
    handled: list[CommandError] = []

    def spy(error: CommandError) -> None:
        handled.append(error)
        print_refusal(error)

    monkeypatch.setattr("tui.cli.print_refusal", spy)
    assert main([word.format(**names) for word in words]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(handled) == 1 and handled[0].status == 2
    assert err == "".join(f"steptrace: {line}\n" for line in handled[0].lines)
    assert "Traceback" not in err
    if said is not None:
        assert err == said.format(**names)


def test_each_refused_zone_is_a_line_of_one_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = str(_trace(tmp_path))
    assert main(["summary", trace, "--zone", "nowhere", "--zone", "elsewhere"]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 2
    assert lines[0].startswith("steptrace: no range named 'nowhere'")
    assert lines[1].startswith("steptrace: no range named 'elsewhere'")


def test_a_refusal_keeps_its_status_and_escapes_what_it_quotes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The handler, not the command, makes the lines terminal-safe; a refusal
    may carry another status than 2 (the notes that could not be saved: 1)."""
    from tui.commands import compare

    def refuses(args: argparse.Namespace) -> int:
        raise CommandError("first \x1b[31mline", "second line", status=5)

    monkeypatch.setattr(compare, "run", refuses)
    assert main(["compare", "a.json", "b.json"]) == 5
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "steptrace: first \\x1b[31mline\nsteptrace: second line\n"


def test_a_command_that_answers_goes_past_the_handler(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    handled: list[CommandError] = []
    monkeypatch.setattr("tui.cli.print_refusal", handled.append)
    assert main(["summary", str(_trace(tmp_path)), "--json"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("{") and err == ""
    assert handled == []

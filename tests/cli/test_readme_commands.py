"""The front page's command table lists every command `steptrace --help` lists,
in its order, and every relative link of the README and docs/ reaches a file
and, where it names one, a heading of that file (as GitHub makes anchors); its
test command is the one CI runs."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tui.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
# A table row whose first cell is a command in backticks: | `name ARGS` | …
_COMMAND_ROW = re.compile(r"^\| `([a-z]+)[^`]*` \|", re.MULTILINE)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)


def help_commands() -> list[str]:
    """The commands `steptrace --help` lists, in its order."""
    actions = build_parser()._actions
    subparsers = next(a for a in actions if isinstance(a, argparse._SubParsersAction))
    return list(subparsers.choices)


def table_commands(markdown: str) -> list[str]:
    """The commands named by the first cell of the "## Commands" table."""
    section = markdown.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    return _COMMAND_ROW.findall(section)


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def broken_links(page: Path) -> list[str]:
    """The relative links of `page` whose file or heading does not exist."""
    broken = []
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        file_part, _, fragment = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(target)
        elif fragment and linked.suffix == ".md":
            headings = _HEADING.findall(linked.read_text(encoding="utf-8"))
            if fragment not in {anchor(heading) for heading in headings}:
                broken.append(target)
    return broken


def test_the_readme_table_lists_every_command_in_help_order() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table_commands(readme) == help_commands()


def test_a_command_left_out_of_the_table_is_seen() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    without_queue = "\n".join(
        line for line in readme.splitlines() if not line.startswith("| `queue ")
    )
    assert table_commands(without_queue) == [n for n in help_commands() if n != "queue"]


def test_every_relative_link_of_the_readme_and_docs_resolves() -> None:
    pages = [
        ROOT / "README.md",
        ROOT / "ARCHITECTURE.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]
    assert {page.name: broken_links(page) for page in pages} == {
        page.name: [] for page in pages
    }


def test_a_link_to_a_missing_heading_is_broken(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text(
        "# Title\n\n## Two words: `code`\n", encoding="utf-8"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#two-words-code) [file](missing.md) [heading](other.md#nowhere)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md", "other.md#nowhere"]


def test_the_readme_test_command_is_what_ci_runs() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    command = next(
        line for line in reversed(ci_lines) if line.startswith("python3 -m venv")
    )
    readme_lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert command in readme_lines

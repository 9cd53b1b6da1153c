"""`steptrace notes` at work: parse the verb's arguments, read and write the notes.

Imported only when the command runs (`notes.py` registers it), so `--help`
never reads the notes code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn

import orjson

from tui.commands._notes_args import USAGE, VERBS, add_format_options
from tui.commands.errors import CommandError, warn
from tui.core.base.paths import path_problem
from tui.core.base.textsafe import printable
from tui.notes.model import (
    STATUSES,
    Anchor,
    NotesError,
    NotesLockTimeout,
    NotesSaveError,
    Result,
    parse_status,
)
from tui.notes.store import NotesStore, SaveResult
from tui.report.notes import render_markdown, render_text

HASH_LIMIT_BYTES = 64 * 1024 * 1024
"""Traces up to this size are hashed by the CLI to tell whether they changed;
bigger ones are checked by size only (the app hashes them in the background)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser that refuses (CommandError) instead of printing usage
    and exiting."""

    def error(self, message: str) -> NoReturn:
        raise CommandError(message)


def _verb_parser(verb: str) -> _Parser:
    parser = _Parser(prog=f"steptrace notes {verb}".rstrip(), usage=USAGE)
    parser.add_argument("trace", help="the trace file")
    if verb == "list":
        add_format_options(parser)
        return parser
    if verb in ("set", "rm"):
        parser.add_argument("id", help="note id (a unique prefix is enough)")
    if verb == "rm":
        return parser
    parser.add_argument("--hypothesis", required=verb == "add")
    parser.add_argument("--observation")
    parser.add_argument("--next-check", dest="next_check")
    parser.add_argument("--anchor", help="step:N, op:NAME, range:START-END, finding:ID")
    parser.add_argument("--author")
    if verb == "set":
        parser.add_argument("--status", help=", ".join(STATUSES))
        parser.add_argument("--result", help="what the next check gave")
        parser.add_argument("--before", help="raw values before, comma-separated")
        parser.add_argument("--after", help="raw values after, comma-separated")
        parser.add_argument("--unit", help="unit of the before/after values")
        parser.add_argument(
            "--tested-by",
            dest="tested_by",
            metavar="AFTER",
            help="the capture that tested the hypothesis: records the verdict of "
            "steptrace diff TRACE AFTER",
        )
    return parser


def run_notes(args: argparse.Namespace) -> int:
    """List/export (no verb), or `add`, `set`, `rm` a note; the notes' errors
    are refusals: status 1 when the notes could not be locked or saved, else 2."""
    words = list(args.words)
    verb = words.pop(0) if words and words[0] in VERBS else "list"
    try:
        try:
            options = _verb_parser(verb).parse_args(words)
        except SystemExit as done:  # --help
            return done.code if isinstance(done.code, int) else 0
        trace = _existing_trace(options.trace)
        if verb == "list":
            return _list(trace, options, args)
        if verb == "add":
            return _add(trace, options)
        if verb == "set":
            return _set(trace, options)
        return _rm(trace, options)
    except (NotesLockTimeout, NotesSaveError) as error:
        raise CommandError(str(error), status=1) from error
    except NotesError as error:
        raise CommandError(str(error)) from error


def _existing_trace(text: str) -> Path:
    """The trace named on the command line; the loader's words when it is not a file."""
    trace = Path(text)
    problem = path_problem(trace)
    if problem is not None:
        raise CommandError(f"{printable(text)}: {problem}")
    return trace


def _open_store(trace: Path) -> NotesStore:
    """Open the notes, hashing the trace when it is small enough to be quick."""
    from tui.notes.hashing import sha256_file

    sha256 = None
    if trace.stat().st_size <= HASH_LIMIT_BYTES:
        try:
            sha256 = sha256_file(trace)
        except OSError as error:
            warn(f"cannot hash the trace: {error.strerror or error}")
    store = NotesStore.open(trace, trace_sha256=sha256)
    for problem in store.problems:
        warn(problem)
    return store


def _report_save(store: NotesStore, result: SaveResult, known: list[str]) -> None:
    for problem in store.problems:
        if problem not in known:
            warn(problem)
    for conflict in result.conflicts:
        warn(conflict.message)
    if result.merged_from_disk:
        count = result.merged_from_disk
        warn(f"{count} note{'s' if count != 1 else ''} from another session merged")


def _save(store: NotesStore) -> None:
    known = store.problems
    _report_save(store, store.save(), known)


def _list(trace: Path, options: argparse.Namespace, args: argparse.Namespace) -> int:
    as_json = bool(args.json or options.json)
    as_md = bool(args.md or options.md)
    if as_json and as_md:
        raise CommandError("choose one of --json and --md")
    store = _open_store(trace)
    if as_json:
        payload = {
            "trace": str(trace),
            "location": str(store.location),
            "fell_back": store.fell_back,
            "trace_changed": store.trace_changed,
            "problems": store.problems,
            "notes": [note.to_dict() for note in store.notes],
        }
        sys.stdout.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode())
        sys.stdout.write("\n")
    elif as_md:
        summary, reason = _capture_summary(trace, store.zone)
        if summary is None:
            warn(f"capture figures unavailable: {reason}")
        sys.stdout.write(
            render_markdown(
                store.notes, summary, trace_name=trace.name, figures_unavailable=reason
            )
        )
    else:
        notes = store.notes
        if not notes:
            print(f"no notes on {printable(trace.name)}")
            return 0
        count = f"{len(notes)} note{'s' if len(notes) != 1 else ''}"
        print(f"{count} on {printable(trace.name)} ({printable(str(store.location))})")
        print()
        sys.stdout.write(render_text(notes))
    return 0


def _capture_summary(trace: Path, zone: Any = None) -> tuple[Any, str | None]:
    """The core's summary of the capture (a SummaryResult), or None and why it is
    unavailable; with the data zone chosen in the explorer when one is remembered."""
    from tui.commands._common import load_for_cli
    from tui.core.base.errors import TraceLoadError
    from tui.core.opening.zones import remembered_zones
    from tui.core.results import SummaryResult

    remembered = zone.names if zone is not None else ()
    try:
        chosen = remembered_zones(load_for_cli(str(trace)), remembered)
        summary = SummaryResult.of(chosen.analysis)
    except TraceLoadError as error:
        return None, str(error)
    return summary, None


def _text(value: str | None, what: str) -> str | None:
    if value is not None and not value.strip():
        raise CommandError(f"{what} is empty")
    return value


def _checked_anchor(trace: Path, text: str) -> Anchor:
    """The anchor `--anchor` gives, refused when it points at nothing in the trace
    (with the closest anchors that do); kept with a warning when the trace cannot
    be read to tell."""
    from tui.commands._common import load_for_cli
    from tui.core.base.errors import TraceLoadError
    from tui.core.figures.analysis import Analysis
    from tui.notes.anchor_check import anchor_miss
    from tui.report.refusals import anchor_miss_line

    anchor = Anchor.parse(text)
    try:
        analysis = Analysis(load_for_cli(str(trace)))
    except TraceLoadError as error:
        warn(f"--anchor {text} kept unchecked: the trace cannot be read ({error})")
        return anchor
    miss = anchor_miss(anchor, analysis)
    if miss is not None:
        raise CommandError(f"--anchor {text}: {anchor_miss_line(miss)}")
    return anchor


def _add(trace: Path, options: argparse.Namespace) -> int:
    hypothesis = _text(options.hypothesis, "--hypothesis") or ""
    anchor = (
        _checked_anchor(trace, options.anchor) if options.anchor is not None else None
    )
    store = _open_store(trace)
    note = store.add(
        hypothesis,
        observation=options.observation or "",
        next_check=options.next_check or "",
        anchor=anchor,
        author=_text(options.author, "--author"),
    )
    _save(store)
    print(note.id)
    return 0


def _figures(text: str | None, what: str) -> tuple[float, ...] | None:
    if text is None:
        return None
    values = []
    for item in text.replace(",", " ").split():
        try:
            values.append(float(item))
        except ValueError:
            raise CommandError(f"bad number {item!r} in {what}") from None
    return tuple(values)


def _set(trace: Path, options: argparse.Namespace) -> int:
    changes: dict[str, object] = {}
    if options.status is not None:
        changes["status"] = parse_status(options.status)
    for name in ("hypothesis", "observation", "next_check"):
        value = getattr(options, name)
        if value is not None:
            changes[name] = value
    if options.author is not None:
        changes["author"] = options.author or None
    if options.anchor is not None:
        changes["anchor"] = (
            _checked_anchor(trace, options.anchor) if options.anchor else None
        )
    before = _figures(options.before, "--before")
    after = _figures(options.after, "--after")
    result_given = options.result is not None or options.unit is not None
    if result_given or before is not None or after is not None:
        changes["result"] = None  # filled in once the note is known
    tested_by = None
    if options.tested_by is not None:
        tested_by = _existing_trace(options.tested_by)
    if not changes and tested_by is None:
        raise CommandError(
            "nothing to change: give --status, --result, --before/--after, "
            "--tested-by, --hypothesis, --observation, --next-check, --anchor "
            "or --author"
        )
    store = _open_store(trace)
    note = store.resolve(options.id)
    if tested_by is not None:
        note = _record_tested_by(store, note.id, trace, tested_by)
        if not changes:
            _save(store)
            print(note.id)
            return 0
    if "result" in changes:
        current = note.result or Result()
        changes["result"] = Result(
            text=options.result if options.result is not None else current.text,
            before=before if before is not None else current.before,
            after=after if after is not None else current.after,
            unit=options.unit if options.unit is not None else current.unit,
            tested_by=current.tested_by,
        )
    updated = store.update(note.id, **changes)
    _save(store)
    print(updated.id)
    return 0


def _record_tested_by(store: NotesStore, note_id: str, trace: Path, after: Path) -> Any:
    """Diff the noted trace with AFTER and put the verdict in the note's result."""
    from tui.commands._common import load_for_cli
    from tui.core.diff import TraceDiff
    from tui.core.figures.analysis import Analysis
    from tui.notes.hashing import sha256_file
    from tui.notes.tested_by import record_tested_by
    from tui.report.diff import mechanism_title

    diff = TraceDiff.of(
        Analysis(load_for_cli(str(trace))), Analysis(load_for_cli(str(after)))
    )
    sha256 = None
    if after.stat().st_size <= HASH_LIMIT_BYTES:
        try:
            sha256 = sha256_file(after)
        except OSError as error:
            warn(f"cannot hash {after}: {error.strerror or error}")
    if not diff.comparable:
        warn(
            "the two captures are not comparable: "
            + "; ".join(w.message for w in diff.warnings if w.breaks_comparability)
        )
    return record_tested_by(
        store, note_id, diff, after, after_sha256=sha256, title=mechanism_title
    )


def _rm(trace: Path, options: argparse.Namespace) -> int:
    store = _open_store(trace)
    note = store.resolve(options.id)
    store.delete(note.id)
    _save(store)
    print(note.id)
    return 0

"""Walk a parsed trace, list what identifies people or places, and replace it.

Checking and scrubbing are one walk, so `--check` lists exactly what `-o`
changes. Only strings are rewritten, and only where they carry text: timing
and structure (ts, dur, pid, tid, ph, cat, ids, flows, numbers) are never
touched, and operator names only lose paths, e-mails, secrets and hosts, so
the scrubbed copy gives the same step times, operator table and gaps.

Identity values (user and host names, job names) are collected first from the
metadata, then hunted in every free-text string; a value first met inside the
events (a `/home/alice/...` path) triggers one more walk so that every
occurrence goes, not only those after it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui.core.base.errors import TraceLoadError
from tui.core.base.textsafe import printable
from tui.scrub.io import RawTrace, ScrubError, encode, parse, read_raw, write_new
from tui.scrub.report import CheckReport, ScrubOptions, ScrubReport
from tui.scrub.walker import Document, Walker

# A value first met inside the events asks for one more walk, at most this many in all.
_MAX_WALKS = 3


def _identity_tokens(
    document: Document, options: ScrubOptions
) -> dict[str, tuple[str, str]]:
    """User, host and job values named in the metadata, before the events are read."""
    tokens: dict[str, tuple[str, str]] = {}
    if not isinstance(document, dict):
        return tokens
    head = {key: value for key, value in document.items() if key != "traceEvents"}
    for _ in range(_MAX_WALKS):
        walker = Walker(options, tokens, rewrite=False)
        walker.metadata(head)
        if not walker.discovered:
            break
        tokens = {**tokens, **walker.discovered}
    return tokens


def _analyse(
    raw: RawTrace, options: ScrubOptions, rewrite: bool
) -> tuple[Document, Walker]:
    try:
        return _walk_until_stable(raw, options, rewrite)
    except RecursionError:
        raise TraceLoadError(
            f"{raw.shown}: not a trace (JSON nested too deeply)"
        ) from None


def _walk_until_stable(
    raw: RawTrace, options: ScrubOptions, rewrite: bool
) -> tuple[Document, Walker]:
    document = parse(raw)
    tokens = _identity_tokens(document, options)
    attempt = 1
    while True:
        walker = Walker(options, tokens, rewrite)
        result = walker.run(document)
        if not walker.discovered or attempt == _MAX_WALKS:
            return result, walker
        tokens = {**tokens, **walker.discovered}
        attempt += 1
        if rewrite:
            document = parse(raw)  # the previous walk rewrote it in place


def check_file(
    src: str | os.PathLike[str], options: ScrubOptions | None = None
) -> CheckReport:
    """List what in a trace can identify people or places.

    Raises `TraceLoadError` (one-line message) for a file that is not a trace.
    """
    options = options or ScrubOptions()
    raw = read_raw(src, options.max_memory)
    _, walker = _analyse(raw, options, rewrite=False)
    return CheckReport(raw.path, options, walker.summaries())


def scrub_file(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    options: ScrubOptions | None = None,
) -> ScrubReport:
    """Write a copy of a trace with identifying data replaced by stable placeholders.

    The copy is gzip when the source was (by its bytes) or `dst` ends in
    `.gz`. Raises `ScrubError` if `dst` exists (never overwritten) and
    `TraceLoadError` for a source that is not a trace.
    """
    options = options or ScrubOptions()
    destination = Path(dst)
    if os.path.lexists(destination):
        raise ScrubError(
            f"{printable(str(destination))}: already exists, not overwritten"
        )
    raw = read_raw(src, options.max_memory)
    document, walker = _analyse(raw, options, rewrite=True)
    compress = raw.compressed or destination.name.endswith(".gz")
    try:
        payload = encode(document)
    except RecursionError:
        raise TraceLoadError(
            f"{raw.shown}: not a trace (JSON nested too deeply)"
        ) from None
    write_new(destination, payload, compress)
    return ScrubReport(raw.path, destination, compress, options, walker.summaries())

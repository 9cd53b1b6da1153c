"""Read and write traces without changing a single number.

Absolute timestamps such as `1712195495519689.047` have more digits than a
float64 holds, so a scrubbed copy parsed into floats would shift events by
nanoseconds. Floats are decoded as `Decimal` (exact, and written back as the
same number) and NaN/Infinity literals are kept as raw text.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec

from tui.core.base.errors import TraceLoadError
from tui.core.base.safe_write import remove_abandoned_temporaries, write_fresh
from tui.core.base.textsafe import printable
from tui.core.ingest.decode.document import decode_trace
from tui.core.ingest.source import (
    SCRUB_BYTES_PER_EVENT,
    MemoryBudget,
    read_trace_bytes,
)

_SURROGATE = re.compile("[\ud800-\udfff]")
_DECODER = msgspec.json.Decoder(float_hook=Decimal)
_ENCODER = msgspec.json.Encoder(decimal_format="number")


class ScrubError(Exception):
    """The scrubbed copy cannot be written; the message is one line for the user."""


@dataclass(frozen=True)
class RawTrace:
    """A trace file's decompressed bytes and how it was stored."""

    path: Path
    data: bytes | bytearray
    compressed: bool

    @property
    def shown(self) -> str:
        """The path as messages show it (control characters escaped)."""
        return printable(str(self.path))


def read_raw(path: str | os.PathLike[str], max_memory: int | None = None) -> RawTrace:
    """Read a trace file through the loader's bounded reader (gzip by its bytes, not its name).

    The same limits as opening the trace: a decompression bomb stops with the
    loader's message, and so do folders, pipes and missing files; a trace whose
    events the walk could not hold in `max_memory` stops before it is parsed.
    """
    budget = MemoryBudget.of(max_memory, SCRUB_BYTES_PER_EVENT)
    raw = read_trace_bytes(path, memory=budget)
    return RawTrace(Path(path), raw.data, raw.compressed)


def _constant(text: str) -> msgspec.Raw:
    return msgspec.Raw(text.encode())


def parse(raw: RawTrace) -> dict[str, Any] | list[Any]:
    """Decode a trace exactly; object form `{"traceEvents": [...]}` or a bare array.

    TraceLoadError with a one-line reason otherwise, in the loader's words.
    """
    if not raw.data or raw.data.isspace():  # never a copy of a big file
        raise _refusal(raw, "the file is empty")
    try:
        document: Any = _DECODER.decode(raw.data)
    except (msgspec.DecodeError, RecursionError):
        # NaN / Infinity literals (Python's json writes them) or invalid JSON.
        try:
            document = json.loads(
                raw.data, parse_float=Decimal, parse_constant=_constant
            )
        except RecursionError:
            raise _refusal(raw, "not a trace (JSON nested too deeply)") from None
        except ValueError as error:
            raise _refusal(raw, _json_error_text(error), damaged=True) from None
    if isinstance(document, dict):
        if "traceEvents" not in document:
            raise _refusal(raw, "not a trace (a JSON object without 'traceEvents')")
        if not isinstance(document["traceEvents"], list):
            raise _refusal(raw, "not a trace ('traceEvents' is not a list)")
        return document
    if not isinstance(document, list):
        raise _refusal(raw, "not a trace (the JSON is not an object or a list)")
    for number, event in enumerate(document, 1):
        if not isinstance(event, dict):
            raise _refusal(
                raw, f"not a trace (item {number} of the list is not an event object)"
            )
    return document


def _json_error_text(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
    return f"not UTF-8 JSON: {printable(str(error).splitlines()[0])}"


def _refusal(raw: RawTrace, reason: str, damaged: bool = False) -> TraceLoadError:
    """Why a file cannot be scrubbed: the loader's own message when it refuses the file too.

    A file the loader still reads (around damage, or with events it skips) is
    refused here all the same, with `reason`: a scrubbed copy holds the whole
    trace, exactly.
    """
    try:
        decoded = decode_trace(raw.data, str(raw.path))
    except TraceLoadError as loader_error:
        return loader_error
    if damaged:
        detail = printable(decoded.warnings[-1]) if decoded.warnings else reason
        return TraceLoadError(
            f"{raw.shown}: damaged JSON ({detail}); only a whole trace is scrubbed, "
            "never a part of one"
        )
    return TraceLoadError(f"{raw.shown}: {reason}")


def encode(document: dict[str, Any] | list[Any]) -> bytes:
    """JSON bytes with every number written as it was read."""
    try:
        return _ENCODER.encode(document)
    except UnicodeEncodeError:
        return _ENCODER.encode(_escape_surrogates(document))


def _escape_surrogates(value: Any) -> Any:
    """Lone surrogates (legal in JSON escapes, not in UTF-8) written back as escapes."""
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return msgspec.Raw(json.dumps(value).encode())
    if isinstance(value, list):
        return [_escape_surrogates(item) for item in value]
    if isinstance(value, dict):
        # A key cannot be raw JSON: its lone surrogates become U+FFFD.
        return {
            _SURROGATE.sub("\ufffd", key): _escape_surrogates(item)
            for key, item in value.items()
        }
    return value


def write_new(path: Path, payload: bytes, compress: bool) -> None:
    """Write `payload` to a new file, whole or not at all, never over an existing one."""
    if compress:
        payload = gzip.compress(payload, compresslevel=6, mtime=0)
    shown = printable(str(path))
    remove_abandoned_temporaries(path.parent)  # a scrub killed before this one
    try:
        write_fresh(path, payload)
    except FileExistsError:
        raise ScrubError(f"{shown}: already exists, not overwritten") from None
    except OSError as error:
        # Errors naming a file come from creating or linking; the others from writing.
        verb = "write" if error.filename is None else "create"
        reason = error.strerror or str(error)
        raise ScrubError(f"{shown}: cannot {verb} ({reason})") from None

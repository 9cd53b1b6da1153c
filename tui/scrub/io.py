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
import zlib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec

from tui.core.errors import TraceLoadError

GZIP_MAGIC = b"\x1f\x8b"

_SURROGATE = re.compile("[\ud800-\udfff]")
_DECODER = msgspec.json.Decoder(float_hook=Decimal)
_ENCODER = msgspec.json.Encoder(decimal_format="number")


class ScrubError(Exception):
    """The scrubbed copy cannot be written; the message is one line for the user."""


@dataclass(frozen=True)
class RawTrace:
    """A trace file's decompressed bytes and how it was stored."""

    path: Path
    data: bytes
    compressed: bool


def read_raw(path: str | os.PathLike[str]) -> RawTrace:
    """Read a trace file, gunzipping it when its first bytes say gzip (not its name)."""
    source = Path(path)
    try:
        data = source.read_bytes()
    except IsADirectoryError:
        raise TraceLoadError(f"{source}: is a directory, not a trace file") from None
    except FileNotFoundError:
        raise TraceLoadError(f"{source}: no such file") from None
    except OSError as error:
        raise TraceLoadError(
            f"{source}: cannot read ({error.strerror or error})"
        ) from None
    compressed = data[:2] == GZIP_MAGIC
    if compressed:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise TraceLoadError(f"{source}: damaged gzip file ({error})") from None
    return RawTrace(source, data, compressed)


def _constant(text: str) -> msgspec.Raw:
    return msgspec.Raw(text.encode())


def parse(raw: RawTrace) -> dict[str, Any] | list[Any]:
    """Decode a trace exactly; object form `{"traceEvents": [...]}` or a bare array."""
    if not raw.data.strip():
        raise TraceLoadError(f"{raw.path}: empty file, not a trace")
    try:
        document: Any = _DECODER.decode(raw.data)
    except (msgspec.DecodeError, RecursionError):
        # NaN / Infinity literals (Python's json writes them) or invalid JSON.
        try:
            document = json.loads(
                raw.data, parse_float=Decimal, parse_constant=_constant
            )
        except RecursionError:
            raise TraceLoadError(
                f"{raw.path}: not a trace (JSON nested too deeply)"
            ) from None
        except ValueError as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise TraceLoadError(f"{raw.path}: not JSON ({reason})") from None
    if isinstance(document, dict):
        if not isinstance(document.get("traceEvents"), list):
            raise TraceLoadError(f"{raw.path}: not a trace (no traceEvents list)")
        return document
    if isinstance(document, list) and all(
        isinstance(event, dict) for event in document
    ):
        return document
    raise TraceLoadError(
        f"{raw.path}: not a trace (expected an object or an array of events)"
    )


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
    """Write `payload` to a new file (never an existing one, never half a file)."""
    if compress:
        payload = gzip.compress(payload, compresslevel=6, mtime=0)
    try:
        handle = path.open("xb")
    except FileExistsError:
        raise ScrubError(f"{path}: already exists, not overwritten") from None
    except OSError as error:
        raise ScrubError(f"{path}: cannot create ({error.strerror or error})") from None
    try:
        with handle:
            handle.write(payload)
    except OSError as error:
        path.unlink(missing_ok=True)
        raise ScrubError(f"{path}: cannot write ({error.strerror or error})") from None

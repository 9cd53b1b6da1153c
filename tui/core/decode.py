"""Decode trace JSON into light per-event records, tolerating broken files.

The fast path is msgspec with a typed record that skips unknown fields and
keeps `ts` and `args` as raw JSON text: `ts` is parsed exactly later (float64
loses the nanoseconds of absolute microsecond epochs) and `args` is only
decoded when someone looks at an event. Broken files (NaN, lone surrogates,
invalid UTF-8, a file cut off mid-way) fall back to slower, tolerant paths
that keep every complete event and say what was lost.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tui.core.errors import TraceLoadError

EMPTY_RAW = msgspec.Raw(b"")


class RawEvent(msgspec.Struct, gc=False):
    """One trace event as decoded; every field may hold anything a hostile file has."""

    ph: Any = None
    cat: Any = None
    name: Any = None
    pid: Any = None
    tid: Any = None
    ts: msgspec.Raw = EMPTY_RAW
    dur: Any = None
    id: Any = None
    bp: Any = None
    args: msgspec.Raw = EMPTY_RAW


@dataclass
class DecodedTrace:
    """Events plus the other top-level keys of the document."""

    events: list[RawEvent]
    top_level: dict[str, Any]
    array_form: bool
    warnings: list[str] = field(default_factory=list)
    truncated: bool = False


_EVENTS_DECODER = msgspec.json.Decoder(list[RawEvent])
_TOP_DECODER = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_LIST_DECODER = msgspec.json.Decoder(list[msgspec.Raw])
_EVENT_DECODER = msgspec.json.Decoder(RawEvent)


def decode_trace(data: bytes, source_name: str = "trace") -> DecodedTrace:
    """Decode a whole trace document, falling back to tolerant paths when needed."""
    first = _first_significant_byte(data)
    if first is None:
        raise TraceLoadError(f"{source_name}: the file is empty")
    if first not in (ord("{"), ord("[")):
        raise TraceLoadError(
            f"{source_name}: not a trace (not JSON: starts with {_describe_byte(first)})"
        )
    try:
        return _decode_fast(data, source_name)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError, ValueError):
        pass
    first_error: TraceLoadError | None = None
    if not _looks_cut_off(data):
        try:
            return _decode_tolerant(data, source_name)
        except TraceLoadError as error:
            first_error = error
    try:
        return _recover_cut_off(data, source_name)
    except TraceLoadError as error:
        raise first_error or error from None


def _first_significant_byte(data: bytes) -> int | None:
    stripped = data.lstrip(b" \t\r\n\xef\xbb\xbf")
    return stripped[0] if stripped else None


def _describe_byte(value: int) -> str:
    if 32 <= value < 127:
        return repr(chr(value))
    return f"byte 0x{value:02x}"


def _looks_cut_off(data: bytes) -> bool:
    """A complete document ends with a closing bracket; a killed writer leaves anything else."""
    tail = data.rstrip(b" \t\r\n\x00")
    return not tail.endswith((b"}", b"]"))


def _decode_fast(data: bytes, source_name: str) -> DecodedTrace:
    stripped = data.lstrip(b" \t\r\n")
    if stripped.startswith(b"\xef\xbb\xbf"):
        data = stripped[3:]
    if _first_significant_byte(data) == ord("["):
        return DecodedTrace(_decode_event_list(data), {}, array_form=True)
    top = _TOP_DECODER.decode(data)
    raw_events = top.pop("traceEvents", None)
    top_level = {key: _decode_generic(value) for key, value in top.items()}
    if raw_events is None:
        raise TraceLoadError(
            f"{source_name}: not a trace (a JSON object without 'traceEvents')"
        )
    if _first_significant_byte(bytes(raw_events)) != ord("["):
        raise TraceLoadError(
            f"{source_name}: not a trace ('traceEvents' is not a list)"
        )
    return DecodedTrace(
        _decode_event_list(bytes(raw_events)), top_level, array_form=False
    )


def _decode_generic(raw: msgspec.Raw) -> Any:
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None


def _decode_event_list(data: bytes) -> list[RawEvent]:
    """Typed decode of the event array; odd elements (not objects) are skipped one by one."""
    try:
        return _EVENTS_DECODER.decode(data)
    except msgspec.ValidationError:
        pass
    events: list[RawEvent] = []
    for raw in _RAW_LIST_DECODER.decode(data):
        try:
            events.append(_EVENT_DECODER.decode(raw))
        except msgspec.ValidationError:
            events.append(RawEvent(ph=_NOT_AN_OBJECT))
    return events


# Marks an element of traceEvents that was not a JSON object.
_NOT_AN_OBJECT = "\x00not-an-object"


def _decode_tolerant(data: bytes, source_name: str) -> DecodedTrace:
    """Python's json with NaN/Infinity as missing, invalid UTF-8 replaced, control chars allowed."""
    warnings: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        warnings.append("invalid UTF-8 bytes were replaced by U+FFFD")
    if text.startswith("\ufeff"):
        text = text[1:]
    constants = {"count": 0}

    def on_constant(name: str) -> None:
        constants["count"] += 1
        return None

    try:
        document = json.loads(
            text, parse_constant=on_constant, parse_float=decimal.Decimal, strict=False
        )
    except RecursionError:
        raise TraceLoadError(
            f"{source_name}: not a trace (JSON nested too deeply)"
        ) from None
    except json.JSONDecodeError as error:
        raise TraceLoadError(
            f"{source_name}: not a trace (invalid JSON at line {error.lineno}, "
            f"column {error.colno}: {error.msg})"
        ) from None
    if constants["count"]:
        warnings.append(
            f"{constants['count']} NaN/Infinity values were treated as missing"
        )
    decoded = _from_python(document, source_name)
    decoded.warnings[:0] = warnings
    return decoded


def _from_python(document: Any, source_name: str) -> DecodedTrace:
    if isinstance(document, list):
        return DecodedTrace(
            [_event_from_python(item) for item in document], {}, array_form=True
        )
    if not isinstance(document, dict):
        raise TraceLoadError(
            f"{source_name}: not a trace (the JSON is not an object or a list)"
        )
    items = document.pop("traceEvents", None)
    if items is None:
        raise TraceLoadError(
            f"{source_name}: not a trace (a JSON object without 'traceEvents')"
        )
    if not isinstance(items, list):
        raise TraceLoadError(
            f"{source_name}: not a trace ('traceEvents' is not a list)"
        )
    top_level = {key: _plain(value) for key, value in document.items()}
    return DecodedTrace(
        [_event_from_python(item) for item in items], top_level, array_form=False
    )


def _plain(value: Any) -> Any:
    """Decimals back to floats for metadata that is only shown."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _number_text(value: Any) -> bytes:
    if isinstance(value, bool) or value is None:
        return b""
    if isinstance(value, decimal.Decimal):
        return str(value).encode() if value.is_finite() else b""
    if isinstance(value, int):
        return str(value).encode()
    if isinstance(value, float):
        return repr(value).encode() if math.isfinite(value) else b""
    if isinstance(value, str):
        return json.dumps(value).encode()
    return b""


def _event_from_python(item: Any) -> RawEvent:
    if not isinstance(item, dict):
        return RawEvent(ph=_NOT_AN_OBJECT)
    args = item.get("args")
    args_raw = EMPTY_RAW
    if args is not None:
        args_raw = msgspec.Raw(json.dumps(_plain(args), default=str).encode())
    duration = item.get("dur")
    if isinstance(duration, decimal.Decimal):
        duration = float(duration)
    return RawEvent(
        ph=item.get("ph"),
        cat=item.get("cat"),
        name=item.get("name"),
        pid=_plain(item.get("pid")),
        tid=_plain(item.get("tid")),
        ts=msgspec.Raw(_number_text(item.get("ts"))) if "ts" in item else EMPTY_RAW,
        dur=duration,
        id=_plain(item.get("id")),
        bp=item.get("bp"),
        args=args_raw,
    )


_CUT_CANDIDATE = re.compile(rb"[}\]]")
_MAX_CUT_TRIES = 24


def _recover_cut_off(data: bytes, source_name: str) -> DecodedTrace:
    """Keep every complete event of a file that ends mid-way (its writer was killed)."""
    array_form = _first_significant_byte(data) == ord("[")
    suffixes = [b"]"] if array_form else [b"]}", b"}"]
    end = len(data.rstrip(b" \t\r\n\x00"))
    position = end
    tries = 0
    while tries < _MAX_CUT_TRIES:
        position = max(data.rfind(b"}", 0, position), data.rfind(b"]", 0, position))
        if position <= 0:
            break
        following = data[position + 1 : position + 64].lstrip(b" \t\r\n")
        if following and not following.startswith(b","):
            continue
        tries += 1
        for suffix in suffixes:
            candidate = data[: position + 1] + suffix
            try:
                decoded = _decode_fast(candidate, source_name)
            except (msgspec.DecodeError, RecursionError, ValueError, TraceLoadError):
                try:
                    decoded = _decode_tolerant(candidate, source_name)
                except TraceLoadError:
                    continue
            lost_bytes = len(data) - (position + 1)
            decoded.truncated = True
            decoded.warnings.append(
                f"the file is cut off (its writer was probably killed): kept "
                f"{len(decoded.events)} complete events; the incomplete last event and "
                f"everything after it ({lost_bytes} bytes) are lost"
            )
            return decoded
    raise TraceLoadError(
        f"{source_name}: not a trace (the JSON is cut off before the first complete event)"
    )

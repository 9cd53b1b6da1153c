"""The typed event record, the fast decode of a whole document, and records from odd elements."""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tui.core.base.errors import TraceLoadError
from tui.core.ingest.decode.doc_bytes import (
    TraceBytes,
    _first_significant_byte,
    _leading_space,
)

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


# Records alive at once while building: bounds memory on multi-GB traces.
BATCH_EVENTS = 65_536


class EventSource:
    """The elements of `traceEvents`, decoded into records one batch at a time.

    The fast path keeps each element as raw JSON text (a view into the file's
    bytes), so only one batch of decoded records is alive at a time instead
    of one Python object per event for the whole trace.
    """

    def __init__(
        self,
        elements: list[msgspec.Raw] | None = None,
        records: list[RawEvent] | None = None,
    ) -> None:
        self._elements = elements
        self._records = records
        self.repaired_utf8 = False

    def __len__(self) -> int:
        if self._elements is not None:
            return len(self._elements)
        return len(self._records or [])

    def batches(self, size: int = BATCH_EVENTS) -> Iterator[list[RawEvent]]:
        """Yield the records in order, `size` at a time; the source is emptied as it goes."""
        if self._records is not None:
            records, self._records = self._records, []
            for begin in range(0, len(records), size):
                yield records[begin : begin + size]
            return
        elements, self._elements = self._elements or [], []
        for begin in range(0, len(elements), size):
            yield self._decode_batch(elements[begin : begin + size])

    def _decode_batch(self, chunk: list[msgspec.Raw]) -> list[RawEvent]:
        text = b"[" + b",".join(chunk) + b"]"
        try:
            return _EVENTS_DECODER.decode(text)
        except msgspec.ValidationError:
            pass
        except msgspec.DecodeError as error:
            # Skipping an element checks its syntax but not its UTF-8.
            if "UTF-8" not in str(error):
                raise
        return [self.decode_one(raw) for raw in chunk]

    def decode_one(self, raw: msgspec.Raw | bytes) -> RawEvent:
        """One element on its own: what it gives never depends on its neighbours."""
        try:
            return _EVENT_DECODER.decode(raw)
        except msgspec.ValidationError:
            pass
        except msgspec.DecodeError as error:
            if "UTF-8" not in str(error):
                return _event_from_text(bytes(raw))
            self.repaired_utf8 = True
            raw = bytes(raw).decode("utf-8", errors="replace").encode("utf-8")
            try:
                return _EVENT_DECODER.decode(raw)
            except msgspec.DecodeError:
                pass
        text = bytes(raw)
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            self.repaired_utf8 = True
            text = text.decode("utf-8", errors="replace").encode("utf-8")
        return _event_from_text(text)


@dataclass
class DecodedTrace:
    """Events plus the other top-level keys of the document."""

    events: EventSource
    top_level: dict[str, Any]
    array_form: bool
    warnings: list[str] = field(default_factory=list)
    truncated: bool = False


_EVENTS_DECODER = msgspec.json.Decoder(list[RawEvent])


_TOP_DECODER = msgspec.json.Decoder(dict[str, msgspec.Raw])


_RAW_LIST_DECODER = msgspec.json.Decoder(list[msgspec.Raw])


_EVENT_DECODER = msgspec.json.Decoder(RawEvent)


def _decode_fast(data: TraceBytes, source_name: str) -> DecodedTrace:
    offset = _leading_space(data, b" \t\r\n")
    if data.startswith(b"\xef\xbb\xbf", offset):
        data = data[offset + 3 :]
    if _first_significant_byte(data) == ord("["):
        return DecodedTrace(_decode_event_list(data), {}, array_form=True)
    top = _TOP_DECODER.decode(data)
    raw_events = top.pop("traceEvents", None)
    top_level = {key: _decode_generic(value) for key, value in top.items()}
    if raw_events is None:
        raise TraceLoadError(
            f"{source_name}: not a trace (a JSON object without 'traceEvents')"
        )
    # The events are most of the file: a Raw is exactly the value's text, so its
    # first byte tells a list, and the events are decoded in place, never copied.
    if memoryview(raw_events)[:1].tobytes() != b"[":
        raise TraceLoadError(
            f"{source_name}: not a trace ('traceEvents' is not a list)"
        )
    return DecodedTrace(_decode_event_list(raw_events), top_level, array_form=False)


def _decode_generic(raw: msgspec.Raw) -> Any:
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None


def _decode_event_list(data: TraceBytes | msgspec.Raw) -> EventSource:
    """Split the event array into its elements' raw text; records come later, by batch."""
    return EventSource(elements=_RAW_LIST_DECODER.decode(data))


def _event_from_text(raw: bytes) -> RawEvent:
    """One element msgspec's typed decode refused (a number out of range, not an object)."""
    try:
        item = json.loads(
            raw,
            parse_float=decimal.Decimal,
            parse_int=_parse_int,
            parse_constant=lambda name: None,
            strict=False,
        )
    except (ValueError, RecursionError):
        return RawEvent(ph=_NOT_AN_OBJECT)
    return _event_from_python(item)


# Marks an element of traceEvents that was not a JSON object.
_NOT_AN_OBJECT = "\x00not-an-object"


def _parse_int(text: str) -> int | decimal.Decimal:
    """Python refuses to build ints past 4300 digits; such numbers stay decimals."""
    if len(text) < 4000:
        return int(text)
    return decimal.Decimal(text)


def _plain(value: Any) -> Any:
    """Decimals back to floats for metadata that is only shown; non-finite ones to None."""
    if isinstance(value, decimal.Decimal):
        as_float = float(value)
        return as_float if math.isfinite(as_float) else None
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
    duration = _plain(item.get("dur"))
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

"""Decode trace JSON into light per-event records, tolerating broken files.

The fast path is msgspec with a typed record that skips unknown fields and
keeps `ts` and `args` as raw JSON text: `ts` is parsed exactly later (float64
loses the nanoseconds of absolute microsecond epochs) and `args` is only
decoded when someone looks at an event. Broken files (NaN, lone surrogates,
invalid UTF-8, a file cut off mid-way) fall back to slower, tolerant paths
that keep every complete event and say what was lost. A file that is broken
in the middle (not cut) is refused with the line and column, never shown as
if it were merely cut off.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tui.core.errors import TraceLoadError
from tui.core.textsafe import printable
from tui.core.units import size_text

EMPTY_RAW = msgspec.Raw(b"")
# The file's bytes: a bytearray when read in place, bytes when repaired.
TraceBytes = bytes | bytearray


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


def decode_trace(data: TraceBytes, source_name: str = "trace") -> DecodedTrace:
    """Decode a whole trace document, falling back to tolerant paths when needed."""
    source_name = printable(source_name)
    try:
        data, encoding_warnings = _to_utf8(data)
        decoded = _decode_document(data, source_name)
    except MemoryError:
        raise TraceLoadError(
            f"{source_name}: not enough memory to decode {size_text(len(data))} of "
            "JSON (try a machine with more memory, or a shorter capture)"
        ) from None
    decoded.warnings[:0] = encoding_warnings
    return decoded


def _decode_document(data: TraceBytes, source_name: str) -> DecodedTrace:
    first = _first_significant_byte(data)
    if first is None:
        raise TraceLoadError(f"{source_name}: the file is empty")
    if first not in (ord("{"), ord("[")):
        raise TraceLoadError(
            f"{source_name}: not a trace (not JSON: starts with {_describe_byte(first)})"
        )
    try:
        return _decode_fast(data, source_name)
    except (
        msgspec.DecodeError,
        RecursionError,
        UnicodeDecodeError,
        ValueError,
    ) as error:
        fast_error: BaseException = error
    data, repairs, repaired, fast_error = _repair_in_place(
        data, fast_error, source_name
    )
    if repaired is None:
        repaired = _decode_broken(data, fast_error, source_name)
    if repairs.non_finite:
        _count_non_finite(repaired.warnings, repairs.non_finite)
    if repairs.utf8:
        repaired.warnings.insert(0, _INVALID_UTF8_WARNING)
    return repaired


def _decode_broken(
    data: TraceBytes, fast_error: BaseException, source_name: str
) -> DecodedTrace:
    """The slow paths, once the fast decode has failed for a reason other than NaN."""
    trailing = _trailing_garbage_at(fast_error, data)
    if trailing is not None:
        return _without_trailing_garbage(data, trailing, source_name)
    if _looks_cut_off(data) or _ran_out_of_input(fast_error, data):
        return _recover_cut_off(data, source_name)
    broken = _broken_in_the_middle(data, fast_error, source_name)
    if broken is not None:
        raise broken
    try:
        return _decode_tolerant(data, source_name)
    except _InvalidJson as error:
        if not error.at_end:
            raise TraceLoadError(str(error)) from None
        # Complete up to a closing bracket, then cut: recovery keeps what came before.
        try:
            return _recover_cut_off(data, source_name)
        except TraceLoadError:
            raise TraceLoadError(str(error)) from None


def _broken_in_the_middle(
    data: TraceBytes, error: BaseException, source_name: str
) -> TraceLoadError | None:
    """A syntax error no tolerant reading can get past, told without re-parsing.

    msgspec names the byte: a stray quote, a missing comma, an unknown word.
    Python's json would spend seconds (and ~10x the memory) on a big file to
    report the same place, so the line and column are counted here. NaN-like
    tokens and raw control characters left over after the in-place mends are
    not syntax errors for the tolerant parser, and go on to it.
    """
    position = _error_byte(error)
    message = str(error)
    if position is None or "trailing characters" in message:
        return None
    if "surrogate" in message or "hex escape" in message:
        return None  # a lone surrogate: the tolerant parser replaces it
    if position >= _content_end(data, b" \t\r\n\x00"):
        return None
    if "invalid character" in message and (
        data[position] < 0x20 or _non_finite_token_at(data, position) is not None
    ):
        return None
    line = data.count(b"\n", 0, position) + 1
    column = position - data.rfind(b"\n", 0, position)
    reason = _BYTE_POSITION.sub("", message.split(": ", 1)[-1]).strip()
    return TraceLoadError(
        f"{source_name}: not a trace (invalid JSON at line {line}, column {column}: "
        f"{reason})"
    )


def _ran_out_of_input(error: BaseException, data: TraceBytes) -> bool:
    """msgspec reached the end of a file cut right after a closing bracket.

    Such a file ends like a complete one, and Python's json would take
    seconds (and ~10x the memory) on a big one only to say the same. msgspec
    also calls a lone surrogate escape truncated input: those go the slow way.
    """
    return (
        "truncated" in str(error)
        and _error_byte(error) is None
        and _SURROGATE_ESCAPE_BYTES.search(data) is None
    )


_MAX_REPAIRS = 16
_NON_FINITE_TOKEN = re.compile(
    rb"-?(?:NaN|Infinity|inf(?:inity)?|nan)(?![A-Za-z0-9_.])", re.IGNORECASE
)
_INVALID_UTF8_WARNING = "invalid UTF-8 bytes were replaced by U+FFFD"
_NON_FINITE_WARNING = re.compile(r"^(\d+) NaN/Infinity values were treated as missing$")


@dataclass
class _Repairs:
    """What was mended in place before the fast decode succeeded (or gave up)."""

    non_finite: int = 0
    utf8: bool = False


def _repair_in_place(
    data: TraceBytes, error: BaseException, source_name: str
) -> tuple[TraceBytes, _Repairs, DecodedTrace | None, BaseException]:
    """Mend what msgspec stops at, then decode fast again.

    NaN/Infinity/inf/nan tokens become null; raw control characters in
    strings become \\u escapes; invalid UTF-8 becomes U+FFFD: the same values
    the tolerant parser gives. msgspec names the byte it stopped at, which for
    a bare token is outside any string, so only real tokens are replaced. A
    few such mends (the usual case) keep a big trace on the fast path instead
    of Python's json, which needs ~10x the memory; many fall through to it.
    """
    repairs = _Repairs()
    for _ in range(_MAX_REPAIRS):
        message = str(error)
        stopped_at = _error_byte(error)
        if "Invalid UTF-8" in message and not repairs.utf8:
            data = data.decode("utf-8", errors="replace").encode("utf-8")
            repairs.utf8 = True
        elif "invalid character" in message and stopped_at is not None:
            if stopped_at < len(data) and data[stopped_at] < 0x20:
                data = _escape_controls(data, stopped_at)
            else:
                token = _non_finite_token_at(data, stopped_at)
                if token is None:
                    break
                data = data[: token.start()] + b"null" + data[token.end() :]
                repairs.non_finite += 1
        else:
            break
        try:
            return data, repairs, _decode_fast(data, source_name), error
        except (
            msgspec.DecodeError,
            RecursionError,
            UnicodeDecodeError,
            ValueError,
        ) as next_error:
            error = next_error
    return data, repairs, None, error


def _non_finite_token_at(data: TraceBytes, stopped_at: int) -> re.Match[bytes] | None:
    """The NaN/Infinity-like token msgspec stopped on, if that is what it is."""
    # msgspec may stop on the sign or inside the token: take the earliest start.
    for start in (stopped_at - 2, stopped_at - 1, stopped_at):
        if start < 0:
            continue
        match = _NON_FINITE_TOKEN.match(data, start)
        if match is not None and match.end() > stopped_at:
            return match
    return None


_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _escape_controls(data: TraceBytes, stopped_at: int) -> TraceBytes:
    """Escape a raw control character msgspec stopped at (it sits inside a string).

    Tab, newline and carriage return are JSON whitespace outside strings, so
    only the one found is escaped; the others are never valid raw, so all of
    them are escaped in one pass.
    """
    code = data[stopped_at]
    if code in b"\t\n\r":
        return data[:stopped_at] + b"\\u%04x" % code + data[stopped_at + 1 :]
    return _CONTROL_BYTES.sub(lambda match: b"\\u%04x" % match.group()[0], data)


def _count_non_finite(warnings: list[str], replaced: int) -> None:
    """One warning for every NaN/Infinity, whichever path treated it."""
    for index, warning in enumerate(warnings):
        match = _NON_FINITE_WARNING.match(warning)
        if match:
            total = int(match.group(1)) + replaced
            warnings[index] = f"{total} NaN/Infinity values were treated as missing"
            return
    warnings.insert(0, f"{replaced} NaN/Infinity values were treated as missing")


_BYTE_POSITION = re.compile(r"\(byte (\d+)\)")


def _error_byte(error: BaseException) -> int | None:
    """The byte offset msgspec names in a malformed-JSON error, if any."""
    match = _BYTE_POSITION.search(str(error))
    return int(match.group(1)) if match else None


def _trailing_garbage_at(error: BaseException, data: TraceBytes) -> int | None:
    """Where a complete document ends when something else follows it."""
    if "trailing characters" not in str(error):
        return None
    position = _error_byte(error)
    if position is None or not 0 < position <= len(data):
        return None
    return position


def _without_trailing_garbage(
    data: TraceBytes, position: int, source_name: str
) -> DecodedTrace:
    """A complete document followed by junk (NUL padding, a second write): keep the document."""
    # msgspec names the byte just after the first unexpected one.
    for end in (position - 1, position):
        try:
            decoded = _decode_fast(data[:end], source_name)
        except (msgspec.DecodeError, RecursionError, ValueError):
            continue
        decoded.warnings.append(
            f"{size_text(len(data) - end)} after the end of the JSON document "
            "were ignored"
        )
        return decoded
    raise TraceLoadError(
        f"{source_name}: not a trace (invalid JSON: unexpected data at byte {position})"
    )


def _share_text(part: int, whole: int) -> str:
    """A percentage that never rounds a real loss to 0%."""
    share = 100 * part / max(whole, 1)
    if 0 < share < 0.1:
        return "<0.1%"
    return f"{share:.1f}%"


_UTF16_32_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _to_utf8(data: TraceBytes) -> tuple[TraceBytes, list[str]]:
    """Text saved as UTF-16/32 (Windows redirects do this) becomes UTF-8."""
    for bom, encoding in _UTF16_32_BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            return text.encode("utf-8", errors="replace"), [
                f"the file is {encoding.upper()} text, not UTF-8; it was converted"
            ]
    return data, []


class _InvalidJson(TraceLoadError):
    """Python's json refused the text; `at_end` when it stopped at the very end."""

    def __init__(self, message: str, at_end: bool) -> None:
        super().__init__(message)
        self.at_end = at_end


_WINDOW = 1 << 16


def _leading_space(data: TraceBytes, space: bytes) -> int:
    """How many bytes of `space` open `data`, without copying it (bytes.lstrip would)."""
    start = 0
    while start < len(data):
        window = data[start : start + _WINDOW]
        rest = window.lstrip(space)
        if rest:
            return start + len(window) - len(rest)
        start += _WINDOW
    return len(data)


def _content_end(data: TraceBytes, space: bytes) -> int:
    """Where `data` ends once trailing `space` bytes are dropped, without copying it."""
    end = len(data)
    while end > 0:
        window = data[max(0, end - _WINDOW) : end]
        rest = window.rstrip(space)
        if rest:
            return end - len(window) + len(rest)
        end -= len(window)
    return 0


def _first_significant_byte(data: TraceBytes) -> int | None:
    offset = _leading_space(data, b" \t\r\n\xef\xbb\xbf")
    return data[offset] if offset < len(data) else None


def _describe_byte(value: int) -> str:
    if 32 <= value < 127:
        return repr(chr(value))
    return f"byte 0x{value:02x}"


def _looks_cut_off(data: TraceBytes) -> bool:
    """A complete document ends with a closing bracket; a killed writer leaves anything else."""
    end = _content_end(data, b" \t\r\n\x00")
    return end == 0 or data[end - 1] not in b"}]"


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


def _decode_tolerant(data: TraceBytes, source_name: str) -> DecodedTrace:
    """Python's json with NaN/Infinity as missing, invalid UTF-8 replaced, control chars allowed."""
    warnings: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        warnings.append(_INVALID_UTF8_WARNING)
    if text.startswith("\ufeff"):
        text = text[1:]
    constants = {"count": 0}

    def on_constant(name: str) -> None:
        constants["count"] += 1
        return None

    def parse(json_text: str) -> Any:
        return json.loads(
            json_text,
            parse_constant=on_constant,
            parse_float=decimal.Decimal,
            parse_int=_parse_int,
            strict=False,
        )

    try:
        try:
            document = parse(text)
        except json.JSONDecodeError as error:
            # C and JavaScript writers spell non-finite numbers inf / nan.
            if not _BARE_NON_FINITE.match(text, error.pos):
                raise
            constants["count"] = 0
            document = parse(_spell_non_finite(text))
    except RecursionError:
        raise TraceLoadError(
            f"{source_name}: not a trace (JSON nested too deeply)"
        ) from None
    except json.JSONDecodeError as error:
        at_end = not text[error.pos :].strip(" \t\r\n\x00")
        raise _InvalidJson(
            f"{source_name}: not a trace (invalid JSON at line {error.lineno}, "
            f"column {error.colno}: {error.msg})",
            at_end,
        ) from None
    if constants["count"]:
        warnings.append(
            f"{constants['count']} NaN/Infinity values were treated as missing"
        )
    if _SURROGATE_ESCAPE.search(text):
        replaced = [0]
        document = _replace_surrogates(document, replaced)
        if replaced[0]:
            warnings.append(
                f"{replaced[0]} lone UTF-16 surrogates (broken \\u escapes) were "
                "replaced by U+FFFD"
            )
    decoded = _from_python(document, source_name)
    decoded.warnings[:0] = warnings
    return decoded


_BARE_NON_FINITE = re.compile(r"-?(?:inf|nan)", re.IGNORECASE)
# Strings are matched whole so that only bare tokens outside them are respelled.
_STRING_OR_NON_FINITE = re.compile(
    r'"(?:[^"\\]|\\.)*"|(?<![\w.])(-?)(?:infinity|inf|nan)(?![\w.])',
    re.IGNORECASE | re.DOTALL,
)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _spell_non_finite(text: str) -> str:
    """Respell bare inf/nan tokens as the NaN/Infinity Python's json accepts."""

    def respell(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"'):
            return token
        if token.lstrip("-").lower().startswith("n"):
            return "NaN"
        return f"{match.group(1)}Infinity"

    return _STRING_OR_NON_FINITE.sub(respell, text)


def _replace_surrogates(value: Any, replaced: list[int]) -> Any:
    """Lone surrogates cannot be encoded as UTF-8: show them as U+FFFD."""
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        replaced[0] += len(_SURROGATE.findall(value))
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_surrogates(item, replaced) for item in value]
    if isinstance(value, dict):
        return {
            _replace_surrogates(key, replaced): _replace_surrogates(item, replaced)
            for key, item in value.items()
        }
    return value


def _from_python(document: Any, source_name: str) -> DecodedTrace:
    if isinstance(document, list):
        return DecodedTrace(
            EventSource(records=[_event_from_python(item) for item in document]),
            {},
            array_form=True,
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
        EventSource(records=[_event_from_python(item) for item in items]),
        top_level,
        array_form=False,
    )


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


_MAX_CUT_TRIES = 24
_MAX_CUT_STEPS = 2_000_000
_CUT_BYTES_BUDGET = 1 << 28
# The list of events closes within this many bytes of the end when what was
# cut is a trailing top-level key (Kineto writes a few short ones after it).
_TRAILING_KEYS_WINDOW = 1 << 16
_JSON_SPACE = b" \t\r\n"


_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def _worth_tolerant(error: BaseException, position: int, surrogates: bool) -> bool:
    """Whether a candidate msgspec refused might still parse with the slow parser.

    Not when msgspec stopped at the candidate's end (the cut is in the wrong
    place), nor when it ran out of input with no surrogate escape to blame
    (msgspec reports a lone surrogate as truncated input too).
    """
    if isinstance(error, RecursionError):
        return False
    stopped_at = _error_byte(error)
    if stopped_at is not None:
        return stopped_at < position
    if "truncated" in str(error):
        return surrogates
    return True


def _could_end_element(data: TraceBytes, position: int, end: int) -> bool:
    """Whether the bracket at `position` may close a whole event (or the event list).

    An event closes with `}` followed by `,` and the next event's `{`, or by
    nothing when the file stops there; the event list closes with `]` followed
    by the next top-level key, near the end. Brackets inside args (lists of
    input shapes, nested objects) fail these tests, so they cost no decode.
    """
    following = data[position + 1 : position + 64].lstrip(_JSON_SPACE)
    if not following:
        return True
    if not following.startswith(b","):
        return False
    after = following[1:].lstrip(_JSON_SPACE)
    if data[position] == ord("}"):
        return not after or after.startswith(b"{")
    return end - position <= _TRAILING_KEYS_WINDOW and (
        not after or after.startswith(b'"')
    )


def _cut_off_warning(
    kept: int, lost_bytes: int, total: int, data: TraceBytes, damage: int | None
) -> str:
    """What recovery kept and what it lost, and where the damage was if any."""
    lost = (
        f"({size_text(lost_bytes)}, {_share_text(lost_bytes, total)} of what was read)"
    )
    if damage is None:
        return (
            f"the file is cut off (its writer was probably killed): kept the {kept:,} "
            f"events written before the cut; the incomplete last event and everything "
            f"after it are lost {lost}"
        )
    line = data.count(b"\n", 0, damage) + 1
    column = damage - data.rfind(b"\n", 0, damage)
    return (
        f"the file is cut off and damaged before the cut (invalid JSON at line {line}, "
        f"column {column}): kept the {kept:,} events written before the damage; "
        f"everything after them is lost {lost}"
    )


def _recover_cut_off(data: TraceBytes, source_name: str) -> DecodedTrace:
    """Keep every complete event of a file that ends mid-way (its writer was killed).

    Candidate cuts are tried from the end backwards. A candidate that msgspec
    rejects at its very end is simply wrong and costs one fast pass; only when
    msgspec stops earlier (NaN, a lone surrogate...) is the slow tolerant parser
    tried, so a cut multi-gigabyte file stays quick to recover.
    """
    array_form = _first_significant_byte(data) == ord("[")
    suffixes = [b"]"] if array_form else [b"]}", b"}"]
    end = _content_end(data, b" \t\r\n\x00")
    brace = data.rfind(b"}", 0, end)
    bracket = data.rfind(b"]", 0, end)
    surrogates = _SURROGATE_ESCAPE_BYTES.search(data) is not None
    damage: int | None = None
    tries = 0
    steps = 0
    # Each wrong candidate costs one fast pass over the file: small files may
    # try many (an event cut inside a list of objects), big ones a few.
    max_tries = min(
        max(_MAX_CUT_TRIES, _CUT_BYTES_BUDGET // max(len(data), 1)), _MAX_CUT_STEPS
    )
    while tries < max_tries and steps < _MAX_CUT_STEPS:
        steps += 1
        # Walk back over closing brackets; each kind is searched for only once
        # per step so that a bracket far back is not rescanned every time.
        if brace >= bracket:
            position, brace = brace, data.rfind(b"}", 0, brace)
        else:
            position, bracket = bracket, data.rfind(b"]", 0, bracket)
        if position <= 0:
            break
        if not _could_end_element(data, position, end):
            continue
        tries += 1
        decoded = None
        damaged_at = None
        for suffix in suffixes:
            candidate = data[: position + 1] + suffix
            try:
                decoded = _decode_fast(candidate, source_name)
                break
            except (msgspec.DecodeError, RecursionError, ValueError) as error:
                if not _worth_tolerant(error, position, surrogates):
                    continue
                if _broken_in_the_middle(candidate, error, source_name) is not None:
                    # Damaged before this cut (garbage a dying writer or a
                    # corrupt gzip left): only cuts before the damage can work.
                    damaged_at = _error_byte(error)
                    break
            except TraceLoadError:
                continue
            try:
                decoded = _decode_tolerant(candidate, source_name)
                break
            except TraceLoadError:
                continue
        if damaged_at is not None:
            damage = damaged_at if damage is None else min(damage, damaged_at)
            brace = data.rfind(b"}", 0, damaged_at)
            bracket = data.rfind(b"]", 0, damaged_at)
            continue
        if decoded is None:
            continue
        lost_bytes = len(data) - (position + 1)
        decoded.truncated = True
        decoded.warnings.append(
            _cut_off_warning(len(decoded.events), lost_bytes, len(data), data, damage)
        )
        return decoded
    raise TraceLoadError(
        f"{source_name}: not a trace (the JSON is cut off before the first complete event)"
    )

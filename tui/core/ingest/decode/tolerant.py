"""The slow, tolerant decode: Python's json with NaN, bad UTF-8 and lone surrogates mended."""

from __future__ import annotations

import decimal
import json
import re
from typing import Any

from tui.core.base.errors import TraceLoadError
from tui.core.ingest.decode.doc_bytes import TraceBytes
from tui.core.ingest.decode.records import (
    DecodedTrace,
    EventSource,
    _event_from_python,
    _parse_int,
    _plain,
)

_INVALID_UTF8_WARNING = "invalid UTF-8 bytes were replaced by U+FFFD"


class _InvalidJson(TraceLoadError):
    """Python's json refused the text; `at_end` when it stopped at the very end."""

    def __init__(self, message: str, at_end: bool) -> None:
        super().__init__(message)
        self.at_end = at_end


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

"""The collector's capture description (top-level `steptrace`), kept only where well-formed."""

from __future__ import annotations

from typing import Any

import msgspec


def _split_description(
    top_level: dict[str, Any], warnings: list[str]
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The collector's capture description (top-level `steptrace`), read only when well-formed."""
    metadata = dict(top_level)
    description = metadata.pop("steptrace", None)
    if description is None:
        return None, metadata
    if isinstance(description, str):
        try:
            description = msgspec.json.decode(description)
        except msgspec.DecodeError:
            description = None
    if not isinstance(description, dict):
        warnings.append(
            "the capture description ('steptrace' key) is malformed and was ignored"
        )
        return None, metadata
    dropped: list[int] = [0]
    kept = _within_range(description, 0, dropped)
    if dropped[0]:
        warnings.append(
            f"{dropped[0]:,} value(s) of the capture description were dropped "
            "(integers past 64 bits, or nested too deep)"
        )
    return kept, metadata


_DESCRIPTION_DEPTH = 64


_INT64 = 2**63


def _within_range(value: Any, depth: int, dropped: list[int]) -> Any:
    """`value` without the integers that fit no 64-bit column nor JSON writer,
    nor anything nested past _DESCRIPTION_DEPTH; `dropped[0]` counts them."""
    if isinstance(value, dict):
        items = [(key, _keep(item, depth, dropped)) for key, item in value.items()]
        return {key: item for key, item in items if item is not _DROPPED}
    if isinstance(value, list):
        kept = [_keep(item, depth, dropped) for item in value]
        return [item for item in kept if item is not _DROPPED]
    return value


_DROPPED = object()


def _keep(value: Any, depth: int, dropped: list[int]) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if -_INT64 <= value < _INT64:
            return value
    elif not isinstance(value, (dict, list)):
        return value
    elif depth < _DESCRIPTION_DEPTH:
        return _within_range(value, depth + 1, dropped)
    dropped[0] += 1
    return _DROPPED

"""One walk over a parsed trace: what in it identifies people or places, and its replacement.

Only strings are rewritten, and only where they carry text: timing and
structure (ts, dur, pid, tid, ph, cat, ids, flows, numbers) are never
touched, and operator names only lose paths, e-mails, secrets and hosts.
The walker records what it found (kinds, counts, examples) as it goes, and
names the identity values it first met inside the events, so that the
caller (`tui.scrub.scrub`) can walk again until nothing new is found.
"""

from __future__ import annotations

import re
from typing import Any

from tui.scrub import detect
from tui.scrub.detect import (
    EMAIL,
    HOST,
    LOG,
    METADATA,
    PATH,
    PROCESS,
    SHAPE,
    UNKNOWN_KEY,
    USER,
    ZONE,
    Match,
)
from tui.scrub.io import encode
from tui.scrub.report import Example, KindSummary, ScrubOptions, sort_kinds

Document = dict[str, Any] | list[Any]
Where = tuple[str | int, ...]

# Event fields that are timing or structure: never scanned, never changed
# (`name` and `args` are scanned on their own terms).
_TIMING = frozenset({"ph", "cat", "ts", "dur", "pid", "tid", "tts", "tdur"})
_LINKS = frozenset({"id", "id2", "bind_id", "s", "bp", "flow_in", "flow_out", "scope"})
_STRUCTURAL = _TIMING | _LINKS | {"cname", "name", "args"}
# Event categories whose names are free text (anything else is an operator,
# kernel, runtime call or copy: its name is the analysis, only strong
# patterns such as paths and secrets are taken out of it).
_FREE_TEXT_CATEGORIES = frozenset({"python_function", "Trace"}) | detect.ZONE_CATEGORIES
_MAX_EXAMPLES = 3


class _Found:
    """Accumulates one kind's findings."""

    __slots__ = ("examples", "places", "values")

    def __init__(self) -> None:
        self.values: dict[str, None] = {}
        self.places = 0
        self.examples: list[Example] = []


def _where_text(where: Where) -> str:
    text = ""
    for part in where:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


def _holds_something(value: Any) -> bool:
    """Whether a shape argument carries data (Kineto writes `""` and `[]` for none)."""
    if isinstance(value, list):
        return any(value)
    return value not in ("", None)


def _preview(value: Any) -> str:
    text = value if isinstance(value, str) else encode(value).decode("utf-8", "replace")
    return text if len(text) <= 200 else text[:200] + "…"


class Walker:
    """One walk over a document with a fixed set of identity values to hunt."""

    def __init__(
        self, options: ScrubOptions, tokens: dict[str, tuple[str, str]], rewrite: bool
    ):
        self.options = options
        self.rewrite = rewrite
        # lower-cased token → (kind, canonical value the placeholder is keyed on)
        self.tokens = tokens
        self.token_re = detect.token_pattern(list(tokens))
        self.discovered: dict[str, tuple[str, str]] = {}
        # The capture's declared data zone: the analysis keys on its name.
        self.data_zone = ""
        self.found: dict[str, _Found] = {}
        self._placeholders: dict[str, dict[str, str]] = {}
        self._memo_full: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}
        self._memo_strong: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}

    # --- bookkeeping ---------------------------------------------------------

    def _is_new(self, kind: str, value: str) -> bool:
        found = self.found.get(kind)
        return found is None or value not in found.values

    def record(
        self, kind: str, value: str, where: Where, shown: str | None = None
    ) -> None:
        found = self.found.get(kind)
        if found is None:
            found = self.found[kind] = _Found()
        found.places += 1
        if value in found.values:
            return
        found.values[value] = None
        if len(found.examples) < _MAX_EXAMPLES:
            text = value if shown is None else shown
            found.examples.append(Example(_where_text(where), text))

    def placeholder(self, kind: str, key: str) -> str:
        if kind in (HOST, USER, EMAIL):
            key = key.lower()
        table = self._placeholders.setdefault(kind, {})
        existing = table.get(key)
        if existing is None:
            existing = table[key] = (
                f"<{detect.PLACEHOLDER_STEM[kind]}-{len(table) + 1}>"
            )
        return existing

    def hunt(self, kind: str, value: str, whole: bool = True) -> None:
        """Remember an identity value to replace wherever it appears.

        `whole=False` hunts only a host's short name: the full name is found
        by its pattern anyway, and hunting it would cost a needless walk.
        """
        tokens = detect.host_tokens(value) if kind == HOST else [value.strip()]
        canonical = tokens[0]
        for token in tokens if whole else tokens[1:]:
            low = token.lower()
            if detect.huntable(kind, token) and low not in self.tokens:
                self.discovered.setdefault(low, (kind, canonical))

    # --- strings -------------------------------------------------------------

    def text(self, value: str, where: Where, full: bool = True) -> str:
        """Scan one free-text string; returns it with sensitive parts replaced."""
        memo = self._memo_full if full else self._memo_strong
        hit = memo.get(value)
        if hit is None:
            hit = memo[value] = self._scan(value, full)
        replaced, hits = hit
        for kind, found in hits:
            self.record(kind, found, where)
        return replaced

    def _scan(self, value: str, full: bool) -> tuple[str, tuple[tuple[str, str], ...]]:
        matches = detect.find_sensitive(value, free_text=full)
        if full and self.token_re is not None:
            for token in self.token_re.finditer(value):
                kind, _ = self.tokens[token.group(0).lower()]
                matches.append(Match(token.start(), token.end(), kind, token.group(0)))
        if not matches:
            return value, ()
        hits: list[tuple[str, str]] = []
        parts: list[str] = []
        position = 0
        for m in detect.resolve(matches):
            parts.append(value[position : m.start])
            parts.append(self._replacement(m, full))
            hits.append((m.kind, m.value))
            if m.kind == PATH:
                hits.extend(
                    (USER, user)
                    for user in detect.users_in_path(m.value)
                    if detect.huntable(USER, user)
                )
            position = m.end
        parts.append(value[position:])
        return "".join(parts), tuple(hits)

    def _replacement(self, m: Match, full: bool) -> str:
        if m.kind == PATH:
            for user in detect.users_in_path(m.value):
                self.hunt(USER, user)
            if m.value.startswith("\\\\"):  # \\server\share\...: a host too
                self.hunt(HOST, m.value[2:].split("\\", 1)[0])
            prefix, rest = detect.split_path(m.value)
            if full and self.token_re is not None:
                rest = self.token_re.sub(self._token_placeholder, rest)
            return self.placeholder(PATH, prefix) + rest
        if m.kind == HOST:
            self.hunt(HOST, m.value, whole=False)
        elif m.kind == USER:
            self.hunt(USER, m.value)
        low = m.value.lower()
        if low in self.tokens:
            kind, canonical = self.tokens[low]
            return self.placeholder(kind, canonical)
        return self.placeholder(m.kind, m.value)

    def _token_placeholder(self, token: re.Match[str]) -> str:
        kind, canonical = self.tokens[token.group(0).lower()]
        return self.placeholder(kind, canonical)

    # --- containers ----------------------------------------------------------

    def walk(self, value: Any, where: Where, keyed: bool) -> Any:
        """Scan any JSON value; `keyed` applies user/host key rules inside dicts."""
        if isinstance(value, str):
            return self.text(value, where)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str):
                    new = self.text(item, where)
                elif isinstance(item, (list, dict)):
                    new = self.walk(item, where, keyed)
                else:
                    continue
                if new is not item and self.rewrite:
                    value[index] = new
        elif isinstance(value, dict):
            self.walk_dict(value, where, keyed)
        return value

    def walk_dict(
        self, value: dict[str, Any], where: Where, keyed: bool, skip: str = ""
    ) -> None:
        # Only existing keys are assigned: iterating the live dict is safe.
        renamed: dict[str, str] = {}
        for key, item in value.items():
            # Keys are text too (a path or an e-mail can be a key).
            new_key = self.text(key, where)
            if new_key is not key:
                renamed[key] = new_key
            kind = detect.key_kind(key) if keyed else None
            if kind is METADATA and item is not None and key != skip:
                new = self.job_value(key, item, (*where, key))
            elif not isinstance(item, (str, list, dict)) or key == skip:
                continue
            elif kind is USER or kind is HOST:
                new = self.identity(kind, item, (*where, key))
            elif isinstance(item, str):
                new = self.text(item, (*where, key))
            else:
                new = self.walk(item, (*where, key), keyed)
            if new is not item and self.rewrite:
                value[key] = new
        if renamed and self.rewrite:
            items = list(value.items())
            value.clear()
            value.update((renamed.get(key, key), item) for key, item in items)

    def identity(self, kind: str, value: Any, where: Where) -> Any:
        """A value a key declares to be a user or host name: replaced whole."""
        if isinstance(value, str):
            if not value.strip() or detect.PLACEHOLDER_RE.fullmatch(value.strip()):
                return value
            self.record(kind, value, where)
            self.hunt(kind, value)
            canonical = detect.host_tokens(value)[0] if kind == HOST else value.strip()
            return self.placeholder(kind, canonical)
        if isinstance(value, list):
            return [self.identity(kind, item, where) for item in value]
        if isinstance(value, dict):
            return {
                key: self.identity(kind, item, where) for key, item in value.items()
            }
        return value

    # --- the document ----------------------------------------------------------

    def metadata(self, document: dict[str, Any]) -> dict[str, Any]:
        """Scan everything but the events; returns the scrubbed top level."""
        out: dict[str, Any] = {}
        for key, value in document.items():
            where: Where = (key,)
            if key == "traceEvents":
                out[key] = value
            elif key in detect.LOG_KEYS:
                lines = value if isinstance(value, list) else [value]
                for line in lines:
                    self.record(LOG, key, where, _preview(line))
                    self.walk(line, where, keyed=True)
            elif key == detect.STEPTRACE_KEY:
                out[key] = self.described(value, where)
            elif key in detect.SAFE_TOP_LEVEL:
                out[key] = self.walk(value, where, keyed=True)
            else:
                kind = detect.key_kind(key)
                if kind in (USER, HOST):
                    out[key] = self.identity(kind, value, where)
                elif kind == METADATA:
                    self.job_metadata(key, value, where)
                else:
                    self.record(UNKNOWN_KEY, key, where, _preview(value))
                    self.walk(value, where, keyed=True)
        return out

    def job_metadata(self, key: str, value: Any, where: Where) -> None:
        """Job / fleet metadata: removed, its values hunted elsewhere."""
        self.record(METADATA, key, where, _preview(value))
        if isinstance(value, str) and detect.huntable(METADATA, value):
            self.hunt(METADATA, value)

    def job_value(self, key: str, value: Any, where: Where) -> Any:
        """Job metadata inside the events (`job_name`, `SLURM_NODELIST` in
        args): the value, number or text, becomes a placeholder; the key stays."""
        shown = value if isinstance(value, str) else _preview(value)
        if detect.PLACEHOLDER_RE.fullmatch(shown.strip()):
            return value
        self.record(METADATA, f"{key}: {shown}", where)
        if isinstance(value, str) and detect.huntable(METADATA, value):
            self.hunt(METADATA, value)
        return self.placeholder(METADATA, shown)

    def described(self, value: Any, where: Where) -> Any:
        """Our collector's capture description: same rules, job metadata removed."""
        if not isinstance(value, dict):
            return self.walk(value, where, keyed=True)
        out: dict[str, Any] = {}
        for key, item in value.items():
            kind = detect.key_kind(key)
            if kind == METADATA:
                self.job_metadata(key, item, (*where, key))
            elif kind in (USER, HOST):
                out[key] = self.identity(kind, item, (*where, key))
            elif key == "zones" and isinstance(item, dict):
                out[key] = self.declared_zones(item, (*where, key))
            else:
                out[key] = self.described(item, (*where, key))
        return out

    def declared_zones(self, zones: dict[str, Any], where: Where) -> dict[str, Any]:
        """The description's zone list: renamed like the events' zones."""
        out = dict(zones)
        declared = zones.get("declared")
        if isinstance(declared, list):
            out["declared"] = [
                self.zone_name(name, (*where, "declared"))
                if isinstance(name, str)
                else self.walk(name, (*where, "declared"), keyed=True)
                for name in declared
            ]
        for key, item in zones.items():
            if key != "declared":
                out[key] = self.walk(item, (*where, key), keyed=True)
        return out

    def events(self, events: list[Any]) -> None:
        """Scan every event's name and args in place."""
        shapes = self.options.shapes
        rewrite = self.rewrite
        for index, event in enumerate(events):
            if not isinstance(event, dict):
                new = self.walk(event, ("traceEvents", index), keyed=True)
                if rewrite:
                    events[index] = new
                continue
            name = event.get("name")
            if isinstance(name, str):
                where_name: Where = ("traceEvents", index, "name")
                new_name = self.event_name(name, event.get("cat"), where_name)
                if new_name is not name and rewrite:
                    event["name"] = new_name
            args = event.get("args")
            if isinstance(args, dict):
                where_args: Where = ("traceEvents", index, "args")
                skip = ""
                if event.get("ph") == "M" and isinstance(args.get("name"), str):
                    if name == "process_name":
                        self.process_name(args, (*where_args, "name"))
                        skip = "name"
                    elif name == "thread_name" and self.thread_name(
                        args, (*where_args, "name")
                    ):
                        skip = "name"
                if shapes:
                    self.shapes(args, name, where_args)
                self.walk_dict(args, where_args, keyed=True, skip=skip)
            if not _STRUCTURAL.issuperset(event):
                for key, item in event.items():
                    if key not in _STRUCTURAL:
                        new = self.walk(item, ("traceEvents", index, key), keyed=True)
                        if rewrite:
                            event[key] = new

    def zone_name(self, name: str, where: Where) -> str:
        """A free-form zone name is listed; renamed only with `--zones`."""
        if detect.is_known_zone(name) or name == self.data_zone:
            return self.text(name, where)
        self.record(ZONE, name, where)
        scanned = self.text(name, where)
        return self.placeholder(ZONE, name) if self.options.zones else scanned

    def event_name(self, name: str, category: Any, where: Where) -> str:
        if category in detect.ZONE_CATEGORIES:
            return self.zone_name(name, where)
        if category is None or category in _FREE_TEXT_CATEGORIES:
            return self.text(name, where)
        return self.text(name, where, full=False)

    def _command_name(self, name: str, where: Where) -> str:
        if detect.is_generic_process(name):
            return self.text(name, where)
        self.record(PROCESS, name, where)
        self.text(name, where)
        return self.placeholder(PROCESS, name[: detect.COMM_LENGTH])

    def process_name(self, args: dict[str, Any], where: Where) -> None:
        new = self._command_name(args["name"], where)
        if self.rewrite:
            args["name"] = new

    def thread_name(self, args: dict[str, Any], where: Where) -> bool:
        """`thread 12 (comm)`: comm is a process name. False if not that form."""
        name: str = args["name"]
        m = detect.THREAD_NAME_RE.fullmatch(name)
        if m is None:
            return False  # device streams and the like; the generic walk scans it
        new = m.group(1) + self._command_name(m.group(2), where) + m.group(3)
        if self.rewrite:
            args["name"] = new
        return True

    def shapes(self, args: dict[str, Any], name: Any, where: Where) -> None:
        """Input shapes and values (`--shapes`): listed when not empty, then dropped."""
        for key in detect.SHAPE_ARGS:
            if key not in args:
                continue
            value = args[key]
            if _holds_something(value):
                first = self._is_new(SHAPE, key)
                shown = f"{name}: {_preview(value)}" if first else ""
                self.record(SHAPE, key, (*where, key), shown)
            if self.rewrite:
                del args[key]

    def run(self, document: Document) -> Document:
        """Scan (and, when rewriting, scrub) a whole document."""
        if isinstance(document, list):
            self.events(document)
            return document
        self.data_zone = _data_zone(document)
        top = self.metadata(document)
        events = document.get("traceEvents")
        if isinstance(events, list):
            self.events(events)
        return top if self.rewrite else document

    def summaries(self) -> tuple[KindSummary, ...]:
        out = []
        for kind, found in self.found.items():
            scrubbed = self.options.zones if kind == ZONE else True
            out.append(
                KindSummary(
                    kind,
                    tuple(found.values),
                    found.places,
                    tuple(found.examples),
                    scrubbed,
                )
            )
        return sort_kinds(out)


def _data_zone(document: dict[str, Any]) -> str:
    """`steptrace.zones.data`: the zone our collector declared as the data read."""
    description = document.get(detect.STEPTRACE_KEY)
    zones = description.get("zones") if isinstance(description, dict) else None
    data = zones.get("data") if isinstance(zones, dict) else None
    return data if isinstance(data, str) else ""

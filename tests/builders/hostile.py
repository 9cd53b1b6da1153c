"""Build a corpus of broken and hostile trace files, each with the outcome it must give.

Traces come from colleagues and CI artefacts: cut off by killed writers, renamed,
hand-edited, or crafted. One corpus feeds both the tests and
`benchmarks/hostile_report.py`, so the report counts exactly what the tests check.
"""

from __future__ import annotations

import atexit
import functools
import gzip
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Raw terminal payloads hidden in names: none of them may reach a terminal.
TERMINAL_PAYLOADS: tuple[str, ...] = (
    "\x1b[2J",  # clear screen
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: write the clipboard
    "\x1b]0;pwned\x07",  # OSC 0: set the window title
    "\x9b31m",  # C1 CSI
    "\u202e",  # right-to-left override
)
# Byte sequences that must never appear in what the CLI writes to a terminal.
LEAK_MARKERS: tuple[bytes, ...] = (
    b"\x1b[2J",
    b"\x1b]52",
    b"\x1b]0;",
    b"\x9b",
    "\u202e".encode(),
    b"\x07",
)
MARKUP_NAMES: tuple[str, ...] = (
    "aten::foo [/]",
    "[link=file:///etc/passwd]x[/link]",
    "[@click=app.quit]",
    "[bold red]shout[/bold red]",
)


@dataclass(frozen=True)
class Truncation:
    """Where a file was cut and how many complete events were wholly written before the cut."""

    offset: int
    complete_before: int
    total_complete: int


@dataclass(frozen=True)
class HostileCase:
    """One hostile file and what loading it must do.

    `outcome` is "error" (exit 2, one line on stderr) or "load" (exit 0).
    `messages` are substrings of the error line, or of some warning when it loads.
    `op_calls` maps operator names to their expected call count (0: must be absent).
    """

    name: str
    path: Path
    outcome: str
    messages: tuple[str, ...] = ()
    events: int | None = None
    op_calls: Mapping[str, int] = field(default_factory=dict)
    max_bytes: int | None = None
    cli: bool = False
    truncation: Truncation | None = None
    terminal_payload: bool = False

    @property
    def env(self) -> dict[str, str]:
        """Environment overrides the CLI run needs."""
        if self.max_bytes is None:
            return {}
        return {"STEPTRACE_MAX_BYTES": str(self.max_bytes)}


@functools.cache
def _scratch_home() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="steptrace-hostile-home-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def isolated_env() -> dict[str, str]:
    """Environment for a child steptrace: no column cache, notes and caches off ~."""
    home = _scratch_home()
    return {
        "STEPTRACE_NO_CACHE": "1",
        "STEPTRACE_CACHE_DIR": str(home / "cache"),
        "STEPTRACE_DATA_DIR": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "xdg-cache"),
        "XDG_DATA_HOME": str(home / "xdg-data"),
    }


# -- building blocks ----------------------------------------------------------


def complete(
    name: str,
    ts: Any,
    dur: Any,
    *,
    cat: str = "cpu_op",
    pid: Any = 1,
    tid: Any = 1,
    args: Any = None,
) -> dict[str, Any]:
    """One complete ("X") event."""
    event: dict[str, Any] = {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "dur": dur,
    }
    if args is not None:
        event["args"] = args
    return event


def metadata(name: str, pid: Any, tid: Any, value: str) -> dict[str, Any]:
    """A process_name / thread_name metadata event."""
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": {"name": value}}


def sample_events(steps: int = 40, ops_per_step: int = 12) -> list[dict[str, Any]]:
    """A realistic small training window: steps, zones, ops, launches, kernels, flows."""
    base = 1_712_195_495_519_000
    events: list[dict[str, Any]] = [
        metadata("process_name", 1, 1, "python3"),
        metadata("thread_name", 1, 1, "thread 1 (python3)"),
        metadata("process_name", 0, 7, "GPU 0"),
        metadata("thread_name", 0, 7, "stream 7"),
    ]
    correlation = 1000
    clock = base
    for step in range(steps):
        step_start = clock
        step_length = ops_per_step * 40 + 100
        events.append(
            complete(
                f"ProfilerStep#{step}", step_start, step_length, cat="user_annotation"
            )
        )
        events.append(
            complete("lecture_batch_cpu", step_start + 5, 30.5, cat="user_annotation")
        )
        clock = step_start + 50
        for op in range(ops_per_step):
            correlation += 1
            name = f"aten::op{op % 5}"
            events.append(
                complete(
                    name,
                    clock + (op % 4) * 0.25,
                    30.25,
                    args={"External id": correlation, "Sequence number": op},
                )
            )
            events.append(
                complete(
                    "cudaLaunchKernel",
                    clock + 2,
                    5.5,
                    cat="cuda_runtime",
                    args={"correlation": correlation, "External id": correlation},
                )
            )
            events.append(
                complete(
                    f"kernel_{op % 3}",
                    clock + 10,
                    12.125,
                    cat="kernel",
                    pid=0,
                    tid=7,
                    args={"correlation": correlation, "External id": correlation},
                )
            )
            events.append(
                {
                    "ph": "s",
                    "id": correlation,
                    "pid": 1,
                    "tid": 1,
                    "ts": clock + 2,
                    "cat": "ac2g",
                    "name": "ac2g",
                }
            )
            events.append(
                {
                    "ph": "f",
                    "id": correlation,
                    "pid": 0,
                    "tid": 7,
                    "ts": clock + 10,
                    "cat": "ac2g",
                    "name": "ac2g",
                    "bp": "e",
                }
            )
            clock += 40
        clock = step_start + step_length + 10
    return events


@dataclass
class Serialized:
    """A trace document and where each event's text ends in it."""

    data: bytes
    event_ends: list[int]
    is_complete: list[bool]


def serialize(
    events: Sequence[Mapping[str, Any]], *, form: str = "object"
) -> Serialized:
    """Kineto-like layout: one event per line, top-level keys before and after the events."""
    pieces = [json.dumps(event, separators=(",", ":")).encode() for event in events]
    if form == "array":
        head = b"[\n"
        tail = b"\n]\n"
    else:
        head = (
            b'{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "H100"}],\n'
            b'  "traceEvents": [\n'
        )
        tail = b'\n  ],\n  "traceName": "rank0.pt.trace.json",\n  "displayTimeUnit": "ms"\n}\n'
    ends: list[int] = []
    position = len(head)
    for index, piece in enumerate(pieces):
        if index:
            position += 2
        position += len(piece)
        ends.append(position)
    data = head + b",\n".join(pieces) + tail
    return Serialized(data, ends, [event.get("ph") == "X" for event in events])


def complete_before(serialized: Serialized, offset: int) -> int:
    """Complete ("X") events whose text is wholly inside the first `offset` bytes."""
    return sum(
        1
        for end, is_x in zip(serialized.event_ends, serialized.is_complete, strict=True)
        if is_x and end <= offset
    )


def elements_before(serialized: Serialized, offset: int) -> int:
    """Events of any kind whose text is wholly inside the first `offset` bytes."""
    return sum(1 for end in serialized.event_ends if end <= offset)


def gzip_prefix_length(compressed: bytes) -> int:
    """How many decompressed bytes a cut gzip stream still yields."""
    decompressor = zlib.decompressobj(wbits=31)
    try:
        return len(decompressor.decompress(compressed))
    except zlib.error:
        return 0


def _event_line(**fields: Any) -> str:
    return json.dumps(fields, separators=(",", ":"))


def _wrap(lines: Iterable[str]) -> bytes:
    return ('{"traceEvents":[\n' + ",\n".join(lines) + "\n]}\n").encode("utf-8")


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _names_doc(names: Sequence[str]) -> list[dict[str, Any]]:
    events = [metadata("thread_name", 1, 1, names[0])]
    for index, name in enumerate(names):
        events.append(complete(name, 1000 + 100 * index, 10, args={"label": name}))
    events.append(complete("lecture_batch_cpu", 1000, 50, cat="user_annotation"))
    events.append(
        complete("ProfilerStep#1", 990, 100 * len(names) + 20, cat="user_annotation")
    )
    return events


# -- the corpus -----------------------------------------------------------------


TRUNCATION_SHARES = (
    0.0005,
    0.01,
    0.05,
    0.13,
    0.25,
    0.37,
    0.5,
    0.61,
    0.75,
    0.88,
    0.97,
    0.999,
)


def build_truncations(folder: Path) -> list[HostileCase]:
    """Cuts at many offsets of one sample trace, object and array form, plain and gzip."""
    cases: list[HostileCase] = []
    events = sample_events()
    for form in ("object", "array"):
        serialized = serialize(events, form=form)
        data = serialized.data
        total = complete_before(serialized, len(data))
        offsets = sorted(
            {max(1, int(len(data) * share)) for share in TRUNCATION_SHARES}
        )
        # Cuts right after an event, right after its comma, and inside a number.
        middle = serialized.event_ends[len(serialized.event_ends) // 2]
        offsets += [middle, middle + 1, middle + 2, middle - 3]
        for offset in offsets:
            kept = complete_before(serialized, offset)
            case_name = f"cut-{form}-plain-at-{offset}"
            path = _write(folder / f"{case_name}.json", data[:offset])
            if elements_before(serialized, offset) == 0:
                cases.append(
                    HostileCase(
                        case_name,
                        path,
                        "error",
                        ("cut off",),
                        truncation=Truncation(offset, 0, total),
                    )
                )
                continue
            cases.append(
                HostileCase(
                    case_name,
                    path,
                    "load",
                    ("cut off",),
                    truncation=Truncation(offset, kept, total),
                    cli=form == "object" and offset == offsets[len(offsets) // 2],
                )
            )
        compressed = gzip.compress(data, compresslevel=6, mtime=0)
        for share in TRUNCATION_SHARES[2::2]:
            offset = max(20, int(len(compressed) * share))
            prefix = gzip_prefix_length(compressed[:offset])
            kept = complete_before(serialized, prefix)
            case_name = f"cut-{form}-gzip-at-{offset}"
            path = _write(folder / f"{case_name}.json.gz", compressed[:offset])
            outcome = "load" if elements_before(serialized, prefix) else "error"
            cases.append(
                HostileCase(
                    case_name,
                    path,
                    outcome,
                    ("cut off",),
                    truncation=Truncation(offset, kept, total),
                    cli=form == "object" and share == TRUNCATION_SHARES[6],
                )
            )
    # Cuts inside one event whose args hold many lists and objects (aten::cat
    # with a hundred inputs): the brackets inside args must not stop recovery.
    wide = [
        complete(
            "aten::cat",
            10 * index,
            5,
            args={
                "Input Dims": [[64, 3, 224, 224]] * 100,
                "Input type": ["float"] * 100,
                "Concrete Inputs": [{"value": index}] * 40,
            },
        )
        for index in range(60)
    ]
    serialized = serialize(wide)
    last_start = serialized.event_ends[-2] + 2
    for step in range(1, 6):
        offset = last_start + (serialized.event_ends[-1] - last_start) * step // 6
        case_name = f"cut-inside-wide-args-at-{offset}"
        path = _write(folder / f"{case_name}.json", serialized.data[:offset])
        cases.append(
            HostileCase(
                case_name,
                path,
                "load",
                ("cut off",),
                truncation=Truncation(offset, len(wide) - 1, len(wide)),
            )
        )
    # A killed exporter's temporary file.
    serialized = serialize(events)
    offset = int(len(serialized.data) * 0.42)
    path = _write(folder / "rank0.pt.trace.json.tmp", serialized.data[:offset])
    cases.append(
        HostileCase(
            "tmp-leftover",
            path,
            "load",
            ("cut off",),
            truncation=Truncation(
                offset,
                complete_before(serialized, offset),
                complete_before(serialized, len(serialized.data)),
            ),
            cli=True,
        )
    )
    return cases


LARGE_CASE = "million-distinct-names"


def million_distinct_names(folder: Path) -> HostileCase:
    """The corpus's one large case (40 MB, 1.5 s to write): a million operators, each named once."""
    count = 1_000_000
    line = '{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":1}'
    body = ",\n".join([line % (index, 2 * index) for index in range(count)])
    path = _write(
        folder / f"{LARGE_CASE}.json",
        ('{"traceEvents":[\n' + body + "\n]}\n").encode(),
    )
    return HostileCase(
        LARGE_CASE, path, "load", (), events=count, op_calls={"op0": 1, "op999999": 1}
    )


def build_corpus(folder: Path, *, large: bool = True) -> list[HostileCase]:
    """Write every hostile file into `folder` and return the cases, in a stable order."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = build_truncations(folder)
    good = serialize(sample_events(steps=4, ops_per_step=3))
    good_complete = complete_before(good, len(good.data))

    def add(
        name: str, suffix: str, data: bytes, outcome: str, *messages: str, **extra: Any
    ) -> None:
        path = _write(folder / f"{name}{suffix}", data)
        cases.append(HostileCase(name, path, outcome, tuple(messages), **extra))

    # Names and containers that lie about their content.
    add(
        "gzip-under-json",
        ".json",
        gzip.compress(good.data, mtime=0),
        "load",
        events=good_complete,
        cli=True,
    )
    add("json-under-gz", ".json.gz", good.data, "load", events=good_complete)
    add(
        "gzip-then-garbage",
        ".json.gz",
        gzip.compress(good.data, mtime=0) + b"garbage!",
        "load",
        "trailing bytes",
        events=good_complete,
    )
    add(
        "gzip-corrupt-header",
        ".json.gz",
        b"\x1f\x8b\x08\x00" + b"\xff" * 64,
        "error",
        "gzip",
        cli=True,
    )
    packed = gzip.compress(good.data, mtime=0)
    bad_crc = packed[:-8] + bytes([packed[-8] ^ 0xFF]) + packed[-7:]
    add(
        "gzip-bad-checksum",
        ".json.gz",
        bad_crc,
        "load",
        "gzip data is corrupt",
        events=good_complete,
    )
    middle = len(packed) // 2
    add(
        "gzip-corrupt-middle",
        ".json.gz",
        packed[:middle]
        + bytes(byte ^ 0x5A for byte in packed[middle : middle + 64])
        + packed[middle + 64 :],
        "load",
        "gzip data is corrupt",
        "cut off",
    )
    add("gzip-header-only", ".json.gz", packed[:6], "error", "gzip")
    add(
        "gzip-two-members",
        ".json.gz",
        gzip.compress(good.data[:1000], mtime=0)
        + gzip.compress(good.data[1000:], mtime=0),
        "load",
        events=good_complete,
    )
    add("utf8-bom", ".json", b"\xef\xbb\xbf" + good.data, "load", events=good_complete)
    add(
        "events-twice",
        ".json",
        b'{"traceEvents":[{"ph":"X","name":"aten::first","ts":1,"dur":1,"pid":1,"tid":1}],'
        b'"traceEvents":[{"ph":"X","name":"aten::second","ts":1,"dur":1,"pid":1,"tid":1}]}',
        "load",
        events=1,
    )
    add(
        "description-malformed",
        ".json",
        json.dumps({"traceEvents": [], "steptrace": "{not json"}).encode(),
        "load",
        "capture description",
        events=0,
    )
    add(
        "description-hostile-types",
        ".json",
        json.dumps(
            {
                "traceEvents": _names_doc(["aten::a"]),
                "steptrace": {
                    "question": ["not", "a", "string"],
                    "active_steps": [1, "2", None, 1e300, True],
                    "unit": {"samples_per_step": -3},
                    "scenario": {"batch_size": "big"},
                    "activities": {
                        "requested": ["cpu"],
                        "gpu_missing_reason": {"x": 1},
                    },
                },
            }
        ).encode(),
        "load",
        events=3,
    )
    add(
        "description-requested-not-a-list",
        ".json",
        json.dumps(
            {
                "traceEvents": _names_doc(["aten::a"]),
                "steptrace": {"activities": {"requested": 5}},
            }
        ).encode(),
        "load",
        events=3,
        cli=True,
    )
    add("empty", ".json", b"", "error", "empty", cli=True)
    add("whitespace", ".json", b" \n\t\r\n   ", "error", "empty")
    add("bom-only", ".json", b"\xef\xbb\xbf\n", "error", "empty")
    add(
        "not-json-text",
        ".json",
        b"hello, this is a README\n",
        "error",
        "not a trace",
        cli=True,
    )
    add("binary-garbage", ".json", bytes(range(256)) * 4, "error", "not a trace")
    add("json-number", ".json", b"42\n", "error", "not a trace")
    add("json-string", ".json", b'"traceEvents"\n', "error", "not a trace")
    add(
        "object-without-events",
        ".json",
        b'{"schemaVersion": 1}\n',
        "error",
        "traceEvents",
    )
    add(
        "events-not-a-list",
        ".json",
        b'{"traceEvents": {"ph": "X"}}\n',
        "error",
        "not a list",
    )
    add("events-null", ".json", b'{"traceEvents": null}\n', "error", "traceEvents")
    add("empty-events", ".json", b'{"traceEvents": []}\n', "load", events=0)
    add(
        "elements-not-objects",
        ".json",
        _wrap(
            [
                _event_line(
                    ph="X", cat="cpu_op", name="aten::kept", pid=1, tid=1, ts=10, dur=5
                ),
                "1",
                '"x"',
                "null",
                "[1,2]",
                "true",
            ]
        ),
        "load",
        "not objects were skipped",
        events=1,
        op_calls={"aten::kept": 1},
    )
    add(
        "array-of-numbers", ".json", b"[1,2,3]\n", "error", "no event objects", cli=True
    )
    add(
        "events-all-not-objects",
        ".json",
        b'{"traceEvents": [1, 2]}\n',
        "error",
        "no event objects",
    )
    add("empty-array", ".json", b"[]\n", "load", events=0)
    add(
        "metadata-only",
        ".json",
        json.dumps(
            {
                "traceEvents": [
                    metadata("process_name", 1, 1, "python3"),
                    metadata("thread_name", 1, 1, "main"),
                ]
            }
        ).encode(),
        "load",
        events=0,
    )

    # Nesting and size.
    depth = 100_000
    add(
        "deep-array-100k",
        ".json",
        b"[" * depth + b"]" * depth,
        "error",
        "not a trace",
        cli=True,
    )
    add(
        "deep-object-events-100k",
        ".json",
        b'{"traceEvents":' + b"[" * depth + b"]" * depth + b"}",
        "error",
        "not a trace",
    )
    add(
        "deep-unclosed-100k",
        ".json",
        b'{"traceEvents":' + b"[" * depth,
        "error",
        "not a trace",
    )
    add(
        "deep-args-100k",
        ".json",
        b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::deep","pid":1,"tid":1,"ts":1,"dur":2,"args":{"a":'
        + b"[" * depth
        + b"]" * depth
        + b'}},{"ph":"X","cat":"cpu_op","name":"aten::after","pid":1,"tid":1,"ts":5,"dur":1}]}',
        "error",
        "nested too deeply",
    )
    big_name = "A" * 1_000_000
    add(
        "name-1mb",
        ".json",
        _wrap(
            [
                _event_line(
                    ph="X", cat="cpu_op", name=big_name, pid=1, tid=1, ts=10, dur=5
                )
            ]
        ),
        "load",
        events=1,
        op_calls={big_name: 1},
        cli=True,
    )
    if large:
        cases.append(million_distinct_names(folder))

    # Numbers JSON does not allow, and numbers that do not fit.
    base = [
        _event_line(
            ph="X", cat="cpu_op", name="aten::good", pid=1, tid=1, ts=100, dur=5
        )
    ]
    add(
        "nan-infinity",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::nan_ts","pid":1,"tid":1,"ts":NaN,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::inf_dur","pid":1,"tid":1,"ts":200,"dur":Infinity}',
                '{"ph":"X","cat":"cpu_op","name":"aten::neginf_ts","pid":1,"tid":1,"ts":-Infinity,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::nan_arg","pid":1,"tid":1,"ts":300,"dur":2,"args":{"v":NaN}}',
            ]
        ),
        "load",
        "NaN/Infinity",
        "dropped",
        events=2,
        op_calls={
            "aten::good": 1,
            "aten::nan_arg": 1,
            "aten::nan_ts": 0,
            "aten::inf_dur": 0,
            "aten::neginf_ts": 0,
        },
        cli=True,
    )
    add(
        "lowercase-inf-nan",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::inf_dur","pid":1,"tid":1,"ts":200,"dur":inf}',
                '{"ph":"X","cat":"cpu_op","name":"aten::nan_ts","pid":1,"tid":1,"ts":nan,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::neg_inf","pid":1,"tid":1,"ts":-inf,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"inf:nan, in a string","pid":1,"tid":1,"ts":400,"dur":1}',
                *base,
            ]
        ),
        "load",
        "NaN/Infinity",
        "dropped",
        events=3,
        op_calls={
            "aten::good": 2,
            "aten::inf_dur": 0,
            "aten::nan_ts": 0,
            "inf:nan, in a string": 1,
        },
    )
    add(
        "huge-timestamps",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_1e300","pid":1,"tid":1,"ts":1e300,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_1e19","pid":1,"tid":1,"ts":1e19,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_1e19_int","pid":1,"tid":1,"ts":10000000000000000000,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_neg_1e19","pid":1,"tid":1,"ts":-1e19,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_exp_huge","pid":1,"tid":1,"ts":1e999999999,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_digits","pid":1,"tid":1,"ts":'
                + "9" * 5000
                + ',"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::dur_1e300","pid":1,"tid":1,"ts":300,"dur":1e300}',
                '{"ph":"X","cat":"cpu_op","name":"aten::dur_1e400","pid":1,"tid":1,"ts":300,"dur":1e400}',
            ]
        ),
        "load",
        "timestamp",
        events=1,
        op_calls={
            "aten::good": 1,
            "aten::ts_1e300": 0,
            "aten::ts_1e19": 0,
            "aten::ts_exp_huge": 0,
            "aten::dur_1e300": 0,
        },
    )
    nan_lines = [
        '{"ph":"X","cat":"cpu_op","name":"aten::nan_'
        + str(index)
        + '","pid":1,"tid":1,"ts":'
        + ("NaN" if index % 2 else str(10 + index))
        + ',"dur":'
        + ("1" if index % 2 else "-Infinity")
        + "}"
        for index in range(20)
    ]
    add(
        "twenty-nan-fast-and-tolerant",
        ".json",
        _wrap([*base, *nan_lines, *base]),
        "load",
        "20 NaN/Infinity values were treated as missing",
        events=2,
        op_calls={"aten::good": 2, "aten::nan_1": 0, "aten::nan_2": 0},
    )
    add(
        "cut-with-nan",
        ".json",
        _wrap([*base, nan_lines[1], *base, *base])[:-40],
        "load",
        "cut off",
        "1 NaN/Infinity values were treated as missing",
        events=2,
        op_calls={"aten::good": 2, "aten::nan_1": 0},
    )
    add(
        "huge-numbers-tolerant-path",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::nan_arg","pid":1,"tid":1,"ts":150,"dur":1,"args":{"v":NaN,"w":1e400}}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_exp_huge","pid":1,"tid":1,"ts":1e999999999,"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::ts_digits","pid":1,"tid":1,"ts":'
                + "9" * 5000
                + ',"dur":1}',
                '{"ph":"X","cat":"cpu_op","name":"aten::dur_digits","pid":1,"tid":1,"ts":200,"dur":'
                + "9" * 5000
                + "}",
                '{"ph":"X","cat":"cpu_op","name":"aten::pid_digits","pid":'
                + "9" * 5000
                + ',"tid":1,"ts":200,"dur":1}',
            ]
        ),
        "load",
        "NaN/Infinity",
        "without a usable timestamp",
        events=3,
        op_calls={
            "aten::good": 1,
            "aten::nan_arg": 1,
            "aten::ts_exp_huge": 0,
            "aten::ts_digits": 0,
            "aten::dur_digits": 0,
        },
    )
    add(
        "far-apart-timestamps",
        ".json",
        _wrap(
            [
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::early",
                    pid=1,
                    tid=1,
                    ts=-9_000_000_000_000_000,
                    dur=1,
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::late",
                    pid=1,
                    tid=1,
                    ts=9_000_000_000_000_000,
                    dur=1,
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::normal",
                    pid=1,
                    tid=1,
                    ts=1_712_195_495_519_000,
                    dur=3,
                ),
            ]
        ),
        "load",
        "out of range",
        events=1,
        op_calls={"aten::normal": 1, "aten::early": 0, "aten::late": 0},
    )
    add(
        "string-timestamps",
        ".json",
        _wrap(
            [
                *base,
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::str_ts",
                    pid=1,
                    tid=1,
                    ts="123",
                    dur=1,
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::str_dur",
                    pid=1,
                    tid=1,
                    ts=130,
                    dur="5",
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::bool_dur",
                    pid=1,
                    tid=1,
                    ts=140,
                    dur=True,
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::null_ts",
                    pid=1,
                    tid=1,
                    ts=None,
                    dur=1,
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::list_ts",
                    pid=1,
                    tid=1,
                    ts=[1],
                    dur=1,
                ),
            ]
        ),
        "load",
        "without a usable timestamp",
        "duration",
        events=1,
        op_calls={
            "aten::good": 1,
            "aten::str_ts": 0,
            "aten::str_dur": 0,
            "aten::bool_dur": 0,
            "aten::null_ts": 0,
        },
    )
    add(
        "durations-negative-zero-missing",
        ".json",
        _wrap(
            [
                *base,
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::negative",
                    pid=1,
                    tid=1,
                    ts=110,
                    dur=-5,
                ),
                _event_line(
                    ph="X", cat="cpu_op", name="aten::zero", pid=1, tid=1, ts=120, dur=0
                ),
                _event_line(
                    ph="X", cat="cpu_op", name="aten::missing", pid=1, tid=1, ts=130
                ),
                _event_line(
                    ph="X",
                    cat="cpu_op",
                    name="aten::null_dur",
                    pid=1,
                    tid=1,
                    ts=140,
                    dur=None,
                ),
                _event_line(
                    ph="X", cat="cpu_op", name="aten::no_ts", pid=1, tid=1, dur=3
                ),
            ]
        ),
        "load",
        "negative duration",
        "missing or non-numeric duration",
        "without a usable timestamp",
        events=2,
        op_calls={
            "aten::good": 1,
            "aten::zero": 1,
            "aten::negative": 0,
            "aten::missing": 0,
            "aten::null_dur": 0,
            "aten::no_ts": 0,
        },
    )
    add(
        "odd-field-types",
        ".json",
        _wrap(
            [
                *base,
                _event_line(
                    ph="X",
                    cat=["list"],
                    name={"a": 1},
                    pid=[1],
                    tid={"t": 2},
                    ts=200,
                    dur=1,
                    args=[1, 2],
                ),
                _event_line(
                    ph="X",
                    cat=None,
                    name=None,
                    pid=None,
                    tid=None,
                    ts=210,
                    dur=1,
                    args="text",
                ),
                _event_line(
                    ph="X", cat=5, name=7, pid=1.5, tid=True, ts=220, dur=1, args=None
                ),
                _event_line(ph=["X"], name="aten::weird_ph", ts=1, dur=1),
                _event_line(ph="Z", name="aten::unknown_ph", ts=1, dur=1),
            ]
        ),
        "load",
        "unknown phase",
        events=4,
        op_calls={"aten::good": 1, "aten::weird_ph": 0, "aten::unknown_ph": 0},
    )

    # Text that is not valid JSON text.
    add(
        "lone-surrogates",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::bad\\ud800name","pid":1,"tid":1,"ts":200,"dur":1,"args":{"k\\udfff":"\\udc00"}}',
                '{"ph":"X","cat":"cpu_op","name":"aten::pair\\ud83d\\ude00ok","pid":1,"tid":1,"ts":210,"dur":1}',
            ]
        ),
        "load",
        "surrogate",
        events=3,
        op_calls={
            "aten::good": 1,
            "aten::bad\ufffdname": 1,
            "aten::pair\U0001f600ok": 1,
        },
        cli=True,
    )
    add(
        "cut-with-lone-surrogate",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::bad\\ud800","pid":1,"tid":1,"ts":200,"dur":1}',
                *base,
            ]
        )[:-30],
        "load",
        "cut off",
        "surrogate",
        events=2,
        op_calls={"aten::good": 1, "aten::bad\ufffd": 1},
    )
    add(
        "invalid-utf8",
        ".json",
        _wrap(base).replace(b"aten::good", b"aten::go\xff\xfed")[:-3]
        + b',\n{"ph":"X","cat":"cpu_op","name":"\xc3\x28 \xed\xa0\x80 \xf0\x28\x8c\x28","pid":1,"tid":1,"ts":200,"dur":1}\n]}\n',
        "load",
        "UTF-8",
        events=2,
        op_calls={"aten::go\ufffd\ufffdd": 1},
        cli=True,
    )
    add(
        "raw-control-chars",
        ".json",
        _wrap(base).replace(b"aten::good", b"aten::\x01\x08\x0b\x1f\tctl\r\nname"),
        "load",
        events=1,
        op_calls={"aten::\x01\x08\x0b\x1f\tctl\r\nname": 1},
        terminal_payload=True,
    )
    tab_lines = [
        '{"ph":"X","cat":"cpu_op","name":"aten::tab\t'
        + str(index)
        + '","pid":1,"tid":1,"ts":'
        + str(10 + index)
        + ',"dur":1}'
        for index in range(40)
    ]
    add(
        "raw-tabs-in-40-names",
        ".json",
        _wrap(tab_lines),
        "load",
        events=40,
        op_calls={"aten::tab\t0": 1, "aten::tab\t39": 1},
    )
    add(
        "invalid-utf8-and-nan",
        ".json",
        _wrap(
            [
                '{"ph":"X","cat":"cpu_op","name":"aten::BAD","pid":1,"tid":1,"ts":1,"dur":NaN}',
                *base,
            ]
        ).replace(b"aten::BAD", b"aten::\xff\xfe"),
        "load",
        "UTF-8",
        "1 NaN/Infinity values were treated as missing",
        events=1,
        op_calls={"aten::good": 1},
    )
    add(
        "unescaped-quotes",
        ".json",
        _wrap(
            base
            + [
                '{"ph":"X","cat":"cpu_op","name":"aten::say "hi" now","pid":1,"tid":1,"ts":200,"dur":1}'
            ]
            + base * 50
        ),
        "error",
        "invalid JSON",
        "line 3",
        cli=True,
    )
    add(
        "unescaped-quote-near-end",
        ".json",
        _wrap(
            base * 3
            + [
                '{"ph":"X","cat":"cpu_op","name":"aten::say "hi","pid":1,"tid":1,"ts":200,"dur":1}'
            ]
        ),
        "error",
        "invalid JSON",
    )
    add(
        "cut-and-broken-in-the-middle",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"X","cat":"cpu_op","name":"aten::say "hi" now","pid":1,"tid":1,"ts":200,"dur":1}',
                *(base * 30),
            ]
        )[:-20],
        "load",
        "cut off and damaged before the cut (invalid JSON at line 3",
        events=1,
        op_calls={"aten::good": 1},
    )
    add(
        "trailing-comma",
        ".json",
        _wrap(base * 3).replace(b"\n]}", b",\n]}"),
        "error",
        "invalid JSON",
    )
    add(
        "complete-then-garbage",
        ".json",
        _wrap(base) + b"\x00\x00garbage after the document",
        "load",
        "after the end of the JSON document",
        events=1,
        op_calls={"aten::good": 1},
        cli=True,
    )
    add(
        "nul-padded",
        ".json",
        _wrap(base) + b"\x00" * 4096,
        "load",
        events=1,
        op_calls={"aten::good": 1},
    )
    add(
        "utf16-with-bom",
        ".json",
        "\ufeff".encode("utf-16-le") + _wrap(base).decode().encode("utf-16-le"),
        "load",
        "UTF-16",
        events=1,
        op_calls={"aten::good": 1},
        cli=True,
    )

    # Pairing and linking that does not add up.
    add(
        "unmatched-begin-end",
        ".json",
        _wrap(
            [
                '{"ph":"B","cat":"cpu_op","name":"aten::paired","pid":1,"tid":1,"ts":10}',
                '{"ph":"E","pid":1,"tid":1,"ts":20}',
                '{"ph":"B","cat":"cpu_op","name":"aten::open_forever","pid":1,"tid":1,"ts":30}',
                '{"ph":"E","cat":"cpu_op","name":"aten::orphan_end","pid":1,"tid":2,"ts":40}',
                '{"ph":"E","pid":1,"tid":1,"ts":"later"}',
            ]
        ),
        "load",
        "begin events without a matching end",
        "end events without a matching begin",
        events=1,
        op_calls={"aten::paired": 1, "aten::open_forever": 0, "aten::orphan_end": 0},
    )
    add(
        "unmatched-flows",
        ".json",
        _wrap(
            [
                *base,
                '{"ph":"s","id":1,"cat":"ac2g","name":"ac2g","pid":1,"tid":1,"ts":101}',
                '{"ph":"f","id":2,"cat":"ac2g","name":"ac2g","pid":0,"tid":7,"ts":150,"bp":"e"}',
                '{"ph":"s","id":{"x":1},"cat":"ac2g","name":"ac2g","pid":1,"tid":1,"ts":101}',
                '{"ph":"f","id":[3],"cat":["ac2g"],"name":"ac2g","pid":0,"tid":7,"ts":"x"}',
                '{"ph":"t","id":3,"cat":"ac2g","pid":0,"tid":7,"ts":1}',
            ]
        ),
        "load",
        "flow events without their other end",
        events=1,
        op_calls={"aten::good": 1},
    )
    overlap = [
        metadata("process_name", 0, 7, "GPU 0"),
        complete("aten::mm", 100, 50, args={"External id": 1}),
        complete(
            "cudaLaunchKernel",
            101,
            3,
            cat="cuda_runtime",
            args={"correlation": 11, "External id": 1},
        ),
        complete(
            "cudaLaunchKernel",
            105,
            3,
            cat="cuda_runtime",
            args={"correlation": 12, "External id": 1},
        ),
        complete(
            "gemm_a",
            110,
            20,
            cat="kernel",
            pid=0,
            tid=7,
            args={"correlation": 11, "External id": 1},
        ),
        complete(
            "gemm_b",
            120,
            20,
            cat="kernel",
            pid=0,
            tid=7,
            args={"correlation": 12, "External id": 1},
        ),
    ]
    add(
        "overlapping-kernels",
        ".json",
        json.dumps({"traceEvents": overlap}).encode(),
        "load",
        "overlap",
        events=5,
        op_calls={"aten::mm": 1, "cudaLaunchKernel": 2},
    )

    # Names that try to drive a terminal or a markup parser.
    hostile_names = [
        *MARKUP_NAMES,
        *(f"aten::x{payload}y" for payload in TERMINAL_PAYLOADS),
    ]
    hostile_names.append(
        "aten::all" + "".join(TERMINAL_PAYLOADS) + "\x00\x7f\u200b\u2066end"
    )
    hostile_events = _names_doc(hostile_names)
    hostile_events.append(
        complete("\x1b]0;pwned\x07zone", 1000, 40, cat="user_annotation")
    )
    add(
        "hostile-names",
        ".json",
        json.dumps(
            {
                "traceEvents": hostile_events,
                "steptrace": {"question": "why? \x1b[2J\x1b]52;c;ZXZpbA==\x07"},
            }
        ).encode(),
        "load",
        events=len(hostile_events) - 1,
        op_calls={name: 1 for name in hostile_names},
        cli=True,
        terminal_payload=True,
    )

    add(
        "hostile-description",
        ".json",
        json.dumps(
            {
                "traceEvents": _names_doc(["aten::a"]),
                "steptrace": {
                    "question": "why?" + "".join(TERMINAL_PAYLOADS),
                    "activities": {
                        "requested": ["cpu"],
                        "gpu_missing_reason": "none" + "".join(TERMINAL_PAYLOADS),
                    },
                },
            }
        ).encode(),
        "load",
        events=3,
        terminal_payload=True,
    )

    add(
        "huge-step-number",
        ".json",
        json.dumps(
            {
                "traceEvents": [
                    complete(
                        "ProfilerStep#99999999999999999999999",
                        0,
                        10,
                        cat="user_annotation",
                    ),
                    complete("ProfilerStep#-5", 20, 10, cat="user_annotation"),
                ]
            }
        ).encode(),
        "load",
        events=2,
        op_calls={"ProfilerStep*": 2},
        cli=True,
    )

    # Sizes and file kinds.
    # 40 gzip members of 64 MB of spaces: ~2.6 MB on disk, 2.7 GB inflated.
    bomb = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9, mtime=0) * 40
    add(
        "decompression-bomb",
        ".json.gz",
        bomb,
        "error",
        "decompress",
        max_bytes=16 * 1024 * 1024,
        cli=True,
    )
    add(
        "plain-over-limit",
        ".json",
        good.data,
        "error",
        "limit",
        max_bytes=1024,
    )
    directory = folder / "a-directory.json"
    directory.mkdir(exist_ok=True)
    cases.append(HostileCase("directory", directory, "error", ("folder",), cli=True))
    cases.append(
        HostileCase(
            "missing-file",
            folder / "no-such-trace.json",
            "error",
            ("no such file",),
            cli=True,
        )
    )
    fifo = folder / "a-fifo.json"
    if not fifo.exists():
        os.mkfifo(fifo)
    cases.append(HostileCase("fifo", fifo, "error", ("not a regular file",), cli=True))
    return cases


def missing_messages(case: HostileCase, warnings: Sequence[str]) -> list[str]:
    """The expected warning substrings that no warning contains."""
    joined = "\n".join(warnings)
    return [message for message in case.messages if message not in joined]

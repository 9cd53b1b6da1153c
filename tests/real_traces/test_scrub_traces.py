"""Scrubbing the real Kineto traces in ../shared/traces: found, gone, timing intact.

Each trace is checked and scrubbed once per session (module cache); the 85 MB
MTIA trace is used in one test only.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests import shared_traces as shared
from tui.scrub import CheckReport, ScrubOptions, ScrubReport, check_file, scrub_file
from tui.scrub.detect import (
    HOST,
    LOG,
    METADATA,
    PATH,
    PROCESS,
    SHAPE,
    SHAPE_ARGS,
    UNKNOWN_KEY,
    USER,
    ZONE,
)
from tui.scrub.io import parse, read_raw

TRACES = shared.FOLDER
MTIA = "mtia_trace_single_rank-mtia_rank_0.json.gz"
ALL = shared.names()
SMALLER = [name for name in ALL if name != MTIA]

FULL = ScrubOptions(zones=True, shapes=True)

NS_METADATA = [
    "trace_id",
    "tw_job",
    "tw_task_id",
    "tw_cluster",
    "ai_rm_attribution",
    "mast_job_environment",
    "mast_job_attempt",
    "mast_job_name",
    "mast_job_version",
    "logical_server_subtype",
    "mast_task_group",
]

# What a careful reader finds in each trace, by kind. Every trace in the
# folder must be listed here, so a new one gets looked at.
EXPECTED: dict[str, dict[str, list[str]]] = {
    "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz": {
        PATH: ["./logs/mi250_minitoy_train_ROCm6_2_kineto.json"],
        SHAPE: ["Input Dims", "Concrete Inputs"],
    },
    "call_stack-backward_thread.json": {
        ZONE: ["## backward ##"],
        SHAPE: ["Input Dims"],
    },
    "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz": {
        USER: ["mojif"],
        PATH: ["/tmp/libkineto_activities_1074.json"],
        LOG: ["INFO"],
        PROCESS: ["pyper:trainer:8:2"],
    },
    "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz": {
        ZONE: ["[param|cuda]", "[param|pytorch.model.alex_net|0|0|0|measure|forward]"],
    },
    "critical_path-cuda_event_sync-event_sync_trace.json.gz": {LOG: ["INFO"]},
    "critical_path-cuda_event_sync_multi_stream-event_sync_trace.json.gz": {
        LOG: ["INFO"]
    },
    "cupti_profiler-benchmark_result_924719_1679055439_trace.json.gz": {
        ZONE: ["[param|clear_cache]"],
    },
    "distributed_info_unavailable-distributed_info_not_found.json.gz": {
        ZONE: ["## forward ##", "## load_batch ##", "## wait_for_batch ##"],
    },
    "execution_trace-benchmark_simple_add_trace.json.gz": {
        ZONE: ["[param|torch.add|0|0|0]"]
    },
    MTIA: {
        USER: ["fenypatel"],
        HOST: ["devgpu109.atn2.facebook.com"],
        PATH: ["/tmp/libkineto_activities_3100453.json"],
        METADATA: ["trace_id", "logical_server_subtype"],
        LOG: ["INFO", "ERROR"],
        PROCESS: [
            "launcher_test_mtia#native-main#bundle-runtime#cinder#py_version_3_10_cinder"
        ],
        ZONE: ["## zero_grad ##", "## forward ##"],
    },
    "negative_queue_length_values_check-rank0.json.gz": {
        PROCESS: ["pyper:trainer:0:0"],
        ZONE: ["## ModelGenerationCoordinator ##", "## copy_batch_to_gpu ##"],
    },
    "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz": {
        USER: ["sraikund", "mast_hpc"],
        HOST: ["twshared39868.02.pnb3.facebook.com"],
        PATH: ["/tmp/libkineto_activities_1102.json"],
        METADATA: NS_METADATA,
        LOG: ["INFO"],
        PROCESS: ["penv#native-main#platform-runtime#python#py_version_3_10"],
        ZONE: ["## forward ##", "## backward ##", "## optimizer ##"],
    },
    "timeline_analysis-sampled_rank-0.json.gz": {
        PROCESS: ["pyper:trainer:0:0"],
        ZONE: ["## encoder fp8 None ##"],
    },
    "trace_compare-base-base.json.gz": {SHAPE: ["Input Dims"]},
    "trace_compare-test-test.json.gz": {SHAPE: ["Input Dims"]},
    "trace_file_list-inference_rank_1.json.gz": {},
    "triton_example-triton_example.json.gz": {
        USER: ["bcoutinho"],
        PATH: [
            "/tmp/torchinductor_bcoutinho/qa/"
            "cqaokwf2bph4egogzevc22vluasiyuui4i54zpemp6knbsggfbuu.py"
        ],
        LOG: ["INFO"],
        SHAPE: ["Input Dims", "Input Strides", "Concrete Inputs"],
    },
}

# Names PyTorch or the collector writes: never flagged, never renamed.
NEVER_FLAGGED = [
    "ProfilerStep#1009",
    "ProfilerStep#551",
    "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
    "Optimizer.zero_grad#Adagrad.zero_grad",
    "Optimizer.step#SGD.step",
    "nccl:all_to_all",
    "gloo:all_reduce",
    "DistributedDataParallel.forward",
    "python3.10",
    "pt_main_thread",
    "Torch-Compiled Region: 0/0",
]

# Values searched as text in the copy; the others are key names, checked as keys.
TEXT_KINDS = (USER, HOST, PATH, PROCESS, ZONE, "email", "secret", "url")
KEY_KINDS = (METADATA, LOG, UNKNOWN_KEY)
FREE_TEXT_CATEGORIES = ("user_annotation", "gpu_user_annotation", "python_function")


class Event(msgspec.Struct):
    """The fields the analysis reads; decoded exactly (floats as Decimal)."""

    ph: Any = None
    cat: Any = None
    name: Any = None
    ts: Any = None
    dur: Any = None
    pid: Any = None
    tid: Any = None
    id: Any = None
    bind_id: Any = None
    s: Any = None
    bp: Any = None
    tts: Any = None


class EventWithArgs(Event):
    args: Any = None


class Trace(msgspec.Struct):
    traceEvents: list[Event]


class TraceWithArgs(msgspec.Struct):
    traceEvents: list[EventWithArgs]


DECODERS: dict[bool, msgspec.json.Decoder[Any]] = {
    False: msgspec.json.Decoder(Trace | list[Event], float_hook=Decimal),
    True: msgspec.json.Decoder(TraceWithArgs | list[EventWithArgs], float_hook=Decimal),
}


@dataclass(frozen=True)
class Scrubbed:
    check: CheckReport
    report: ScrubReport
    source: Path
    output: Path


_CACHE: dict[str, Scrubbed] = {}


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("scrubbed")


def scrubbed(name: str, out_dir: Path, check: bool = True) -> Scrubbed:
    if name not in _CACHE:
        source = TRACES / name
        report = scrub_file(source, out_dir / name, FULL)
        found = check_file(source, ScrubOptions(shapes=True)) if check else None
        _CACHE[name] = Scrubbed(
            found or _as_check(report), report, source, out_dir / name
        )
    return _CACHE[name]


def _as_check(report: ScrubReport) -> CheckReport:
    return CheckReport(report.source, report.options, report.kinds)


def values(report: CheckReport | ScrubReport, kind: str) -> tuple[str, ...]:
    summary = report.get(kind)
    return summary.values if summary is not None else ()


def load(path: Path) -> dict[str, Any] | list[Any]:
    return parse(read_raw(path))


def has_text(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return any(has_text(item) for item in value)
    return isinstance(value, dict)


def skeleton(path: Path, with_args: bool) -> list[tuple[Any, ...]]:
    """What the analysis reads besides free text: timing, structure, op names, numbers."""
    decoded: Any = DECODERS[with_args].decode(read_raw(path).data)
    events = decoded if isinstance(decoded, list) else decoded.traceEvents
    rows = []
    for e in events:
        free = e.cat in FREE_TEXT_CATEGORIES or e.ph == "M"
        row: tuple[Any, ...] = (e.ph, e.cat, e.ts, e.dur, e.pid, e.tid, e.id, e.bind_id)
        row += (e.s, e.bp, e.tts, None if free else e.name)
        if isinstance(e, EventWithArgs) and isinstance(e.args, dict):
            numbers = {
                key: value
                for key, value in e.args.items()
                if key not in SHAPE_ARGS and not has_text(value)
            }
            row += (numbers,)
        rows.append(row)
    return rows


# --- assertions shared by the per-trace tests and the MTIA test -------------


def assert_expected_found(name: str, report: CheckReport | ScrubReport) -> None:
    for kind, expected in EXPECTED[name].items():
        missing = set(expected) - set(values(report, kind))
        assert not missing, f"{name}: {kind} not found: {sorted(missing)}"
    flagged = {value for summary in report.kinds for value in summary.values}
    assert not flagged & set(NEVER_FLAGGED)


def assert_nothing_left(found: CheckReport | ScrubReport, output: Path) -> None:
    """Searched in the copy's bytes: values as JSON text, keys as JSON keys."""
    text = read_raw(output).data
    for kind in TEXT_KINDS:
        for value in values(found, kind):
            encoded = json.dumps(value, ensure_ascii=False)[1:-1].encode()
            assert encoded not in text, f"{kind} {value!r} still in the scrubbed copy"
    for kind in (*KEY_KINDS, SHAPE):
        for key in values(found, kind):
            as_key = re.escape(json.dumps(key).encode()) + rb"\s*:"
            assert re.search(as_key, text) is None, f"{kind} key {key!r} still there"


def assert_same_skeleton(source: Path, output: Path, with_args: bool = True) -> None:
    before = skeleton(source, with_args)
    after = skeleton(output, with_args)
    assert len(before) == len(after)
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        assert old == new, f"event {index} changed"


# --- tests ---------------------------------------------------------------------


def test_every_shared_trace_has_expectations() -> None:
    assert set(ALL) <= set(EXPECTED), (
        f"add expectations for {sorted(set(ALL) - set(EXPECTED))}"
    )


@pytest.mark.parametrize("name", SMALLER)
@pytest.mark.slow
def test_known_identifying_items_are_found(name: str, out_dir: Path) -> None:
    assert_expected_found(name, scrubbed(name, out_dir).check)


@pytest.mark.parametrize("name", SMALLER)
def test_check_lists_exactly_what_scrub_changes(name: str, out_dir: Path) -> None:
    result = scrubbed(name, out_dir)
    as_checked = {(s.kind, s.values, s.places) for s in result.check.kinds}
    as_scrubbed = {(s.kind, s.values, s.places) for s in result.report.kinds}
    assert as_checked == as_scrubbed


@pytest.mark.parametrize("name", SMALLER)
def test_scrubbed_copy_holds_none_of_the_found_values(name: str, out_dir: Path) -> None:
    result = scrubbed(name, out_dir)
    assert_nothing_left(result.check, result.output)


@pytest.mark.parametrize("name", SMALLER)
@pytest.mark.slow
def test_scrubbed_copy_keeps_timing_structure_and_numbers(
    name: str, out_dir: Path
) -> None:
    result = scrubbed(name, out_dir)
    assert_same_skeleton(result.source, result.output)


@pytest.mark.parametrize("name", SMALLER)
def test_scrubbed_copy_checks_clean_and_keeps_compression(
    name: str, out_dir: Path
) -> None:
    result = scrubbed(name, out_dir)
    assert check_file(result.output, ScrubOptions(shapes=True)).clean
    was_gzip = result.source.read_bytes()[:2] == b"\x1f\x8b"
    assert (result.output.read_bytes()[:2] == b"\x1f\x8b") == was_gzip
    assert result.report.compressed == was_gzip


def test_clean_traces_check_clean_without_shapes() -> None:
    for name in (
        "trace_compare-base-base.json.gz",
        "trace_file_list-inference_rank_1.json.gz",
    ):
        assert check_file(TRACES / name).clean, name


def test_nanosecond_timestamps_survive_as_written(out_dir: Path) -> None:
    """Checked with Python's json keeping number text, independently of the scrubber."""
    name = "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    result = scrubbed(name, out_dir)

    def number_texts(path: Path) -> list[tuple[str, str]]:
        data = gzip.decompress(path.read_bytes())
        events = json.loads(data, parse_float=str)["traceEvents"]
        return [(str(e.get("ts")), str(e.get("dur"))) for e in events]

    before = number_texts(result.source)
    assert ("1712195495519689.047", "0.524") in before or any(
        ts == "1712195495519689.047" for ts, _ in before
    )
    assert number_texts(result.output) == before


@pytest.mark.slow
def test_mtia_trace_found_scrubbed_and_intact(out_dir: Path) -> None:
    """The 85 MB trace: one scrub, then every assertion on its report and copy."""
    if MTIA not in ALL:
        pytest.skip("MTIA trace not present")
    result = scrubbed(MTIA, out_dir, check=False)
    assert_expected_found(MTIA, result.report)
    assert_nothing_left(result.report, result.output)
    # Args numbers are compared on the fifteen other traces; here they would
    # double the time of the whole scrub test suite.
    assert_same_skeleton(result.source, result.output, with_args=False)
    data = read_raw(result.output).data
    assert b'"host_name":"<host-1>"' in data
    assert b'"username":"<user-1>"' in data
    assert b'"baseTimeNanoseconds":1727743122000000000' in data


def test_placeholders_are_stable_within_a_file(out_dir: Path) -> None:
    name = "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    result = scrubbed(name, out_dir)
    document = load(result.output)
    assert isinstance(document, dict)
    process_names = {
        event["args"]["name"]
        for event in document["traceEvents"]
        if event.get("name") == "process_name"
    }
    assert process_names == {"<proc-1>"}
    zones: dict[Decimal | int, str] = {}
    for event in document["traceEvents"]:
        if event.get("cat") == "user_annotation" and event["name"].startswith("<zone-"):
            zones.setdefault(event["ts"], event["name"])
    assert set(zones.values()) == {"<zone-1>", "<zone-2>", "<zone-3>"}

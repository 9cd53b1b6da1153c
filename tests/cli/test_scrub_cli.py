"""`steptrace scrub` end to end on small synthetic traces: exit codes, refusals,
compression, exact numbers, stable placeholders, the capture description.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.cli import main
from tui.core.base.errors import TraceLoadError
from tui.scrub import ScrubError, ScrubOptions, check_file, scrub_file

HOME = "/home/alice/proj"
TOKEN = "ghp_" + "Z9" * 18


def event(name: str, cat: str = "cpu_op", **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"ph": "X", "cat": cat, "name": name, "pid": 7, "tid": 7}
    base.update({"ts": 100, "dur": 5})
    base.update(extra)
    return base


def meta(kind: str, name: str, tid: int = 0) -> dict[str, Any]:
    return {"ph": "M", "name": kind, "pid": 7, "tid": tid, "args": {"name": name}}


def leaky_trace() -> dict[str, Any]:
    """A capture with one of everything the scrubber must take out."""
    return {
        "schemaVersion": 1,
        "traceName": f"{HOME}/out/trace.json",
        "host_name": "gpu17.cluster.example.com",
        "username": "alice",
        "tw_job": "nightly-resnet-alice-42",
        "INFO": ["INFO:2024-01-01 10:00:00 7:7 x.cpp:1] on gpu17.cluster.example.com"],
        "mystery": {"note": "who knows"},
        "steptrace": {
            "schema": 1,
            "question": "is compute waiting for data? ask alice@example.com",
            "zones": {
                "data": "lecture_batch_cpu",
                "declared": ["lecture_batch_cpu", "alice_zone"],
            },
            "environment": {
                "host_name": "gpu17.cluster.example.com",
                "cpu_model": "EPYC",
            },
            "command": ["python3.11", f"{HOME}/train.py", f"--hub-token={TOKEN}"],
        },
        "traceEvents": [
            meta("process_name", "alice_pipeline_v3"),
            meta("thread_name", "thread 7 (alice_pipeline_)", tid=7),
            meta("thread_name", "thread 8 (pt_autograd_0)", tid=8),
            event("ProfilerStep#3", "user_annotation", ts=90, dur=50),
            event("lecture_batch_cpu", "user_annotation"),
            event("transfert", "user_annotation"),
            event("entrainement", "user_annotation"),
            event(
                "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                "user_annotation",
            ),
            event("alice_zone", "user_annotation"),
            event("alice_zone", "gpu_user_annotation", pid=0, tid=7),
            event(f"{HOME}/model.py(12): forward", "python_function"),
            event(f"{HOME}/model.py(40): backward", "python_function"),
            event(f"{HOME}/data/loader.py(3): load", "python_function"),
            event(
                "aten::mm",
                args={
                    "Call stack": f"{HOME}/model.py(12): forward;torch/nn/modules/module.py(1): f",
                    "Input Dims": [[2, 3], [3, 4]],
                    "External id": 11,
                    "note": "hf_"
                    + "q" * 34
                    + " sk-"
                    + "w" * 30
                    + " AKIAABCDEFGHIJKLMNOP",
                },
            ),
            event("cudaLaunchKernel", "cuda_runtime", args={"correlation": 5}),
            event(
                "void gemm<float>(float*)",
                "kernel",
                pid=0,
                tid=7,
                args={"correlation": 5},
            ),
        ],
    }


def write(path: Path, document: Any, compress: bool = False) -> Path:
    data = json.dumps(document).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def read_json(path: Path) -> Any:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data, parse_float=Decimal)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["scrub", *argv])
    out, err = capsys.readouterr()
    return status, out, err


# --- exit codes and refusals ---------------------------------------------------


def test_check_exits_1_on_findings_and_lists_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    status, out, err = run(capsys, str(trace), "--check")
    assert status == 1, err
    for kind in (
        "secret",
        "email",
        "user",
        "host",
        "path",
        "metadata",
        "log",
        "unknown-key",
    ):
        assert f"  {kind} " in out
    assert "gpu17.cluster.example.com" in out
    assert "zone" in out and "kept unless --zones" in out


def test_check_exits_0_on_a_clean_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write(
        tmp_path / "t.json",
        {
            "traceEvents": [
                event("aten::mm"),
                event("ProfilerStep#1", "user_annotation"),
            ]
        },
    )
    status, out, _ = run(capsys, str(trace), "--check")
    assert status == 0
    assert "nothing identifying found" in out


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.json", b""),
        ("text.json", b"this is not json"),
        ("number.json", b"42"),
        ("object.json", b'{"events": []}'),
        ("array.json", b"[1, 2, 3]"),
        ("cut.json", b'{"traceEvents": [{"ph": "X"'),
        ("damaged.json.gz", b"\x1f\x8b\x08\x00garbage"),
        ("binary.json", bytes(range(256))),
        ("deep.json", b'{"traceEvents": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}"),
        (
            "deep_objects.json",
            b'{"traceEvents": [{"a": ' + b'{"b": ' * 900 + b"1" + b"}" * 901 + b"]}",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["--check", "-o"])
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
    mode: str,
) -> None:
    trace = tmp_path / name
    trace.write_bytes(content)
    argv = (
        [str(trace), "--check"]
        if mode == "--check"
        else [str(trace), "-o", str(tmp_path / "o.json")]
    )
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("steptrace: ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("target", ["missing.json", "."])
def test_missing_file_or_directory_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    status, _, err = run(capsys, str(tmp_path / target), "--check")
    assert status == 2
    assert err.startswith("steptrace: ") and err.count("\n") == 1


def test_scrub_refuses_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    out = tmp_path / "out.json"
    out.write_text("precious")
    status, _, err = run(capsys, str(trace), "-o", str(out))
    assert status == 2
    assert "already exists" in err and "not overwritten" in err
    assert out.read_text() == "precious"
    status, _, err = run(capsys, str(trace), "-o", str(trace))
    assert status == 2
    assert read_json(trace) == read_json(write(tmp_path / "again.json", leaky_trace()))


def test_scrub_needs_check_or_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    with pytest.raises(SystemExit) as exit_info:
        main(["scrub", str(trace)])
    assert exit_info.value.code == 2
    capsys.readouterr()


def test_api_raises_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("nope")
    with pytest.raises(TraceLoadError):
        check_file(bad)
    trace = write(tmp_path / "t.json", leaky_trace())
    with pytest.raises(ScrubError, match="already exists"):
        scrub_file(trace, trace)


# --- what the copy holds -----------------------------------------------------------


def test_scrubbed_copy_has_no_trace_of_the_leaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    out = tmp_path / "out.json"
    status, stdout, _ = run(capsys, str(trace), "-o", str(out), "--zones", "--shapes")
    assert status == 0
    assert "replaced or removed" in stdout
    text = out.read_text()
    for leak in (
        "alice",
        "gpu17",
        "example.com",
        "/home",
        TOKEN,
        "hf_",
        "sk-",
        "AKIA",
        "tw_job",
        "INFO",
        "mystery",
        "Input Dims",
        "nightly",
    ):
        assert leak not in text, leak
    status, _, _ = run(capsys, str(out), "--check", "--shapes")
    assert status == 0


def test_scrubbed_copy_keeps_structure_and_analysis_names(tmp_path: Path) -> None:
    original = leaky_trace()
    trace = write(tmp_path / "t.json", original)
    scrub_file(trace, tmp_path / "out.json", ScrubOptions(zones=True))
    scrubbed = read_json(tmp_path / "out.json")
    names = [e["name"] for e in scrubbed["traceEvents"]]
    for kept in (
        "ProfilerStep#3",
        "lecture_batch_cpu",
        "transfert",
        "entrainement",
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
        "aten::mm",
        "cudaLaunchKernel",
        "void gemm<float>(float*)",
    ):
        assert kept in names
    for before, after in zip(
        original["traceEvents"], scrubbed["traceEvents"], strict=True
    ):
        for key in ("ph", "cat", "ts", "dur", "pid", "tid"):
            assert before.get(key) == after.get(key)
    assert scrubbed["traceEvents"][2]["args"]["name"] == "thread 8 (pt_autograd_0)"
    assert scrubbed["steptrace"]["zones"]["data"] == "lecture_batch_cpu"


def test_placeholders_are_stable_within_a_file(tmp_path: Path) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    scrub_file(trace, tmp_path / "out.json", ScrubOptions(zones=True))
    doc = read_json(tmp_path / "out.json")
    events = doc["traceEvents"]
    by_name = {e["name"] for e in events if e.get("cat") == "python_function"}
    # One directory, one placeholder; basenames and line numbers kept.
    assert by_name == {
        "<path-2>/model.py(12): forward",
        "<path-2>/model.py(40): backward",
        "<path-3>/loader.py(3): load",
    }
    assert events[13]["args"]["Call stack"].startswith(
        "<path-2>/model.py(12): forward;torch/nn/"
    )
    assert doc["steptrace"]["command"][1] == "<path-2>/train.py"
    # A host named in the metadata is the same placeholder everywhere.
    assert (
        doc["host_name"] == doc["steptrace"]["environment"]["host_name"] == "<host-1>"
    )
    # A zone is renamed the same on the CPU, the GPU and in the description.
    zone = events[8]["name"]
    assert zone.startswith("<zone-") and events[9]["name"] == zone
    assert doc["steptrace"]["zones"]["declared"] == ["lecture_batch_cpu", zone]
    # A process and its threads (command names cut at 15 characters) match.
    assert events[0]["args"]["name"] == "<proc-1>"
    assert events[1]["args"]["name"] == "thread 7 (<proc-1>)"


def test_same_input_gives_the_same_copy(tmp_path: Path) -> None:
    trace = write(tmp_path / "t.json.gz", leaky_trace(), compress=True)
    scrub_file(trace, tmp_path / "a.json.gz")
    scrub_file(trace, tmp_path / "b.json.gz")
    assert (tmp_path / "a.json.gz").read_bytes() == (
        tmp_path / "b.json.gz"
    ).read_bytes()


def test_zones_are_kept_without_the_zones_flag(tmp_path: Path) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    report = scrub_file(trace, tmp_path / "out.json")
    zone = report.get("zone")
    assert zone is not None and not zone.scrubbed
    names = [e["name"] for e in read_json(tmp_path / "out.json")["traceEvents"]]
    # Kept as a zone, but the user name inside it still goes.
    assert "<user-1>_zone" in names


def test_user_found_in_a_path_is_hunted_everywhere(tmp_path: Path) -> None:
    document = {
        "traceEvents": [
            event("/home/bob/x.py(1): f", "python_function"),
            event("bob's experiment", "user_annotation"),
            meta("process_name", "python3.11"),
        ]
    }
    trace = write(tmp_path / "t.json", document)
    report = scrub_file(trace, tmp_path / "out.json")
    user = report.get("user")
    assert user is not None and user.values == ("bob",)
    assert "bob" not in (tmp_path / "out.json").read_text()


# --- compression and forms -----------------------------------------------------------


@pytest.mark.parametrize(
    ("gz_in", "in_name", "out_name", "gz_out"),
    [
        (True, "t.json", "o.json", True),  # gzip by its bytes, not its name
        (True, "t.json.gz", "o.json.gz", True),
        (False, "t.json", "o.json.gz", True),  # asked for by the name
        (False, "t.json", "o.json", False),
    ],
)
def test_compression_follows_the_input_bytes_or_the_output_name(
    tmp_path: Path, gz_in: bool, in_name: str, out_name: str, gz_out: bool
) -> None:
    trace = write(tmp_path / in_name, leaky_trace(), compress=gz_in)
    report = scrub_file(trace, tmp_path / out_name)
    assert report.compressed == gz_out
    assert ((tmp_path / out_name).read_bytes()[:2] == b"\x1f\x8b") == gz_out
    assert read_json(tmp_path / out_name)["traceEvents"]


def test_bare_array_traces_stay_arrays(tmp_path: Path) -> None:
    trace = write(
        tmp_path / "t.json",
        [event(f"{HOME}/x.py(1): f", "python_function"), event("aten::add")],
    )
    assert not check_file(trace).clean
    scrub_file(trace, tmp_path / "out.json")
    scrubbed = read_json(tmp_path / "out.json")
    assert isinstance(scrubbed, list)
    assert [e["name"] for e in scrubbed] == ["<path-1>/x.py(1): f", "aten::add"]


def test_nan_and_infinity_are_read_and_kept(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(
        '{"traceEvents": [{"ph": "X", "name": "aten::mm", "cat": "cpu_op", "ts": 1.5,'
        ' "dur": NaN, "args": {"a": Infinity, "b": -Infinity, "p": "/home/eve/a/b.py"}}]}'
    )
    scrub_file(trace, tmp_path / "out.json")
    text = (tmp_path / "out.json").read_text()
    assert '"dur":NaN' in text and '"a":Infinity' in text and '"b":-Infinity' in text
    assert "eve" not in text


def test_keys_are_scanned_too(tmp_path: Path) -> None:
    trace = write(
        tmp_path / "t.json",
        {
            "traceEvents": [
                event("aten::mm", args={"bob@example.com": 1, "External id": 2})
            ]
        },
    )
    report = scrub_file(trace, tmp_path / "out.json")
    assert report.get("email") is not None
    args = read_json(tmp_path / "out.json")["traceEvents"][0]["args"]
    assert list(args) == ["<email-1>", "External id"]


def test_lone_surrogates_are_written_back_as_escapes(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(
        '{"traceEvents": [{"ph": "X", "cat": "user_annotation", "ts": 1,'
        ' "name": "odd \\ud800 /home/zed/a/b.py"}]}'
    )
    scrub_file(trace, tmp_path / "out.json")
    text = (tmp_path / "out.json").read_text()
    assert "\\ud800" in text and "zed" not in text
    assert json.loads(text)["traceEvents"][0]["name"] == "odd \ud800 <path-1>/b.py"


def test_missing_output_folder_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    status, _, err = run(capsys, str(trace), "-o", str(tmp_path / "no" / "out.json"))
    assert status == 2
    assert "cannot create" in err and err.count("\n") == 1


# --- numbers ---------------------------------------------------------------------------

NUMBERS = [
    "1712195495519689.047",
    "3605054879330.587",
    "0.1",
    "1e-7",
    "-2.5E+30",
    "1.000000000000000000001",
    "-0.0",
    "18446744073709551617",
    "1727743122000000000",
    "0",
]


def test_numbers_round_trip_exactly(tmp_path: Path) -> None:
    events = ",".join(
        f'{{"ph":"X","cat":"cpu_op","name":"n{i}","pid":1,"tid":1,"ts":{n},"dur":{n},'
        f'"args":{{"v":{n},"p":"/home/zed/a/b"}}}}'
        for i, n in enumerate(NUMBERS)
    )
    trace = tmp_path / "t.json"
    trace.write_text(
        f'{{"baseTimeNanoseconds":{NUMBERS[-2]},"traceEvents":[{events}]}}'
    )
    scrub_file(trace, tmp_path / "out.json")
    before, after = read_json(trace), read_json(tmp_path / "out.json")
    assert after["baseTimeNanoseconds"] == before["baseTimeNanoseconds"]
    for old, new in zip(before["traceEvents"], after["traceEvents"], strict=True):
        for key in ("ts", "dur"):
            assert new[key] == old[key] and type(new[key]) is type(old[key])
        assert new["args"]["v"] == old["args"]["v"]
    assert "1712195495519689.047" in (tmp_path / "out.json").read_text()


def number_text(number: Decimal | int) -> str:
    """JSON text for a number; a Decimal always reads back as a float."""
    text = str(number)
    if isinstance(number, int) or any(c in text for c in ".eE"):
        return text
    return text + ".0"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.decimals(allow_nan=False, allow_infinity=False, places=6),
            st.decimals(allow_nan=False, allow_infinity=False),
            st.integers(),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_any_number_survives_exactly(
    tmp_path_factory: pytest.TempPathFactory, numbers: list[Any]
) -> None:
    folder = tmp_path_factory.mktemp("numbers")
    texts = [number_text(n) for n in numbers]
    events = ",".join(f'{{"ph":"X","name":"user /home/x/y/z","ts":{t}}}' for t in texts)
    trace = folder / "t.json"
    trace.write_text(f'{{"traceEvents":[{events}]}}')
    scrub_file(trace, folder / "o.json")
    before = [e["ts"] for e in read_json(trace)["traceEvents"]]
    after = [e["ts"] for e in read_json(folder / "o.json")["traceEvents"]]
    assert after == before


# --- reports ------------------------------------------------------------------------------


def test_json_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = write(tmp_path / "t.json", leaky_trace())
    status, out, _ = run(capsys, str(trace), "--check", "--json", "--shapes")
    assert status == 1
    report = json.loads(out)
    assert report["clean"] is False
    kinds = {finding["kind"]: finding for finding in report["findings"]}
    assert kinds["host"]["values"] == 1 and kinds["host"]["places"] >= 2
    assert kinds["shape"]["examples"][0]["where"].endswith("Input Dims")
    status, out, _ = run(capsys, str(trace), "-o", str(tmp_path / "o.json"), "--json")
    assert status == 0
    written = json.loads(out)
    assert written["gzip"] is False
    assert {item["kind"] for item in written["kept"]} == {"zone"}
    assert "gpu17" not in out  # the scrub report gives counts, not the values


def test_examples_are_escaped_for_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nasty = "zone \x1b[31mred\x1b[0m \u202eevil\x07 [bold]markup[/bold]"
    trace = write(
        tmp_path / "t.json", {"traceEvents": [event(nasty, "user_annotation")]}
    )
    status, out, _ = run(capsys, str(trace), "--check")
    assert status == 1
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "\\x1b[31mred" in out and "\\u202e" in out
    assert "[bold]markup[/bold]" in out
    status, out, _ = run(capsys, str(trace), "--check", "--json")
    assert "\\\\x1b" in out


def test_scrub_never_imports_textual_or_torch() -> None:
    code = (
        "import sys, tui.scrub, tui.commands.scrub;"
        "print(sorted({'textual', 'torch'} & set(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"

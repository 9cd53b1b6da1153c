"""Real captures on the CPU: the window, the zones, the description, and what is never overwritten."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

torch = pytest.importorskip("torch")

from collector import (  # noqa: E402
    CaptureIncompleteError,
    GpuCollectionUnavailableError,
    InvalidSettingError,
    OutputExistsError,
    OutputFolderError,
    Window,
    capture,
    validate_description,
)
from collector.capture_setup import GPU_NOT_OBSERVED  # noqa: E402
from collector.demo import (  # noqa: E402
    DEMO_ZONES,
    GPU_NOT_PROFILABLE,
    choose_device,
    run_demo,
)

pytestmark = [
    pytest.mark.torch,
    pytest.mark.filterwarnings("ignore:CUDA is not available:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*Profiler clears events:UserWarning"),
]


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Two shared cores: one intra-op thread avoids OpenMP stalls that make tiny steps slow."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(path.read_bytes())
    return data


def user_annotations(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        e
        for e in trace["traceEvents"]
        if e.get("ph") == "X" and e.get("cat") == "user_annotation"
    ]


def steps_of(trace: dict[str, Any]) -> dict[int, dict[str, Any]]:
    steps = {}
    for event in user_annotations(trace):
        match = re.fullmatch(r"ProfilerStep#(\d+)", event["name"])
        if match:
            steps[int(match.group(1))] = event
    return steps


def zones_inside(trace: dict[str, Any], step: dict[str, Any]) -> list[str]:
    end = step["ts"] + step["dur"]
    return [
        event["name"]
        for event in user_annotations(trace)
        if event["tid"] == step["tid"]
        and event["ts"] >= step["ts"]
        and event["ts"] + event["dur"] <= end
        and not event["name"].startswith("ProfilerStep#")
    ]


def tiny_capture(
    path: Path, window: Window, steps: int | None = None, **settings: Any
) -> Any:
    """A capture of a few matrix products, `steps` loop turns (default: the whole window)."""
    with capture(
        path, question="does the product dominate?", window=window, **settings
    ) as cap:
        for _ in range(window.total_steps if steps is None else steps):
            with cap.zone("produit"):
                torch.ones(16, 16) @ torch.ones(16, 16)
            cap.step()
    return cap


# -- the demo ------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    return run_demo(tmp_path_factory.mktemp("demo") / "demo.json", read_delay_ms=0.2)


def test_demo_records_exactly_the_active_steps(demo_trace: Path) -> None:
    trace = load(demo_trace)
    assert sorted(steps_of(trace)) == [2, 3]
    assert trace["steptrace"]["active_steps"] == [2, 3]


def test_demo_holds_the_three_zones_in_each_active_step(demo_trace: Path) -> None:
    trace = load(demo_trace)
    for number, step in steps_of(trace).items():
        inside = zones_inside(trace, step)
        for zone in DEMO_ZONES:
            assert inside.count(zone) == 1, (
                f"ProfilerStep#{number} lacks {zone}: {inside}"
            )
    assert DEMO_ZONES == ("lecture_batch_cpu", "transfert", "entrainement")


def test_demo_training_zone_holds_the_whole_update(demo_trace: Path) -> None:
    trace = load(demo_trace)
    names = {event["name"] for event in user_annotations(trace)}
    assert any(name.startswith("Optimizer.zero_grad#") for name in names)
    assert any(name.startswith("Optimizer.step#") for name in names)


# Independent of collector.schema: the explorer's contract, field by field.
NONE = type(None)
EXPECTED_TYPES: dict[str, Any] = {
    "schema": int,
    "created_utc": str,
    "question": str,
    "kind": str,
    "step_contents": list,
    "scenario": {
        "shapes": (str, NONE),
        "batch_size": (int, NONE),
        "precision": (str, NONE),
        "mode": (str, NONE),
        "compiled": (bool, NONE),
        "data_source": (str, NONE),
        "inputs_simplified": bool,
        "simplified_note": (str, NONE),
    },
    "window": {
        "wait": int,
        "warmup": int,
        "active": int,
        "repeat": int,
        "skip_first": int,
    },
    "active_steps": list,
    "options": {"record_shapes": bool, "with_stack": bool, "profile_memory": bool},
    "unit": {"name": str, "samples_per_step": (int, NONE)},
    "zones": {"data": str, "declared": list},
    "activities": {
        "requested": list,
        "observed": list,
        "gpu_missing_reason": (str, NONE),
    },
    "environment": {
        "torch": str,
        "cuda": (str, NONE),
        "hip": (str, NONE),
        "driver": (str, NONE),
        "device_name": (str, NONE),
        "cpu_model": (str, NONE),
        "cpu_cores": (int, NONE),
        "python": str,
        "platform": str,
        "host_name": (str, NONE),
    },
    "startup": {"before_first_step_ms": (float, NONE), "steps": list},
    "command": list,
    "warnings": list,
    "distributed": NONE,  # an object in a distributed run (test_collector_distributed)
}


def check_types(value: dict[str, Any], expected: dict[str, Any], where: str) -> None:
    assert set(value) == set(expected), f"{where}: keys {sorted(value)}"
    for key, kind in expected.items():
        if isinstance(kind, dict):
            check_types(value[key], kind, f"{where}.{key}")
        else:
            assert isinstance(value[key], kind), f"{where}.{key} = {value[key]!r}"
            if kind in (int, (int, NONE)):
                assert not isinstance(value[key], bool), f"{where}.{key} is a bool"


def test_description_round_trips_with_every_field_typed(demo_trace: Path) -> None:
    description = load(demo_trace)["steptrace"]
    check_types(description, EXPECTED_TYPES, "steptrace")
    assert validate_description(description) == []
    assert description["schema"] == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", description["created_utc"])
    assert description["kind"] == "train"
    assert description["step_contents"] == [
        "read",
        "transfer",
        "forward",
        "backward",
        "optimizer",
    ]
    assert description["window"] == {
        "wait": 1,
        "warmup": 1,
        "active": 2,
        "repeat": 1,
        "skip_first": 0,
    }
    assert description["zones"] == {
        "data": "lecture_batch_cpu",
        "declared": list(DEMO_ZONES),
    }
    assert description["activities"]["requested"] == ["cpu"]
    assert description["activities"]["observed"] == ["cpu"]
    assert description["environment"]["host_name"] is None
    assert description["scenario"]["inputs_simplified"] is True
    assert description["unit"] == {"name": "ms/step", "samples_per_step": 32}
    startup = description["startup"]
    assert [(s["step"], s["phase"]) for s in startup["steps"]] == [
        (0, "wait"),
        (1, "warmup"),
    ]
    assert all(s["ms"] > 0 for s in startup["steps"])
    assert startup["before_first_step_ms"] > 0


def test_validate_description_names_what_is_wrong(demo_trace: Path) -> None:
    description = load(demo_trace)["steptrace"]
    description["window"]["active"] = "2"
    del description["environment"]["torch"]
    problems = validate_description(description)
    assert "window.active: unexpected type str" in problems
    assert "environment.torch: missing" in problems


# -- never overwrite ---------------------------------------------------------


def test_existing_path_is_refused_and_left_untouched(tmp_path: Path) -> None:
    existing = tmp_path / "trace-step.json"
    existing.write_bytes(b"precious")
    os.utime(existing, ns=(1_000_000_000, 1_000_000_000))
    with pytest.raises(OutputExistsError) as refused:
        capture(existing, question="is the GPU waiting for data?")
    with pytest.raises(OutputExistsError):
        run_demo(existing, read_delay_ms=0)
    message = str(refused.value)
    assert "already exists" in message and "trace-step-" in message
    assert existing.read_bytes() == b"precious"
    assert existing.stat().st_mtime_ns == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace-step.json"]


def test_file_created_during_the_capture_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "race.json"
    with capture(target, question="q?", window=Window(0, 1, 1)) as cap:
        cap.step()
        target.write_bytes(b"someone else's")
        cap.step()
    assert target.read_bytes() == b"someone else's"
    assert len(cap.outputs) == 1 and cap.outputs[0] != target
    assert (
        steps_of(load(cap.outputs[0])) and "left untouched" in capsys.readouterr().err
    )
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_auto_picks_a_fresh_timestamped_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = tiny_capture(Path("auto"), Window(0, 1, 1)).outputs[0]
    second = tiny_capture(Path("auto"), Window(0, 1, 1)).outputs[0]
    assert first != second
    for written in (first, second):
        assert re.fullmatch(r"trace-\d{8}-\d{6}(-\d+)?\.json", written.name)
        assert written.resolve().parent == tmp_path.resolve()
    status = Path("/proc/self/status")
    if (
        status.exists()
    ):  # the file gets the usual permissions, not a temporary file's 0600
        umask = int(re.search(r"Umask:\s+(\d+)", status.read_text()).group(1), 8)  # type: ignore[union-attr]
        assert first.stat().st_mode & 0o777 == 0o666 & ~umask


def test_missing_folder_is_refused(tmp_path: Path) -> None:
    from collector import OutputFolderError

    with pytest.raises(OutputFolderError, match="does not exist"):
        capture(tmp_path / "nowhere" / "t.json", question="q?")


# -- GPU -------------------------------------------------------------------


def test_gpu_is_refused_when_this_build_cannot_collect_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        torch.profiler,
        "supported_activities",
        lambda: {torch.profiler.ProfilerActivity.CPU},
    )
    with pytest.raises(
        GpuCollectionUnavailableError, match="refusing to present a CPU-only capture"
    ):
        capture(
            tmp_path / "gpu.json",
            question="is the GPU waiting for data?",
            device="cuda",
        )
    assert not (tmp_path / "gpu.json").exists()


def test_gpu_asked_but_not_observed_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    activity = torch.profiler.ProfilerActivity
    monkeypatch.setattr(
        torch.profiler, "supported_activities", lambda: {activity.CPU, activity.CUDA}
    )
    cap = tiny_capture(tmp_path / "gpu.json", Window(0, 1, 1), device="cuda")
    description = load(cap.outputs[0])["steptrace"]
    assert description["activities"]["requested"] == ["cpu", "cuda"]
    assert description["activities"]["observed"] == ["cpu"]
    assert description["activities"]["gpu_missing_reason"] == GPU_NOT_OBSERVED
    assert GPU_NOT_OBSERVED in description["warnings"]
    assert "no GPU event" in capsys.readouterr().err


def pretend_a_gpu(
    monkeypatch: pytest.MonkeyPatch, *, available: bool, profilable: bool
) -> None:
    """What torch would say on a GPU box, with or without GPU event collection."""
    activity = torch.profiler.ProfilerActivity
    supported = {activity.CPU, activity.CUDA} if profilable else {activity.CPU}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
    monkeypatch.setattr(torch.profiler, "supported_activities", lambda: supported)


@pytest.mark.parametrize(
    ("available", "profilable", "for_capture", "expected"),
    [
        (False, False, True, ("cpu", None)),
        (True, True, True, ("cuda", None)),
        (True, False, True, ("cpu", GPU_NOT_PROFILABLE)),
        (True, False, False, ("cuda", None)),
    ],
    ids=["no-gpu", "gpu", "gpu-without-profiling", "gpu-bench"],
)
def test_demo_auto_device_follows_what_torch_sees(
    monkeypatch: pytest.MonkeyPatch,
    available: bool,
    profilable: bool,
    for_capture: bool,
    expected: tuple[str, str | None],
) -> None:
    pretend_a_gpu(monkeypatch, available=available, profilable=profilable)
    device, note = choose_device("auto", for_capture=for_capture)
    assert (device.type, note) == expected
    assert choose_device("cpu", for_capture=for_capture) == (torch.device("cpu"), None)


def test_demo_on_a_gpu_it_cannot_profile_runs_on_the_cpu_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pretend_a_gpu(monkeypatch, available=True, profilable=False)
    path = run_demo(tmp_path / "d.json", "auto", Window(0, 1, 1), read_delay_ms=0)
    description = load(path)["steptrace"]
    assert description["activities"]["requested"] == ["cpu"]
    assert description["question"] == "is compute waiting for data?"
    assert GPU_NOT_PROFILABLE in description["warnings"]


def test_demo_asked_for_cuda_is_refused_without_a_gpu_or_its_collection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pretend_a_gpu(monkeypatch, available=False, profilable=False)
    with pytest.raises(InvalidSettingError, match="sees no GPU"):
        run_demo(tmp_path / "d.json", "cuda")
    pretend_a_gpu(monkeypatch, available=True, profilable=False)
    with pytest.raises(GpuCollectionUnavailableError):
        run_demo(tmp_path / "d.json", "cuda")
    assert not list(tmp_path.iterdir())


def test_demo_auto_name_goes_under_captures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = run_demo(None, "cpu", Window(0, 1, 1), read_delay_ms=0)
    second = run_demo("auto", "cpu", Window(0, 1, 1), read_delay_ms=0)
    assert first.parent == second.parent == tmp_path / "captures"
    assert first != second and first.name.startswith("steptrace-demo-")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["captures"]


def test_demo_says_when_captures_cannot_be_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "captures").write_bytes(b"a file")
    with pytest.raises(OutputFolderError, match="captures"):
        run_demo(None, "cpu", Window(0, 1, 1), read_delay_ms=0)
    assert (tmp_path / "captures").read_bytes() == b"a file"


# -- windows ---------------------------------------------------------------


def test_any_window_can_be_asked_for(tmp_path: Path) -> None:
    cap = tiny_capture(
        tmp_path / "w.json", Window(wait=2, warmup=1, active=3, skip_first=1)
    )
    trace = load(cap.outputs[0])
    assert sorted(steps_of(trace)) == [4, 5, 6]
    description = trace["steptrace"]
    assert description["active_steps"] == [4, 5, 6]
    assert [(s["step"], s["phase"]) for s in description["startup"]["steps"]] == [
        (0, "wait"),
        (1, "wait"),
        (2, "wait"),
        (3, "warmup"),
    ]
    assert description["startup"]["before_first_step_ms"] is None


def test_repeat_writes_one_file_per_cycle(tmp_path: Path) -> None:
    cap = tiny_capture(
        tmp_path / "r.json", Window(wait=0, warmup=1, active=1, repeat=2)
    )
    assert [p.name for p in cap.outputs] == ["r.json", "r.cycle2.json"]
    assert [load(p)["steptrace"]["active_steps"] for p in cap.outputs] == [[1], [3]]


def test_window_ended_before_any_active_step_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(CaptureIncompleteError, match="needs 4 steps"):
        tiny_capture(tmp_path / "short.json", Window(), steps=2)
    assert list(tmp_path.iterdir()) == []


def test_window_cut_short_is_written_and_said(tmp_path: Path) -> None:
    cap = tiny_capture(tmp_path / "cut.json", Window(), steps=3)
    description = load(cap.outputs[0])["steptrace"]
    assert description["active_steps"] == [2]
    assert (
        "ProfilerStep#3 was cut short when the capture ended: it is not a full step"
        in description["warnings"]
    )
    assert "window incomplete: 1 of 2 active steps recorded" in description["warnings"]


def test_exception_inside_the_window_still_writes_what_was_recorded(
    tmp_path: Path,
) -> None:
    with (
        pytest.raises(ZeroDivisionError),
        capture(tmp_path / "e.json", question="q?", window=Window(0, 1, 2)) as cap,
    ):
        cap.step()
        cap.step()
        1 / 0  # noqa: B018
    description = load(cap.outputs[0])["steptrace"]
    assert description["active_steps"] == [1]
    assert (
        "the capture ended early with an exception (ZeroDivisionError)"
        in description["warnings"]
    )


# -- cost and leaks ----------------------------------------------------------


def test_costly_options_are_recorded_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = tiny_capture(tmp_path / "o.json", Window(0, 1, 1), record_shapes=True)
    description = load(cap.outputs[0])["steptrace"]
    assert description["options"] == {
        "record_shapes": True,
        "with_stack": False,
        "profile_memory": False,
    }
    assert any("keep tensors alive" in warning for warning in description["warnings"])
    assert "keep tensors alive" in capsys.readouterr().err


def test_suspicious_zone_name_warns_without_copying_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with capture(tmp_path / "z.json", question="q?", window=Window(0, 1, 1)) as cap:
        for _ in range(2):
            with cap.zone("read alice@example.com"):
                pass
            cap.step()
    description = load(cap.outputs[0])["steptrace"]
    assert (
        "a zone name looks like it holds an e-mail address"
        in description["warnings"][0]
    )
    assert not any("alice@" in warning for warning in description["warnings"])
    assert "alice@example.com" in capsys.readouterr().err


def test_question_is_required(tmp_path: Path) -> None:
    from collector import InvalidSettingError

    with pytest.raises(InvalidSettingError, match="question"):
        capture(tmp_path / "q.json", question="  ")

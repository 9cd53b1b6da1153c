"""A verdict that holds: comparability read from the traces' own
metadata, a stalled first or last step set aside for its reason (never by
its duration alone), an exact Mann–Whitney U test behind a one-capture
likely_ verdict, per-step deltas and kernels matched by family across GPU
architectures. Traces are built here, so every figure is known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import CPU_TID, cpu, gpu, write_trace
from tui.core.diff.families import kernel_family
from tui.core.diff.kept import kept_steps, mann_whitney_p
from tui.core.diff.stalls import StepExtra
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.diff import DiffResult
from tui.report.diff import diff_text

STEPS_US = [10_000.0, 10_400.0, 10_200.0, 10_100.0, 10_300.0, 10_250.0]


def device(name: str, major: int = 8) -> dict[str, Any]:
    return {
        "id": 0,
        "name": name,
        "totalGlobalMem": 42_297_524_224,
        "computeMajor": major,
        "computeMinor": 0,
    }


def build(
    path: Path,
    durations_us: list[float] = STEPS_US,
    *,
    extra: dict[str, Any] | None = None,
    kernel: str | None = None,
    mm_per_step: int = 1,
) -> Path:
    events = []
    at = 0.0
    for number, duration in enumerate(durations_us, start=2):
        events.append(
            cpu(f"ProfilerStep#{number}", at, duration, cat="user_annotation")
        )
        events.append(cpu("lecture_batch_cpu", at + 10, 100, cat="user_annotation"))
        for call in range(mm_per_step):
            events.append(cpu("aten::mm", at + 200 + call * 60, 50))
        if kernel is not None:
            events.append(gpu(kernel, at + 300, 40))
        at += duration + 10
    return write_trace(path, events, extra=extra)


def result(before: Path, after: Path) -> DiffResult:
    return DiffResult.of(Analysis(load_trace(before)), Analysis(load_trace(after)))


def test_the_exact_mann_whitney_p_of_two_separated_samples() -> None:
    # All 5 after above all 5 before: U = 0, P(U <= 0) = 1 / C(10, 5) = 1/252.
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)
    assert mann_whitney_p([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)


def extras(
    untraced_ns: list[int], compile_ns: list[int] | None = None
) -> tuple[StepExtra, ...]:
    """Steps 2.. with these untraced and compilation times (no runtime stall)."""
    compiling = compile_ns or [0] * len(untraced_ns)
    return tuple(
        StepExtra(step, 0, build, untraced, untraced + build, ())
        for step, (untraced, build) in enumerate(
            zip(untraced_ns, compiling, strict=True), start=2
        )
    )


def test_a_slow_first_step_is_kept_unless_its_time_sits_in_what_the_others_lack() -> (
    None
):
    durations = (30_000, 10_000, 10_400, 10_200, 10_100, 10_300)
    numbers = tuple(range(2, 8))
    # Its duration alone (no extras read), or extra time in the same kind of
    # time every step has (the data zone, say): kept.
    assert kept_steps(numbers, durations).kept == numbers
    same = extras([1_000] * 6)
    assert kept_steps(numbers, durations, same).set_aside == ()
    # 19.5 µs of its 19.8 µs extra in a compilation range the others lack.
    compiled = extras([1_000] * 6, [19_500, 0, 0, 0, 0, 0])
    kept = kept_steps(numbers, durations, compiled)
    assert kept.kept == (3, 4, 5, 6, 7)
    assert [(entry.step, entry.why.split(":")[0]) for entry in kept.set_aside] == [
        (2, "compilation")
    ]


def test_no_fence_sets_the_quickest_step_or_a_middle_spike_aside() -> None:
    """Far fences on a handful of steps would drop these; only an edge step with
    a reason goes."""
    durations = (10_400, 10_500, 50_000, 10_450, 10_500, 10_480, 9_000)
    numbers = tuple(range(7))
    kept = kept_steps(numbers, durations, extras([500] * 7))
    assert kept.kept == numbers and kept.set_aside == ()
    # The last step slow with untraced time the others lack: set aside.
    slow_end = (*durations[:-1], 25_000)
    kept = kept_steps(numbers, slow_end, extras([500] * 6 + [15_000]))
    assert [entry.step for entry in kept.set_aside] == [6]
    assert kept.set_aside[0].why.startswith("untraced time: the window's last step is")


def test_a_step_compiling_anywhere_in_the_window_is_set_aside() -> None:
    """A recompile in a middle step (no edge rule reaches it) is set aside with
    its compile time; compile time every step has alike sets none aside."""
    durations = (10_400, 10_500, 500_000, 10_450, 10_500, 10_480, 9_000)
    numbers = tuple(range(7))
    compiling = extras([500] * 7, [0, 0, 489_000, 0, 0, 0, 0])
    kept = kept_steps(numbers, durations, compiling)
    assert kept.kept == (0, 1, 3, 4, 5, 6)
    assert [(entry.step, entry.duration_ns) for entry in kept.set_aside] == [
        (2, 500_000)
    ]
    assert kept.set_aside[0].why == (
        "compilation: step 2 holds 489 µs of torch.compile compile ranges,"
        " which the other steps lack"
    )
    # Two steps compiling, one of them the last: both go, the others stay.
    twice = extras([500] * 7, [0, 0, 489_000, 0, 0, 0, 8_000])
    twice_aside = kept_steps(numbers, durations, twice).set_aside
    assert [entry.step for entry in twice_aside] == [2, 6]
    alike = extras([500] * 7, [2_000] * 7)
    assert kept_steps(numbers, durations, alike).set_aside == ()


def test_same_trace_against_itself_is_identical(tmp_path: Path) -> None:
    path = build(tmp_path / "one.json")
    payload = result(path, path).to_json()
    assert payload["steps"]["verdict"] == "identical"
    assert payload["steps"]["reason"] == "the same file on both sides"
    assert payload["comparable"] is True
    # A byte-for-byte copy elsewhere: the same figures.
    copy = tmp_path / "copy.json"
    copy.write_bytes(path.read_bytes())
    again = result(path, copy).to_json()["steps"]
    assert again["verdict"] == "identical"
    assert again["reason"].startswith("the same figures on both sides")


def test_a_stalled_first_step_no_longer_hides_a_quicker_capture(
    tmp_path: Path,
) -> None:
    # The after side's first step lasts 15 ms, 10 ms of it untraced on its
    # thread where the other steps have none of that: the raw ranges overlap.
    after_steps = [value / 2 for value in STEPS_US]
    after_steps[0] = STEPS_US[0] * 1.5
    before = build(tmp_path / "before.json")
    after = build(tmp_path / "after.json", after_steps)
    payload = result(before, after).to_json()
    steps = payload["steps"]
    assert steps["verdict"] == "likely_faster"
    assert "one capture a side: run-to-run variance unknown" in steps["reason"]
    assert steps["after"]["kept"] == [3, 4, 5, 6, 7]
    assert steps["after"]["set_aside"] == [
        {
            "step": 2,
            "duration_us": 15_000.0,
            "why": steps["after"]["set_aside"][0]["why"],
        }
    ]
    assert steps["after"]["set_aside"][0]["why"].startswith("untraced time:")
    assert steps["test"]["name"].startswith("Mann")


def test_overlapping_ranges_with_a_significant_rank_test_give_an_order(
    tmp_path: Path,
) -> None:
    before_steps = [10_000.0, 10_100.0, 10_200.0, 10_300.0, 10_400.0, 10_550.0]
    after_steps = [10_500.0, 10_600.0, 10_700.0, 10_800.0, 10_900.0, 11_000.0]
    payload = result(
        build(tmp_path / "b.json", before_steps),
        build(tmp_path / "a.json", after_steps),
    ).to_json()
    assert payload["steps"]["verdict"] == "likely_slower"
    assert payload["steps"]["test"]["p"] < 0.05
    assert "rank test" in payload["steps"]["reason"]


def test_three_steps_a_side_with_overlap_is_inconclusive_with_its_reason(
    tmp_path: Path,
) -> None:
    payload = result(
        build(tmp_path / "b.json", [10_000.0, 10_200.0, 10_400.0]),
        build(tmp_path / "a.json", [10_300.0, 10_500.0, 10_700.0]),
    ).to_json()
    assert payload["steps"]["verdict"] == "inconclusive"
    assert "3 steps" in payload["steps"]["reason"]


def test_a_different_device_makes_the_pair_not_comparable(tmp_path: Path) -> None:
    before = build(
        tmp_path / "b.json",
        extra={
            "deviceProperties": [device("NVIDIA A100-SXM4-40GB")] * 8,
            "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
        },
    )
    after = build(
        tmp_path / "a.json",
        [value * 2 for value in STEPS_US],
        extra={
            "deviceProperties": [device("Tesla V100-SXM2-16GB", 7)] * 2,
            "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
        },
    )
    outcome = result(before, after)
    payload = outcome.to_json()
    assert payload["comparable"] is False
    assert payload["steps"]["verdict"] == "not_comparable"
    checks = {entry["check"]: entry for entry in payload["comparability"]}
    assert checks["device model"] == {
        "check": "device model",
        "before": "NVIDIA A100-SXM4-40GB",
        "after": "Tesla V100-SXM2-16GB",
        "same": False,
    }
    assert checks["device count"]["same"] is False
    assert checks["world size"] == {
        "check": "world size",
        "before": 8,
        "after": 2,
        "same": False,
    }
    assert checks["rank"]["same"] is False
    assert checks["torch version"]["same"] is None
    reasons = " ".join(payload["warnings"])
    assert "device model" in reasons and "world size" in reasons
    # The deltas are still shown.
    assert payload["steps"]["change_pct"] == pytest.approx(100.0)
    assert payload["ops"]
    text = diff_text(outcome)
    assert "not comparable" in text.lower()
    assert "not recorded" in text


def test_per_step_operator_figures_are_means_of_the_kept_steps(tmp_path: Path) -> None:
    # Two steps against eight of the same code: the whole-trace totals differ
    # fourfold, the per-step figures not at all.
    before = build(tmp_path / "b.json", STEPS_US[:2], mm_per_step=2)
    after = build(tmp_path / "a.json", STEPS_US + STEPS_US[:2], mm_per_step=2)
    payload = result(before, after).to_json()
    mm = next(row for row in payload["ops"] if row["name"] == "aten::mm")
    assert mm["self_cpu_us_before"] == 200.0
    assert mm["self_cpu_us_after"] == 800.0
    assert mm["self_cpu_us_per_step_before"] == pytest.approx(100.0)
    assert mm["self_cpu_us_per_step_after"] == pytest.approx(100.0)
    assert mm["calls_per_step_before"] == pytest.approx(2.0)
    assert payload["ops"][0]["name"] != "aten::mm" or all(
        row["self_cpu_us_per_step_after"] == row["self_cpu_us_per_step_before"]
        for row in payload["ops"]
    )


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("volta_sgemm_128x32_nt", "sgemm"),
        ("ampere_sgemm_128x64_nn", "sgemm"),
        ("sm80_xmma_gemm_f32f32_tn_n", "xmma_gemm_f32f32"),
        (
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
            "at::native::vectorized_elementwise_kernel<at::native::FillFunctor<float>>",
        ),
        (
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_tn_align4>(Params)",
            "cutlass::Kernel<tensorop_s1688gemm>",
        ),
        ("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)"),
    ],
)
def test_kernel_names_reduce_to_a_family(name: str, family: str) -> None:
    assert kernel_family(name) == family


def test_kernels_of_two_architectures_compare_as_one_row(tmp_path: Path) -> None:
    before = build(tmp_path / "b.json", kernel="volta_sgemm_128x32_nt")
    after = build(tmp_path / "a.json", kernel="ampere_sgemm_128x64_nn")
    payload = result(before, after).to_json()
    rows = payload["kernels"]
    assert len(rows) == 1
    assert rows[0]["status"] == "both"
    assert rows[0]["matched_by"] == "family"
    assert rows[0]["names_before"] == ["volta_sgemm_128x32_nt"]
    assert rows[0]["names_after"] == ["ampere_sgemm_128x64_nn"]
    assert rows[0]["total_us_per_step_before"] == pytest.approx(40.0)


def test_two_different_functors_never_merge_and_unmatched_kernels_are_listed(
    tmp_path: Path,
) -> None:
    fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"
    add = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)"
    payload = result(
        build(tmp_path / "b.json", kernel=fill), build(tmp_path / "a.json", kernel=add)
    ).to_json()
    assert sorted((row["status"], row["matched_by"]) for row in payload["kernels"]) == [
        ("added", "name"),
        ("removed", "name"),
    ]


def test_the_screen_names_only_the_checks_it_made_and_the_steps_set_aside(
    tmp_path: Path,
) -> None:
    """No 'comparable (same environment, …)' above 'no capture
    description'; the checks made, those not recorded, and the warm-up step."""
    from tui.view.comparison import comparability_text, verdict_text

    after_steps = [value / 2 for value in STEPS_US]
    after_steps[0] = STEPS_US[0] * 1.5
    outcome = result(
        build(tmp_path / "b.json"), build(tmp_path / "a.json", after_steps)
    )
    checks = comparability_text(outcome).plain
    assert "same environment" not in checks
    assert "comparable: same" in checks and "GPU" in checks
    assert "not recorded: device" in checks
    assert "neither capture has a capture description" in checks  # the caveat
    verdict = verdict_text(outcome).plain
    assert "LIKELY FASTER" in verdict
    assert "set aside: after #2 15" in verdict and "ms (untraced time)" in verdict
    assert "runs: 1 before" in verdict and "what moved:" in verdict


def test_a_not_comparable_tested_by_never_reads_as_a_change() -> None:
    """A note's tested-by line keeps the diff's not_comparable verdict without
    the median change (it would read as a speed-up of another machine)."""
    from tui.core.base.vocab import Verdict
    from tui.notes.link import TestedBy
    from tui.report.notes import tested_by_text

    tested = TestedBy(
        "after.json",
        "after.json",
        Verdict.NOT_COMPARABLE,
        comparable=False,
        before_ms=(10.0, 10.2),
        after_ms=(20.0, 20.4),
        change_pct=100.0,
        warnings=("world size differs: 8 before, 2 after",),
    )
    text = tested_by_text(tested)
    assert text.startswith("not_comparable")
    assert "+100.0%" not in text and "world size differs" in text


def test_a_slow_first_step_busy_on_another_thread_is_kept(tmp_path: Path) -> None:
    """Its extra 10 ms is an operator on a second thread: traced work, no reason
    to set it aside (the same step with nothing recorded is set aside above)."""
    events = []
    at = 0.0
    durations = [15_000.0, 5_000.0, 5_200.0, 5_100.0, 5_050.0, 5_150.0]
    for number, duration in enumerate(durations, start=2):
        events.append(
            cpu(f"ProfilerStep#{number}", at, duration, cat="user_annotation")
        )
        events.append(cpu("aten::mm", at + 200, 4_500))
        if number == 2:
            events.append(cpu("aten::bmm", at + 4_800, 10_000, tid=CPU_TID + 1))
        at += duration + 10
    path = write_trace(tmp_path / "busy.json", events)
    payload = result(build(tmp_path / "b.json"), path).to_json()
    assert payload["steps"]["after"]["set_aside"] == []
    assert payload["steps"]["after"]["kept"] == list(range(2, 8))

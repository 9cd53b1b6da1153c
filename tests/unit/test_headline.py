"""The first screen's headline: the top finding in the findings' own order, the
device's state, and a run's slow rank, worded without Textual."""

from __future__ import annotations

from tui.core.base.vocab import CollectiveSide, FindingId, FindingStatus
from tui.core.figures.device_load import DeviceLoad
from tui.core.findings.dominant import DominantFigures
from tui.core.findings.finding import Finding, ShowOperator
from tui.core.findings.late_rank import LateRankFigures
from tui.core.findings.weights import Weight
from tui.report.headline import (
    COMPUTING,
    NOTHING_ABOVE_NOISE,
    SUBJECT_CELLS,
    capture_headline,
    device_state,
    run_headline,
    top_finding,
)

MS = 1_000_000


def _dominant(
    operator: str, cost_ms: float, status: FindingStatus = FindingStatus.LIKELY
) -> Finding:
    figures = DominantFigures(
        operator, 0.5, int(cost_ms * MS), 2 * int(cost_ms * MS), 3, "GPU"
    )
    weight = Weight(cost_ms * MS, 100 * MS)
    return Finding(
        FindingId.DOMINANT_OP, status, figures, ShowOperator(operator), weight=weight
    )


def _load(busy: float, *, host_ahead: bool, device: int | None = 0) -> DeviceLoad:
    return DeviceLoad(
        device, (), busy, 4.0 if host_ahead else 0.2, None, host_ahead, ()
    )


def test_lead_is_the_first_finding_as_ranked_with_cost_and_share() -> None:
    """The findings' order decides, even when a later one weighs more."""
    first, costlier = _dominant("aten::mm", 34.0), _dominant("aten::conv", 60.0)
    said = capture_headline([first, costlier], ())
    assert said.lead == (
        "One operator dominates (aten::mm): 34 ms per step (34% of the median step)"
    )
    assert top_finding([first, costlier]) is first


def test_minor_findings_do_not_lead() -> None:
    minor = _dominant("aten::mm", 1.0, FindingStatus.MINOR)
    assert top_finding([minor]) is None
    assert capture_headline([minor], ()).lead == NOTHING_ABOVE_NOISE
    possible = _dominant("aten::add", 0.5, FindingStatus.POSSIBLE)
    assert top_finding([minor, possible]) is possible


def test_pending_and_failed_findings_say_so() -> None:
    assert capture_headline(None, ()).lead == COMPUTING
    failed = capture_headline(None, (), problem="could not compute: boom")
    assert failed.lead == "no findings: could not compute: boom"


def test_long_names_are_cut_at_the_end() -> None:
    name = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t_long_suffix"
    lead = capture_headline([_dominant(name, 10.0)], ()).lead
    assert f"({name[: SUBJECT_CELLS - 1]}…)" in lead


def test_device_bound_only_when_saturated() -> None:
    assert device_state([_load(0.93, host_ahead=True)]) == (
        "device 0 93% busy (median step): device-bound"
    )
    busy_but_host_late = device_state([_load(0.93, host_ahead=False)])
    assert "device-bound" not in busy_but_host_late
    assert "93% busy" in busy_but_host_late
    assert "device-bound" not in device_state([_load(0.4, host_ahead=True)])
    assert device_state([]) == ""


def test_the_busiest_of_several_devices_speaks() -> None:
    said = device_state(
        [_load(0.2, host_ahead=False, device=0), _load(0.9, host_ahead=True, device=1)]
    )
    assert said == "device 1 (busiest of 2) 90% busy (median step): device-bound"


def _late(seen: bool) -> Finding:
    figures = LateRankFigures(
        rank=2,
        late_steps=3 if seen else 1,
        steps=4,
        median_wait_ns=12.5 * MS,
        median_step_ns=50 * MS,
        peer=0,
        side=CollectiveSide.GPU,
    )
    status = FindingStatus.LIKELY if seen else FindingStatus.NOT_SEEN
    weight = Weight(12.5 * MS, 50 * MS) if seen else None
    return Finding(FindingId.LATE_RANK, status, figures, weight=weight)


def test_run_names_the_slow_rank_with_the_wait_per_step() -> None:
    said = run_headline(_late(seen=True))
    assert said.lead == (
        "rank 2 reaches the collectives last in 3 of 4 steps; the others wait"
        " 12.5 ms per step for it (25% of the median step)"
    )


def test_run_without_a_late_rank_says_none_is_late() -> None:
    said = run_headline(_late(seen=False))
    assert said.lead.startswith("no rank is late at the collectives in most steps")
    assert "others wait" not in said.lead.split("(")[0]


def test_a_cost_past_the_median_step_is_never_a_share_above_100() -> None:
    lead = capture_headline([_dominant("aten::mm", 130.0)], ()).lead
    assert lead.endswith("130 ms per step (more than the median step)")
    assert "%" not in lead


def test_a_run_says_its_ranks_device_busy_share() -> None:
    said = run_headline(_late(seen=True), {0: 0.81, 1: 0.69, 2: 0.63})
    assert said.device == "device 69% busy (median of 3 ranks; least: rank 2, 63%)"
    assert run_headline(_late(seen=False), {0: 0.5}).device == (
        "device 50% busy (median of 1 rank)"
    )
    assert run_headline(_late(seen=True), {}).device == ""

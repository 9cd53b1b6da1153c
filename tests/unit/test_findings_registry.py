"""Each finding is registered once: one rule (its id, figures, anchors, reading) and
one words entry, and the readers run and word exactly what is registered."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings import readings
from tui.core.findings.finding import Figures, Finding, Show, ShowStep
from tui.core.findings.registry import BY_ID, RULES
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale
from tui.core.ingest.load import load_trace
from tui.report.finding_words.registry import TEXTS, text_of
from tui.report.finding_words.wording import FindingText, Wording
from tui.report.findings import words


def test_every_finding_has_exactly_one_rule() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(FindingId)
    assert set(BY_ID) == set(FindingId)


def test_every_finding_has_exactly_one_words_entry_for_its_figures() -> None:
    ids = [text.id for text in TEXTS]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(FindingId)
    for rule in RULES:
        assert text_of(rule.id).figures is rule.figures


def test_each_rule_declares_its_own_figures_and_anchor_kinds() -> None:
    figures = [rule.figures for rule in RULES]
    assert len(figures) == len(set(figures))
    for rule in RULES:
        assert issubclass(rule.figures, Figures) and rule.figures is not Figures
        assert rule.anchors and all(issubclass(kind, Show) for kind in rule.anchors)
    # Only the run's reading is read on runs, not on one capture.
    assert [rule.id for rule in RULES if rule.read is None] == [FindingId.LATE_RANK]


@pytest.mark.parametrize("gpu", [True, False])
def test_a_capture_gets_one_finding_per_rule_of_its_declared_types(
    tmp_path: Path, gpu: bool
) -> None:
    analysis = Analysis(load_trace(write_training_trace(tmp_path / "t.json", gpu=gpu)))
    found = readings.compute_findings(analysis)
    assert sorted(finding.id for finding in found) == sorted(
        rule.id for rule in RULES if rule.read is not None
    )
    for finding in found:
        rule = BY_ID[finding.id]
        assert finding.figures is None or isinstance(finding.figures, rule.figures)
        assert finding.anchor is None or isinstance(finding.anchor, rule.anchors)
    if gpu:  # the GPU capture measures all but the absent syncs
        measured = {finding.id for finding in found if finding.figures is not None}
        assert measured == set(BY_ID) - {FindingId.HOST_SYNC, FindingId.LATE_RANK}


@dataclass(frozen=True)
class _NewFigures(Figures):
    """A finding the registry does not hold."""

    waits_ns: float


def _new_finding(analysis: Analysis, scale: Scale) -> Finding:
    status, weight = scale.weigh(True, 2_000_000.0)
    return Finding(
        FindingId.LATE_RANK,
        status,
        _NewFigures(2_000_000.0),
        ShowStep(1),
        weight=weight,
    )


def test_compute_findings_runs_what_is_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = Analysis(load_trace(write_training_trace(tmp_path / "t.json", gpu=True)))
    added = FindingRule(FindingId.LATE_RANK, _NewFigures, (ShowStep,), _new_finding)
    monkeypatch.setattr(readings, "RULES", (*RULES[:2], added))
    found = readings.compute_findings(analysis)
    assert sorted(finding.id for finding in found) == sorted(
        [RULES[0].id, RULES[1].id, FindingId.LATE_RANK]
    )
    new = next(f for f in found if isinstance(f.figures, _NewFigures))
    assert new.status is FindingStatus.LIKELY  # 2 ms of a 9.95 ms median step


def _said(figures: _NewFigures, seen: bool) -> str:
    return f"waits {figures.waits_ns:.0f} ns" + ("" if seen else " (not seen)")


def _reworded(figures: _NewFigures, seen: bool, wording: Wording) -> Wording:
    return Wording(f"{wording.title}: {figures.waits_ns:.0f} ns", "h2", "c2")


def test_words_come_from_the_entry_and_only_for_its_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry = FindingText(
        FindingId.LATE_RANK,
        _NewFigures,
        Wording("New", "h", "c"),
        _said,
        _reworded,
        without_figures="nothing measured",
    )
    from tui.report.finding_words import registry

    monkeypatch.setitem(registry.BY_ID, FindingId.LATE_RANK, entry)
    seen = Finding(FindingId.LATE_RANK, FindingStatus.LIKELY, _NewFigures(5.0))
    said = words(seen)
    assert (said.title, said.hypothesis, said.next_check) == ("New: 5 ns", "h2", "c2")
    assert said.observation == "waits 5 ns"
    # Without its figures the entry keeps its own wording and says so.
    bare = words(Finding(FindingId.LATE_RANK, FindingStatus.NOT_SEEN))
    assert (bare.title, bare.hypothesis, bare.next_check) == ("New", "h", "c")
    assert bare.observation == "nothing measured"

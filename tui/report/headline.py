"""The headline of a first screen: what to look at first, in a line or two.

For one capture: the top finding in the findings' own ranking (costliest
first, `compute_findings`), with its cost per step and share of the median
step, and the state of the busiest device (its busy share of the step and,
when the host runs ahead of a device busy most of the step, that it is
device-bound). For a run of ranks: the rank the others wait for at the
collectives, with their wait per step. The headline never ranks findings
itself: it is right exactly when they are.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.figures.device_load import DeviceLoad
from tui.core.findings.finding import Finding, ShowKernel, ShowOperator
from tui.core.findings.late_rank import LateRankFigures
from tui.report.finding_words.wording import percent
from tui.report.findings import words
from tui.report.fit import fit_end

FINDINGS_KEY = "2"
"""The key of the findings (the main screen's tab, the ranks screen's reading)."""

SUBJECT_CELLS = 32
"""The most cells an operator or kernel name takes in the lead (whole under 2)."""

COMPUTING = "computing the findings…"
NOTHING_ABOVE_NOISE = "no finding above the noise"


@dataclass(frozen=True)
class Headline:
    """The headline's parts: the lead (a finding, or why there is none yet),
    the key that lists them all, and the device's state ("" when none is read)."""

    lead: str
    key_hint: str
    device: str

    def lines(self) -> list[str]:
        """The parts as lines (the device's when there is one)."""
        first = f"{self.lead}; {self.key_hint}"
        return [first, self.device] if self.device else [first]


def top_finding(findings: Sequence[Finding]) -> Finding | None:
    """The first finding worth a check, in the order the findings come (their ranking)."""
    return next((finding for finding in findings if finding.observed), None)


def _subject(finding: Finding) -> str:
    """The operator or kernel a finding points at ("" when it points elsewhere)."""
    anchor = finding.anchor
    if isinstance(anchor, ShowOperator | ShowKernel):
        return fit_end(printable(anchor.name), SUBJECT_CELLS)
    return ""


def finding_lead(finding: Finding) -> str:
    """`GPU idle during the data zone: 59.3 ms per step (34% of the median
    step)`: a finding's title, what it points at, and its cost."""
    said = words(finding)
    subject = _subject(finding)
    text = said.title + (f" ({subject})" if subject else "")
    cost, weight = finding.cost_ns_per_step, finding.weight
    if cost is None or weight is None:
        return text
    text += f": {duration_text(cost)} per step"
    share = finding.share_of_step
    if share is not None:
        text += f" ({share_words(share)})"
    return text


def share_words(share: float) -> str:
    """`34% of the median step`; past the median step (a cost per step is
    a mean over the steps) never a share above 100%: `more than the median step`."""
    if share > 1.0:
        return "more than the median step"
    return f"{percent(share)} of the median step"


def findings_lead(findings: Sequence[Finding] | None, problem: str | None) -> str:
    """The lead of a capture's headline: its top finding, or why there is none."""
    if problem is not None:
        return f"no findings: {printable(problem)}"
    if findings is None:
        return COMPUTING
    top = top_finding(findings)
    return finding_lead(top) if top is not None else NOTHING_ABOVE_NOISE


def device_state(loads: Sequence[DeviceLoad]) -> str:
    """The busiest device's busy share of the median step; device-bound when
    saturated (busy most of the step while the host runs ahead of it)."""
    if not loads:
        return ""
    busiest = max(loads, key=lambda load: load.busy_share_median)
    name = "device" if busiest.device is None else f"device {busiest.device}"
    of = f" (busiest of {len(loads)})" if len(loads) > 1 else ""
    text = f"{name}{of} {percent(busiest.busy_share_median)} busy (median step)"
    return text + (": device-bound" if busiest.saturated else "")


def capture_headline(
    findings: Sequence[Finding] | None,
    loads: Sequence[DeviceLoad],
    problem: str | None = None,
) -> Headline:
    """One capture's headline (`findings` None: still being computed)."""
    hint = f"{FINDINGS_KEY}: all findings"
    return Headline(findings_lead(findings, problem), hint, device_state(loads))


def ranks_device_state(busy_shares: Mapping[int, float]) -> str:
    """The ranks' device busy share of their span: the median, and the least
    busy rank (`device 69% busy (median of 3 ranks; least: rank 2, 63%)`)."""
    if not busy_shares:
        return ""
    median = statistics.median(busy_shares.values())
    text = (
        f"device {percent(median)} busy (median of {plural(len(busy_shares), 'rank')}"
    )
    if len(busy_shares) > 1:
        rank, least = min(busy_shares.items(), key=lambda item: (item[1], item[0]))
        text += f"; least: rank {rank}, {percent(least)}"
    return text + ")"


def run_headline(
    finding: Finding, busy_shares: Mapping[int, float] | None = None
) -> Headline:
    """A run's headline: the rank the others wait for at the collectives, with
    their wait per step, or that no rank is late in most steps; and the
    ranks' device busy share."""
    hint = f"{FINDINGS_KEY}: the reading"
    device = ranks_device_state(busy_shares or {})
    figures = finding.figures
    if not isinstance(figures, LateRankFigures):
        return Headline("no rank reaches the collectives late (not read)", hint, device)
    wait = duration_text(figures.median_wait_ns)
    late = (
        f"reaches the collectives last in {figures.late_steps} of {figures.steps} steps"
    )
    if not finding.seen:
        return Headline(
            f"no rank is late at the collectives in most steps (rank {figures.rank}:"
            f" {late}; the others wait {wait} per step)",
            hint,
            device,
        )
    share = (
        f" ({share_words(figures.median_wait_ns / figures.median_step_ns)})"
        if figures.median_step_ns > 0
        else ""
    )
    return Headline(
        f"rank {figures.rank} {late}; the others wait {wait} per step for it{share}",
        hint,
        device,
    )

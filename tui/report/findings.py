"""The words of each reading: title, observation, hypothesis, next check, cost.

Each finding's words are declared in its own module (`finding_words`, read
by id); the observation (what the capture shows, with its figures) is
worded through `observations`; this module adds the status, the cost and the
CLI's findings output.

Worded as possibilities, never as causes or promised speed-ups; figures come
from the finding, so every front end (app, CLI, report, notes) says the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, us
from tui.core.base.vocab import FindingStatus
from tui.core.findings.finding import Finding, MissingReason
from tui.core.findings.weights import StepSetAside
from tui.core.results.findings import FindingsResult, finding_data, set_aside_data
from tui.report.finding_words.bounds import bound_text
from tui.report.finding_words.registry import text_of
from tui.report.finding_words.wording import percent
from tui.report.observations import observation
from tui.report.text import fill


@dataclass(frozen=True)
class FindingWords:
    """A finding as people read it."""

    title: str
    observation: str
    hypothesis: str
    next_check: str
    status_label: str
    cost: str
    """What it plausibly costs per step against the median step ("" when not weighed)."""


_STATUS = {
    FindingStatus.LIKELY: "likely",
    FindingStatus.POSSIBLE: "possible",
    FindingStatus.MINOR: "minor",
    FindingStatus.NOT_SEEN: "not seen",
    FindingStatus.NOT_OBSERVED: "not observed",
}


def words(finding: Finding) -> FindingWords:
    """Title, observation, hypothesis and next check of a finding."""
    said = text_of(finding.id).said(finding)
    return FindingWords(
        said.title,
        observation(finding),
        said.hypothesis,
        said.next_check,
        _STATUS[finding.status],
        cost_text(finding),
    )


def cost_text(finding: Finding) -> str:
    """Its cost per step and share of the median step; "" when it is not weighed."""
    cost = finding.cost_ns_per_step
    if cost is None or finding.weight is None:
        return ""
    share = finding.share_of_step
    text = f"about {duration_text(cost)} per step"
    if share is not None:
        text += (
            f", {percent(share)} of the median step"
            f" ({duration_text(finding.weight.median_step_ns)})"
        )
    if finding.bound is not None:
        text += f" ({bound_text(finding.bound)})"
    return text


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding in JSON: its data with its words (`findings`, `report` and `ranks`)."""
    said = words(finding)
    data = finding_data(finding)
    return {
        "id": data.pop("id"),
        "status": data.pop("status"),
        "title": said.title,
        "cost_us_per_step": data.pop("cost_us_per_step"),
        "share_of_step_pct": data.pop("share_of_step_pct"),
        "observation": said.observation,
        "hypothesis": said.hypothesis,
        "next_check": said.next_check,
        **data,
    }


def one_by_one(
    findings: Sequence[Finding],
) -> tuple[list[Finding], tuple[Finding, ...]]:
    """The findings worded one by one, and those not observed for want of GPU
    events, said together in one line (`no_gpu_line`) when two or more are:
    their reason is the same, and advice for what was not seen is none."""
    no_gpu = tuple(
        finding
        for finding in findings
        if finding.missing is not None
        and finding.missing.reason is MissingReason.NO_GPU
    )
    if len(no_gpu) < 2:
        return list(findings), ()
    return [finding for finding in findings if finding not in no_gpu], no_gpu


def no_gpu_line(group: Sequence[Finding]) -> str:
    """`not observed: 8 findings need GPU events — why: …` (`--json` lists each)."""
    missing = group[0].missing
    why = (missing.detail if missing is not None else "") or "unknown reason"
    return (
        f"not observed: {len(group)} findings need GPU events — why: {printable(why)}"
    )


def set_aside_text(set_aside: Sequence[StepSetAside]) -> str:
    """Why the median step leaves steps out, each reason once ("" when none)."""
    return "; ".join(printable(entry.reason) for entry in set_aside)


_WRAPPED = "      "
"""The indent a wrapped cost, hypothesis or next check goes on at, whatever
the finding's own indent."""


def finding_lines(finding: Finding, indent: str = "") -> list[str]:
    """One finding as a list item for a terminal (`findings`, `report`): title
    and status, cost, observation, and once observed its hypothesis and next
    check, each wrapped at 80 columns."""
    said = words(finding)
    item = indent + "    "
    title = f"{printable(said.title)} — {said.status_label}"
    lines = fill(title, f"{indent}- ", f"{indent}  ")
    if said.cost:
        lines += fill(said.cost, f"{item}cost: ", _WRAPPED)
    lines += fill(printable(said.observation), item, item)
    if finding.observed:
        lines += fill(said.hypothesis, f"{item}hypothesis: ", _WRAPPED)
        lines += fill(said.next_check, f"{item}next check: ", _WRAPPED)
    return lines


def findings_text(result: FindingsResult) -> str:
    """`steptrace findings`: each reading, costliest first, with its cost and words."""
    kept = result.steps - len(result.set_aside)
    over = (
        f"{kept} of {plural(result.steps, 'window step')}"
        if result.set_aside
        else plural(result.steps, "window step")
    )
    aside = f"; {set_aside_text(result.set_aside)}" if result.set_aside else ""
    step = (
        f"median step {duration_text(result.median_step_ns)} over {over}{aside}"
        if result.steps
        else f"no steps: the capture ({duration_text(result.median_step_ns)}) is"
        " weighed as one step"
    )
    lines = [
        f"findings, costliest first ({step}; minor under"
        f" {percent(result.min_share)} of it)"
    ]
    apart, no_gpu = one_by_one(result.findings)
    for finding in apart:
        lines += finding_lines(finding)
    if no_gpu:
        lines += fill(f"{no_gpu_line(no_gpu)} (--json lists each)", "- ", "  ")
    return "\n".join(lines)


def findings_json(result: FindingsResult) -> dict[str, Any]:
    """`steptrace findings --json`: the median step, the steps it sets aside
    (and why), the floor, each finding costliest first."""
    return {
        "median_step_us": us(result.median_step_ns),
        "steps": result.steps,
        "set_aside_steps": set_aside_data(result.set_aside),
        "min_share_pct": 100.0 * result.min_share,
        "findings": [finding_json(finding) for finding in result.findings],
    }

"""`steptrace findings`: every reading of a capture weighed by its cost, costliest first.

The data of each finding (id, status, cost, share, figures, where it points,
what is missing) lives here; its words are added on the report floor
(`report/findings.py`), so `findings --json` and `report --json` print the
same objects.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding
from tui.core.findings.readings import compute_findings
from tui.core.findings.weights import DEFAULT_MIN_SHARE, StepSetAside, scale_of


@dataclass(frozen=True)
class FindingsResult:
    """The findings of one capture and the step they are weighed against
    (`set_aside`: the window steps its median leaves out, and why)."""

    median_step_ns: float
    steps: int
    min_share: float
    findings: tuple[Finding, ...]
    set_aside: tuple[StepSetAside, ...] = ()

    @classmethod
    def of(
        cls, analysis: Analysis, min_share: float = DEFAULT_MIN_SHARE
    ) -> FindingsResult:
        """Weigh every reading of an analysed capture."""
        scale = scale_of(analysis, min_share)
        return cls(
            scale.median_step_ns,
            scale.steps,
            min_share,
            tuple(compute_findings(analysis, min_share)),
            scale.set_aside,
        )


def finding_data(finding: Finding) -> dict[str, Any]:
    """A finding's data in JSON, without its words."""
    cost = finding.cost_ns_per_step
    share = finding.share_of_step
    missing = finding.missing
    return {
        "id": finding.id.value,
        "status": finding.status.value,
        "cost_us_per_step": None if cost is None else us(cost),
        "share_of_step_pct": None if share is None else 100.0 * share,
        "figures": None if finding.figures is None else _plain(finding.figures),
        "cost_bound": None if finding.bound is None else _plain(finding.bound),
        "anchors": [] if finding.anchor is None else [_anchor(finding.anchor)],
        "missing": None
        if missing is None
        else {"reason": missing.reason.value, "detail": missing.detail},
    }


def set_aside_data(set_aside: tuple[StepSetAside, ...]) -> list[dict[str, Any]]:
    """The steps the median step leaves out, in JSON: step, duration, reason."""
    return [
        {
            "step": entry.step,
            "duration_us": us(entry.duration_ns),
            "reason": entry.reason,
        }
        for entry in set_aside
    ]


def _anchor(anchor: object) -> dict[str, Any]:
    """Where a finding points: its kind (gap, operator, events, step, kernel) and fields."""
    kind = type(anchor).__name__.removeprefix("Show").lower()
    return {"kind": kind, **_plain(anchor)}


def _json_name(name: str) -> str:
    """A field's JSON name: times in ns are printed in µs, and named so."""
    if name == "ns_per_step":
        return "us_per_step"
    if name.endswith("_ns"):
        return name.removesuffix("_ns") + "_us"
    return name.replace("_ns_", "_us_")


def _in_us(value: Any) -> Any:
    """A time in ns (a number, or a mapping of numbers) in µs; None stays None."""
    if isinstance(value, dict):
        return {str(key): _in_us(item) for key, item in value.items()}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return us(value)
    return value


def _plain(value: Any) -> Any:
    """Dataclasses, enums and tuples as JSON; ns fields in µs, renamed `_us`."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for item in dataclasses.fields(value):
            field_value = getattr(value, item.name)
            name = _json_name(item.name)
            out[name] = (
                _in_us(field_value) if name != item.name else _plain(field_value)
            )
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return value

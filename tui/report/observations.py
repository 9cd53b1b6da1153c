"""What the capture shows for a finding, with its figures: the observation.

The first line of a finding's words (`findings.words` adds the title,
hypothesis and next check). Each finding words its own figures in its module
(`finding_words`); what a capture lacks for a reading is worded here, alike
for every finding.
"""

from __future__ import annotations

from tui.core.figures.zones import DATALOADER_GROUP, DEFAULT_DATA_ZONE
from tui.core.findings.finding import Finding, MissingReason
from tui.report.finding_words.registry import text_of


def observation(finding: Finding) -> str:
    """What the capture shows for this reading, with its figures."""
    missing = finding.missing
    if missing is not None:
        return "not observed: " + _missing_text(missing.reason, missing.detail)
    return text_of(finding.id).observation(finding)


def _missing_text(reason: MissingReason, detail: str) -> str:
    if reason is MissingReason.NO_DATA_ZONE:
        looked_for = detail or f"{DEFAULT_DATA_ZONE}, {DATALOADER_GROUP}"
        return (
            f"the capture has no data zone ({looked_for}) to look inside; "
            "choose one with z or --zone NAME"
        )
    if reason is MissingReason.NO_GPU:
        return f"no GPU events in the capture ({detail or 'unknown reason'})"
    if reason is MissingReason.TOO_FEW_STEPS:
        return (
            "the capture needs at least two steps to see a copy repeat"
            f" (it has {detail or 'fewer'})"
        )
    if reason is MissingReason.ONE_RANK:
        return "a run of one rank: no other rank to wait for it"
    if reason is MissingReason.NO_COLLECTIVES:
        return (
            "no collective (communication kernel, gloo, c10d or nccl op) in the steps"
            " every rank recorded"
        )
    if reason is MissingReason.NO_KERNELS:
        return "the capture has device work but no kernels"
    if reason is MissingReason.NO_TENSOR_CORES:
        return f"Tensor Cores cannot be read on this capture ({detail})"
    if reason is MissingReason.NO_RUNTIME_CALLS:
        return (
            "the capture holds no runtime call (cuda_runtime) nor cuda_sync event:"
            " a host wait cannot be seen"
        )
    if reason is MissingReason.NO_KERNEL_OPERATORS:
        return (
            "no kernel in the window was launched by an operator (cpu_op)"
            f" ({detail or 'none tied to one'})"
        )
    return "no operator time in the window"

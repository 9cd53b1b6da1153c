"""The Tensor Cores' words: eligible operators' kernel time that ran off Tensor Cores."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import FindingId
from tui.core.findings.tensor_cores import TensorCoreFigures
from tui.report.finding_words.wording import FindingText, Wording, over_steps, percent


def _tensor_core_text(figures: TensorCoreFigures) -> str:
    scope = over_steps(figures.steps)
    text = (
        f"of {duration_text(figures.kernel_ns)} of kernel time launched by"
        f" operators {scope}"
    )
    if figures.eligible_share <= 0:
        return (
            text + ", none was launched by a Tensor-Core-eligible operator"
            " (torch-tb-profiler's rules)"
        )
    on_tc = percent(figures.tensor_core_share) if figures.tensor_core_share else "none"
    text += (
        f", Tensor-Core-eligible operators launched"
        f" {percent(figures.eligible_share)} and {on_tc} ran on Tensor Cores"
        " (torch-tb-profiler's rules)"
    )
    if figures.eligible_off_tc_ns_per_step <= 0:
        return text + "; every eligible operator's kernel ran on Tensor Cores"
    text += (
        "; eligible operators' kernels off Tensor Cores take"
        f" {duration_text(figures.eligible_off_tc_ns_per_step)} per step"
    )
    if figures.operator is not None:
        text += (
            f", {duration_text(figures.operator_ns_per_step)} of it under"
            f" {printable(figures.operator)}"
        )
    return text


TEXT = FindingText(
    FindingId.TENSOR_CORES,
    TensorCoreFigures,
    Wording(
        "Tensor-Core-eligible kernels off Tensor Cores",
        "these matrix products and convolutions may run in full FP32, where lower"
        " precision (FP16, BF16, TF32) may run them on Tensor Cores",
        "run the same steps under mixed precision (torch.autocast) or with TF32"
        " (torch.backends.cuda.matmul.allow_tf32 = True), then compare the step"
        " time and the results",
    ),
    lambda figures, _seen: _tensor_core_text(figures),
)

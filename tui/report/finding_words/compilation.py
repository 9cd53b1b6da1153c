"""The compilation words: torch.compile compiles (or recompiles) inside the window."""

from __future__ import annotations

import dataclasses

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import FindingId
from tui.core.findings.compilation import CompilationFigures
from tui.report.finding_words.wording import FindingText, Wording, over_steps

_RECOMPILE_CHECK = (
    "see why it recompiles (TORCH_LOGS=recompiles), mark the changing dimension"
    " dynamic (torch._dynamo.mark_dynamic) or pad the shapes to a few sizes, and"
    " compile before the window (a warm-up step per shape); steptrace compiled"
    " TRACE lists the compile ids per step"
)


def _reword(figures: CompilationFigures, seen: bool, wording: Wording) -> Wording:
    """A recompile has its own cause and check."""
    if figures.recompile_ids:
        return dataclasses.replace(
            wording,
            title="torch.compile recompiles inside the window",
            hypothesis="a new input shape or a failed guard may make Dynamo compile"
            " the frame again, stopping the step that holds it while it compiles",
            next_check=_RECOMPILE_CHECK,
        )
    return wording


def _ids(ids: tuple[str, ...]) -> str:
    return ", ".join(printable(compile_id) for compile_id in ids)


def _compilation_text(figures: CompilationFigures, seen: bool) -> str:
    if not figures.compiled:
        return "no torch.compile region or compilation in this capture"
    if not seen:
        return "torch.compile ran no compilation inside the window's steps"
    steps = ", ".join(str(step) for step in figures.steps_hit) or "none"
    step_word = "steps" if len(figures.steps_hit) > 1 else "step"
    text = (
        f"{plural(figures.compilations, 'compilation')} inside the window took"
        f" {duration_text(figures.compile_ns)}"
        f" ({duration_text(figures.compile_ns_per_step)} per step,"
        f" {over_steps(figures.window_steps)}; the backend"
        f" {duration_text(figures.backend_ns)}), in {step_word} {steps}"
    )
    if figures.compile_ids:
        text += f"; compile ids {_ids(figures.compile_ids)}"
    if figures.recompile_ids:
        text += f"; recompiled: {_ids(figures.recompile_ids)}"
    return text


TEXT = FindingText(
    FindingId.COMPILATION,
    CompilationFigures,
    Wording(
        "torch.compile compiles inside the window",
        "a compile inside a measured step may stop it while Dynamo traces the"
        " frame and the backend compiles it",
        "compile before the window (warm-up steps that run every input shape),"
        " then capture again; steptrace compiled TRACE lists the compilations",
    ),
    _compilation_text,
    _reword,
)

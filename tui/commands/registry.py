"""Every `steptrace` command, declared once, in the order `--help` lists them.

A result command is a row of data (`ResultCommand`: its result type, words and
options); any other command is a module of its own, `tui.commands.NAME`, whose
`register` adds its parser. The CLI builds its parser and knows its command
names from this tuple only. Nothing here imports a result, its words or a
command's module: each is imported when its command is built or run.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from tui.commands.results import (
    ResultCommand,
    critical_result,
    findings_result,
    gaps_checked,
    gaps_options,
    gaps_result,
    kernels_options,
    kernels_result,
    limit_checked,
    memory_options,
    memory_result,
    min_share_checked,
    min_share_option,
    modules_options,
    modules_result,
    ops_options,
    ops_result,
    ops_text,
    report_output,
    report_result,
    report_text,
    step_option,
    zones_options,
    zones_text,
)


@dataclass(frozen=True)
class ModuleCommand:
    """A command with a module of its own, `tui.commands.NAME`."""

    name: str

    def register(self, subparsers: Any) -> None:
        """Import the command's module and add its parser."""
        importlib.import_module(f"tui.commands.{self.name}").register(subparsers)


Command = ModuleCommand | ResultCommand

COMMANDS: tuple[Command, ...] = (
    ModuleCommand("open"),
    ModuleCommand("serve"),
    ModuleCommand("demo"),
    ResultCommand(
        "summary",
        "steps, zones, device busy and gaps of a capture",
        "tui.core.results.summary:SummaryResult",
        "tui.report.summary:summary_text",
        zones=True,
        workers=True,
    ),
    ResultCommand(
        "ops",
        "operator table: calls, self/total CPU and GPU time",
        "tui.core.results.ops:OpsResult",
        workers=True,
        options=ops_options,
        check=limit_checked,
        compute=ops_result,
        text=ops_text,
    ),
    ResultCommand(
        "modules",
        "nn.Module tree of a with_stack capture: calls, self/total/backward CPU "
        "and GPU time per step",
        "tui.core.results.modules:ModulesResult",
        "tui.report.modules:modules_text",
        options=modules_options,
        compute=modules_result,
    ),
    ResultCommand(
        "compiled",
        "torch.compile: compiled regions per step (calls, time, graphs, kernels), "
        "compilations and recompilations, graph breaks",
        "tui.core.results.compiled:CompiledResult",
        "tui.report.compiled:compiled_text",
    ),
    ResultCommand(
        "kernels",
        "kernels per name: count, min/median/max, busy share, launch figures",
        "tui.core.results.kernels:KernelsResult",
        "tui.report.kernels:kernels_text",
        options=kernels_options,
        check=limit_checked,
        compute=kernels_result,
    ),
    ResultCommand(
        "copies",
        "host↔device copies and sets: count, bytes, time, per step, repeated",
        "tui.core.results.copies:CopiesResult",
        "tui.report.copies:copies_text",
    ),
    ResultCommand(
        "syncs",
        "host synchronisations: the causing operator, host time blocked, device idle"
        " after; per kind, operator and step",
        "tui.core.results.syncs:SyncsResult",
        "tui.report.syncs:syncs_text",
    ),
    ResultCommand(
        "critical",
        "critical path per step (HTA 0.5.0's): its time split into CPU, kernels, "
        "gaps between kernels and launch delays",
        "tui.core.results.critical:CriticalResult",
        "tui.report.critical:critical_text",
        options=step_option,
        compute=critical_result,
    ),
    ResultCommand(
        "queue",
        "launch queue per stream (HTA's queue length): ops launched and not "
        "started over time, time at a full queue, longest wait",
        "tui.core.results.queue:QueueResult",
        "tui.report.queue:queue_text",
    ),
    ResultCommand(
        "memory",
        "profile_memory captures: peak allocated per step, bytes per operator",
        "tui.core.results.memory:MemoryResult",
        "tui.report.memory:memory_text",
        options=memory_options,
        compute=memory_result,
    ),
    ModuleCommand("collectives"),
    ResultCommand(
        "gaps",
        "device idle time inside data zones (lecture_batch_cpu…)",
        "tui.core.results.gaps:GapsResult",
        "tui.report.gaps:gaps_text",
        zones=True,
        workers=True,
        options=gaps_options,
        check=gaps_checked,
        compute=gaps_result,
    ),
    ResultCommand(
        "zones",
        "ranges that can be the data zone (annotations, DataLoader, operators)",
        "tui.core.results.zones:ZonesResult",
        zones=True,
        options=zones_options,
        text=zones_text,
    ),
    ModuleCommand("diff"),
    ModuleCommand("ranks"),
    ModuleCommand("notes"),
    ResultCommand(
        "report",
        "one document in the method's order: question, window, CPU/GPU/waiting, "
        "findings, notes, instrumentation, resources",
        "tui.report.report:ReportResult",
        description="The capture's report, in the method's order: question, "
        "scenario, unit, window and start-up, CPU time / GPU work / waiting kept "
        "apart, findings (possible observation → hypothesis → next check), the "
        "notes with their verdicts, instrumentation and its cost, and what the "
        "capture can and cannot say about resources.",
        zones=True,
        workers=True,
        options=min_share_option,
        output=report_output,
        check=min_share_checked,
        compute=report_result,
        text=report_text,
    ),
    ResultCommand(
        "findings",
        "the method's readings weighed by their cost per step, costliest first",
        "tui.core.results.findings:FindingsResult",
        "tui.report.findings:findings_text",
        description="Every reading of the capture with its cost per step (an "
        "upper bound of what fixing it could save) and its share of the median "
        "step: likely, possible, minor (under --min-share), not seen, or not "
        "observed with the reason; costliest first.",
        zones=True,
        workers=True,
        options=min_share_option,
        check=min_share_checked,
        compute=findings_result,
        json="tui.report.findings:findings_json",
    ),
    ModuleCommand("sql"),
    ModuleCommand("scrub"),
    ModuleCommand("capture"),
    ModuleCommand("bench"),
    ModuleCommand("compare"),
)

BY_NAME: dict[str, Command] = {command.name: command for command in COMMANDS}

NAMES: tuple[str, ...] = tuple(BY_NAME)
"""The command names, in the order `--help` lists them."""

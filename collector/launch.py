"""Starting a zero-code capture: `steptrace capture -o PATH -- python train.py ARGS`.

Torch-free: this runs in the parent (the CLI or the app). The script itself
runs in a child interpreter, `python -m collector.zerocode … -- train.py ARGS`,
so it gets a clean interpreter and the sys.argv it expects; its output and
exit status pass through. The child prints `steptrace: step 3/4 (active)`
lines on stderr for a parent that shows progress.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from collector import paths
from collector.errors import InvalidSettingError
from collector.schema import DATA_ZONE, Scenario, Window

DEFAULT_QUESTION = "where does the time of one training step go?"
# Exit status when the script succeeded but no trace could be written
# (no optimizer step, or fewer steps than the window needs).
NO_TRACE_STATUS = 3
_PYTHON_NAME = re.compile(r"^python[0-9.]*(\.exe)?$", re.IGNORECASE)
_FLAGS_WITHOUT_VALUE = frozenset(
    {"-u", "-O", "-OO", "-B", "-E", "-s", "-S", "-I", "-P", "-b", "-bb", "-q", "-v"}
)
_FLAGS_WITH_VALUE = frozenset({"-W", "-X"})
_USAGE = "steptrace capture -o trace.json -- python train.py ARGS"


@dataclass
class ScriptCommand:
    """The user's command, split into interpreter, interpreter flags and target."""

    interpreter: str
    interpreter_flags: list[str]
    target: list[str]  # ["train.py", ARGS…] or ["-m", "package.module", ARGS…]
    original: list[str] = field(default_factory=list)


def split_script_command(command: Sequence[str]) -> ScriptCommand:
    """Read `python [FLAGS] SCRIPT ARGS`, `python [FLAGS] -m MODULE ARGS` or `SCRIPT.py ARGS`."""
    words = list(command)
    if not words:
        raise InvalidSettingError(f"no command to run: {_USAGE}")
    first = words[0]
    if first.endswith(".py"):
        return ScriptCommand(sys.executable, [], words, words)
    if not _PYTHON_NAME.match(os.path.basename(first)):
        raise InvalidSettingError(
            f"the command must start with a Python interpreter ({first!r} does not): {_USAGE}"
        )
    interpreter = shutil.which(first) or first
    flags: list[str] = []
    index = 1
    while index < len(words) and words[index].startswith("-") and words[index] != "-m":
        word = words[index]
        if word in _FLAGS_WITHOUT_VALUE:
            flags.append(word)
            index += 1
        elif word in _FLAGS_WITH_VALUE and index + 1 < len(words):
            flags += [word, words[index + 1]]
            index += 2
        elif word[:2] in _FLAGS_WITH_VALUE and len(word) > 2:
            flags.append(word)
            index += 1
        else:
            raise InvalidSettingError(
                f"python option {word!r} is not supported under steptrace capture; run a script or -m MODULE"
            )
    target = words[index:]
    if not target:
        raise InvalidSettingError(f"no script to run after {first!r}: {_USAGE}")
    if target[0] == "-m" and len(target) < 2:
        raise InvalidSettingError("-m needs a module name")
    if target[0] != "-m" and not Path(target[0]).is_file():
        raise InvalidSettingError(f"script {target[0]} not found")
    return ScriptCommand(interpreter, flags, target, words)


def _same_interpreter(interpreter: str) -> bool:
    try:
        return os.path.samefile(interpreter, sys.executable)
    except OSError:
        return False


@dataclass
class ZeroCodeSettings:
    """What the child needs besides the script; mirrors the capture API's settings."""

    output: Path
    window: Window = field(default_factory=Window)
    question: str = DEFAULT_QUESTION
    device: str = "auto"
    data_zone: str = DATA_ZONE
    scenario_pairs: list[str] = field(default_factory=list)
    record_shapes: bool = False
    with_stack: bool = False
    profile_memory: bool = False
    include_host_name: bool = False


def prepare(
    command: Sequence[str],
    output: str | os.PathLike[str] | None,
    *,
    window: Window | None = None,
    question: str | None = None,
    device: str = "auto",
    data_zone: str = DATA_ZONE,
    scenario_pairs: Sequence[str] = (),
    record_shapes: bool = False,
    with_stack: bool = False,
    profile_memory: bool = False,
    include_host_name: bool = False,
) -> tuple[ScriptCommand, ZeroCodeSettings]:
    """Check everything the parent can check before anything runs (the output path first)."""
    window = window if window is not None else Window()
    if device not in ("auto", "cpu", "cuda"):
        raise InvalidSettingError(f"device must be auto, cpu or cuda, got {device!r}")
    Scenario.from_pairs(scenario_pairs)
    if question is not None and not question.strip():
        raise InvalidSettingError(
            "the question is empty: say what the capture should answer"
        )
    path = paths.resolve_output(output, "trace", cycles=window.repeat).resolve()
    script = split_script_command(command)
    settings = ZeroCodeSettings(
        output=path,
        window=window,
        question=question or DEFAULT_QUESTION,
        device=device,
        data_zone=data_zone,
        scenario_pairs=list(scenario_pairs),
        record_shapes=record_shapes,
        with_stack=with_stack,
        profile_memory=profile_memory,
        include_host_name=include_host_name,
    )
    return script, settings


def child_argv(script: ScriptCommand, settings: ZeroCodeSettings) -> list[str]:
    """The child's command line: `python -m collector.zerocode OPTIONS -- TARGET`."""
    window = settings.window
    argv = [
        script.interpreter,
        *script.interpreter_flags,
        "-m",
        "collector.zerocode",
        "--output",
        str(settings.output),
        "--window",
        f"{window.wait},{window.warmup},{window.active},{window.repeat},{window.skip_first}",
        "--question",
        settings.question,
        "--device",
        settings.device,
        "--data-zone",
        settings.data_zone,
        "--command-json",
        json.dumps(script.original),
    ]
    for pair in settings.scenario_pairs:
        argv += ["--scenario", pair]
    for flag, enabled in (
        ("--record-shapes", settings.record_shapes),
        ("--with-stack", settings.with_stack),
        ("--profile-memory", settings.profile_memory),
        ("--host-name", settings.include_host_name),
    ):
        if enabled:
            argv.append(flag)
    return [*argv, "--", *script.target]


def child_environment(
    script: ScriptCommand, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: another interpreter is told where `collector` lives."""
    environment = dict(os.environ if base is None else base)
    if not _same_interpreter(script.interpreter):
        source_root = str(Path(__file__).resolve().parent.parent)
        existing = environment.get("PYTHONPATH")
        environment["PYTHONPATH"] = source_root + (
            os.pathsep + existing if existing else ""
        )
    return environment


def run_zero_code(script: ScriptCommand, settings: ZeroCodeSettings) -> int:
    """Run the script under the profiler in a child interpreter; returns its exit status."""
    completed = subprocess.run(
        child_argv(script, settings), env=child_environment(script), check=False
    )
    return completed.returncode

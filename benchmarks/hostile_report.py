"""How the loader fares on the hostile corpus: crashes, hangs, outcomes, recovery, leaks.

Run: .venv/bin/python -m benchmarks.hostile_report [--no-app] [--no-large]

Each file is loaded (and analysed) in a forked child with a time and memory
bound, so a crash or a hang is counted instead of stopping the report. The
CLI subset runs as a user runs it; the hostile-names trace goes through a
real pseudo-terminal and every payload byte that reaches it is counted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tests.builders.hostile import (
    LEAK_MARKERS,
    HostileCase,
    build_corpus,
    isolated_env,
    missing_messages,
)

REPO = Path(__file__).resolve().parent.parent

TIMEOUT_S = 30.0
ADDRESS_SPACE = 4 * 1024**3


def _child(case: HostileCase, pipe: Connection) -> None:
    """Load and analyse one case; send back what happened."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    import orjson

    from tui.core.base.errors import TraceLoadError
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace
    from tui.core.results import SummaryResult

    try:
        trace = load_trace(case.path, max_bytes=case.max_bytes)
        analysis = Analysis(trace)
        orjson.dumps(SummaryResult.of(analysis).to_json())  # what `--json` prints
        table = analysis.op_table()
        analysis.gaps  # noqa: B018 - computing it is the check
        calls = dict(zip(table.names, table.calls.tolist(), strict=True))
        pipe.send(
            {
                "result": "load",
                "events": trace.event_count,
                "warnings": trace.warnings,
                "calls": {name: calls.get(name, 0) for name in case.op_calls},
            }
        )
    except TraceLoadError as error:
        pipe.send({"result": "error", "message": str(error)})
    except BaseException:
        pipe.send({"result": "crash", "traceback": traceback.format_exc()})


def run_case(case: HostileCase) -> dict[str, Any]:
    """One case in a forked child; a timeout counts as a hang."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(case, sender))
    started = time.monotonic()
    process.start()
    sender.close()
    outcome: dict[str, Any]
    if receiver.poll(TIMEOUT_S):
        try:
            outcome = receiver.recv()
        except EOFError:
            outcome = {"result": "crash", "traceback": "child died without a result"}
    else:
        outcome = {"result": "hang"}
    process.join(1)
    if process.is_alive():
        process.kill()
        process.join()
    elif process.exitcode and outcome["result"] not in ("crash", "hang"):
        outcome = {"result": "crash", "traceback": f"exit code {process.exitcode}"}
    outcome["seconds"] = time.monotonic() - started
    return outcome


def expected_met(case: HostileCase, outcome: dict[str, Any]) -> bool:
    """Whether the outcome is the one the case expects, with its messages and figures."""
    if outcome["result"] != case.outcome:
        return False
    if case.outcome == "error":
        return all(message in outcome["message"] for message in case.messages)
    if missing_messages(case, outcome["warnings"]):
        return False
    if case.events is not None and outcome["events"] != case.events:
        return False
    if outcome["calls"] != dict(case.op_calls):
        return False
    if case.truncation is not None:
        return bool(outcome["events"] >= 0.99 * case.truncation.complete_before)
    return True


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """`steptrace ARGS` in a child with bounded time and memory, no column cache."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        env={**os.environ, **isolated_env(), **env},
        capture_output=True,
        timeout=TIMEOUT_S,
        preexec_fn=limit,
        check=False,
    )


def cli_checks(cases: list[HostileCase]) -> tuple[int, int, list[str]]:
    """The CLI subset as a user runs it: exit status, one stderr line, no traceback."""
    met = 0
    failures: list[str] = []
    for case in cases:
        try:
            result = run_cli(["summary", "--json", str(case.path)], case.env)
        except Exception as error:  # a timeout is a hang
            failures.append(f"{case.name}: {type(error).__name__}")
            continue
        stderr = result.stderr.decode("utf-8", errors="replace")
        ok = "Traceback" not in stderr
        if case.outcome == "error":
            lines = stderr.strip("\n").split("\n")
            ok &= result.returncode == 2 and len(lines) == 1
            ok &= lines[0].startswith("steptrace: ")
        else:
            ok &= result.returncode == 0
        if ok:
            met += 1
        else:
            last_line = (stderr.strip().splitlines() or [""])[-1]
            failures.append(f"{case.name}: exit {result.returncode}: {last_line[:100]}")
    return met, len(cases), failures


def nested_events_seconds(folder: Path, depth: int = 100_000) -> float | None:
    """`steptrace ops` on events each nested in the previous one; None past the timeout."""
    import orjson

    events: list[dict[str, Any]] = [
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": f"aten::r{index % 7}",
            "pid": 1,
            "tid": 1,
            "ts": index,
            "dur": 2 * (depth - index),
            "args": {"External id": index + 1},
        }
        for index in range(depth)
    ]
    events.append(
        {
            "ph": "X",
            "cat": "kernel",
            "name": "k",
            "pid": 0,
            "tid": 7,
            "ts": depth,
            "dur": 1,
            "args": {"External id": depth},
        }
    )
    path = folder / "nested-events.json"
    path.write_bytes(orjson.dumps({"traceEvents": events}))
    started = time.monotonic()
    try:
        run_cli(["ops", str(path)], {})
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - started


def many_steps_seconds(folder: Path, steps: int = 20_000) -> float | None:
    """`steptrace summary` on a long profile: steps with a data zone and a kernel each."""
    import orjson

    from tests.builders.hostile import complete

    events: list[dict[str, Any]] = []
    for step in range(steps):
        start = 10 * step
        events += [
            complete(f"ProfilerStep#{step}", start, 9, cat="user_annotation"),
            complete("lecture_batch_cpu", start, 5, cat="user_annotation"),
            complete("k", start + 2, 1, cat="kernel", pid=0, tid=7),
        ]
    path = folder / "many-steps.json"
    path.write_bytes(orjson.dumps({"traceEvents": events}))
    started = time.monotonic()
    try:
        run_cli(["summary", str(path)], {})
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - started


BIG_TRACE = (
    REPO.parent / "shared" / "traces" / "mtia_trace_single_rank-mtia_rank_0.json.gz"
)


def big_cut_checks(folder: Path) -> list[str]:
    """The 85 MB MTIA trace cut at three offsets: what is kept, and how long it takes."""
    from tui.core.ingest.load import load_trace
    from tui.core.ingest.source import read_trace_bytes

    if not BIG_TRACE.exists():
        return ["(the MTIA trace is not present)"]
    data = read_trace_bytes(BIG_TRACE).data
    lines = []
    for share in (0.3, 0.6, 0.95):
        offset = int(len(data) * share)
        path = folder / f"mtia-cut-{offset}.json"
        path.write_bytes(data[:offset])
        started = time.monotonic()
        trace = load_trace(path)
        seconds = time.monotonic() - started
        cut = next((warning for warning in trace.warnings if "cut off" in warning), "")
        kept = cut.split("kept the ", 1)[-1].split(" events", 1)[0]
        lines.append(
            f"cut at {share:.0%}: {kept} events kept, {trace.event_count:,} complete, "
            f"loaded in {seconds:.1f} s"
        )
        path.unlink()
    return lines


def leak_checks(cases: list[HostileCase], with_app: bool) -> dict[str, int]:
    """Payload bytes that reached a real terminal, per trace and command."""
    from tests.cli.test_terminal_safety import APP_PAYLOADS, run_in_pty

    leaks: dict[str, int] = {}
    for case in cases:
        for command in ("summary", "ops", "gaps"):
            for extra in ([], ["--json"]):
                _, output = run_in_pty([command, *extra, str(case.path)])
                label = " ".join([case.name + ":", command, *extra])
                leaks[label] = sum(
                    output.count(marker) * len(marker) for marker in LEAK_MARKERS
                )
        if with_app:
            _, output = run_in_pty(
                ["open", str(case.path)],
                keys=[(3.0, b"q"), (5.0, b"q"), (7.0, b"\x03")],
                timeout=40.0,
            )
            leaks[f"{case.name}: open (app)"] = sum(
                output.count(marker) * len(marker) for marker in APP_PAYLOADS
            )
    return leaks


def main() -> int:
    """Build the corpus, run everything, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-app", action="store_true", help="skip the app in a pty")
    parser.add_argument(
        "--no-large", action="store_true", help="skip the million-event case"
    )
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="steptrace-hostile-report-"))
    try:
        return report(folder, options)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(folder: Path, options: argparse.Namespace) -> int:
    """Run the corpus in `folder` and print the figures."""
    started = time.monotonic()
    cases = build_corpus(folder, large=not options.no_large)
    built = time.monotonic() - started
    outcomes = {case.name: run_case(case) for case in cases}
    crashes = [name for name, out in outcomes.items() if out["result"] == "crash"]
    hangs = [name for name, out in outcomes.items() if out["result"] == "hang"]
    missed = [
        case.name for case in cases if not expected_met(case, outcomes[case.name])
    ]
    shares = [
        outcomes[case.name]["events"] / case.truncation.complete_before
        for case in cases
        if case.truncation is not None
        and case.truncation.complete_before
        and outcomes[case.name]["result"] == "load"
    ]
    refused_cuts = [
        case.name
        for case in cases
        if case.truncation is not None
        and case.truncation.complete_before
        and outcomes[case.name]["result"] != "load"
    ]
    loaded_cuts = [
        case
        for case in cases
        if case.truncation is not None and outcomes[case.name]["result"] == "load"
    ]
    lost_mentions = sum(
        1
        for case in loaded_cuts
        if any("lost (" in warning for warning in outcomes[case.name]["warnings"])
    )
    slowest = max(outcomes.items(), key=lambda item: item[1]["seconds"])
    cli_met, cli_total, cli_failures = cli_checks([case for case in cases if case.cli])
    leaks = leak_checks(
        [case for case in cases if case.terminal_payload], with_app=not options.no_app
    )
    nested = nested_events_seconds(folder)
    big_cuts = big_cut_checks(folder)
    many_steps = many_steps_seconds(folder)

    truncated = sum(1 for case in cases if case.truncation is not None)
    print("steptrace hostile-input report")
    print(f"  corpus built in {built:.1f} s in {folder}")
    print(f"  inputs tried                 {len(cases)}  ({truncated} truncations)")
    print(f"  crashes (tracebacks)         {len(crashes)}  {crashes or ''}")
    print(f"  hangs (over {TIMEOUT_S:.0f} s)            {len(hangs)}  {hangs or ''}")
    print(
        f"  expected outcomes met        {len(cases) - len(missed)}/{len(cases)}  "
        f"{missed or ''}"
    )
    print(f"  CLI runs as expected         {cli_met}/{cli_total}  {cli_failures or ''}")
    if shares:
        print(
            "  complete events recovered    "
            f"mean {100 * statistics.mean(shares):.2f}%, min {100 * min(shares):.2f}% "
            f"over {len(shares)} cut files"
        )
    print(f"  cut files refused            {len(refused_cuts)}  {refused_cuts or ''}")
    print(f"  cut files saying what's lost {lost_mentions}/{len(loaded_cuts)}")
    print(
        f"  slowest input                {slowest[0]} ({slowest[1]['seconds']:.1f} s, "
        "load + analysis)"
    )
    print("  85 MB MTIA trace, cut:")
    for line in big_cuts:
        print(f"    {line}")
    print(
        "  ops on 100k nested events    "
        + (
            f"{nested:.1f} s"
            if nested is not None
            else f"over {TIMEOUT_S:.0f} s (hang)"
        )
    )
    print(
        "  summary on 20k steps         "
        + (
            f"{many_steps:.1f} s"
            if many_steps is not None
            else f"over {TIMEOUT_S:.0f} s (hang)"
        )
    )
    print("  raw escape bytes that reached a terminal (pty), per trace and command:")
    for label, count in leaks.items():
        print(f"    {label:<40} {count}")
    for name in crashes:
        print(f"\n--- crash: {name}\n{outcomes[name]['traceback']}")
    return 1 if crashes or hangs or missed else 0


if __name__ == "__main__":
    raise SystemExit(main())

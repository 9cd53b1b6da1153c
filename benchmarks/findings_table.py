"""Every shared trace × every finding: status, cost per step and share, as a table.

A script, not a test: run it after a change to the findings and compare with
the table it printed before (`--before DIR` reads `report --json` files made
by an older steptrace, named `<trace>.report.json`, and prints their status
beside).

    .venv/bin/python -m benchmarks.findings_table [--traces ../shared/traces] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def findings_of(trace: Path) -> dict[str, dict[str, object]]:
    """`steptrace findings --json` of one trace, by finding id."""
    done = subprocess.run(
        [sys.executable, "-m", "tui", "findings", str(trace), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {"error": {"status": done.stderr.strip().splitlines()[-1:]}}
    result = json.loads(done.stdout)
    return {finding["id"]: finding for finding in result["findings"]}


def before_of(folder: Path | None, trace: Path) -> dict[str, str]:
    """Statuses an older `report --json` gave, by finding id."""
    if folder is None:
        return {}
    path = folder / f"{trace.name}.report.json"
    if not path.is_file() or not path.stat().st_size:
        return {}
    report = json.loads(path.read_text())
    return {finding["id"]: finding["status"] for finding in report["findings"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--traces", type=Path, default=ROOT.parent / "shared" / "traces"
    )
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    traces = sorted(
        path
        for path in args.traces.iterdir()
        if path.name.endswith((".json", ".json.gz"))
    )
    print("| trace | finding | before | now | cost/step | share |")
    print("|---|---|---|---|---|---|")
    for trace in traces:
        now = findings_of(trace)
        before = before_of(args.before, trace)
        short = trace.name.split(".")[0][:40]
        for finding_id in list(now) + [key for key in before if key not in now]:
            finding = now.get(finding_id, {})
            cost = finding.get("cost_us_per_step")
            share = finding.get("share_of_step_pct")
            print(
                f"| {short} | {finding_id} | {before.get(finding_id, '–')} |"
                f" {finding.get('status', '–')} |"
                f" {'–' if cost is None else f'{float(cost) / 1000:.3f} ms'} |"
                f" {'–' if share is None else f'{float(share):.2f} %'} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

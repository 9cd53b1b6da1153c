"""The command line: ``python -m tests.support.tracegen --steps 3 -o small.json``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tests.support.tracegen.formats import STYLES
from tests.support.tracegen.trace import expected_path_for, generate

#: Bytes in one "GB" of ``--size-gb`` (decimal, like sizes on disk).
GB = 1_000_000_000


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line's options."""
    p = argparse.ArgumentParser(
        prog="python -m tests.support.tracegen",
        description="Write a realistic synthetic Kineto trace and its ground truth.",
        epilog="See benchmarks/README.md.",
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument(
        "--size-gb",
        type=float,
        help="stop once the uncompressed JSON reaches this many GB (1e9 bytes)",
    )
    size.add_argument("--steps", type=int, help="exact number of ProfilerStep")
    p.add_argument(
        "-o", "--output", required=True, help="trace to create (never overwritten)"
    )
    p.add_argument(
        "--gzip", action="store_true", help="gzip it (sizes stay uncompressed)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--style",
        choices=STYLES,
        default="current",
        help="current: torch 2.x; 1.9: what PyTorch 1.8-1.10 wrote (string tids, "
        "Operator/Runtime/Kernel categories, async flows, whole microseconds)",
    )
    p.add_argument(
        "--depth", type=int, default=6, help="transformer blocks (default 6)"
    )
    p.add_argument(
        "--first-step", type=int, default=2, help="first ProfilerStep number"
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Write the trace the options ask for; print its size and speed."""
    args = _parse_args(argv)
    out = Path(args.output)
    if args.gzip and not out.name.endswith(".gz"):
        print(
            "tracegen: with --gzip the output name should end in .gz", file=sys.stderr
        )
        return 2
    for p in (out, expected_path_for(out)):
        if p.exists():
            print(f"tracegen: {p} exists; refusing to overwrite", file=sys.stderr)
            return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    size_bytes = None if args.size_gb is None else int(args.size_gb * GB)
    last = [time.perf_counter()]

    def progress(n: int, raw: int, events: int) -> None:
        """A progress line on stderr at most every 10 s."""
        now = time.perf_counter()
        if not args.quiet and now - last[0] > 10:
            last[0] = now
            print(
                f"  {n} steps, {raw / 1e6:.0f} MB, {events} events",
                file=sys.stderr,
                flush=True,
            )

    result = generate(
        out,
        steps=args.steps,
        seed=args.seed,
        size_bytes=size_bytes,
        gzip_output=args.gzip,
        first_step=args.first_step,
        depth=args.depth,
        style=args.style,
        progress=progress,
    )
    exp = result.expected
    secs = result.seconds
    print(
        f"wrote {out}: {out.stat().st_size / 1e6:.1f} MB on disk, "
        f"{result.raw_bytes / 1e6:.1f} MB of JSON, {exp['steps']['count']} steps, "
        f"{result.events} events, {exp['distinct_names']} distinct names"
    )
    print(
        f"generated in {secs:.2f} s: {result.events / secs:,.0f} events/s, "
        f"{result.raw_bytes / 1e6 / secs:.1f} MB/s"
    )
    print(f"ground truth: {result.expected_path}")
    return 0

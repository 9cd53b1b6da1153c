"""A run folder: one synthetic Kineto trace per rank, as torchrun ranks write them.

Each rank is `generate()` with its own seed (so ranks differ a little, as
real ranks do) and the same number of steps; its header's `distributedInfo`
says its rank and the world size. The generator's `*.expected.json` ground
truth goes to `DIR/expected/`, out of the run.

    .venv/bin/python -m tests.support.tracegen.ranks --ranks 8 --size-mb 140 -o bench-out/ranks/run8
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tests.support.tracegen.trace import generate

_HEADER_BYTES = 64 * 1024
_DISTRIBUTED = re.compile(rb'"distributedInfo":\s*\{[^\n]*\},\n')


def set_rank(path: Path, rank: int, world_size: int) -> None:
    """Rewrite the header's distributedInfo (rank, world size, group) in place of the generator's."""
    info = {
        "backend": "nccl",
        "rank": rank,
        "world_size": world_size,
        "pg_count": 1,
        "pg_config": [
            {
                "pg_name": "0",
                "pg_desc": "default_pg",
                "backend_config": "cuda:nccl",
                "pg_size": world_size,
                "ranks": list(range(world_size)),
            }
        ],
    }
    line = b'"distributedInfo": ' + json.dumps(info).encode() + b",\n"
    temporary = path.with_name(path.name + ".tmp")
    with path.open("rb") as source, temporary.open("wb") as target:
        head = source.read(_HEADER_BYTES)
        head, count = _DISTRIBUTED.subn(line, head, count=1)
        if count == 0:
            opening = head.index(b"{") + 1
            head = head[:opening] + b"\n  " + line + head[opening:]
        target.write(head)
        shutil.copyfileobj(source, target, 16 * 1024 * 1024)
    os.replace(temporary, path)


def generate_run(
    folder: Path,
    ranks: int,
    *,
    size_bytes: int | None = None,
    steps: int | None = None,
    seed: int = 0,
    gzip_output: bool = False,
    quiet: bool = False,
) -> list[Path]:
    """Write `ranks` traces `rank-N.pt.trace.json[.gz]` into `folder` (which must not hold any)."""
    folder.mkdir(parents=True, exist_ok=True)
    expected = folder / "expected"
    expected.mkdir(exist_ok=True)
    suffix = ".pt.trace.json.gz" if gzip_output else ".pt.trace.json"
    paths: list[Path] = []
    for rank in range(ranks):
        started = time.monotonic()
        path = folder / f"rank-{rank}{suffix}"
        result = generate(
            path,
            steps=steps,
            size_bytes=None if steps is not None else size_bytes,
            seed=seed + rank,
            gzip_output=gzip_output,
        )
        if steps is None:
            steps = int(result.expected["steps"]["count"])
        for sidecar in folder.glob(f"rank-{rank}.*expected.json"):
            os.replace(sidecar, expected / sidecar.name)
        if not gzip_output:
            set_rank(path, rank, ranks)
        else:
            _set_rank_gzip(path, rank, ranks)
        paths.append(path)
        if not quiet:
            print(
                f"rank {rank}: {path} ({path.stat().st_size / 1e6:.0f} MB, "
                f"{steps} steps, {time.monotonic() - started:.1f} s)",
                file=sys.stderr,
            )
    return paths


def _set_rank_gzip(path: Path, rank: int, world_size: int) -> None:
    """`set_rank` on a gzip trace: unzip, rewrite, zip again."""
    plain = path.with_name(path.name[: -len(".gz")])
    with gzip.open(path, "rb") as source, plain.open("wb") as target:
        shutil.copyfileobj(source, target, 16 * 1024 * 1024)
    set_rank(plain, rank, world_size)
    with plain.open("rb") as source, gzip.open(path, "wb", compresslevel=6) as target:
        shutil.copyfileobj(source, target, 16 * 1024 * 1024)
    plain.unlink()


def main(argv: Sequence[str] | None = None) -> int:
    """Write the run folder the options ask for."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.tracegen.ranks",
        description="Write a run folder: one synthetic Kineto trace per rank.",
    )
    parser.add_argument("--ranks", type=int, default=8)
    size = parser.add_mutually_exclusive_group(required=True)
    size.add_argument("--size-mb", type=float, help="JSON size of each rank")
    size.add_argument("--steps", type=int, help="exact ProfilerStep count per rank")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("-o", "--output", required=True, help="the run folder")
    args = parser.parse_args(argv)
    folder = Path(args.output)
    if folder.exists() and any(folder.glob("rank-*")):
        print(f"tracegen.ranks: {folder} already holds rank traces", file=sys.stderr)
        return 2
    generate_run(
        folder,
        args.ranks,
        size_bytes=None if args.size_mb is None else int(args.size_mb * 1e6),
        steps=args.steps,
        seed=args.seed,
        gzip_output=args.gzip,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

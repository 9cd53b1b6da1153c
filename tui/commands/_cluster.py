"""`--cluster ADDRESS`: summarise a run's ranks on a running Dask scheduler."""

from __future__ import annotations

import argparse

from tui.core.base.settings import settings


def add_cluster_option(parser: argparse.ArgumentParser) -> None:
    """Add `--cluster ADDRESS` (default: $STEPTRACE_CLUSTER; neither: the local pool)."""
    parser.add_argument(
        "--cluster",
        default=settings().cluster,
        metavar="ADDRESS",
        help="summarise the ranks as tasks on a running Dask scheduler "
        "(tcp://host:8786; default: $STEPTRACE_CLUSTER) whose workers see the "
        "run's folder at the same path; needs the cluster extra",
    )

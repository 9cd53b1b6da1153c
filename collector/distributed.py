"""Captures of a distributed job: one run folder, one `rank-N.pt.trace.json` per rank.

Torch-free at import, so the launcher (the CLI or the app) can check a run
folder before anything starts; `process_group_info` imports torch only when
called, inside a rank. The one module of the collector that reads the
process's environment (`process_environment`): the others ask it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from collector import paths
from collector.errors import InvalidSettingError, OutputExistsError, OutputFolderError

RUN_STEM = "steptrace-run"
RANK_FILE = re.compile(r"^rank-(\d+)(\.cycle\d+)?\.pt\.trace\.json(\.gz)?$")
# Launchers recognised by the variables they set in every rank's environment.
_LAUNCHER_VARIABLES = (
    ("TORCHELASTIC_RUN_ID", "torchrun"),
    ("OMPI_COMM_WORLD_RANK", "mpirun"),
    ("PMI_RANK", "mpirun"),
    ("SLURM_PROCID", "slurm"),
)


def rank_file(folder: Path, rank: int) -> Path:
    """Where a rank's trace goes in its run folder."""
    return folder / f"rank-{rank}.pt.trace.json"


def existing_rank_files(folder: Path) -> list[Path]:
    """The rank traces (any rank, any cycle) already in `folder`, by name."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(folder / name for name in names if RANK_FILE.match(name))


def _looks_like_a_file_name(path: Path) -> bool:
    return path.name.endswith((".json", ".gz"))


def check_run_folder(output: str | os.PathLike[str] | None) -> Path:
    """The run folder a distributed capture writes into, refused before anything runs.

    `auto` (or None) picks a fresh `steptrace-run-TIMESTAMP` folder in the
    current one. A named folder may exist (it must not hold any rank trace
    yet) or not (its parent must exist); nothing is created here.
    """
    if output is None or os.fspath(output) == paths.AUTO:
        folder = Path.cwd()
        paths.check_folder(folder)
        return paths.fresh_path(folder, RUN_STEM, "")
    path = Path(os.fspath(output)).expanduser()
    # Existence first, then what it is: another rank may create the folder
    # between the two questions, and a folder never turns into a file (asked
    # the other way round, rank 0 saw "not a folder" once a CI run).
    exists = path.exists()
    if exists and path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputFolderError(
                f"folder {path} is not writable; choose another run folder"
            )
        taken = existing_rank_files(path)
        if taken:
            shown = ", ".join(item.name for item in taken[:3])
            more = f" and {len(taken) - 3} more" if len(taken) > 3 else ""
            raise OutputExistsError(
                f"{path} already holds rank traces ({shown}{more}), which are never overwritten; "
                f"choose a fresh run folder, e.g. {paths.fresh_path(path.parent, path.name, '')}"
            )
        return path
    if exists or _looks_like_a_file_name(path):
        raise OutputFolderError(
            f"{path} is not a folder: a distributed capture writes one rank-N.pt.trace.json per rank "
            "into a run folder; name a folder (it is created if missing)"
        )
    paths.check_folder(path.parent if str(path.parent) else Path.cwd())
    return path


def make_run_folder(folder: Path) -> None:
    """Create the run folder (every rank may race to do it)."""
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise OutputFolderError(
            f"cannot create the run folder {folder}: {error.strerror}"
        ) from None


def process_environment() -> Mapping[str, str]:
    """This process's environment (where launchers announce ranks; what a child inherits)."""
    return os.environ


def launcher_from_environment(
    environment: Mapping[str, str] | None = None,
) -> str | None:
    """The launcher that started this rank, by the variables it sets; None when unknown."""
    variables = process_environment() if environment is None else environment
    for variable, launcher in _LAUNCHER_VARIABLES:
        if variable in variables:
            return launcher
    return None


def environment_rank(environment: Mapping[str, str] | None = None) -> int | None:
    """This process's rank as the launcher gave it (`RANK`), before any process group exists."""
    raw = (process_environment() if environment is None else environment).get("RANK")
    if raw is None:
        return None
    try:
        rank = int(raw)
    except ValueError:
        raise InvalidSettingError(f"RANK={raw!r} is not a whole number") from None
    if rank < 0:
        raise InvalidSettingError(f"RANK={raw!r} is negative")
    return rank


def environment_world_size(environment: Mapping[str, str] | None = None) -> int | None:
    """The world size the launcher announced (`WORLD_SIZE`), if any."""
    raw = (process_environment() if environment is None else environment).get(
        "WORLD_SIZE"
    )
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def process_group_info() -> dict[str, Any] | None:
    """World size, rank and backend of the initialised default process group, or None."""
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        return None
    return {
        "world_size": dist.get_world_size(),
        "rank": dist.get_rank(),
        "backend": str(dist.get_backend()),
    }

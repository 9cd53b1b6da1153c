"""Output names that are never overwritten, at check time and at write time.

A capture refuses an existing path before anything runs, and writes through a
temporary file in the same folder that is then hard-linked to its final name:
`os.link` fails if the name appeared meanwhile, so nothing is ever replaced.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import time
from pathlib import Path

from collector.errors import OutputExistsError, OutputFolderError

AUTO = "auto"


def split_name(path: Path) -> tuple[str, str]:
    """Stem and suffix, keeping `.json.gz` whole so a fresh name keeps it."""
    name = path.name
    for suffix in (".json.gz", ".pt.trace.json", ".json", ".gz"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], suffix
    return path.stem or name, path.suffix


def timestamp() -> str:
    """Local time to the second, sortable, safe in file names."""
    return time.strftime("%Y%m%d-%H%M%S")


def cycle_path(path: Path, cycle: int) -> Path:
    """Where cycle `cycle` (0-based) of a repeated window is written; cycle 0 is `path` itself."""
    if cycle == 0:
        return path
    stem, suffix = split_name(path)
    return path.with_name(f"{stem}.cycle{cycle + 1}{suffix}")


def _taken(path: Path) -> bool:
    return os.path.lexists(path)


def fresh_path(folder: Path, stem: str, suffix: str = ".json", cycles: int = 1) -> Path:
    """A timestamped name in `folder` that is free, with every cycle's companion name free too."""
    base = f"{stem}-{timestamp()}"
    for attempt in range(1, 1000):
        name = base if attempt == 1 else f"{base}-{attempt}"
        candidate = folder / f"{name}{suffix}"
        if not any(_taken(cycle_path(candidate, cycle)) for cycle in range(cycles)):
            return candidate
    raise OutputFolderError(
        f"no free name for {stem}-… in {folder}; clean the folder up"
    )


def suggest_fresh_name(path: Path, cycles: int = 1) -> Path:
    """A free sibling of `path`: same stem and suffix, with a timestamp."""
    stem, suffix = split_name(path)
    return fresh_path(path.parent, stem, suffix or ".json", cycles)


def check_folder(folder: Path) -> None:
    """Refuse a folder that is missing or not writable, before anything runs."""
    if not folder.is_dir():
        raise OutputFolderError(
            f"folder {folder} does not exist; create it or choose another output path"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFolderError(
            f"folder {folder} is not writable; choose another output path"
        )


def resolve_output(
    output: str | os.PathLike[str] | None,
    default_stem: str,
    cycles: int = 1,
    auto_folder: Path | None = None,
) -> Path:
    """The output path to use: `auto` (or None) picks a fresh name in `auto_folder` (default: the current one).

    An existing path is refused with a message that suggests a fresh name; so is
    an existing companion name of a later cycle.
    """
    if output is None or os.fspath(output) == AUTO:
        folder = auto_folder if auto_folder is not None else Path.cwd()
        check_folder(folder)
        return fresh_path(folder, default_stem, ".json", cycles)
    path = Path(os.fspath(output)).expanduser()
    if path.is_dir():
        raise OutputExistsError(
            f"{path} is a folder; give a file name, e.g. {fresh_path(path, default_stem, '.json', cycles)}"
        )
    check_folder(path.parent if str(path.parent) else Path.cwd())
    for cycle in range(cycles):
        taken = cycle_path(path, cycle)
        if _taken(taken):
            raise OutputExistsError(
                f"{taken} already exists and is never overwritten; "
                f"choose a fresh name, e.g. {suggest_fresh_name(path, cycles)}"
            )
    return path


def temporary_sibling(path: Path, purpose: str) -> Path:
    """A new, empty temporary file next to `path`, so linking it stays on one filesystem.

    Created with the usual permissions (0666 less the umask), as the final
    file should have, unlike `tempfile.mkstemp`'s private 0600.
    """
    for _attempt in range(100):
        candidate = path.with_name(f".{path.name}.{secrets.token_hex(4)}.{purpose}.tmp")
        try:
            handle = os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            continue
        os.close(handle)
        return candidate
    raise OutputFolderError(f"cannot create a temporary file next to {path}")


def _link(temporary: Path, final: Path) -> None:
    """Give `temporary`'s content the name `final`; FileExistsError if the name is taken."""
    try:
        os.link(temporary, final)
    except FileExistsError:
        raise
    except OSError:
        # Filesystems without hard links: exclusive create, then copy.
        with open(final, "xb") as target, open(temporary, "rb") as source:
            shutil.copyfileobj(source, target)


def publish_fresh(temporary: Path, final: Path) -> Path:
    """Publish `temporary` as `final`, or as a fresh sibling if `final` appeared meanwhile.

    Nothing is ever replaced. The temporary file is removed either way. Returns
    the path really written; the caller warns when it differs from `final`.
    """
    try:
        candidate = final
        for _attempt in range(100):
            try:
                _link(temporary, candidate)
                return candidate
            except FileExistsError:
                candidate = suggest_fresh_name(final)
        raise OutputFolderError(f"no free name next to {final}; clean the folder up")
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_new_file(final: Path, data: bytes) -> Path:
    """Write `data` to `final` without overwriting; a fresh sibling name if `final` is taken by then."""
    temporary = temporary_sibling(final, "write")
    try:
        with open(temporary, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return publish_fresh(temporary, final)

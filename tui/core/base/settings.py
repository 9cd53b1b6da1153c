"""The process's settings, from its environment: the one module of tui that reads it.

Every other module receives these values (`settings()`, or a parameter its
caller filled from them) and never reads `os.environ` itself, so the whole
list of variables steptrace obeys is this table:

| variable | field | effect |
|---|---|---|
| `STEPTRACE_CACHE_DIR` | `cache_dir` | the column cache's folder (default: `$XDG_CACHE_HOME/steptrace/columns`) |
| `STEPTRACE_NO_CACHE` | `no_cache` | any non-empty value: no column cache and no rank summaries, read or written |
| `STEPTRACE_SCRATCH_DIR` | `scratch_dir` | where parallel decode workers store their columns (default: shared memory when it has room, else the temporary folder) |
| `STEPTRACE_MAX_BYTES` | `max_bytes` | the largest decompressed trace accepted (a whole number of bytes, at least 1; default: half of physical memory); when set, a gzip file inflating past 500:1 is read anyway |
| `STEPTRACE_MAX_MEMORY` | `max_memory` | the memory a load (or a scrub) may plan to use, estimated from the events while reading, as `8G`, `512M` or bytes (default: a quarter of physical memory); `--max-memory` sets it for one command |
| `STEPTRACE_DATA_DIR` | `data_dir` | the per-user data folder, where notes go when a trace's folder cannot be written (default: `$XDG_DATA_HOME/steptrace`) |
| `STEPTRACE_CLUSTER` | `cluster` | the Dask scheduler a run's ranks are summarised on (`--cluster`'s default) |
| `STEPTRACE_DECODER` | `native_decoder` | `native`: decode a trace's complete events with DuckDB first (off by default; anything it cannot decode exactly goes the usual way) |
| `XDG_CACHE_HOME` | `xdg_cache_home` | the user's cache folder (default: `~/.cache`) |
| `XDG_DATA_HOME` | `xdg_data_home` | the user's data folder (default: `~/.local/share`) |
| `HOME` | (`Path.home()`) | the two defaults above, read only when they are needed |

An empty variable counts as unset, and so does a relative XDG folder (the
XDG base directory rule) or a `STEPTRACE_MAX_BYTES` that is not a whole
number. Child processes get this process's environment through
`child_environment`, so they read the same settings.

`settings()` reads the environment afresh at each call: eight dictionary
lookups, cheaper than any cache to invalidate, so a variable a test or an
embedding program sets takes effect at the next call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tui.core.base.units import parse_size

CACHE_DIR = "STEPTRACE_CACHE_DIR"
NO_CACHE = "STEPTRACE_NO_CACHE"
SCRATCH_DIR = "STEPTRACE_SCRATCH_DIR"
MAX_BYTES = "STEPTRACE_MAX_BYTES"
MAX_MEMORY = "STEPTRACE_MAX_MEMORY"
DATA_DIR = "STEPTRACE_DATA_DIR"
CLUSTER = "STEPTRACE_CLUSTER"
DECODER = "STEPTRACE_DECODER"
XDG_CACHE_HOME = "XDG_CACHE_HOME"
XDG_DATA_HOME = "XDG_DATA_HOME"


@dataclass(frozen=True)
class Settings:
    """What the environment sets, typed; None where a variable is unset (or unusable)."""

    cache_dir: Path | None = None
    no_cache: bool = False
    scratch_dir: str | None = None
    max_bytes: int | None = None
    max_memory: int | None = None
    data_dir: Path | None = None
    cluster: str | None = None
    native_decoder: bool = False
    xdg_cache_home: Path | None = None
    xdg_data_home: Path | None = None

    @classmethod
    def of(cls, environment: Mapping[str, str]) -> Settings:
        """The settings an environment gives (see the module's table)."""
        return cls(
            cache_dir=_path(environment.get(CACHE_DIR)),
            no_cache=bool(environment.get(NO_CACHE)),
            scratch_dir=environment.get(SCRATCH_DIR) or None,
            max_bytes=_whole_number(environment.get(MAX_BYTES)),
            max_memory=parse_size(environment.get(MAX_MEMORY) or ""),
            data_dir=_path(environment.get(DATA_DIR)),
            cluster=environment.get(CLUSTER) or None,
            native_decoder=environment.get(DECODER) == "native",
            xdg_cache_home=_absolute_path(environment.get(XDG_CACHE_HOME)),
            xdg_data_home=_absolute_path(environment.get(XDG_DATA_HOME)),
        )

    @property
    def cache_home(self) -> Path:
        """The user's cache folder: `$XDG_CACHE_HOME`, else `~/.cache`."""
        return self.xdg_cache_home or Path.home() / ".cache"

    @property
    def data_home(self) -> Path:
        """The user's data folder: `$XDG_DATA_HOME`, else `~/.local/share`."""
        return self.xdg_data_home or Path.home() / ".local" / "share"


def settings() -> Settings:
    """This process's settings, read from its environment now."""
    return Settings.of(os.environ)


def child_environment(*, python_path_first: str | None = None) -> dict[str, str]:
    """A copy of this process's environment for a child process, which then
    reads the same settings; `python_path_first` goes before any PYTHONPATH."""
    environment = dict(os.environ)
    if python_path_first is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            [python_path_first, *filter(None, [environment.get("PYTHONPATH")])]
        )
    return environment


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _absolute_path(value: str | None) -> Path | None:
    return Path(value) if value and os.path.isabs(value) else None


def _whole_number(value: str | None) -> int | None:
    if not value:
        return None
    try:
        return max(1, int(value))
    except ValueError:
        return None
